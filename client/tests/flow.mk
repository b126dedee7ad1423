# Request chains (--flow), included by the client Makefile.
#   build/test_flow    unit tests of flow.c, flowvars.c, expect.c
#   flow-integration   tests/flow/run.py: chains against a fixture API server (HTTP/1.1, HTTP/2, HTTP/3)
#   make fuzz-flow FUZZ_SECONDS=60   libFuzzer on fuzz/fuzz_flow.c (the parser and the JSON pointer reader)
UNIT_TESTS += test_flow

flow-integration: $(BUILD)/barrage
	$(PYTHON) tests/flow/run.py --barrage $(BUILD)/barrage $(FLOW_ARGS)

build/fuzz/fuzz_flow: fuzz/fuzz_flow.c src/flow.c src/flow.h src/flowvars.c src/flowvars.h src/expect.c src/expect.h \
		src/fileread.c src/url.c src/url.h
	@mkdir -p $(@D)
	$(CLANG) $(STD) $(WARN) -O1 -g -fsanitize=fuzzer,address,undefined -Isrc -o $@ $<

# seeds: the unit tests' flow forms and a JSON document
fuzz-flow: build/fuzz/fuzz_flow
	@mkdir -p build/fuzz/flow-corpus build/fuzz/flow-seeds
	@printf 'POST /items @b.json\n  step create\n  Content-Type: application/json\n  expect 201,2xx\n  capture item = header:Location\n  capture id = json:/id\nGET $${item}?u=$${user}\r\n\texpect body ~ "id": *[0-9]+\n\tthink 25ms\nPATCH /items/$${id}\n  body {"n": $${seq}, "r": $${rand:5-9}, "x": "$${uuid}"}\n  capture t = regex:t=([a-z]+)\n/x/$${csv:u.csv:name}\n\001{"id": 42, "a": [1, {"b": "x\\u00e9"}]}' \
		> build/fuzz/flow-seeds/forms
	@if build/fuzz/fuzz_flow -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -max_len=1024 \
		-artifact_prefix=build/fuzz/flow- build/fuzz/flow-corpus build/fuzz/flow-seeds > build/fuzz/flow.log 2>&1; then \
		echo "ok - fuzz flow for $(FUZZ_SECONDS)s: 0 crashes ($$(grep -o 'stat::number_of_executed_units: *[0-9]*' build/fuzz/flow.log | grep -o '[0-9]*$$') runs)"; \
	else tail -n 40 build/fuzz/flow.log; echo "not ok - fuzz flow for $(FUZZ_SECONDS)s: crash (see client/build/fuzz/)"; exit 1; fi

.PHONY: flow-integration fuzz-flow
