/* threshold: --fail-on EXPR, limits on the figures of a run's record that
 * set barrage's exit status (as k6's thresholds, nighthawk's failure
 * predicates). EXPR is ITEM[,ITEM...], an ITEM `FIGURE OP LIMIT`:
 *   FIGURE  a measured figure of the record, named in threshold.c's tables
 *           (counts such as failed, rates such as rps, durations such as p99
 *           or ttfb.max, a flow's iterations such as flow.capture_failed), or
 *           STEP.STAT: a step's (a kind's) latency stat or count (read.p99,
 *           read.failed), STEP any name not of the tables
 *   OP      >  >=  <  <=   the threshold BREAKS when `figure OP limit` is true
 *   LIMIT   a count N, or N% of its base (failed: of the requests); a rate
 *           N (or N/s); a duration with its unit, 20ms, 1.5s, 250us
 * e.g. "failed>0.1%,p99>20ms,rps<1000". Parsed once on the command line
 * (a usage error names what is allowed); evaluated once on the merged
 * result. A figure the run did not measure (no response for p99, no request
 * for a percentage) cannot show that it holds: its threshold breaks. No I/O,
 * no allocation: everything lives in the caller's structs. */
#ifndef BARRAGE_THRESHOLD_H
#define BARRAGE_THRESHOLD_H

#include <stdbool.h>
#include <stddef.h>

#define THRESHOLD_MAX 32      /* items over all --fail-on options */
#define THRESHOLD_TEXT_MAX 64 /* an item's text as written, NUL included */

struct run_result;

enum threshold_op { THRESHOLD_GT, THRESHOLD_GE, THRESHOLD_LT, THRESHOLD_LE };

/* What a limit (and the figure's value) is measured in. */
enum threshold_unit {
    THRESHOLD_COUNT,    /* a whole number of requests, connections, bytes */
    THRESHOLD_PERCENT,  /* a count as a percentage of its base */
    THRESHOLD_RATE,     /* per second */
    THRESHOLD_DURATION, /* microseconds (written with a unit) */
};

/* One item, parsed. */
struct threshold {
    char text[THRESHOLD_TEXT_MAX]; /* as written, blanks trimmed: "p99>20ms" */
    char figure[THRESHOLD_TEXT_MAX]; /* the figure's name as written */
    unsigned index;               /* the figure's entry (threshold.c) */
    unsigned code;                /* status.codes.NNN: the code; 0 for other figures */
    unsigned step_len;            /* STEP.STAT: STEP's length (the start of figure); 0 for other figures */
    enum threshold_op op;
    enum threshold_unit unit;
    double limit;                 /* in unit: us for a duration, 0.1 for 0.1% */
};

/* Every --fail-on item of the command line, in order. Zeroed: none. */
struct thresholds {
    struct threshold items[THRESHOLD_MAX];
    unsigned count;
};

/* One item evaluated on a run. */
struct threshold_verdict {
    const struct threshold *threshold; /* the item (the caller's, in struct thresholds) */
    bool measured;                     /* false: the run has no value for the figure */
    bool broken;                       /* measured and `value OP limit`, or not measured */
    double value;                      /* in the item's unit; 0 when not measured */
};

/* The verdicts of a run, in the items' order. */
struct threshold_verdicts {
    struct threshold_verdict v[THRESHOLD_MAX];
    unsigned count;  /* 0: no --fail-on */
    unsigned broken; /* how many broke */
};

/* Parses EXPR and appends its items to set. 0, or -1 with err saying what is
 * wrong and what is allowed (set unchanged then). */
int threshold_parse(const char *expr, struct thresholds *set, char *err, size_t errlen);

/* The first item whose figure exists only at a fixed rate (schedule lag,
 * unsent...), or NULL: cli.c refuses it without -R. */
const struct threshold *threshold_needs_rate(const struct thresholds *set);

/* The first item whose figure exists only in a flow (flow.*), or NULL:
 * cli.c refuses it without --flow. */
const struct threshold *threshold_needs_flow(const struct thresholds *set);

/* The first item naming a step (STEP.STAT), or NULL: cli.c refuses it
 * without --flow or a script (whose kinds are the steps), source_flow.c
 * one whose STEP the flow does not name. */
const struct threshold *threshold_first_step(const struct thresholds *set);

/* The first item whose figure the record has over TLS only
 * (connections.handshakes_*: null on http://), or NULL: cli.c refuses it
 * without TLS, as a gate on a figure that cannot be measured. */
const struct threshold *threshold_needs_tls(const struct thresholds *set);

/* Evaluates every item of set on r into out (set must outlive out). */
void threshold_evaluate(const struct thresholds *set, const struct run_result *r, struct threshold_verdicts *out);

/* The operator's text: ">", ">=", "<", "<=". */
const char *threshold_op_text(enum threshold_op op);

#endif
