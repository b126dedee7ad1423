# Fixed-rate (-R) tests, included by the client Makefile. Prints TAP lines.
#   rate-integration: tests/rate/run.py against nginx, the test servers and
#   tests/rate/delay_server.c (answers after a fixed delay)
$(BUILD)/rate_delay_server: tests/rate/delay_server.c
	@mkdir -p $(@D)
	$(CC) $(STD) $(WARN) -O2 -o $@ $< -lpthread

rate-integration: $(BUILD)/barrage $(BUILD)/rate_delay_server
	$(PYTHON) tests/rate/run.py --barrage $(BUILD)/barrage --delay-server $(BUILD)/rate_delay_server $(RATE_ARGS)

.PHONY: rate-integration
