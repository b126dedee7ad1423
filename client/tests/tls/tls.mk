# TLS connection tests (issue 39), included by the client Makefile. Prints TAP lines.
#   tls-integration: tests/tls/run.py against nginx: --tls-resume (tickets, session IDs,
#   TLS 1.3 and 1.2, a server that refuses), --cert/--key (ssl_verify_client on),
#   timeline new_connections, --idle-connections
tls-integration: $(BUILD)/barrage
	$(PYTHON) tests/tls/run.py --barrage $(BUILD)/barrage $(TLS_ARGS)

.PHONY: tls-integration
