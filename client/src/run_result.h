/* run_result: what a whole run measured, as the engine hands it to main, the
 * report and a script's done(). Filled by engine_run (engine.h); the caller
 * owns what it holds and frees it with stats_free, hist_free and
 * timeline_free (two timelines: the measured one and the warm-up's). No functions of its own. */
#ifndef BARRAGE_RUN_RESULT_H
#define BARRAGE_RUN_RESULT_H

#include <stdbool.h>
#include <stdint.h>

#include "hist.h"
#include "stats.h"
#include "threshold.h"
#include "timeline.h"

#define RUN_ERROR_MAX 4096

/* The warm-up the run had: its length, whether a --warmup auto reached steady
 * state, and its per-second series (closed as the measured timeline's, t_s
 * from the run's start; empty without a warm-up). */
struct run_warmup {
    uint64_t duration_us; /* the run's start to the measured phase's (for a run stopped in it: to the stop) */
    bool steady;          /* --warmup auto: steady state reached (false: its cap, or a stop, ended it) */
    struct timeline timeline; /* owned by the caller: timeline_free */
};

/* --jwt-key: the tokens of the run (jwtpool.h's counts); on false without it. */
struct run_jwt {
    bool on;
    const char *alg;      /* "ES256", "RS256", "HS256"; static */
    uint64_t signed_count, taken, waited, wait_us_max, stale;
};

/* The HTTP/3 libraries' versions (static strings, "" in a build without
 * them), as http3_library_versions gives them: set by main. */
struct run_libraries {
    const char *ngtcp2, *nghttp3;
};

/* The result of a run: merged stats, the measured window and the per-second timeline. */
struct run_result {
    struct stats stats;   /* owned by the caller: stats_free */
    uint64_t duration_us; /* warm-up end to the deadline (or to the last answer of a
                           * run without one, or to the signal that interrupted it);
                           * never over -d; the grace is not in it */
    struct hist thread_rps; /* each thread's requests/s over its window; owned: hist_free */
    char error[RUN_ERROR_MAX]; /* why a source stopped the run at once (a script error), or "" */
    int interrupted;           /* the signal (SIGINT, SIGTERM) that ended the run early, or 0 */
    struct timeline timeline; /* owned by the caller: timeline_free; its entries add up
                               * to the totals; changes[1..] are --control's rate changes */
    struct run_warmup warmup;
    struct run_jwt jwt;       /* set by main */
    struct run_libraries libraries; /* set by main */
    struct threshold_verdicts thresholds; /* --fail-on, set by main (count 0: none); points into the config */
};

#endif
