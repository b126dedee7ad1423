/* threshold: --fail-on's items parsed and evaluated (contract in threshold.h).
 * The figures a threshold may name are the tables below: a new figure of
 * the record is one line in one of them. */
#include "threshold.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_result.h"
#include "stats.h"

#define LIMIT_MAX 1e15 /* above any count, rate or duration in us a run can have */

/* A count or a rate of the record. get gives its value from the stats at
 * offset off (a uint64_t), or from what off stands for (get's comment). */
struct figure {
    const char *name;  /* the record's key (nested ones as a path: errors.timeout) */
    bool rate;         /* per second, else a count */
    const char *base;  /* N% is of this figure (of this table); NULL: no percentage */
    bool fixed_rate;   /* only measured at a fixed rate (-R) */
    double (*get)(const struct run_result *r, size_t off);
    size_t off;
};

static double seconds_of(const struct run_result *r)
{
    return (double)r->duration_us / 1e6;
}

/* A uint64_t of the stats at off. */
static double stat_u64(const struct run_result *r, size_t off)
{
    uint64_t v;
    memcpy(&v, (const char *)&r->stats + off, sizeof v);
    return (double)v;
}

static double stat_requests(const struct run_result *r, size_t off)
{
    (void)off;
    return (double)stats_requests(&r->stats);
}

static double stat_failed(const struct run_result *r, size_t off)
{
    (void)off;
    return (double)stats_failed(&r->stats);
}

static double stat_errored(const struct run_result *r, size_t off)
{
    (void)off;
    return (double)stats_errored(&r->stats);
}

/* off: the class's hundreds (2 for 2xx). */
static double stat_class(const struct run_result *r, size_t off)
{
    return (double)stats_status_class(&r->stats, (int)off);
}

/* Per second of the measured window: the uint64_t of the stats at off,
 * or (off SIZE_MAX) the requests. */
static double stat_per_second(const struct run_result *r, size_t off)
{
    double n = off == SIZE_MAX ? stat_requests(r, 0) : stat_u64(r, off);
    return n / seconds_of(r);
}

/* A flow's iterations (stats_flow): off SIZE_MAX all of them, SIZE_MAX - 1
 * the failed ones (capture_failed + broken), else the uint64_t at off. */
static double stat_iterations(const struct run_result *r, size_t off)
{
    const struct stats_flow *f = &r->stats.flow;
    if (off == SIZE_MAX) return (double)(f->completed + f->capture_failed + f->broken);
    if (off == SIZE_MAX - 1) return (double)(f->capture_failed + f->broken);
    return stat_u64(r, off);
}

#define STAT(field) offsetof(struct stats, field)
#define FLOW_PREFIX "flow." /* the figures only a --flow run has */

static const struct figure figures[] = {
    {"started", false, NULL, false, stat_u64, STAT(started)},
    {"requests", false, "started", false, stat_requests, 0},
    {"succeeded", false, "requests", false, stat_u64, STAT(succeeded)},
    {"failed", false, "requests", false, stat_failed, 0},
    {"aborted", false, "started", false, stat_u64, STAT(aborted)},
    {"unexpected", false, "requests", false, stat_u64, STAT(unexpected)},
    {"errors", false, "requests", false, stat_errored, 0},
    {"errors.timeout", false, "requests", false, stat_u64, STAT(errors[REQ_ERR_TIMEOUT])},
    {"errors.read", false, "requests", false, stat_u64, STAT(errors[REQ_ERR_READ])},
    {"errors.write", false, "requests", false, stat_u64, STAT(errors[REQ_ERR_WRITE])},
    {"errors.protocol", false, "requests", false, stat_u64, STAT(errors[REQ_ERR_PROTOCOL])},
    {"errors.reset", false, "requests", false, stat_u64, STAT(errors[REQ_ERR_RESET])},
    {"errors_detail.closed_before_response", false, "requests", false, stat_u64, STAT(details[DETAIL_CLOSED_BEFORE_RESPONSE])},
    {"errors_detail.closed_mid_response", false, "requests", false, stat_u64, STAT(details[DETAIL_CLOSED_MID_RESPONSE])},
    {"errors_detail.header_too_large", false, "requests", false, stat_u64, STAT(details[DETAIL_HEADER_TOO_LARGE])},
    {"errors_detail.bad_status_line", false, "requests", false, stat_u64, STAT(details[DETAIL_BAD_STATUS_LINE])},
    {"errors_detail.bad_header", false, "requests", false, stat_u64, STAT(details[DETAIL_BAD_HEADER])},
    {"errors_detail.bad_chunk", false, "requests", false, stat_u64, STAT(details[DETAIL_BAD_CHUNK])},
    {"status.2xx", false, "requests", false, stat_class, 2},
    {"status.3xx", false, "requests", false, stat_class, 3},
    {"status.4xx", false, "requests", false, stat_class, 4},
    {"status.5xx", false, "requests", false, stat_class, 5},
    /* status.codes.NNN: this entry, the code in the item (threshold.code) */
    {"status.codes.", false, "requests", false, stat_u64, STAT(codes)},
    {"completed_in_grace", false, "requests", false, stat_u64, STAT(completed_in_grace)},
    {"connections.connect_attempts", false, NULL, false, stat_u64, STAT(connect_attempts)},
    {"connections.established", false, "connections.connect_attempts", false, stat_u64, STAT(established)},
    {"connections.connect_errors", false, "connections.connect_attempts", false, stat_u64, STAT(connect_errors)},
    {"connections.abandoned", false, "connections.connect_attempts", false, stat_u64, STAT(connects_abandoned)},
    {"connections.tls_errors", false, "connections.connect_attempts", false, stat_u64, STAT(tls_errors)},
    {"connections.refused_streams", false, NULL, false, stat_u64, STAT(refused_streams)},
    {"connections.handshakes_full", false, "connections.established", false, stat_u64, STAT(handshakes_full)},
    {"connections.handshakes_resumed", false, "connections.established", false, stat_u64, STAT(handshakes_resumed)},
    /* ws:// and wss:// (messages are the requests: failed, errors.timeout... count them) */
    {"websocket.upgraded", false, NULL, false, stat_u64, STAT(ws.upgraded)},
    {"websocket.refused", false, NULL, false, stat_u64, STAT(ws.refused)},
    {"websocket.closed_by_server", false, NULL, false, stat_u64, STAT(ws.closed_by_server)},
    {"websocket.closed_by_client", false, NULL, false, stat_u64, STAT(ws.closed_by_client)},
    {"bytes_received", false, NULL, false, stat_u64, STAT(bytes_received)},
    {"bytes_sent", false, NULL, false, stat_u64, STAT(bytes_sent)},
    {"body_bytes", false, NULL, false, stat_u64, STAT(body_bytes)},
    {"rps", true, NULL, false, stat_per_second, SIZE_MAX},
    {"successful_rps", true, NULL, false, stat_per_second, STAT(succeeded)},
    {"rate.scheduled", false, NULL, true, stat_u64, STAT(scheduled)},
    {"rate.unsent", false, "rate.scheduled", true, stat_u64, STAT(unsent)},
    {"rate.achieved", true, NULL, true, stat_per_second, STAT(started)},
    {"flow.iterations", false, NULL, false, stat_iterations, SIZE_MAX},
    {"flow.completed", false, "flow.iterations", false, stat_iterations, STAT(flow.completed)},
    {"flow.failed", false, "flow.iterations", false, stat_iterations, SIZE_MAX - 1},
    {"flow.capture_failed", false, "flow.iterations", false, stat_iterations, STAT(flow.capture_failed)},
    {"flow.broken", false, "flow.iterations", false, stat_iterations, STAT(flow.broken)},
};
#define FIGURES (sizeof figures / sizeof figures[0])

/* A latency histogram of the record (its key without _us), and what of it a
 * threshold names: NAME.STAT, and STAT alone for latency (p99). */
static const struct {
    const char *name;
    size_t off;
    bool fixed_rate;
} hists[] = {
    {"latency", STAT(latency), false},
    {"ttfb", STAT(ttfb), false},
    {"connect", STAT(connect), false},
    {"error_latency", STAT(error_latency), false},
    {"latency_uncorrected", STAT(latency_uncorrected), true},
    {"schedule_lag", STAT(schedule_lag), true},
    {"flow.iteration", STAT(flow.iteration), false},
    {"flow.wait", STAT(flow.wait), false},
};
#define HISTS (sizeof hists / sizeof hists[0])

enum { STAT_MIN = -1, STAT_MEAN = -2, STAT_STDEV = -3, STAT_MAX = -4 };
static const struct {
    const char *name;
    double p; /* a percentile, or a STAT_* */
} hist_stats[] = {
    {"min", STAT_MIN}, {"mean", STAT_MEAN}, {"stdev", STAT_STDEV}, {"p50", 50}, {"p75", 75}, {"p90", 90},
    {"p95", 95}, {"p99", 99}, {"p999", 99.9}, {"p9999", 99.99}, {"max", STAT_MAX},
};
#define HIST_STATS (sizeof hist_stats / sizeof hist_stats[0])

/* A step's counts (struct stats_kind) a threshold names as STEP.NAME; the
 * step's latency stats are STEP.STAT with a STAT of hist_stats. */
static const struct {
    const char *name;
    size_t off;
} step_counts[] = {
    {"requests", offsetof(struct stats_kind, requests)},
    {"succeeded", offsetof(struct stats_kind, succeeded)},
    {"failed", offsetof(struct stats_kind, failed)},
    {"unexpected", offsetof(struct stats_kind, unexpected)},
};
#define STEP_COUNTS (sizeof step_counts / sizeof step_counts[0])

/* An item's index: figures first, then each histogram's stats in turn, then
 * a step's latency stats, then a step's counts. */
#define HISTS_END (FIGURES + HISTS * HIST_STATS)
#define STEP_HIST (HISTS_END)
#define STEP_COUNT (HISTS_END + HIST_STATS)

static bool index_is_hist(unsigned index)
{
    return index >= FIGURES && index < HISTS_END;
}

static bool index_is_step(unsigned index)
{
    return index >= HISTS_END;
}

/* A duration: a histogram's stat or a step's latency stat. */
static bool index_is_duration(unsigned index)
{
    return index >= FIGURES && index < STEP_COUNT;
}

/* A name of the table ending in '.' takes a number after it (status.codes.NNN). */
static bool figure_numbered(const struct figure *f)
{
    return f->name[strlen(f->name) - 1] == '.';
}

static int figure_find(const char *name, size_t len)
{
    for (size_t i = 0; i < FIGURES; i++)
        if (strlen(figures[i].name) == len && memcmp(figures[i].name, name, len) == 0 && !figure_numbered(&figures[i]))
            return (int)i;
    return -1;
}

/* status.codes.NNN: the entry's index and the code (100..599) in *code; -1 when name is not one. */
static int figure_find_numbered(const char *name, size_t len, unsigned *code)
{
    for (size_t i = 0; i < FIGURES; i++) {
        size_t n = strlen(figures[i].name);
        if (!figure_numbered(&figures[i]) || len != n + 3 || memcmp(figures[i].name, name, n) != 0) continue;
        const char *d = name + n;
        if (d[0] < '1' || d[0] > '5' || d[1] < '0' || d[1] > '9' || d[2] < '0' || d[2] > '9') return -1;
        *code = (unsigned)((d[0] - '0') * 100 + (d[1] - '0') * 10 + (d[2] - '0'));
        return (int)i;
    }
    return -1;
}

static int hist_stat_find(const char *name, size_t len)
{
    for (size_t i = 0; i < HIST_STATS; i++)
        if (strlen(hist_stats[i].name) == len && memcmp(hist_stats[i].name, name, len) == 0) return (int)i;
    return -1;
}

/* Whether prefix (len bytes, no '.' after it) starts a name of the tables
 * (errors, status.codes, latency...): such a prefix names no step. */
static bool prefix_taken(const char *prefix, size_t len)
{
    for (size_t i = 0; i < FIGURES; i++)
        if (strncmp(figures[i].name, prefix, len) == 0 && figures[i].name[len] == '.') return true;
    for (size_t h = 0; h < HISTS; h++)
        if (strlen(hists[h].name) == len && memcmp(hists[h].name, prefix, len) == 0) return true;
    return false;
}

/* STEP.STAT (len bytes at name): the index, and STEP's length in *step_len; -1 when not one. */
static int step_find(const char *name, size_t len, unsigned *step_len)
{
    size_t dot = len;
    while (dot > 0 && name[dot - 1] != '.') dot--;
    if (dot < 2 || dot == len || prefix_taken(name, dot - 1)) return -1;
    const char *stat = name + dot;
    size_t stat_len = len - dot;
    int i = hist_stat_find(stat, stat_len);
    if (i >= 0) {
        *step_len = (unsigned)(dot - 1);
        return (int)STEP_HIST + i;
    }
    for (size_t c = 0; c < STEP_COUNTS; c++)
        if (strlen(step_counts[c].name) == stat_len && memcmp(step_counts[c].name, stat, stat_len) == 0) {
            *step_len = (unsigned)(dot - 1);
            return (int)(STEP_COUNT + c);
        }
    return -1;
}

/* The index of the figure NAME (len bytes), or -1; *code for
 * status.codes.NNN, *step_len for STEP.STAT (else 0). */
static int index_find(const char *name, size_t len, unsigned *code, unsigned *step_len)
{
    *code = 0;
    *step_len = 0;
    int i = figure_find(name, len);
    if (i >= 0 || (i = figure_find_numbered(name, len, code)) >= 0) return i;
    if ((i = hist_stat_find(name, len)) >= 0) return (int)FIGURES + i; /* p99: latency.p99 */
    for (size_t h = 0; h < HISTS; h++) {
        size_t n = strlen(hists[h].name);
        if (len > n + 1 && memcmp(name, hists[h].name, n) == 0 && name[n] == '.' &&
            (i = hist_stat_find(name + n + 1, len - n - 1)) >= 0)
            return (int)(FIGURES + h * HIST_STATS + (size_t)i);
    }
    return step_find(name, len, step_len);
}

static void append(char *buf, size_t cap, size_t *at, const char *fmt, ...)
{
    if (*at >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *at, cap - *at, fmt, ap);
    va_end(ap);
    if (n > 0) *at += (size_t)n;
}

/* What is allowed, generated from the tables: the tail of every error. */
static void allowed_text(char *buf, size_t cap)
{
    size_t at = 0;
    append(buf, cap, &at, "an item is FIGURE>LIMIT, >=, < or <= (it breaks when true), items joined by commas, e.g. "
                          "failed>0.1%%,p99>20ms,rps<1000. Counts (N, or N%% of the base in brackets):");
    const char *sep = " ";
    for (size_t i = 0; i < FIGURES; i++, sep = ", ")
        if (!figures[i].rate)
            append(buf, cap, &at, "%s%s%s%s%s%s", sep, figures[i].name, figure_numbered(&figures[i]) ? "NNN" : "",
                   figures[i].base ? " [" : "",
                   figures[i].base ? figures[i].base : "", figures[i].base ? "]" : "");
    append(buf, cap, &at, "; rates (N or N/s):");
    sep = " ";
    for (size_t i = 0; i < FIGURES; i++)
        if (figures[i].rate) {
            append(buf, cap, &at, "%s%s", sep, figures[i].name);
            sep = ", ";
        }
    append(buf, cap, &at, "; durations (with a unit: 250us, 20ms, 1.5s): H.STAT for H");
    for (size_t h = 0; h < HISTS; h++) append(buf, cap, &at, "%s %s", h ? "," : "", hists[h].name);
    append(buf, cap, &at, " and STAT");
    for (size_t s = 0; s < HIST_STATS; s++) append(buf, cap, &at, "%s %s", s ? "," : "", hist_stats[s].name);
    append(buf, cap, &at, " (STAT alone: latency's, p99 for latency.p99); rate.* and schedule_lag, "
                          "latency_uncorrected need a fixed rate (-R), flow.* a --flow; a step (a script's kind) as "
                          "STEP.STAT (its latency: read.p95>50ms) or STEP.");
    for (size_t c = 0; c < STEP_COUNTS; c++) append(buf, cap, &at, "%s%s", c ? "|" : "", step_counts[c].name);
    append(buf, cap, &at, " [STEP.requests] (read.failed>0), STEP named by the flow's step line");
}

static int parse_fail(char *err, size_t errlen, const char *item, size_t item_len, const char *fmt, ...)
{
    char why[256], allowed[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    allowed_text(allowed, sizeof allowed);
    snprintf(err, errlen, "bad --fail-on item '%.*s': %s; %s", (int)(item_len > 200 ? 200 : item_len), item, why,
             allowed);
    return -1;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static bool is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '-';
}

/* A plain decimal number at *p (digits, at most one '.', a digit on one side
 * of it), advancing *p; -1 when there is none or it is over LIMIT_MAX. No
 * sign, exponent, inf or hex: the form is checked here, strtod converts it. */
static double number_scan(const char **p)
{
    const char *c = *p;
    size_t digits = 0;
    bool dot = false;
    for (; (*c >= '0' && *c <= '9') || (*c == '.' && !dot); c++) {
        if (*c == '.') dot = true;
        else digits++;
    }
    char text[64];
    if (digits == 0 || (size_t)(c - *p) >= sizeof text) return -1;
    memcpy(text, *p, (size_t)(c - *p));
    text[c - *p] = '\0';
    double v = strtod(text, NULL);
    if (v > LIMIT_MAX) return -1;
    *p = c;
    return v;
}

static bool unit_is(const char *unit, size_t len, const char *want)
{
    return strlen(want) == len && memcmp(unit, want, len) == 0;
}

/* The limit's unit (len bytes at unit) for figure index into t: its unit and
 * the limit scaled to it. NULL, or why not. */
static const char *limit_unit(struct threshold *t, const char *unit, size_t len)
{
    if (index_is_duration(t->index)) {
        double us = unit_is(unit, len, "us") ? 1 : unit_is(unit, len, "ms") ? 1e3 : unit_is(unit, len, "s") ? 1e6 : 0;
        if (us == 0) return "a duration needs its unit: us, ms or s (20ms)";
        t->unit = THRESHOLD_DURATION;
        t->limit *= us;
        return t->limit > LIMIT_MAX ? "a duration over 10^15 us" : NULL;
    }
    if (index_is_step(t->index)) { /* a step's count: N, or N% of its requests */
        bool percent = unit_is(unit, len, "%");
        if (len && !percent) return "a count is N, or N% of its base";
        if (percent && t->limit > 100) return "a percentage is 0..100";
        t->unit = percent ? THRESHOLD_PERCENT : THRESHOLD_COUNT;
        return NULL;
    }
    const struct figure *f = &figures[t->index];
    if (f->rate) {
        if (len && !unit_is(unit, len, "/s")) return "a rate is N or N/s (requests per second)";
        t->unit = THRESHOLD_RATE;
        return NULL;
    }
    if (unit_is(unit, len, "%")) {
        if (!f->base) return "this count has no percentage (give N)";
        if (t->limit > 100) return "a percentage is 0..100";
        t->unit = THRESHOLD_PERCENT;
        return NULL;
    }
    if (len) return "a count is N, or N% of its base";
    t->unit = THRESHOLD_COUNT;
    return NULL;
}

/* One item, [item, end), blanks trimmed, into t. 0 or -1 (err set). */
static int item_parse(const char *item, const char *end, struct threshold *t, char *err, size_t errlen)
{
    size_t item_len = (size_t)(end - item);
    if (item_len == 0) return parse_fail(err, errlen, item, 0, "an empty item (two commas, or one at an end)");
    if (item_len >= THRESHOLD_TEXT_MAX)
        return parse_fail(err, errlen, item, item_len, "longer than %d bytes", THRESHOLD_TEXT_MAX - 1);
    memset(t, 0, sizeof *t);
    memcpy(t->text, item, item_len);
    const char *p = item;
    while (p < end && is_name_char(*p)) p++;
    size_t name_len = (size_t)(p - item);
    memcpy(t->figure, item, name_len);
    if (name_len == 0) return parse_fail(err, errlen, item, item_len, "no figure before the operator");
    int index = index_find(item, name_len, &t->code, &t->step_len);
    if (index < 0) return parse_fail(err, errlen, item, item_len, "unknown figure '%.*s'", (int)name_len, item);
    t->index = (unsigned)index;
    while (p < end && is_blank(*p)) p++;
    if (p < end && (*p == '>' || *p == '<')) {
        bool eq = p + 1 < end && p[1] == '=';
        t->op = *p == '>' ? (eq ? THRESHOLD_GE : THRESHOLD_GT) : (eq ? THRESHOLD_LE : THRESHOLD_LT);
        p += eq ? 2 : 1;
    } else {
        return parse_fail(err, errlen, item, item_len, "no operator after '%s' (>, >=, <, <=)", t->figure);
    }
    while (p < end && is_blank(*p)) p++;
    double v = p < end ? number_scan(&p) : -1;
    if (v < 0 || p > end)
        return parse_fail(err, errlen, item, item_len, "no limit after the operator (a plain number up to 10^15: 10, 0.5)");
    t->limit = v;
    const char *unit = p;
    while (p < end && ((*p >= 'a' && *p <= 'z') || *p == '/' || *p == '%')) p++;
    const char *why = limit_unit(t, unit, (size_t)(p - unit));
    if (why) return parse_fail(err, errlen, item, item_len, "%s", why);
    while (p < end && is_blank(*p)) p++;
    if (p != end) return parse_fail(err, errlen, item, item_len, "'%.*s' after the limit", (int)(end - p), p);
    return 0;
}

int threshold_parse(const char *expr, struct thresholds *set, char *err, size_t errlen)
{
    struct thresholds parsed = *set;
    const char *p = expr;
    for (;;) {
        const char *stop = strchr(p, ',');
        if (!stop) stop = p + strlen(p);
        const char *b = p, *e = stop;
        while (b < e && is_blank(*b)) b++;
        while (e > b && is_blank(e[-1])) e--;
        if (parsed.count == THRESHOLD_MAX)
            return parse_fail(err, errlen, b, (size_t)(e - b), "more than %d items in all", THRESHOLD_MAX);
        if (item_parse(b, e, &parsed.items[parsed.count], err, errlen)) return -1;
        parsed.count++;
        if (!*stop) break;
        p = stop + 1;
    }
    *set = parsed;
    return 0;
}

const struct threshold *threshold_needs_tls(const struct thresholds *set)
{
    static const char tls_only[] = "connections.handshakes_";
    for (unsigned i = 0; i < set->count; i++) {
        unsigned index = set->items[i].index;
        if (index < FIGURES && !strncmp(figures[index].name, tls_only, sizeof tls_only - 1)) return &set->items[i];
    }
    return NULL;
}

const struct threshold *threshold_needs_rate(const struct thresholds *set)
{
    for (unsigned i = 0; i < set->count; i++) {
        unsigned index = set->items[i].index;
        bool fixed = index_is_hist(index) ? hists[(index - FIGURES) / HIST_STATS].fixed_rate
                     : index_is_step(index) ? false : figures[index].fixed_rate;
        if (fixed) return &set->items[i];
    }
    return NULL;
}

const struct threshold *threshold_needs_flow(const struct thresholds *set)
{
    for (unsigned i = 0; i < set->count; i++) {
        unsigned index = set->items[i].index;
        const char *name = index < FIGURES ? figures[index].name
                           : index_is_hist(index) ? hists[(index - FIGURES) / HIST_STATS].name : "";
        if (strncmp(name, FLOW_PREFIX, strlen(FLOW_PREFIX)) == 0) return &set->items[i];
    }
    return NULL;
}

const struct threshold *threshold_first_step(const struct thresholds *set)
{
    for (unsigned i = 0; i < set->count; i++)
        if (index_is_step(set->items[i].index)) return &set->items[i];
    return NULL;
}

/* Stat s of hist in us; false when the histogram is empty. */
static bool hist_stat_value(const struct hist *hist, size_t s, double *v)
{
    if (hist->total == 0) return false;
    double p = hist_stats[s].p;
    *v = p == STAT_MIN ? (double)hist->min : p == STAT_MAX ? (double)hist->max : p == STAT_MEAN ? hist_mean(hist)
         : p == STAT_STDEV ? hist_stdev(hist) : (double)hist_percentile(hist, p);
    return true;
}

/* A histogram's stat: its value in us; false when the histogram is empty. */
static bool hist_value(const struct run_result *r, unsigned index, double *v)
{
    size_t h = (index - FIGURES) / HIST_STATS, s = (index - FIGURES) % HIST_STATS;
    return hist_stat_value((const struct hist *)(const void *)((const char *)&r->stats + hists[h].off), s, v);
}

/* A step's figure in t's unit; false when the run has no kind of that name,
 * an empty latency, or (a percentage) no request of the step. */
static bool step_value(const struct run_result *r, const struct threshold *t, double *v)
{
    const struct stats_kind *k = NULL;
    for (unsigned i = 0; i < STATS_MAX_KINDS && r->stats.kinds[i] && !k; i++)
        if (strlen(r->stats.kinds[i]->name) == t->step_len && memcmp(r->stats.kinds[i]->name, t->figure, t->step_len) == 0)
            k = r->stats.kinds[i];
    if (!k) return false;
    if (t->index < STEP_COUNT) return hist_stat_value(&k->latency, t->index - STEP_HIST, v);
    uint64_t n;
    memcpy(&n, (const char *)k + step_counts[t->index - STEP_COUNT].off, sizeof n);
    *v = (double)n;
    if (t->unit != THRESHOLD_PERCENT) return true;
    if (k->requests == 0) return false;
    *v = 100.0 * *v / (double)k->requests;
    return true;
}

/* A figure of the table in t's unit; false when it was not measured (no
 * window for a rate, a base of 0 for a percentage). */
static bool figure_value(const struct run_result *r, const struct threshold *t, double *v)
{
    const struct figure *f = &figures[t->index];
    if (f->rate && r->duration_us == 0) return false;
    *v = f->get(r, f->off + t->code * sizeof(uint64_t)); /* status.codes.NNN: codes[NNN] */
    if (t->unit != THRESHOLD_PERCENT) return true;
    const struct figure *base = &figures[figure_find(f->base, strlen(f->base))];
    double of = base->get(r, base->off);
    if (of <= 0) return false;
    *v = 100.0 * *v / of;
    return true;
}

static bool compare(double v, enum threshold_op op, double limit)
{
    switch (op) {
    case THRESHOLD_GT: return v > limit;
    case THRESHOLD_GE: return v >= limit;
    case THRESHOLD_LT: return v < limit;
    default: return v <= limit;
    }
}

void threshold_evaluate(const struct thresholds *set, const struct run_result *r, struct threshold_verdicts *out)
{
    memset(out, 0, sizeof *out);
    for (unsigned i = 0; i < set->count; i++) {
        const struct threshold *t = &set->items[i];
        struct threshold_verdict *v = &out->v[i];
        v->threshold = t;
        v->measured = index_is_hist(t->index)   ? hist_value(r, t->index, &v->value)
                      : index_is_step(t->index) ? step_value(r, t, &v->value)
                                                : figure_value(r, t, &v->value);
        if (!v->measured) v->value = 0;
        v->broken = !v->measured || compare(v->value, t->op, t->limit);
        out->broken += v->broken;
    }
    out->count = set->count;
}

const char *threshold_op_text(enum threshold_op op)
{
    static const char *const text[] = {">", ">=", "<", "<="};
    return text[op];
}
