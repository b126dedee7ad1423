# --jwt-key (a signed JWT per request), included by the client Makefile.
#   build/test_jwt, build/test_jwtpool   unit tests (linked with OpenSSL, pthreads)
#   jwt-integration: tests/jwt/run.py: every token a test server received verified with PyJWT
#   make fuzz-jwt FUZZ_SECONDS=60    libFuzzer on fuzz/fuzz_jwt.c
UNIT_TESTS += test_jwt test_jwtpool

unit: $(BUILD)/test_jwt $(BUILD)/test_jwtpool

$(BUILD)/test_jwt: tests/test_jwt.c src/jwt.c $(HEADERS) tests/tap.h
	@mkdir -p $(@D)
	$(CC) $(STD) $(WARN) $(CFLAGS) $(EXTRA_CFLAGS) $(H2_CFLAGS) -Isrc -o $@ $< $(H2_LIBS) $(EXTRA_LDFLAGS)

$(BUILD)/test_jwtpool: tests/test_jwtpool.c src/jwtpool.c $(HEADERS) tests/tap.h
	@mkdir -p $(@D)
	$(CC) $(STD) $(WARN) $(CFLAGS) $(EXTRA_CFLAGS) -Isrc -o $@ $< -lpthread $(EXTRA_LDFLAGS)

jwt-integration: $(BUILD)/barrage
	$(PYTHON) tests/jwt/run.py --barrage $(BUILD)/barrage $(JWT_ARGS)

.PHONY: jwt-integration

# libFuzzer on jwt.c's building blocks (fuzz/fuzz_jwt.c): DER signatures, claims JSON, base64url
build/fuzz/fuzz_jwt: fuzz/fuzz_jwt.c src/jwt.c src/jwt.h
	@mkdir -p $(@D)
	$(CLANG) $(STD) $(WARN) -O1 -g -fsanitize=fuzzer,address,undefined $(H2_CFLAGS) -Isrc -o $@ $< $(H2_LIBS)

fuzz-jwt: build/fuzz/fuzz_jwt
	@mkdir -p build/fuzz/jwt-corpus
	@if build/fuzz/fuzz_jwt -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -max_len=512 \
		-artifact_prefix=build/fuzz/jwt- build/fuzz/jwt-corpus > build/fuzz/jwt.log 2>&1; then \
		echo "ok - fuzz jwt for $(FUZZ_SECONDS)s: 0 crashes ($$(grep -o 'stat::number_of_executed_units: *[0-9]*' build/fuzz/jwt.log | grep -o '[0-9]*$$') runs)"; \
	else tail -n 40 build/fuzz/jwt.log; echo "not ok - fuzz jwt for $(FUZZ_SECONDS)s: crash (see client/build/fuzz/)"; exit 1; fi

.PHONY: fuzz-jwt
