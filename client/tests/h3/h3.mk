# HTTP/3 tests, included by the client Makefile. Prints TAP lines.
#   h3-integration: tests/h3/run.py against the aioquic test server (tests/h3/h3server.py);
#   with a barrage built without HTTP/3 only the usage case runs (the rest skip)
h3-integration: $(BUILD)/barrage
	$(PYTHON) tests/h3/run.py --barrage $(BUILD)/barrage $(H3_ARGS)

.PHONY: h3-integration
