# HTTP/2 and TLS integration tests (tests/h2/run.py) against nginx and the
# h2-based fault server; included by the client Makefile. Prints TAP lines.
h2-integration: $(BUILD)/barrage
	$(PYTHON) tests/h2/run.py --barrage $(BUILD)/barrage $(H2_ARGS)

.PHONY: h2-integration
