# HdrHistogram interoperability, included by the client Makefile. Prints TAP lines.
#   hdr-check: tests/hdr/check.py reads what tests/hdr/write_log.c writes with hdrlog.c and
#   hist_codec.c, using HdrHistogram's Python package (installed into .cache/hdrvenv)
HDR_SRCS = src/hdrlog.c src/hist_codec.c src/hist.c

$(BUILD)/hdr_write_log: tests/hdr/write_log.c $(HDR_SRCS) $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(STD) $(WARN) $(CFLAGS) $(EXTRA_CFLAGS) -Isrc -o $@ $< $(HDR_SRCS) -lm -lz $(EXTRA_LDFLAGS)

hdr-check: $(BUILD)/hdr_write_log
	$(PYTHON) tests/hdr/check.py --write-log $(BUILD)/hdr_write_log

.PHONY: hdr-check
