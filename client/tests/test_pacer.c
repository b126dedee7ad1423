/* Unit tests of pacer.c: exact even spacing (no drift over 10^7 requests),
 * Poisson gaps (mean and variance), rate changes with and without a backlog,
 * pause, reproducibility by seed, extreme rates, bad arguments. */
#include "../src/pacer.c"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "tap.h"

#define T0 1000000ULL /* a schedule start that is not 0 */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The union of `threads` pacers' first `each` requests, sorted; *complete:
 * how many of them come before any thread's last (past it the union misses
 * the requests of the threads that ended first). Caller frees. */
static uint64_t *union_times(enum pacer_arrival arrival, double rate, unsigned threads, size_t each, uint64_t seed,
                             size_t *complete)
{
    uint64_t *times = malloc(threads * each * sizeof *times), end = UINT64_MAX;
    for (unsigned i = 0; i < threads; i++) {
        struct pacer p;
        if (pacer_init(&p, arrival, rate, threads, i, T0, seed)) abort();
        for (size_t n = 0; n < each; n++) times[i * each + n] = pacer_take(&p);
        if (times[i * each + each - 1] < end) end = times[i * each + each - 1];
        pacer_free(&p);
    }
    qsort(times, threads * each, sizeof *times, cmp_u64);
    for (*complete = 0; *complete < threads * each && times[*complete] <= end; ++*complete) continue;
    return times;
}

static void test_even_exact(void)
{
    struct pacer p;
    int exact = 1;
    for (unsigned i = 0; i < 4; i++) {
        pacer_init(&p, PACER_EVEN, 1000, 4, i, T0, 0);
        for (uint64_t n = 0; n < 1000; n++) exact &= pacer_take(&p) == T0 + (n * 4 + i) * 1000;
        pacer_free(&p);
    }
    TAP_CHECK(exact, "pacer even: thread i of 4 at 1000/s sends at t0 + (4n + i) ms exactly");
    size_t complete;
    uint64_t *u = union_times(PACER_EVEN, 1000, 4, 1000, 0, &complete);
    int even = complete == 3997;
    for (size_t k = 1; k < 4000; k++) even &= u[k] - u[k - 1] == 1000;
    TAP_CHECK(even && u[0] == T0, "pacer even: the union of 4 threads is evenly spaced from t0");
    free(u);

    /* 1/3 ms is not a whole number of us: each time is floor(n * 10^6 / 3), from n */
    pacer_init(&p, PACER_EVEN, 3, 1, 0, T0, 0);
    exact = 1;
    for (uint64_t n = 0; n < 10000000; n++) exact &= pacer_take(&p) == T0 + n * 1000000 / 3;
    pacer_free(&p);
    TAP_CHECK(exact, "pacer even: 10^7 requests at 3/s all exact (no drift)");

    pacer_init(&p, PACER_EVEN, 2.5, 3, 2, T0, 0);
    exact = 1;
    for (uint64_t n = 0; n < 1000; n++) exact &= pacer_take(&p) == T0 + (n * 3 + 2) * 400000;
    pacer_free(&p);
    TAP_CHECK(exact, "pacer even: a fractional rate (2.5/s over 3 threads) is exact");
}

static void test_extreme_rates(void)
{
    struct pacer p;
    int exact = 1;
    pacer_init(&p, PACER_EVEN, 1e7, 2, 1, T0, 0);
    for (uint64_t n = 0; n < 10000000; n++) exact &= pacer_take(&p) == T0 + (2 * n + 1) / 10;
    pacer_free(&p);
    TAP_CHECK(exact, "pacer even: 1e7/s over 2 threads, 10^7 requests exact (ten per us in all)");

    pacer_init(&p, PACER_EVEN, 0.1, 1, 0, T0, 0);
    exact = 1;
    for (uint64_t n = 0; n < 1000; n++) exact &= pacer_take(&p) == T0 + n * 10000000;
    pacer_free(&p);
    TAP_CHECK(exact, "pacer even: 0.1/s sends every 10 s");

    size_t complete;
    uint64_t *u = union_times(PACER_POISSON, 1e7, 2, 500000, 7, &complete);
    double mean = (double)(u[complete - 1] - u[0]) / (double)(complete - 1);
    TAP_CHECK(fabs(mean - 0.1) < 0.001, "pacer poisson: 1e7/s mean gap %.5f us (want 0.1)", mean);
    free(u);
    pacer_init(&p, PACER_POISSON, 0.1, 1, 0, T0, 7);
    uint64_t first = pacer_take(&p), last = first;
    for (int n = 0; n < 100000; n++) last = pacer_take(&p);
    pacer_free(&p);
    mean = (double)(last - first) / 100000.0 / 1e6;
    TAP_CHECK(fabs(mean - 10.0) < 0.1, "pacer poisson: 0.1/s mean gap %.3f s (want 10)", mean);
}

/* Mean and variance of the gaps of sorted times. */
static void gap_moments(const uint64_t *t, size_t n, double *mean, double *var)
{
    double sum = 0, sq = 0;
    for (size_t k = 1; k < n; k++) {
        double g = (double)(t[k] - t[k - 1]);
        sum += g;
        sq += g * g;
    }
    *mean = sum / (double)(n - 1);
    *var = sq / (double)(n - 1) - *mean * *mean;
}

static void test_poisson(void)
{
    double mean, var;
    size_t complete;
    uint64_t *u = union_times(PACER_POISSON, 1000, 1, 1000000, 42, &complete);
    gap_moments(u, complete, &mean, &var);
    TAP_CHECK(fabs(mean - 1000) < 10, "pacer poisson: mean gap over 10^6 draws %.2f us (want 1000 +- 1%%)", mean);
    /* an exponential's variance is its mean squared: 1e6 us^2 */
    TAP_CHECK(fabs(var - 1e6) < 3e4, "pacer poisson: gap variance %.0f us^2 (want 1e6 +- 3%%)", var);
    free(u);

    u = union_times(PACER_POISSON, 1000, 4, 250000, 42, &complete);
    gap_moments(u, complete, &mean, &var);
    TAP_CHECK(fabs(mean - 1000) < 10 && fabs(var - 1e6) < 3e4,
              "pacer poisson: the union of 4 threads at 1000/s is Poisson (mean %.2f us, variance %.0f)", mean, var);
    free(u);

    struct pacer p;
    pacer_init(&p, PACER_POISSON, 1000, 4, 3, T0, 42);
    uint64_t first = pacer_take(&p), last = first;
    for (int n = 0; n < 100000; n++) last = pacer_take(&p);
    pacer_free(&p);
    mean = (double)(last - first) / 100000.0;
    TAP_CHECK(fabs(mean - 4000) < 40, "pacer poisson: one of 4 threads has rate R/4 (mean gap %.1f us)", mean);
}

static void test_reproducible(void)
{
    struct pacer a, b, c, d;
    pacer_init(&a, PACER_POISSON, 5000, 2, 1, T0, 99);
    pacer_init(&b, PACER_POISSON, 5000, 2, 1, T0, 99);
    pacer_init(&c, PACER_POISSON, 5000, 2, 1, T0, 100);
    pacer_init(&d, PACER_POISSON, 5000, 2, 0, T0, 99);
    int same = 1, other_seed = 0, other_thread = 0;
    for (int n = 0; n < 1000; n++) {
        uint64_t ta = pacer_take(&a);
        same &= ta == pacer_take(&b);
        other_seed += ta != pacer_take(&c);
        other_thread += ta != pacer_take(&d);
    }
    TAP_CHECK(same, "pacer poisson: the same seed and thread give the same schedule");
    TAP_CHECK(other_seed > 900 && other_thread > 900, "pacer poisson: another seed or thread gives another schedule");
    pacer_free(&a);
    pacer_free(&b);
    pacer_free(&c);
    pacer_free(&d);
}

static void test_rate_change(void)
{
    struct pacer p[2];
    for (unsigned i = 0; i < 2; i++) pacer_init(&p[i], PACER_EVEN, 1000, 2, i, T0, 0);
    /* thread 0 is late: it has sent nothing when the rate doubles at t0 + 2.5 ms */
    uint64_t t1 = pacer_take(&p[1]);
    for (unsigned i = 0; i < 2; i++) pacer_set_rate(&p[i], 2000, T0 + 2500);
    uint64_t got[6] = {pacer_take(&p[0]), pacer_take(&p[0]), pacer_take(&p[0]), pacer_take(&p[0]),
                       pacer_take(&p[1]), pacer_take(&p[1])};
    /* old times kept for requests 0 and 2 (due before the change), then progress 2.5 at 2000/s:
     * request 3 at +0.5/2000 s = +250 us, request 4 at +750, 6 at +1750, 5 at +1250 */
    int ok = t1 == T0 + 1000 && got[0] == T0 && got[1] == T0 + 2000 && got[2] == T0 + 3250 && got[3] == T0 + 4250
          && got[4] == T0 + 2750 && got[5] == T0 + 3750;
    TAP_CHECK(ok, "pacer rate change: due requests keep their times, the rest continue from now at the new rate");

    for (unsigned i = 0; i < 2; i++) pacer_free(&p[i]);

    /* a tenfold rise at t0 + 2.5 ms, every due request sent: progress 2.5, so request 3
     * comes half a new period later (+2550 us) and the union goes on evenly at 100 us */
    for (unsigned i = 0; i < 2; i++) pacer_init(&p[i], PACER_EVEN, 1000, 2, i, T0, 0);
    uint64_t before = 0;
    for (unsigned i = 0; i < 2; i++)
        while (pacer_next(&p[i]) <= T0 + 2500) {
            uint64_t t = pacer_take(&p[i]);
            if (t > before) before = t;
        }
    for (unsigned i = 0; i < 2; i++) pacer_set_rate(&p[i], 10000, T0 + 2500);
    uint64_t times[40];
    for (int n = 0; n < 20; n++) {
        times[2 * n] = pacer_take(&p[0]);
        times[2 * n + 1] = pacer_take(&p[1]);
    }
    qsort(times, 40, sizeof *times, cmp_u64);
    int even = 1;
    for (int k = 1; k < 40; k++) even &= times[k] - times[k - 1] == 100;
    TAP_CHECK(before == T0 + 2000 && even && times[0] == T0 + 2550,
              "pacer rate change x10: no burst, no gap (first at +%llu us, then every 100 us)",
              (unsigned long long)(times[0] - T0));
    for (unsigned i = 0; i < 2; i++) pacer_free(&p[i]);
}

static void test_pause(void)
{
    struct pacer p;
    pacer_init(&p, PACER_EVEN, 1000, 1, 0, 0, 0);
    uint64_t a = pacer_take(&p), b = pacer_take(&p), c = pacer_take(&p);
    pacer_set_rate(&p, 0, 2500);
    int paused = pacer_next(&p) == PACER_PAUSED && pacer_take(&p) == PACER_PAUSED && pacer_take(&p) == PACER_PAUSED;
    pacer_set_rate(&p, 1000, 10000);
    uint64_t d = pacer_take(&p), e = pacer_take(&p);
    TAP_CHECK(a == 0 && b == 1000 && c == 2000 && paused && d == 10500 && e == 11500,
              "pacer pause: rate 0 stops the schedule, paused time owes nothing, the phase goes on (%llu)",
              (unsigned long long)d);

    pacer_set_rate(&p, 0, 12000);
    pacer_set_rate(&p, 0, 13000);
    pacer_set_rate(&p, 2000, 14000);
    TAP_CHECK(pacer_take(&p) == 14000 + 250, "pacer pause: repeated pauses keep the phase");
    pacer_free(&p);

    struct pacer q[2];
    for (unsigned i = 0; i < 2; i++) pacer_init(&q[i], PACER_EVEN, 0, 2, i, 0, 0);
    int idle = pacer_next(&q[0]) == PACER_PAUSED && pacer_next(&q[1]) == PACER_PAUSED;
    for (unsigned i = 0; i < 2; i++) pacer_set_rate(&q[i], 1000, 5000);
    TAP_CHECK(idle && pacer_take(&q[0]) == 5000 && pacer_take(&q[1]) == 6000 && pacer_take(&q[0]) == 7000,
              "pacer pause: a schedule started at rate 0 begins when the rate is set");
    for (unsigned i = 0; i < 2; i++) pacer_free(&q[i]);
}

/* A pacer whose requests wait through many rate changes gives the same times
 * as one that sends each request when it is due. */
static void test_backlog(enum pacer_arrival arrival, const char *name)
{
    struct pacer eager, late;
    pacer_init(&eager, arrival, 1000, 3, 1, T0, 5);
    pacer_init(&late, arrival, 1000, 3, 1, T0, 5);
    uint64_t want[4000], got[4000];
    size_t n = 0, m = 0;
    for (int change = 1; change <= 20; change++) {
        uint64_t now = T0 + (uint64_t)change * 10000;
        while (pacer_next(&eager) <= now && n < 4000) want[n++] = pacer_take(&eager);
        double rate = change % 5 == 0 ? 0 : 500.0 * change;
        pacer_set_rate(&eager, rate, now);
        pacer_set_rate(&late, rate, now);
    }
    while (n < 4000) want[n++] = pacer_take(&eager);
    while (m < 4000) got[m++] = pacer_take(&late);
    int same = 1;
    for (size_t k = 0; k < 4000; k++) same &= want[k] == got[k];
    TAP_CHECK(same && late.nsegments == 1, "pacer %s: a backlog through 20 rate changes keeps every time", name);
    pacer_free(&eager);
    pacer_free(&late);
}

static void test_poisson_rate_change(void)
{
    struct pacer p;
    pacer_init(&p, PACER_POISSON, 1000, 1, 0, T0, 3);
    for (int n = 0; n < 1000; n++) pacer_take(&p);
    uint64_t now = pacer_next(&p) - 1;
    pacer_set_rate(&p, 4000, now);
    uint64_t first = pacer_take(&p), last = first;
    for (int n = 0; n < 100000; n++) last = pacer_take(&p);
    double mean = (double)(last - first) / 100000.0;
    TAP_CHECK(first >= now && fabs(mean - 250) < 2.5, "pacer poisson rate change: mean gap %.2f us at 4000/s", mean);
    pacer_free(&p);
}

/* Requests due in [from, until] among the pacer's next ones, by taking them (from a copy's state). */
static uint64_t count_by_taking(struct pacer *p, uint64_t from, uint64_t until)
{
    uint64_t n = 0, t;
    while ((t = pacer_next(p)) <= until) {
        n += t >= from;
        pacer_take(p);
    }
    return n;
}

/* pacer_count_due counts what taking would, without taking: exact for even
 * spacing through a rate change, a ramp and a pause, and for Poisson within
 * exact_max; beyond it Poisson's expected number, near the truth. */
static void test_count_due(void)
{
    bool exact = true;
    for (unsigned threads = 1; threads <= 3; threads++) {
        for (unsigned idx = 0; idx < threads; idx++) {
            struct pacer a, b;
            for (int copy = 0; copy < 2; copy++) {
                struct pacer *p = copy ? &b : &a;
                if (pacer_init(p, PACER_EVEN, 1e6 / 3, threads, idx, T0, 1)) abort();
                pacer_set_rate(p, 2.5e5, T0 + 100000);
                pacer_ramp(p, 1e4, 7e5, T0 + 200000, 300000);
                pacer_set_rate(p, 0, T0 + 600000);
                pacer_set_rate(p, 5e5, T0 + 700000);
            }
            for (int i = 0; i < 37; i++) pacer_take(&a), pacer_take(&b); /* some taken already */
            uint64_t from = T0 + 250000, until = T0 + 900000, next = pacer_next(&a);
            uint64_t want = count_by_taking(&b, from, until), got = pacer_count_due(&a, from, until, 0);
            exact &= got == want && want > 1000 && pacer_next(&a) == next;
            if (got != want) printf("# threads %u index %u: counted %llu, taking %llu\n", threads, idx,
                                    (unsigned long long)got, (unsigned long long)want);
            pacer_free(&a);
            pacer_free(&b);
        }
    }
    TAP_CHECK(exact, "even: pacer_count_due is what taking counts, through a change, a ramp and a pause, "
                     "the pacer untouched");
    struct pacer a, b;
    pacer_init(&a, PACER_POISSON, 2e6, 2, 1, T0, 9);
    pacer_init(&b, PACER_POISSON, 2e6, 2, 1, T0, 9);
    uint64_t want = count_by_taking(&b, T0 + 100000, T0 + 1000000);
    uint64_t drawn = pacer_count_due(&a, T0 + 100000, T0 + 1000000, UINT64_MAX);
    uint64_t estimated = pacer_count_due(&a, T0 + 100000, T0 + 1000000, 1000);
    TAP_CHECK(drawn == want && fabs((double)estimated - (double)want) < 5 * sqrt((double)want),
              "poisson: drawn exactly as taking (%llu = %llu), the rest estimated within 5 sigma (%llu)",
              (unsigned long long)drawn, (unsigned long long)want, (unsigned long long)estimated);
    pacer_free(&a);
    pacer_free(&b);
}

static void test_bad_arguments(void)
{
    struct pacer p;
    int rejected = pacer_init(&p, PACER_EVEN, -1, 1, 0, 0, 0) && pacer_init(&p, PACER_EVEN, NAN, 1, 0, 0, 0)
                && pacer_init(&p, PACER_EVEN, 2e9, 1, 0, 0, 0) && pacer_init(&p, PACER_EVEN, 0.0001, 1, 0, 0, 0)
                && pacer_init(&p, PACER_EVEN, 10, 0, 0, 0, 0) && pacer_init(&p, PACER_EVEN, 10, 2, 2, 0, 0);
    TAP_CHECK(rejected, "pacer rejects negative, NaN, too high and too low rates and a bad thread index");
    pacer_init(&p, PACER_EVEN, 1000, 1, 0, 0, 0);
    int kept = pacer_set_rate(&p, -5, 100) == -1 && pacer_set_rate(&p, INFINITY, 100) == -1 && pacer_take(&p) == 0
            && pacer_take(&p) == 1000;
    TAP_CHECK(kept, "pacer: a bad rate change leaves the schedule as it was");
    pacer_free(&p);
}

int main(void)
{
    test_even_exact();
    test_extreme_rates();
    test_poisson();
    test_reproducible();
    test_rate_change();
    test_pause();
    test_backlog(PACER_EVEN, "even");
    test_backlog(PACER_POISSON, "poisson");
    test_poisson_rate_change();
    test_count_due();
    test_bad_arguments();
    TAP_EXIT();
}
