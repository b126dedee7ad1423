# HTTP/2 and TLS tests, included by the client Makefile. Prints TAP lines.
#   h2-integration: tests/h2/run.py against nginx and the h2-based fault server
#   build/test_http2: unit test of the HTTP/2 request and session (linked with libnghttp2)
UNIT_TESTS += test_http2

unit: $(BUILD)/test_http2

$(BUILD)/test_http2: tests/test_http2.c src/http2.c src/h2pool.c src/reqtext.c src/source_static.c src/url.c $(HEADERS) tests/tap.h
	@mkdir -p $(@D)
	$(CC) $(STD) $(WARN) $(CFLAGS) $(EXTRA_CFLAGS) $(H2_CFLAGS) -Isrc -o $@ $< $(H2_LIBS) $(EXTRA_LDFLAGS)

h2-integration: $(BUILD)/barrage
	$(PYTHON) tests/h2/run.py --barrage $(BUILD)/barrage $(H2_ARGS)

.PHONY: h2-integration
