# Checks on a run (--fail-on: src/threshold.c) and its per-request log (--log: src/reqlog.c),
# included by the client Makefile.
#   build/test_threshold                  unit test (the parser, split at every byte, and the verdicts)
#   build/test_reqlog                     unit test of --log's lines (src/reqlog.c)
#   build/test_textfield                  unit test of a script's text with --jwt-key's field (src/textfield.c)
#   checks-integration: tests/checks/run.py against nginx (--fail-on's exit status, --log)
#   make fuzz-threshold FUZZ_SECONDS=60   libFuzzer on fuzz/fuzz_threshold.c
UNIT_TESTS += test_threshold test_reqlog test_textfield

unit: $(BUILD)/test_threshold $(BUILD)/test_reqlog $(BUILD)/test_textfield

$(BUILD)/test_textfield: tests/test_textfield.c src/textfield.c src/reqtext.c $(HEADERS) tests/tap.h
	@mkdir -p $(@D)
	$(CC) $(STD) $(WARN) $(CFLAGS) $(EXTRA_CFLAGS) $(H2_CFLAGS) -Isrc -o $@ $< $(EXTRA_LDFLAGS)

$(BUILD)/test_reqlog: tests/test_reqlog.c src/reqlog.c $(HEADERS) tests/tap.h
	@mkdir -p $(@D)
	$(CC) $(STD) $(WARN) $(CFLAGS) $(EXTRA_CFLAGS) $(H2_CFLAGS) -Isrc -o $@ $< -lm $(EXTRA_LDFLAGS)

build/fuzz/fuzz_threshold: fuzz/fuzz_threshold.c src/threshold.c src/threshold.h src/stats.c src/hist.c $(HEADERS)
	@mkdir -p $(@D)
	$(CLANG) $(STD) $(WARN) -O1 -g -fsanitize=fuzzer,address,undefined $(H2_CFLAGS) -Isrc -o $@ $< -lm

fuzz-threshold: build/fuzz/fuzz_threshold
	@mkdir -p build/fuzz/threshold-corpus build/fuzz/threshold-seeds
	@printf 'failed>0.1%%,p99>20ms,rps<1000' > build/fuzz/threshold-seeds/example
	@printf ' errors.timeout >= 3 ,ttfb.max<=1.5s,successful_rps < 10/s,rate.unsent>1%%' > build/fuzz/threshold-seeds/forms
	@printf 'flow.capture_failed>0,flow.failed>=1%%,read.p95>50ms,get-item.failed>0.5%%,a.b.max<1s' > build/fuzz/threshold-seeds/flow
	@printf 'status.codes.503>0,p95>1ms,latency.p95>=2ms,read.unexpected>1' > build/fuzz/threshold-seeds/steps
	@if build/fuzz/fuzz_threshold -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -max_len=512 \
		-dict=fuzz/threshold.dict -artifact_prefix=build/fuzz/threshold- build/fuzz/threshold-corpus build/fuzz/threshold-seeds \
		> build/fuzz/threshold.log 2>&1; then \
		echo "ok - fuzz threshold for $(FUZZ_SECONDS)s: 0 crashes ($$(grep -o 'stat::number_of_executed_units: *[0-9]*' build/fuzz/threshold.log | grep -o '[0-9]*$$') runs)"; \
	else tail -n 40 build/fuzz/threshold.log; echo "not ok - fuzz threshold for $(FUZZ_SECONDS)s: crash (see client/build/fuzz/)"; exit 1; fi

checks-integration: $(BUILD)/barrage
	$(PYTHON) tests/checks/run.py --barrage $(BUILD)/barrage $(CHECKS_ARGS)

.PHONY: fuzz-threshold checks-integration
