# Fixed-rate (-R) tests, included by the client Makefile. Prints TAP lines.
#   rate-integration: tests/rate/run.py against nginx, the test servers and
#   tests/rate/delay_server.c (answers after a fixed delay)
$(BUILD)/rate_delay_server: tests/rate/delay_server.c
	@mkdir -p $(@D)
	$(CC) $(STD) $(WARN) -O2 -o $@ $< -lpthread

rate-integration: $(BUILD)/barrage $(BUILD)/rate_delay_server
	$(PYTHON) tests/rate/run.py --barrage $(BUILD)/barrage --delay-server $(BUILD)/rate_delay_server $(RATE_ARGS)

.PHONY: rate-integration

# rate-tsan: barrage under ThreadSanitizer (what crosses between the workers and the main
# thread: intervals, --control commands) in the cases with threads, --control and --live;
# a race report makes barrage exit 66, so the case fails.
tsan-barrage:
	@$(MAKE) -s BUILD=build/tsan CC=$(CLANG) CFLAGS="-O1 -g" EXTRA_CFLAGS=-fsanitize=thread \
		EXTRA_LDFLAGS=-fsanitize=thread build/tsan/barrage

rate-tsan: $(BUILD)/rate_delay_server tsan-barrage
	TSAN_OPTIONS="exitcode=66" $(PYTHON) tests/rate/run.py --barrage build/tsan/barrage \
		--delay-server $(BUILD)/rate_delay_server --only control_fifo --label " (thread sanitizer)"

.PHONY: rate-tsan tsan-barrage
