/* Unit tests of hist.c: percentiles against a sorted array, merge, overflow. */
#include "../src/hist.c"

#include <stdio.h>
#include <stdlib.h>

#include "tap.h"

#define N 1000000

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* xorshift64*: reproducible values without libc's rand() range limits */
static uint64_t next_random(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 2685821657736338717ULL;
}

static uint64_t exact_percentile(const uint64_t *sorted, size_t n, double p)
{
    size_t rank = (size_t)ceil(p / 100.0 * (double)n);
    return sorted[rank ? rank - 1 : 0];
}

static void test_percentiles(const uint64_t *sorted, const struct hist *h)
{
    static const double ps[] = {1, 10, 50, 75, 90, 99, 99.9, 99.99, 100};
    int within = 1;
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        double want = (double)exact_percentile(sorted, N, ps[i]);
        double got = (double)hist_percentile(h, ps[i]);
        if (fabs(got - want) > want * 0.001) {
            printf("# p%g: got %.0f want %.0f\n", ps[i], got, want);
            within = 0;
        }
    }
    TAP_CHECK(within, "hist percentiles of 1,000,000 random values within 0.1%% of exact");
    TAP_CHECK(h->min == sorted[0] && h->max == sorted[N - 1], "hist min and max exact");
    double sum = 0;
    for (size_t i = 0; i < N; i++) sum += (double)sorted[i];
    TAP_CHECK(fabs(hist_mean(h) - sum / N) < 1e-6 * sum / N, "hist mean exact");
    double mean = sum / N, squares = 0;
    for (size_t i = 0; i < N; i++) squares += ((double)sorted[i] - mean) * ((double)sorted[i] - mean);
    double stdev = sqrt(squares / N);
    TAP_CHECK(fabs(hist_stdev(h) - stdev) < 1e-6 * stdev, "hist stdev exact (%.1f)", hist_stdev(h));
}

int main(void)
{
    uint64_t *values = malloc(N * sizeof *values), state = 88172645463325252ULL;
    struct hist whole, a, b;
    if (!values || hist_init(&whole) || hist_init(&a) || hist_init(&b)) return 1;
    for (size_t i = 0; i < N; i++) {
        /* log-uniform over 1 us .. ~17 min, so every bucket gets values */
        double exponent = (double)(next_random(&state) >> 11) / (double)(1ULL << 53) * 30.0;
        values[i] = (uint64_t)pow(2.0, exponent);
        hist_record(&whole, values[i]);
        hist_record(i % 3 ? &a : &b, values[i]);
    }
    qsort(values, N, sizeof *values, cmp_u64);
    test_percentiles(values, &whole);

    hist_merge(&a, &b);
    int same = a.total == whole.total && a.min == whole.min && a.max == whole.max;
    for (size_t i = 0; i < HIST_COUNTS_LEN; i++) same &= a.counts[i] == whole.counts[i];
    TAP_CHECK(same, "hist merge of two halves equals the whole");

    struct hist o;
    hist_init(&o);
    hist_record(&o, 5);
    hist_record(&o, HIST_HIGHEST_US);
    hist_record(&o, 2 * HIST_HIGHEST_US);
    TAP_CHECK(o.total == 3 && o.overflow == 1, "hist counts values over 1 hour as overflow, not dropped");
    TAP_CHECK(hist_percentile(&o, 100) == 2 * HIST_HIGHEST_US && o.max == 2 * HIST_HIGHEST_US,
              "hist p100 among overflow values is the max");
    TAP_CHECK(hist_percentile(&o, 50) >= HIST_HIGHEST_US && hist_percentile(&o, 50) <= HIST_HIGHEST_US / 1000 * 1001,
              "hist keeps 1 hour in range");
    TAP_CHECK(hist_percentile(&o, 10) == 5, "hist small values exact");

    struct hist empty;
    hist_init(&empty);
    TAP_CHECK(hist_percentile(&empty, 50) == 0 && hist_mean(&empty) == 0, "hist empty is all zero");
    hist_reset(&whole);
    int zero = whole.total == 0 && whole.max == 0 && whole.sum == 0 && hist_percentile(&whole, 99) == 0;
    for (size_t i = 0; i < HIST_COUNTS_LEN; i++) zero &= whole.counts[i] == 0;
    TAP_CHECK(zero, "hist reset forgets everything");

    hist_free(&whole);
    hist_free(&a);
    hist_free(&b);
    hist_free(&o);
    hist_free(&empty);
    free(values);
    TAP_EXIT();
}
