/* Writes an HdrHistogram interval log with hdrlog.c and what a reader must
 * find in it, for tests/hdr/check.py (HdrHistogram's Python reader):
 *   write_log LOG_FILE EXPECTED_JSON [NS_LOG_FILE]
 * (LOG_FILE in microseconds, exact; NS_LOG_FILE the same lines in nanoseconds,
 * as --hdr-log-unit ns writes them)
 * Six one-second intervals, each an untagged ("corrected") and a Tag=uncorrected
 * line; one interval is empty, one holds values above the hour (overflow).
 * Counts are multiples of 1024 so that the dyadic percentiles below have
 * whole ranks under both rank rules (barrage's ceil, HdrHistogram's round).
 * EXPECTED_JSON: per line and for the whole run (hist_codec's base64, as the
 * --json record will carry it): total, every non-zero slot (its lowest and
 * highest value, count) and hist_percentile at each percentile. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "hdrlog.h"
#include "hist.h"
#include "hist_codec.h"

#define INTERVALS 6
#define START_EPOCH_MS 1700000000123ULL

static const double PERCENTILES[] = {50, 75, 87.5, 93.75, 96.875, 99.21875, 99.90234375, 100};

static uint64_t next_random(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 2685821657736338717ULL;
}

static void write_expected(FILE *out, const char *tag, uint64_t start_us, const struct hist *h, int with_base64)
{
    fprintf(out, "{\"tag\": %s%s%s, \"start_us\": %" PRIu64 ", \"total\": %" PRIu64 ", \"max\": %" PRIu64,
            tag ? "\"" : "", tag ? tag : "null", tag ? "\"" : "", start_us, h->total, h->max);
    if (with_base64) {
        char *text = hist_codec_encode_base64(h);
        fprintf(out, ", \"base64\": \"%s\"", text ? text : "");
        free(text);
    }
    fprintf(out, ", \"slots\": [");
    const char *sep = "";
    for (size_t i = 0; i < HIST_COUNTS_LEN; i++) {
        uint64_t count = h->counts[i] + (i == HIST_COUNTS_LEN - 1 ? h->overflow : 0);
        if (count == 0) continue;
        fprintf(out, "%s[%" PRIu64 ", %" PRIu64 ", %" PRIu64 "]", sep, hist_lowest_at(i), hist_highest_at(i), count);
        sep = ", ";
    }
    fprintf(out, "], \"percentiles\": [");
    for (size_t i = 0; h->total && i < sizeof PERCENTILES / sizeof PERCENTILES[0]; i++)
        fprintf(out, "%s[%.17g, %" PRIu64 "]", i ? ", " : "", PERCENTILES[i], hist_percentile(h, PERCENTILES[i]));
    fprintf(out, "]}");
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: write_log LOG_FILE EXPECTED_JSON [NS_LOG_FILE]\n");
        return 2;
    }
    FILE *log = fopen(argv[1], "w"), *expected = fopen(argv[2], "w"), *ns_log = fopen(argc == 4 ? argv[3] : "/dev/null", "w");
    struct hist corrected, uncorrected, whole_corrected, whole_uncorrected;
    if (!log || !expected || !ns_log || hist_init(&corrected) || hist_init(&uncorrected) || hist_init(&whole_corrected)
        || hist_init(&whole_uncorrected))
        return 1;
    int rc = hdrlog_write_header(log, START_EPOCH_MS, HDRLOG_US, "barrage test: corrected latency untagged, Tag=uncorrected");
    rc |= hdrlog_write_header(ns_log, START_EPOCH_MS, HDRLOG_NS, "barrage test: corrected latency untagged, Tag=uncorrected");
    fprintf(expected, "{\"start_epoch_ms\": %llu, \"lines\": [", START_EPOCH_MS);
    uint64_t state = 0x9e3779b97f4a7c15ULL;
    for (int k = 0; k < INTERVALS; k++) {
        hist_reset(&corrected);
        hist_reset(&uncorrected);
        int n = k == 2 ? 0 : 1024 * (k + 1);
        for (int i = 0; i < n; i++) {
            uint64_t sent = 50 + next_random(&state) % 5000;  /* 50 us .. 5 ms */
            uint64_t lag = next_random(&state) % 4 == 0 ? next_random(&state) % 2000000 : 0; /* waited up to 2 s */
            hist_record(&uncorrected, sent);
            hist_record(&corrected, k == 4 && i < 8 ? 2 * HIST_HIGHEST_US + (uint64_t)i : sent + lag);
        }
        uint64_t start_us = (uint64_t)k * 1000000 + 123;
        rc |= hdrlog_write_interval(log, HDRLOG_US, NULL, start_us, 1000000, &corrected);
        rc |= hdrlog_write_interval(log, HDRLOG_US, "uncorrected", start_us, 1000000, &uncorrected);
        rc |= hdrlog_write_interval(ns_log, HDRLOG_NS, NULL, start_us, 1000000, &corrected);
        rc |= hdrlog_write_interval(ns_log, HDRLOG_NS, "uncorrected", start_us, 1000000, &uncorrected);
        fprintf(expected, "%s\n", k ? "," : "");
        write_expected(expected, NULL, start_us, &corrected, 0);
        fprintf(expected, ",\n");
        write_expected(expected, "uncorrected", start_us, &uncorrected, 0);
        hist_merge(&whole_corrected, &corrected);
        hist_merge(&whole_uncorrected, &uncorrected);
    }
    fprintf(expected, "],\n\"whole\": [");
    write_expected(expected, NULL, 0, &whole_corrected, 1);
    fprintf(expected, ",\n");
    write_expected(expected, "uncorrected", 0, &whole_uncorrected, 1);
    fprintf(expected, "]}\n");
    rc |= fclose(log) | fclose(expected) | fclose(ns_log);
    hist_free(&corrected);
    hist_free(&uncorrected);
    hist_free(&whole_corrected);
    hist_free(&whole_uncorrected);
    return rc ? 1 : 0;
}
