# --jwt-key (a signed JWT per request), included by the client Makefile.
#   build/test_jwt, build/test_jwtpool   unit tests (linked with OpenSSL, pthreads)
#   jwt-integration: tests/jwt/run.py: every token a test server received verified with PyJWT
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
