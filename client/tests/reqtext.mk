# reqtext tests, included by the client Makefile. Print TAP lines.
#   build/test_reqtext                   unit test (a unit test: make unit / test / test-sanitize run it)
#   make fuzz-reqtext FUZZ_SECONDS=60    libFuzzer on fuzz/fuzz_reqtext.c, seeded from fuzz/reqtext_seeds/
UNIT_TESTS += test_reqtext

unit: $(BUILD)/test_reqtext

# linked with libnghttp2: an nghttp2 server session reads the header blocks (reqtext.c only uses its types)
$(BUILD)/test_reqtext: tests/test_reqtext.c src/reqtext.c src/reqtext.h tests/reqtext_check.h tests/tap.h
	@mkdir -p $(@D)
	$(CC) $(STD) $(WARN) $(CFLAGS) $(EXTRA_CFLAGS) $(H2_CFLAGS) -Isrc -o $@ $< $(H2_LIBS) $(EXTRA_LDFLAGS)

.PHONY: fuzz-reqtext

build/fuzz/fuzz_reqtext: fuzz/fuzz_reqtext.c src/reqtext.c src/reqtext.h tests/reqtext_check.h
	@mkdir -p $(@D)
	$(CLANG) $(STD) $(WARN) -O1 -g -fsanitize=fuzzer,address,undefined $(H2_CFLAGS) -Isrc -o $@ $<

# seeds: each file behind a zero options byte (see fuzz/fuzz_reqtext.c)
fuzz-reqtext: build/fuzz/fuzz_reqtext
	@mkdir -p build/fuzz/reqtext-corpus build/fuzz/reqtext-seeds
	@for f in fuzz/reqtext_seeds/*; do printf '\000' | cat - "$$f" > "build/fuzz/reqtext-seeds/$${f##*/}"; done
	@if build/fuzz/fuzz_reqtext -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -dict=fuzz/reqtext.dict \
		-artifact_prefix=build/fuzz/reqtext- build/fuzz/reqtext-corpus build/fuzz/reqtext-seeds \
		> build/fuzz/reqtext.log 2>&1; then \
		echo "ok - fuzz reqtext for $(FUZZ_SECONDS)s: 0 crashes ($$(grep -o 'stat::number_of_executed_units: *[0-9]*' build/fuzz/reqtext.log | grep -o '[0-9]*$$') runs)"; \
	else tail -n 40 build/fuzz/reqtext.log; echo "not ok - fuzz reqtext for $(FUZZ_SECONDS)s: crash (see client/build/fuzz/)"; exit 1; fi
