/* Unit tests of hdrlog.c: the exact header and interval lines, tags, bad
 * input, write errors. (tests/hdr/check.py reads such logs with HdrHistogram's
 * Python reader.) */
#include "../src/hdrlog.c"
#include "../src/hist.c"
#include "../src/hist_codec.c"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

static const char HEADER[] =
    "#[Histogram log format version 1.3]\n"
    "#[StartTime: 1700000000.123 (seconds since epoch), 2023-11-14T22:13:20.123Z]\n"
    "#[BaseTime: 1700000000.123 (seconds since epoch)]\n"
    "#barrage: values are microseconds (us; HdrHistogram's tools assume ns: -outputValueUnitRatio 1000); Interval_Max is in milliseconds; "
    "StartTimestamp and Interval_Length are seconds since BaseTime\n"
    "#corrected latency untagged\n"
    "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n";

int main(void)
{
    struct hist h, back;
    if (hist_init(&h) || hist_init(&back)) return 1;
    hist_record(&h, 250);
    hist_record(&h, 12345);
    hist_record(&h, 7);

    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    int rc = hdrlog_write_header(out, 1700000000123ULL, HDRLOG_US, "corrected latency untagged");
    rc |= hdrlog_write_interval(out, HDRLOG_US, NULL, 1500, 999600, &h);
    rc |= hdrlog_write_interval(out, HDRLOG_US, "uncorrected", 1001500, 1000000, &h);
    fclose(out);
    char *b64 = hist_codec_encode_base64(&h), want[4096];
    snprintf(want, sizeof want, "%s0.002,1.000,12.345,%s\nTag=uncorrected,1.002,1.000,12.345,%s\n", HEADER, b64, b64);
    TAP_CHECK(rc == 0 && strcmp(text, want) == 0, "hdrlog writes the 1.3 header, untagged and tagged lines");
    if (strcmp(text, want) != 0) printf("# got:\n%s# want:\n%s", text, want);

    const char *line = strstr(text, "Tag=uncorrected,");
    const char *histogram = strrchr(line, ',') + 1;
    TAP_CHECK(hist_codec_decode_base64(&back, histogram, strcspn(histogram, "\n")) == 0 && back.total == 3
                  && back.counts[index_of(12345)] == 1,
              "hdrlog: the line's histogram decodes to the counts written");
    free(text);
    free(b64);

    hist_reset(&h);
    hist_record(&h, 3 * HIST_HIGHEST_US);
    out = open_memstream(&text, &size);
    rc = hdrlog_write_interval(out, HDRLOG_US, "x", 0, 0, &h);
    fclose(out);
    TAP_CHECK(rc == 0 && strncmp(text, "Tag=x,0.000,0.000,10800000.000,HISTF", 36) == 0,
              "hdrlog: Interval_Max is the exact max, overflow included");
    free(text);

    out = open_memstream(&text, &size);
    int refused = hdrlog_write_interval(out, HDRLOG_US, "a,b", 0, 0, &h) == -1 && hdrlog_write_interval(out, HDRLOG_US, "a b", 0, 0, &h) == -1
               && hdrlog_write_interval(out, HDRLOG_US, "", 0, 0, &h) == -1
               && hdrlog_write_header(out, 0, HDRLOG_US, "two\nlines") == -1;
    fclose(out);
    TAP_CHECK(refused && size == 0, "hdrlog refuses tags the readers would split and comments of two lines");
    free(text);

    /* nanoseconds: the header says so; the histogram is not the microsecond one */
    out = open_memstream(&text, &size);
    rc = hdrlog_write_header(out, 1700000000123ULL, HDRLOG_NS, NULL);
    rc |= hdrlog_write_interval(out, HDRLOG_NS, NULL, 0, 1000000, &h);
    fclose(out);
    b64 = hist_codec_encode_base64(&h);
    TAP_CHECK(rc == 0 && strstr(text, "#barrage: values are nanoseconds (ns; measured to the microsecond)")
                  && strstr(text, "\n0.000,1.000,10800000.000,HISTF") && !strstr(text, b64),
              "hdrlog --hdr-log-unit ns: the header names the unit, the histogram is re-encoded");
    free(text);
    free(b64);

    FILE *readonly = fopen("/dev/null", "r");
    TAP_CHECK(readonly && hdrlog_write_header(readonly, 0, HDRLOG_US, NULL) == -1
                  && hdrlog_write_interval(readonly, HDRLOG_US, NULL, 0, 0, &h) == -1,
              "hdrlog reports a write error");
    if (readonly) fclose(readonly);
    hist_free(&h);
    hist_free(&back);
    TAP_EXIT();
}
