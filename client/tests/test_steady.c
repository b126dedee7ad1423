/* Unit tests of steady.c: a rising series is not steady until its window has
 * settled, a flat one is at once (after `window` seconds), a steady series
 * with one disturbed second stays steady (robust), so is a fall with one
 * second of it left in the window, a slow drift within the
 * noise band is caught by the trend, a wide spread without a trend is not
 * steady, NAN and zero never are, and the window is the last seconds only;
 * at a fixed rate a second that missed its target is not steady. */
#include "../src/steady.c"

#include "tap.h"

static const struct steady_rule rule = {.window = 5, .trend = 0.10, .spread = 0.10};

/* The 1-based second after which steady_add first says steady, or 0. */
static size_t first_steady(const double *v, size_t n)
{
    struct steady s;
    steady_init(&s, &rule);
    for (size_t i = 0; i < n; i++)
        if (steady_add(&s, v[i])) return i + 1;
    return 0;
}

int main(void)
{
    double flat[] = {1000, 1010, 990, 1005, 995, 1000};
    TAP_CHECK(first_steady(flat, 6) == 5, "flat series: steady after exactly the window (5 s), got %zu",
              first_steady(flat, 6));

    /* rises over 6 seconds, then settles at 1000 */
    double rising[] = {100, 250, 400, 600, 800, 950, 1000, 1002, 998, 1001, 999, 1000, 1003};
    size_t r = first_steady(rising, 13);
    TAP_CHECK(r >= 9 && r <= 11, "rising then settled at second 7: steady within the window after it (got %zu)", r);

    double disturbed[] = {1000, 1000, 300, 1000, 1000};
    TAP_CHECK(first_steady(disturbed, 5) == 5, "one disturbed second in five does not block steady state");

    double drift[] = {1000, 1030, 1060, 1090, 1120};
    double change, spread;
    bool st = steady_window(drift, 5, &rule, &change, &spread);
    TAP_CHECK(!st && change > 0.10 && spread <= 0.10,
              "a 12%% climb across the window is a trend though each second is near the median (change %.3f)", change);

    double wide[] = {1000, 600, 1400, 700, 1300};
    st = steady_window(wide, 5, &rule, &change, &spread);
    TAP_CHECK(!st && spread > 0.10, "a wide spread without a trend is not steady (spread %.3f)", spread);

    double gap[] = {1000, 1000, NAN, 1000, 1000};
    double zero[] = {0, 0, 0, 0, 0};
    TAP_CHECK(!steady_window(gap, 5, &rule, NULL, NULL) && !steady_window(zero, 5, &rule, NULL, NULL),
              "a second with nothing measured, or nothing at all, is never steady");

    double falling[] = {2000, 1700, 1400, 1100, 1000, 1000, 1000, 1000, 1000};
    TAP_CHECK(first_steady(falling, 9) == 8,
              "only the last window counts: steady when one second of the fall is left in it (got %zu)",
              first_steady(falling, 9));

    double slow[8];
    for (int i = 0; i < 8; i++) slow[i] = 1000 * (1 + 0.03 * i);
    TAP_CHECK(first_steady(slow, 8) == 0, "a climb of 3%% a second (of the first second) is never steady over 8 s");
    const struct steady_rule *p99 = &steady_rule_p99;
    double jitter[] = {416, 2231, 258, 3257, 608};
    double ramp[] = {740000, 660000, 67000, 5000, 4700};
    TAP_CHECK(steady_window(jitter, 5, p99, NULL, NULL) && !steady_window(jitter, 5, &(struct steady_rule){.window = 5, .trend = 0.3, .spread = 0.3}, NULL, NULL),
              "fixed rate: a p99 around 1 ms jittering by hundreds of us is steady thanks to the 1 ms floor only");
    TAP_CHECK(!steady_window(ramp, 5, p99, NULL, NULL), "fixed rate: a p99 falling from 740 ms is not steady, floor or not");
    TAP_CHECK(steady_second(&steady_rule_rate, 950, -1, 7) == 950 && steady_second(p99, 19000, 20000, 7) == 7 &&
                  isnan(steady_second(p99, 17900, 20000, 7)) && isnan(steady_second(p99, 20000, 20000, -1)),
              "a second's value: closed loop its rate; fixed rate its p99, unless it missed the target by over 10%%");
    TAP_EXIT();
}
