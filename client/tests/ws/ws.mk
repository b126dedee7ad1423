# WebSocket tests (issue 53), included by the client Makefile. Prints TAP lines.
#   ws-integration: tests/ws/run.py against Python websockets' echo server (PyPI, in
#   .cache/wsvenv) and tests/ws/faulty_server.py
ws-integration: $(BUILD)/barrage
	$(PYTHON) tests/ws/run.py --barrage $(BUILD)/barrage $(WS_ARGS)

.PHONY: ws-integration
