/* Unit tests of metrics_text.c: bucket bounds 2^(1/8) apart and values on
 * either side of a bound; the exposition's counters add up each merged
 * second; the latency buckets are cumulative, non-decreasing, each holding
 * the values at or below its bound, and +Inf equals _count; every sample
 * line is NAME{LABELS} VALUE under a TYPE line of its family. */
#include "../src/hist.c"
#include "../src/interval.c"
#include "../src/metrics_text.c"

#include <stdlib.h>
#include <string.h>

#include "tap.h"

static void test_buckets(void)
{
    bool ok = true;
    for (unsigned k = 1; k < METRICS_BUCKETS; k++) {
        double ratio = metrics_bucket_bound_us(k) / metrics_bucket_bound_us(k - 1);
        ok = ok && ratio > 1.0905 && ratio < 1.0906;
    }
    TAP_CHECK(ok, "bounds are 2^(1/8) apart");
    TAP_CHECK(metrics_bucket_of(0) == 0 && metrics_bucket_of(1) == 0 && metrics_bucket_of(2) == 8,
              "0 and 1 us in the first bucket, 2 us in bucket 8 (bound 2 exactly)");
    ok = true;
    for (uint64_t v = 1; v < 5000000; v = v * 3 / 2 + 1) {
        unsigned k = metrics_bucket_of(v);
        ok = ok && (double)v <= metrics_bucket_bound_us(k) && (k == 0 || (double)v > metrics_bucket_bound_us(k - 1));
    }
    TAP_CHECK(ok, "every value lands in the lowest bucket whose bound is at or above it");
    TAP_CHECK(metrics_bucket_of(UINT64_C(1) << 32) == METRICS_BUCKETS - 1 &&
                  metrics_bucket_of((UINT64_C(1) << 32) + 1) == METRICS_BUCKETS,
              "2^32 us in the last bucket, above it only in +Inf");
}

/* The value of the sample line that starts with `prefix` (followed by a space), or -1. */
static double sample(const char *text, const char *prefix)
{
    size_t n = strlen(prefix);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (strncmp(p, prefix, n) == 0 && p[n] == ' ') return strtod(p + n + 1, NULL);
    return -1;
}

/* Every line is a comment or "NAME[{...}] NUMBER", and a sample's family had its TYPE line. */
static bool well_formed(const char *text)
{
    char *copy = strdup(text), *save = NULL, family[128] = "";
    bool ok = copy && text[strlen(text) - 1] == '\n';
    for (char *line = copy ? strtok_r(copy, "\n", &save) : NULL; ok && line; line = strtok_r(NULL, "\n", &save)) {
        if (strncmp(line, "# TYPE ", 7) == 0) {
            ok = sscanf(line + 7, "%127s", family) == 1;
            continue;
        }
        if (line[0] == '#') continue;
        size_t name_len = strcspn(line, "{ ");
        char *value = strrchr(line, ' ');
        char *end = NULL;
        if (value) strtod(value + 1, &end);
        ok = value && end && *end == '\0' && end != value + 1 && strncmp(line, family, strlen(family)) == 0 &&
             name_len >= strlen(family);
    }
    free(copy);
    return ok;
}

static struct interval *second(unsigned responses, uint64_t latency_us, unsigned errors)
{
    struct interval *iv = interval_new();
    if (!iv) abort();
    for (unsigned i = 0; i < responses; i++) {
        iv->sent++;
        interval_response(iv, i % 4 == 3 ? 503 : 200, latency_us + i, latency_us);
    }
    for (unsigned i = 0; i < errors; i++) interval_error(iv, REQ_ERR_TIMEOUT, 5000);
    iv->bytes_sent = 100;
    iv->new_connections = 2;
    iv->open_connections = 2;
    iv->in_flight = 1;
    return iv;
}

static void test_render(void)
{
    struct metrics_totals t = {0};
    struct interval *a = second(40, 1000, 1), *b = second(20, 50000, 0);
    interval_response(b, 200, UINT64_C(1) << 33, 1); /* above every bound: +Inf only */
    metrics_totals_add(&t, a);
    metrics_totals_add(&t, b);
    size_t len;
    char *text = metrics_render(&t, &len);
    TAP_CHECK(text && strlen(text) == len && well_formed(text), "the text is well formed (TYPE lines, NAME VALUE)");
    TAP_CHECK(sample(text, "barrage_requests_total{outcome=\"success\"}") == 46 &&
                  sample(text, "barrage_requests_total{outcome=\"http_5xx\"}") == 15 &&
                  sample(text, "barrage_requests_total{outcome=\"timeout\"}") == 1,
              "requests by outcome add up over the seconds");
    TAP_CHECK(sample(text, "barrage_sent_bytes_total") == 200 && sample(text, "barrage_connections_opened_total") == 4 &&
                  sample(text, "barrage_connections_open") == 2 && sample(text, "barrage_requests_in_flight") == 1,
              "counters add, gauges are the last second's");
    double count = sample(text, "barrage_latency_seconds_count");
    TAP_CHECK(count == 61 && sample(text, "barrage_latency_seconds_bucket{le=\"+Inf\"}") == count,
              "+Inf equals _count (61 latencies, one above every bound)");
    bool cumulative = true;
    double last = 0, at_1ms = -1;
    for (unsigned k = 0; k < METRICS_BUCKETS; k++) {
        char prefix[96];
        snprintf(prefix, sizeof prefix, "barrage_latency_seconds_bucket{le=\"%.9g\"}", metrics_bucket_bound_us(k) / 1e6);
        double v = sample(text, prefix);
        cumulative = cumulative && v >= last;
        last = v;
        if (at_1ms < 0 && metrics_bucket_bound_us(k) >= 1000 + 39) at_1ms = v;
    }
    TAP_CHECK(cumulative && last == 60, "buckets are cumulative and the last one holds all but the one above it");
    TAP_CHECK(at_1ms == 40, "the first bucket at or above 1.039 ms holds the 40 values 1000..1039 us");
    free(text);
    t.finished = true;
    text = metrics_render(&t, &len);
    TAP_CHECK(text && sample(text, "barrage_run_finished") == 1, "barrage_run_finished 1 once final");
    free(text);
    interval_free(a);
    interval_free(b);
}

int main(void)
{
    test_buckets();
    test_render();
    TAP_EXIT();
}
