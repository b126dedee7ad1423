/* hdrlog: the interval log's lines, times printed from integers (no
 * floating-point rounding in the timestamps). */
#include "hdrlog.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hist_codec.h"

#define MS_PER_S 1000u

int hdrlog_write_header(FILE *out, uint64_t start_epoch_ms, enum hdrlog_unit unit, const char *comment)
{
    if (comment && strpbrk(comment, "\r\n")) return -1;
    time_t seconds = (time_t)(start_epoch_ms / MS_PER_S);
    unsigned ms = (unsigned)(start_epoch_ms % MS_PER_S);
    struct tm utc;
    char date[32];
    if (!gmtime_r(&seconds, &utc) || !strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &utc)) return -1;
    int rc = fprintf(out,
                     "#[Histogram log format version 1.3]\n"
                     "#[StartTime: %lld.%03u (seconds since epoch), %s.%03uZ]\n"
                     "#[BaseTime: %lld.%03u (seconds since epoch)]\n"
                     "#barrage: values are %s; Interval_Max is in milliseconds; "
                     "StartTimestamp and Interval_Length are seconds since BaseTime\n",
                     (long long)seconds, ms, date, ms, (long long)seconds, ms,
                     unit == HDRLOG_NS ? "nanoseconds (ns; measured to the microsecond)"
                                       : "microseconds (us; HdrHistogram's tools assume ns: -outputValueUnitRatio 1000)");
    if (rc >= 0 && comment) rc = fprintf(out, "#%s\n", comment);
    if (rc >= 0) rc = fputs("\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n", out);
    return rc < 0 ? -1 : 0;
}

static int tag_valid(const char *tag)
{
    if (!*tag) return 0;
    for (const char *c = tag; *c; c++) {
        int ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_'
              || *c == '-' || *c == '.';
        if (!ok) return 0;
    }
    return 1;
}

int hdrlog_write_interval(FILE *out, enum hdrlog_unit unit, const char *tag, uint64_t start_us, uint64_t length_us,
                          const struct hist *h)
{
    if (tag && !tag_valid(tag)) return -1;
    char *histogram = unit == HDRLOG_NS ? hist_codec_encode_base64_ns(h) : hist_codec_encode_base64(h);
    if (!histogram) return -1;
    uint64_t start_ms = (start_us + 500) / 1000, length_ms = (length_us + 500) / 1000;
    int rc = fprintf(out, "%s%s%s%llu.%03u,%llu.%03u,%llu.%03u,%s\n", tag ? "Tag=" : "", tag ? tag : "",
                     tag ? "," : "", (unsigned long long)(start_ms / MS_PER_S), (unsigned)(start_ms % MS_PER_S),
                     (unsigned long long)(length_ms / MS_PER_S), (unsigned)(length_ms % MS_PER_S),
                     (unsigned long long)(h->max / 1000), (unsigned)(h->max % 1000), histogram);
    free(histogram);
    return rc < 0 ? -1 : 0;
}
