/* Unit tests of stages.c with pacer.c's ramps: the schedule's requests per
 * second follow the line through the stages (within one request of its
 * integral, over threads), times never go back, the mean target per second. */
#include "../src/pacer.c"
#include "../src/stages.c"

#include <stdbool.h>
#include <stdlib.h>

#include "tap.h"

#define T0 1000000000ULL
#define S 1000000ULL

/* Requests per second of the union of `threads` pacers over `seconds`. */
static void count_per_second(const struct rate_stage *st, size_t n, double start, unsigned threads, unsigned seconds,
                             uint64_t *counts, bool *monotone)
{
    *monotone = true;
    for (unsigned t = 0; t < threads; t++) {
        struct pacer p;
        if (pacer_init(&p, PACER_EVEN, start, threads, t, T0, 1) || stages_apply(&p, start, st, n, T0)) abort();
        uint64_t last = 0, at;
        while ((at = pacer_take(&p)) < T0 + seconds * S) {
            *monotone &= at >= last;
            last = at;
            counts[(at - T0) / S]++;
        }
        pacer_free(&p);
    }
}

static void test_ramp_counts(void)
{
    const struct rate_stage st[] = {{1000, 10 * S}, {5000, 30 * S}, {5000, 20 * S}};
    for (unsigned threads = 1; threads <= 3; threads += 2) {
        uint64_t counts[60] = {0};
        bool monotone;
        count_per_second(st, 3, 1000, threads, 60, counts, &monotone);
        bool exact = true;
        double worst = 0;
        for (unsigned k = 0; k < 60; k++) {
            double want = stages_mean(1000, st, 3, T0, T0 + k * S, T0 + (k + 1) * S);
            double off = (double)counts[k] - want;
            if (off < 0) off = -off;
            if (off > worst) worst = off;
            exact &= off <= 1.0 + threads;
        }
        TAP_CHECK(exact && monotone, "1000 for 10 s, ramp to 5000 over 30 s, hold 20 s, %u thread(s): every second within "
                  "a request per thread of the line's integral (worst %.2f; second 25: %llu)", threads, worst,
                  (unsigned long long)counts[25]);
    }
}

static void test_ramp_down_and_from(void)
{
    const struct rate_stage st[] = {{2000, 4 * S}, {0, 4 * S}};
    uint64_t counts[10] = {0};
    bool monotone;
    count_per_second(st, 2, 100, 1, 10, counts, &monotone);
    uint64_t total = 0;
    for (int k = 0; k < 10; k++) total += counts[k];
    /* 100 -> 2000 over 4 s: 4200; 2000 -> 0 over 4 s: 4000 (requests at progress 0 to 8200); then paused */
    TAP_CHECK(monotone && total == 8201 && counts[8] <= 1 && counts[9] == 0,
              "from -R 100 up to 2000 and down to 0: %llu requests (8201), none once paused",
              (unsigned long long)total);
    TAP_CHECK(counts[0] >= 337 && counts[0] <= 339, "the first second of the ramp: mean of 100 and 575 (%llu)",
              (unsigned long long)counts[0]);
}

static void test_mean_and_rate_at(void)
{
    const struct rate_stage st[] = {{1000, 10 * S}, {5000, 30 * S}};
    double at = stages_rate_at(1000, st, 2, T0, T0 + 25 * S);
    double mean = stages_mean(1000, st, 2, T0, T0 + 9 * S + S / 2, T0 + 10 * S + S / 2);
    TAP_CHECK(at > 2999.99 && at < 3000.01, "halfway up the ramp: 3000/s (%.3f)", at);
    TAP_CHECK(mean > 1016.66 && mean < 1016.67, "a second across a breakpoint: the trapezoids' mean (%.4f)", mean);
    TAP_CHECK(stages_duration(st, 2) == 40 * S, "the stages' duration");
    double after = stages_rate_at(1000, st, 2, T0, T0 + 100 * S);
    TAP_CHECK(after == 5000, "after the last stage its rate holds");
}

int main(void)
{
    test_ramp_counts();
    test_ramp_down_and_from();
    test_mean_and_rate_at();
    TAP_EXIT();
}
