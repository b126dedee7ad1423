/* engine: one run, from the main thread. engine_run builds what the threads
 * share (the protocol's shared part; the source's is built by main, before
 * the target is probed, so that bad requests are usage errors),
 * starts one worker thread per -t (worker.h: each owns its connections,
 * sessions, source and stats; nothing is shared between threads until the
 * end), and supervises them while they run: it merges their per-second
 * intervals into the timeline (timeline.c, which writes the --hdr-log lines;
 * --live prints each second), reads --control and forwards its commands.
 * When every thread has ended it merges their stats into the run_result. The
 * engine names no protocol and no kind of source: main chooses them. */
#ifndef BARRAGE_ENGINE_H
#define BARRAGE_ENGINE_H

#include <stddef.h>

#include "config.h"
#include "run_result.h"
#include "session.h"
#include "source.h"

/* Runs the whole load test, speaking protocol, with requests from source,
 * whose threads share source_shared (source->shared_new's, the caller's: it
 * must outlive the call); while it runs, the calling thread merges the
 * per-second stats (and writes cfg->hdr_log's lines, prints --live lines),
 * and reads cfg->control.
 * Returns 0 (a run a source stopped with an error included: out->error), or
 * -1 when setting up failed (out of memory, no threads, the log could not be
 * written: the reason in errbuf). On 0 the caller owns what out holds
 * (run_result.h); on -1 out holds nothing to free. */
int engine_run(const struct config *cfg, const struct protocol *protocol, const struct source_type *source,
               void *source_shared, struct run_result *out, char *errbuf, size_t errlen);

#endif
