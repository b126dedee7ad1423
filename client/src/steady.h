/* steady: when a warm-up may end (--warmup auto, issue 21). The engine feeds
 * it one value per whole second of the warm-up (closed loop: successful
 * requests/s; fixed rate: the second's p99 latency) and asks whether the
 * load is in steady state: over the last `window` seconds the values no
 * longer trend and vary within a tolerance (docs/steady-state.md says why
 * these numbers). Both measures are robust, so that one second disturbed by
 * something else on the machine neither ends nor blocks a warm-up: with M
 * the window's median,
 *   - trend: the Theil-Sen slope (the median of the slopes between every two
 *     seconds) times (window - 1), the change across the window, is at most
 *     `trend` * M;
 *   - spread: the median absolute deviation from M is at most `spread` * M;
 * each tolerance at least `floor` (in the watched value's unit): at a fixed
 * rate, a p99 below a millisecond that moves by a few hundred microseconds is
 * the machine's scheduling, not a server warming up.
 * A second with nothing measured (NAN), or a window whose median is not above
 * 0, is never steady. Pure arithmetic: no clock, no I/O, no allocation. */
#ifndef BARRAGE_STEADY_H
#define BARRAGE_STEADY_H

#include <stdbool.h>
#include <stddef.h>

#define STEADY_WINDOW_MAX 32

struct steady_rule {
    const char *watched;      /* the watched value's name in the record (rule.watched) */
    const char *watched_text; /* and in the text report */
    unsigned window; /* seconds, 2..STEADY_WINDOW_MAX */
    double trend;    /* largest change across the window (Theil-Sen), as a fraction of the median */
    double spread;   /* largest median absolute deviation, as a fraction of the median */
    double floor;    /* neither tolerance is below this (the watched value's unit); 0: none */
    double delivered; /* fixed rate: a second whose successful rate is further than this fraction
                       * from its target is not steady, whatever its p99 (a server falling behind
                       * can have a steady, huge p99); 0 for closed loop */
};

/* The rule a run's --warmup auto is judged by, the one place it is chosen:
 * at a fixed rate (fixed_rate) the second's p99 (steady_rule_p99), else its
 * successful requests/s (steady_rule_rate). */
extern const struct steady_rule steady_rule_rate, steady_rule_p99;
const struct steady_rule *steady_rule_for(bool fixed_rate);

struct steady {
    struct steady_rule rule;
    double last[STEADY_WINDOW_MAX]; /* a ring of the last `window` values */
    size_t seen;                    /* values added so far */
};

/* The value one second gives the test: closed loop (target < 0) its
 * successful requests/s; fixed rate its p99 (NAN when nothing was measured:
 * p99 < 0), or NAN when its successful rate missed the target by more than
 * rule->delivered. */
double steady_second(const struct steady_rule *rule, double successful_rps, double target, double p99);

void steady_init(struct steady *s, const struct steady_rule *rule);
/* Adds the next second's value (NAN: nothing was measured in it); returns
 * whether the last `window` values, this one included, are steady. */
bool steady_add(struct steady *s, double value);
/* Whether values[0..n) (oldest first, 2 <= n <= STEADY_WINDOW_MAX) is
 * steady under rule: the test steady_add applies to its window. Also
 * *change and *spread, when not NULL: the change across the window and the
 * median absolute deviation, as fractions of the median (NAN when a value
 * is NAN or the median is not above 0). */
bool steady_window(const double *values, size_t n, const struct steady_rule *rule, double *change, double *spread);

#endif
