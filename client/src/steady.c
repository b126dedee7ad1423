/* steady: the steady-state test of --warmup auto (contract in steady.h). */
#include "steady.h"

#include <math.h>
#include <stdlib.h>

/* Chosen from the series in docs/steady-state.md. */
const struct steady_rule steady_rule_rate = {.watched = "successful_rps", .watched_text = "successful requests/s",
                                             .window = 5, .trend = 0.10, .spread = 0.10};
const struct steady_rule steady_rule_p99 = {.watched = "p99_us", .watched_text = "p99", .window = 5, .trend = 0.30,
                                            .spread = 0.30, .floor = 1000, .delivered = 0.10};

const struct steady_rule *steady_rule_for(bool fixed_rate)
{
    return fixed_rate ? &steady_rule_p99 : &steady_rule_rate;
}

double steady_second(const struct steady_rule *rule, double successful_rps, double target, double p99)
{
    if (target < 0) return successful_rps;
    if (p99 < 0 || fabs(successful_rps - target) > rule->delivered * target) return NAN;
    return p99;
}

void steady_init(struct steady *s, const struct steady_rule *rule)
{
    *s = (struct steady){.rule = *rule};
    if (s->rule.window < 2) s->rule.window = 2;
    if (s->rule.window > STEADY_WINDOW_MAX) s->rule.window = STEADY_WINDOW_MAX;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (n >= 1); sorts v. */
static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

bool steady_window(const double *values, size_t n, const struct steady_rule *rule, double *change, double *spread)
{
    double work[STEADY_WINDOW_MAX], slopes[STEADY_WINDOW_MAX * (STEADY_WINDOW_MAX - 1) / 2];
    double abs_change = NAN, abs_spread = NAN;
    bool nan = false;
    size_t pairs = 0;
    for (size_t i = 0; i < n; i++) {
        nan |= isnan(values[i]);
        work[i] = values[i];
        for (size_t j = i + 1; j < n; j++) slopes[pairs++] = (values[j] - values[i]) / (double)(j - i);
    }
    double m = nan ? NAN : median(work, n);
    if (!nan && m > 0) {
        abs_change = fabs(median(slopes, pairs)) * (double)(n - 1);
        for (size_t i = 0; i < n; i++) work[i] = fabs(values[i] - m);
        abs_spread = median(work, n);
    }
    if (change) *change = abs_change / m;
    if (spread) *spread = abs_spread / m;
    return !isnan(abs_change) && abs_change <= fmax(rule->trend * m, rule->floor) &&
           abs_spread <= fmax(rule->spread * m, rule->floor);
}

bool steady_add(struct steady *s, double value)
{
    unsigned w = s->rule.window;
    s->last[s->seen % w] = value;
    s->seen++;
    if (s->seen < w) return false;
    double window[STEADY_WINDOW_MAX];
    for (unsigned i = 0; i < w; i++) window[i] = s->last[(s->seen + i) % w]; /* oldest first */
    return steady_window(window, w, &s->rule, NULL, NULL);
}
