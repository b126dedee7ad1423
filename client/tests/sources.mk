# Request sources without a script (--urls, --rand-url), included by the client Makefile.
#   build/test_regexgen, build/test_urllist, build/test_reqbuild   unit tests
#   sources-integration: tests/sources/run.py against nginx (its access log records every request)
#   make fuzz-regexgen FUZZ_SECONDS=60    libFuzzer on fuzz/fuzz_regexgen.c (fuzz-urllist: fuzz/fuzz_urllist.c)
UNIT_TESTS += test_regexgen test_urllist test_reqbuild test_stages

unit: $(BUILD)/test_reqbuild $(BUILD)/test_regexgen $(BUILD)/test_urllist $(BUILD)/test_stages

$(BUILD)/test_reqbuild: tests/test_reqbuild.c src/reqbuild.c $(HEADERS) tests/tap.h
	@mkdir -p $(@D)
	$(CC) $(STD) $(WARN) $(CFLAGS) $(EXTRA_CFLAGS) $(H2_CFLAGS) -Isrc -o $@ $< $(H2_LIBS) $(EXTRA_LDFLAGS)

sources-integration: $(BUILD)/barrage
	$(PYTHON) tests/sources/run.py --barrage $(BUILD)/barrage $(SOURCES_ARGS)

build/fuzz/fuzz_regexgen: fuzz/fuzz_regexgen.c src/regexgen.c src/regexgen.h src/rng.h
	@mkdir -p $(@D)
	$(CLANG) $(STD) $(WARN) -O1 -g -fsanitize=fuzzer,address,undefined -Isrc -o $@ $<

fuzz-regexgen: build/fuzz/fuzz_regexgen
	@mkdir -p build/fuzz/regexgen-corpus
	@if build/fuzz/fuzz_regexgen -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -max_len=64 \
		-artifact_prefix=build/fuzz/regexgen- build/fuzz/regexgen-corpus > build/fuzz/regexgen.log 2>&1; then \
		echo "ok - fuzz regexgen for $(FUZZ_SECONDS)s: 0 crashes ($$(grep -o 'stat::number_of_executed_units: *[0-9]*' build/fuzz/regexgen.log | grep -o '[0-9]*$$') runs)"; \
	else tail -n 40 build/fuzz/regexgen.log; echo "not ok - fuzz regexgen for $(FUZZ_SECONDS)s: crash (see client/build/fuzz/)"; exit 1; fi

.PHONY: sources-integration fuzz-regexgen

build/fuzz/fuzz_urllist: fuzz/fuzz_urllist.c src/urllist.c src/urllist.h src/fileread.c src/fileread.h src/url.c src/url.h
	@mkdir -p $(@D)
	$(CLANG) $(STD) $(WARN) -O1 -g -fsanitize=fuzzer,address,undefined -Isrc -o $@ $<

# the --urls list parser (fuzz/fuzz_urllist.c), seeded from tests' list forms
fuzz-urllist: build/fuzz/fuzz_urllist
	@mkdir -p build/fuzz/urllist-corpus build/fuzz/urllist-seeds
	@printf '\000/a\r\n# c\n\n  POST /b?x=1 @b.json\nhttp://127.0.0.1:9000/c\nDELETE http://[::1]/d\n' \
		> build/fuzz/urllist-seeds/forms
	@printf '\001https://h:443/x\n/y\nGET\n' > build/fuzz/urllist-seeds/tls
	@if build/fuzz/fuzz_urllist -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -max_len=512 \
		-artifact_prefix=build/fuzz/urllist- build/fuzz/urllist-corpus build/fuzz/urllist-seeds \
		> build/fuzz/urllist.log 2>&1; then \
		echo "ok - fuzz urllist for $(FUZZ_SECONDS)s: 0 crashes ($$(grep -o 'stat::number_of_executed_units: *[0-9]*' build/fuzz/urllist.log | grep -o '[0-9]*$$') runs)"; \
	else tail -n 40 build/fuzz/urllist.log; echo "not ok - fuzz urllist for $(FUZZ_SECONDS)s: crash (see client/build/fuzz/)"; exit 1; fi

.PHONY: fuzz-urllist
