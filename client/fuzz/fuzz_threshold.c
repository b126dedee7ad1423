/* libFuzzer target for threshold.c (--fail-on): any bytes as an expression.
 * An expression parsed has 1..THRESHOLD_MAX items, each a non-empty text
 * that parses again alone to the same item, evaluated on an empty run
 * without a crash (with a step of its own, for STEP.STAT items); one refused has a message and leaves the set as it was.
 * Any difference or sanitizer report is a crash. */
#include "../src/hist.c"
#include "../src/stats.c"
#include "../src/threshold.c"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *expr = malloc(size + 1);
    memcpy(expr, data, size);
    expr[size] = '\0';
    char err[4096] = "";
    struct thresholds set = {.count = 0};
    if (threshold_parse(expr, &set, err, sizeof err) == 0) {
        if (set.count == 0 || set.count > THRESHOLD_MAX || err[0]) abort();
        struct run_result r = {.duration_us = size};
        if (stats_init(&r.stats)) abort();
        struct stats_kind *k = stats_kind(&r.stats, 0, "read");
        if (!k) abort();
        stats_kind_response(k, 200, size);
        stats_kind_unexpected(k, 2 * size);
        struct threshold_verdicts v;
        threshold_evaluate(&set, &r, &v);
        if (v.count != set.count || v.broken > v.count) abort();
        for (unsigned i = 0; i < set.count; i++) {
            struct thresholds one = {.count = 0};
            const struct threshold *t = &set.items[i];
            if (!t->text[0] || threshold_parse(t->text, &one, err, sizeof err) || one.count != 1 ||
                one.items[0].index != t->index || one.items[0].code != t->code ||
                one.items[0].step_len != t->step_len || one.items[0].op != t->op || one.items[0].limit != t->limit ||
                one.items[0].unit != t->unit)
                abort();
        }
        stats_free(&r.stats);
    } else if (!err[0] || set.count != 0) {
        abort();
    }
    free(expr);
    return 0;
}
