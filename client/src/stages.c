/* stages: piecewise-linear arithmetic over the stages (parsed by cli.c). */
#include "stages.h"


uint64_t stages_duration(const struct rate_stage *st, size_t n)
{
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) total += st[i].duration_us;
    return total;
}

int stages_apply(struct pacer *p, double start_rate, const struct rate_stage *st, size_t n, uint64_t start_us)
{
    double from = start_rate;
    uint64_t at = start_us;
    for (size_t i = 0; i < n; i++) {
        if (pacer_ramp(p, from, st[i].rate, at, st[i].duration_us)) return -1;
        from = st[i].rate;
        at += st[i].duration_us;
    }
    return 0;
}

double stages_rate_at(double start_rate, const struct rate_stage *st, size_t n, uint64_t start_us, uint64_t at_us)
{
    double from = start_rate;
    uint64_t at = start_us;
    for (size_t i = 0; i < n; i++) {
        if (at_us < at + st[i].duration_us)
            return from + (st[i].rate - from) * (double)(at_us - at) / (double)st[i].duration_us;
        from = st[i].rate;
        at += st[i].duration_us;
    }
    return from;
}

double stages_mean(double start_rate, const struct rate_stage *st, size_t n, uint64_t start_us, uint64_t a,
                   uint64_t b)
{
    /* trapezoids between the breakpoints inside [a, b): exact for a line through points */
    double sum = 0;
    uint64_t from = a, at = start_us;
    for (size_t i = 0; i <= n && from < b; i++) {
        uint64_t to = i < n ? at + st[i].duration_us : b;
        if (to > b) to = b;
        if (to > from) {
            sum += (stages_rate_at(start_rate, st, n, start_us, from) + stages_rate_at(start_rate, st, n, start_us, to)) /
                   2 * (double)(to - from);
            from = to;
        }
        if (i < n) at += st[i].duration_us;
    }
    return sum / (double)(b - a);
}
