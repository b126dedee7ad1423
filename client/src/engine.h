/* engine: worker threads, one libev loop each, driving connections. Each
 * worker owns its connections, sessions, source and stats; nothing is shared
 * between threads until the end, when the caller merges the stats. The
 * engine names no protocol and no kind of source: main chooses them. */
#ifndef BARRAGE_ENGINE_H
#define BARRAGE_ENGINE_H

#include <stdint.h>

#include "config.h"
#include "session.h"
#include "source.h"
#include "stats.h"
#include "timeline.h"

#define ENGINE_ERROR_MAX 4096

/* The result of a run: merged stats, the measured window and the per-second timeline. */
struct run_result {
    struct stats stats;   /* owned by the caller: stats_free */
    uint64_t duration_us; /* warm-up end to the deadline (or to the last answer of a
                           * run without one); the grace is not in it */
    struct hist thread_rps; /* each thread's requests/s over its window; owned: hist_free */
    char error[ENGINE_ERROR_MAX]; /* why a source stopped the run at once (a script error), or "" */
    struct timeline timeline; /* owned by the caller: timeline_free; its entries add up
                               * to the totals; changes[1..] are --control's rate changes */
};

/* Runs the whole load test, speaking protocol, with requests from source;
 * while it runs, the calling thread merges the per-second stats (and writes
 * cfg->hdr_log's lines, prints --live lines), and reads cfg->control.
 * Returns 0 (a run a source stopped with an error included: out->error), or
 * -1 when setting up failed (out of memory, no threads, the source could not
 * be built, the log could not be written: the reason in errbuf). */
int engine_run(const struct config *cfg, const struct protocol *protocol, const struct source_type *source,
               struct run_result *out, char *errbuf, size_t errlen);

/* Monotonic clock, microseconds. */
uint64_t engine_now_us(void);

#endif
