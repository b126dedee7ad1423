/* Unit tests of threshold.c (--fail-on): items parsed with their units and
 * operators, malformed ones refused with a message that says what is
 * allowed (and the set left as it was), every prefix of an expression parsed
 * or refused cleanly, and verdicts on a made-up run: each operator at its
 * edge, percentages of their base, durations, rates, and figures the run did
 * not measure breaking. */
#include "../src/hist.c"
#include "../src/stats.c"
#include "../src/threshold.c"

#include <stdlib.h>

#include "tap.h"

static bool parses(const char *expr, struct thresholds *set)
{
    char err[4096];
    memset(set, 0, sizeof *set);
    return threshold_parse(expr, set, err, sizeof err) == 0;
}

/* Refused, with a message naming the item, the reason (want) and what is allowed. */
static void refused(const char *expr, const char *want)
{
    char err[4096] = "";
    struct thresholds set = {.count = 1};
    int rc = threshold_parse(expr, &set, err, sizeof err);
    TAP_CHECK(rc == -1 && set.count == 1 && strstr(err, want) && strstr(err, "e.g. failed>0.1%,p99>20ms,rps<1000") &&
                  strstr(err, "status.codes.NNN [requests]") && strstr(err, "latency, ttfb") &&
                  strstr(err, "need a fixed rate (-R)"),
              "refused '%s' (%s): %.120s", expr, want, err);
}

static void test_parse(void)
{
    struct thresholds set;
    TAP_CHECK(parses("failed>0.1%,p99>20ms,rps<1000", &set) && set.count == 3, "the issue's example: 3 items");
    const struct threshold *t = set.items;
    TAP_CHECK(t[0].op == THRESHOLD_GT && t[0].unit == THRESHOLD_PERCENT && t[0].limit == 0.1 &&
                  !strcmp(t[0].text, "failed>0.1%") && !strcmp(t[0].figure, "failed"),
              "failed>0.1%%: a percentage, 0.1");
    TAP_CHECK(t[1].unit == THRESHOLD_DURATION && t[1].limit == 20000 && index_is_hist(t[1].index),
              "p99>20ms: a duration, 20000 us");
    TAP_CHECK(t[2].op == THRESHOLD_LT && t[2].unit == THRESHOLD_RATE && t[2].limit == 1000, "rps<1000: a rate");
    TAP_CHECK(parses("  errors.timeout >= 3 ,ttfb.max<=1.5s,\tsuccessful_rps < 10/s, latency.p999>250us", &set) &&
                  set.count == 4 && set.items[0].op == THRESHOLD_GE && set.items[0].unit == THRESHOLD_COUNT &&
                  set.items[0].limit == 3 && !strcmp(set.items[0].text, "errors.timeout >= 3") &&
                  set.items[1].op == THRESHOLD_LE && set.items[1].limit == 1.5e6 && set.items[2].limit == 10 &&
                  set.items[3].limit == 250,
              "blanks around items and operators, >=, <=, s, us, N/s");
    TAP_CHECK(parses("p99>20ms", &set) && parses("latency.p99>20ms", &set), "p99 is latency.p99");
    struct thresholds a, b;
    parses("p99>20ms", &a);
    parses("latency.p99>20ms", &b);
    TAP_CHECK(a.items[0].index == b.items[0].index, "p99 and latency.p99 are one figure");
    TAP_CHECK(parses("status.5xx>0.123%", &set) && set.items[0].limit == 0.123, "0.123 converted exactly as strtod");
    TAP_CHECK(parses("requests<.5", &set) && set.items[0].limit == 0.5, ".5");
    char err[4096];
    memset(&set, 0, sizeof set);
    TAP_CHECK(threshold_parse("failed>1", &set, err, sizeof err) == 0 &&
                  threshold_parse("rps<5,p50>1ms", &set, err, sizeof err) == 0 && set.count == 3 &&
                  !strcmp(set.items[2].figure, "p50"),
              "several --fail-on options add up, in order");
    TAP_CHECK(parses("status.codes.404>0,status.codes.503>=0.5%,errors_detail.bad_chunk>0", &set) && set.count == 3 &&
                  set.items[0].code == 404 && set.items[1].code == 503 && set.items[1].unit == THRESHOLD_PERCENT &&
                  set.items[2].code == 0,
              "status.codes.NNN with its code, errors_detail.*");
    refused("status.codes.99>1", "unknown figure 'status.codes.99'");
    refused("status.codes.600>1", "unknown figure");
    refused("status.codes.1000>1", "unknown figure");
    refused("status.codes.>1", "unknown figure");
    refused("status.codes.4x4>1", "unknown figure");
    refused("nope>1", "unknown figure 'nope'");
    refused("latency.p98>1ms", "unknown figure 'latency.p98'");
    refused("latency.>1ms", "unknown figure");
    refused("failed", "no operator after 'failed'");
    refused("failed=1", "no operator");
    refused("failed>>1", "no limit after the operator");
    refused("failed>", "no limit");
    refused("failed>-1", "no limit");
    refused("failed>1e3", "a count is N");
    refused("failed>0x10", "a count is N");
    refused("failed>inf", "no limit");
    refused("failed>.", "no limit");
    refused("failed>1.2.3", "'.3' after the limit");
    refused("failed>1 2", "'2' after the limit");
    refused("failed>1 %", "'%' after the limit");
    refused("failed>100.5%", "a percentage is 0..100");
    refused("failed>10000000000000000", "no limit");
    refused("p99>20", "a duration needs its unit");
    refused("p99>20m", "a duration needs its unit");
    refused("p99>20%", "a duration needs its unit");
    refused("rps<10%", "a rate is N or N/s");
    refused("bytes_sent>1%", "this count has no percentage");
    refused("failed>1,", "an empty item");
    refused(",failed>1", "an empty item");
    refused("failed>1,,p99>1ms", "an empty item");
    refused("", "an empty item");
    refused(">1", "no figure before the operator");
    refused("failed>1;p99>1ms", "after the limit");
    refused("p99>1ms,failed>2,bogus<3", "unknown figure 'bogus'");
    char many[THRESHOLD_MAX * 12 + 16] = "";
    for (int i = 0; i <= THRESHOLD_MAX; i++) strcat(many, i ? ",failed>1" : "failed>1");
    refused(many, "more than 32 items");
    refused("failed>000000000000000000000000000000000000000000000000000000000001", "longer than 63 bytes");
    TAP_CHECK(parses("schedule_lag.p99>1ms", &set) && threshold_needs_rate(&set) == &set.items[0] &&
                  parses("failed>1,rate.unsent>0", &set) && threshold_needs_rate(&set) == &set.items[1] &&
                  parses("failed>1,p99>1ms,ttfb.max>1s", &set) && !threshold_needs_rate(&set),
              "fixed-rate figures are known");
}

/* flow.* figures, p95, and STEP.STAT (a step's latency stat or count). */
static void test_parse_flow_and_steps(void)
{
    struct thresholds set;
    TAP_CHECK(parses("flow.capture_failed>0,flow.failed>1%,flow.iterations<10,flow.completed<90%,flow.broken>0", &set) &&
                  set.count == 5 && set.items[1].unit == THRESHOLD_PERCENT && set.items[0].step_len == 0 &&
                  threshold_needs_flow(&set) == &set.items[0] && !threshold_first_step(&set),
              "flow.* figures, counts and percentages of the iterations, known to need --flow");
    refused("flow.iterations>1%", "this count has no percentage");
    refused("flow.capture>0", "unknown figure 'flow.capture'");
    TAP_CHECK(parses("p95>1ms,ttfb.p95>1ms,latency_uncorrected.p95>1ms", &set) && set.count == 3 &&
                  set.items[0].unit == THRESHOLD_DURATION && !threshold_needs_flow(&set),
              "p95 for every latency figure");
    TAP_CHECK(parses("read.p99>20ms,get-item.p95>=1s,read.failed>0,read.unexpected>=2%,read.requests<10", &set) &&
                  set.count == 5 && threshold_first_step(&set) == &set.items[0] && set.items[0].step_len == 4 &&
                  set.items[0].unit == THRESHOLD_DURATION && set.items[0].limit == 20000 &&
                  set.items[1].step_len == 8 && set.items[2].unit == THRESHOLD_COUNT &&
                  set.items[3].unit == THRESHOLD_PERCENT && !threshold_needs_flow(&set) && !threshold_needs_rate(&set),
              "STEP.STAT: a step's latency and counts, STEP's length kept");
    TAP_CHECK(parses("a.b.p99>1ms", &set) && set.items[0].step_len == 3, "a step name with a dot: STEP is before the last");
    refused("read.p98>1ms", "unknown figure 'read.p98'");
    refused("read.p99>1", "a duration needs its unit");
    refused("read.failed>1ms", "a count is N");
    refused("read.failed>101%", "a percentage is 0..100");
    refused(".p99>1ms", "unknown figure");
    refused("latency.failed>0", "unknown figure"); /* a histogram's name is no step */
    refused("errors.p99>1ms", "unknown figure");   /* nor a prefix of the figures */
    refused("flow.p99>1ms", "unknown figure");
    TAP_CHECK(parses("flow.wait.p99>10ms,flow.iteration.max<1s", &set) && set.count == 2 &&
                  set.items[0].unit == THRESHOLD_DURATION && index_is_hist(set.items[0].index) &&
                  threshold_needs_flow(&set) == &set.items[0],
              "flow.wait and flow.iteration: durations that need --flow");
}

/* Every prefix (a split at each byte) is parsed or refused with a message,
 * and a refused one leaves the set as it was. */
static void test_prefixes(void)
{
    const char *expr = " failed >= 0.5% , p99<20ms,ttfb.p9999 > 1.25s,rps<1000/s,status.4xx>3,rate.unsent>=1%";
    size_t len = strlen(expr), accepted = 0, bad = 0;
    char buf[256];
    for (size_t n = 0; n <= len; n++) {
        memcpy(buf, expr, n);
        buf[n] = '\0';
        struct thresholds set = {.count = 0};
        char err[4096] = "";
        int rc = threshold_parse(buf, &set, err, sizeof err);
        if (rc == 0) accepted++;
        if ((rc == 0 && (set.count == 0 || err[0])) || (rc != 0 && (set.count != 0 || !err[0]))) bad++;
    }
    TAP_CHECK(bad == 0 && accepted >= 10, "every prefix of a long expression parsed or refused cleanly (%zu accepted)",
              accepted);
}

static void verdict_of(const char *expr, const struct run_result *r, bool *measured, bool *broken, double *value)
{
    static struct thresholds set; /* the verdict points into it */
    struct threshold_verdicts v;
    if (!parses(expr, &set)) abort();
    threshold_evaluate(&set, r, &v);
    *measured = v.v[0].measured;
    *broken = v.v[0].broken;
    *value = v.v[0].value;
}

/* expr breaks (or holds) on r, with value want. */
static void check(const char *expr, const struct run_result *r, bool broken, double want)
{
    bool m, b;
    double v;
    verdict_of(expr, r, &m, &b, &v);
    TAP_CHECK(m && b == broken && v > want - 1e-9 && v < want + 1e-9, "%s %s (value %g, want %g)", expr,
              broken ? "breaks" : "holds", v, want);
}

static void unmeasured(const char *expr, const struct run_result *r)
{
    bool m, b;
    double v;
    verdict_of(expr, r, &m, &b, &v);
    TAP_CHECK(!m && b && v == 0, "%s: not measured, so it breaks", expr);
}

static void test_evaluate(void)
{
    struct run_result r = {.duration_us = 2000000};
    if (stats_init(&r.stats)) abort();
    /* 1000 requests: 990 of 200 at 1..990 ms, 5 of 503, 5 timeouts; 2 aborted */
    for (int i = 1; i <= 990; i++) stats_response(&r.stats, 200, (uint64_t)i * 1000, (uint64_t)i * 1000);
    for (int i = 0; i < 5; i++) stats_response(&r.stats, 503, 1000, 1000);
    for (int i = 0; i < 5; i++) stats_error(&r.stats, REQ_ERR_TIMEOUT, DETAIL_NONE, 10000000);
    r.stats.started = 1002;
    r.stats.aborted = 2;
    check("failed>1%", &r, false, 1.0);
    check("failed>=1%", &r, true, 1.0);
    check("failed>9", &r, true, 10);
    check("failed<=10", &r, true, 10);
    check("failed<10", &r, false, 10);
    check("p95>=1ms", &r, true, (double)hist_percentile(&r.stats.latency, 95));
    check("errors.timeout>0.4%", &r, true, 0.5);
    check("status.5xx>=5", &r, true, 5);
    check("status.codes.503>=0.5%", &r, true, 0.5);
    check("status.codes.200<990", &r, false, 990);
    check("status.codes.404>0", &r, false, 0);
    check("errors_detail.bad_chunk>0", &r, false, 0);
    check("aborted>0.1%", &r, true, 100.0 * 2 / 1002);
    check("requests<100%", &r, true, 100.0 * 1000 / 1002);
    check("rps<500", &r, false, 500);
    check("rps<=500/s", &r, true, 500);
    check("successful_rps<496", &r, true, 495);
    check("latency.max>990ms", &r, false, 990000);
    check("max>=990ms", &r, true, 990000);
    check("min<1ms", &r, false, 1000);
    uint64_t p99 = hist_percentile(&r.stats.latency, 99);
    check("p99>980ms", &r, p99 > 980000, (double)p99);
    check("error_latency.p50>=10s", &r, true, 10e6);
    unmeasured("ttfb.p99>1ms", &r); /* nothing recorded a ttfb */
    unmeasured("ttfb.p99<1ms", &r);
    unmeasured("connections.established<50%", &r); /* no connect attempts */
    check("connections.established<1", &r, true, 0);
    r.duration_us = 0;
    unmeasured("rps<1", &r);
    /* a flow's iterations: 6 completed, 3 capture failures, 1 broken */
    r.stats.flow = (struct stats_flow){.completed = 6, .capture_failed = 3, .broken = 1};
    check("flow.capture_failed>0", &r, true, 3);
    check("flow.failed>=40%", &r, true, 40);
    check("flow.completed<60%", &r, false, 60);
    check("flow.iterations<10", &r, false, 10);
    unmeasured("flow.wait.p99>1ms", &r); /* no flow time recorded: its histogram is not even made */
    stats_flow_time(&r.stats.flow.wait, 5000);
    stats_flow_time(&r.stats.flow.iteration, 9000);
    check("flow.wait.max>=5ms", &r, true, 5000);
    check("flow.iteration.p50<9ms", &r, false, (double)hist_percentile(&r.stats.flow.iteration, 50));
    /* a step: 3 requests, 1 unexpected, latencies 1, 2 and 30 ms */
    struct stats_kind *k = stats_kind(&r.stats, 0, "read");
    if (!k) abort();
    stats_kind_response(k, 200, 1000);
    stats_kind_response(k, 200, 2000);
    stats_kind_unexpected(k, 30000);
    check("read.max>20ms", &r, true, (double)hist_percentile(&k->latency, 100));
    check("read.p50<1ms", &r, false, (double)hist_percentile(&k->latency, 50));
    check("read.unexpected>=1", &r, true, 1);
    check("read.failed>30%", &r, true, 100.0 / 3);
    check("read.requests<3", &r, false, 3);
    unmeasured("write.p99<1s", &r); /* no such step: it cannot show that it held */
    unmeasured("write.failed<1", &r);
    stats_free(&r.stats);
    struct run_result empty = {.duration_us = 1000000};
    if (stats_init(&empty.stats)) abort();
    unmeasured("failed>1%", &empty);
    unmeasured("p99>1ms", &empty);
    check("failed>0", &empty, false, 0);
    check("rps<1", &empty, true, 0);
    stats_free(&empty.stats);
}

int main(void)
{
    test_parse();
    test_parse_flow_and_steps();
    test_prefixes();
    test_evaluate();
    TAP_EXIT();
}
