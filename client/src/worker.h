/* worker: one load thread and its libev loop. A worker owns its connections
 * (each with a transport and a session), its source, its stats and its
 * open-loop schedule; nothing of it is touched by another thread while it
 * runs, except through the calls below marked "main thread", which cross
 * under the worker's mutex or through a libev async watcher.
 *
 * The contract with the supervisor (engine.c, the main thread):
 * - It hands every worker the same struct run_shared, built before the first
 *   worker_new and freed after the last worker_free; the workers only read
 *   it, except that the first source to fail sets `aborted` and writes
 *   `error` (once, by whichever wins the exchange) and stops every worker.
 * - It creates each worker (worker_new), starts its thread (worker_spawn),
 *   and while the threads run takes what they hand over: once a second an
 *   interval (and a last, partial one when the thread ends, marked `last`),
 *   announced by a write to run_shared.notify_fd (with a warm-up, its
 *   seconds first, marked `warmup`, the last of them marked `last` too);
 *   and it forwards --control commands (worker_command) and the end of a
 *   --warmup auto (worker_end_warmup).
 * - After worker_join it reads the final stats and measured window
 *   (worker_stats, worker_measured_us), then frees the worker. */
#ifndef BARRAGE_WORKER_H
#define BARRAGE_WORKER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "control.h"
#include "interval.h"
#include "run_result.h"
#include "session.h"
#include "source.h"
#include "stats.h"

struct worker;

/* What the threads share for one run: read-only but for the abort. Owned by
 * the supervisor. */
struct run_shared {
    const struct protocol *protocol;
    const struct source_type *source;
    void *protocol_shared, *source_shared; /* the protocol's and source's shared_new */
    struct worker **workers;               /* every worker of the run, to stop them all on an abort */
    unsigned worker_count;
    atomic_bool aborted;
    char error[RUN_ERROR_MAX]; /* the first failing source's message, written by the one that set aborted */
    uint64_t t0_us;            /* the run's start: an open-loop schedule starts here */
    _Atomic uint64_t measure_start_us; /* t0 + the warm-up: open-loop requests scheduled from here on
                                        * count; --warmup auto: UINT64_MAX until the main thread
                                        * sets it (before worker_end_warmup, a little ahead of now) */
    int notify_fd;             /* eventfd: a worker handed an interval to the main thread */
};

/* Thread `index` of the run, with `conns` connections, `idle` idle ones
 * (--idle-connections: opened first, never given a request, counted apart in
 * stats.idle) and `budget` requests to start in the measured phase
 * (UINT64_MAX: no limit); its loop, source, sessions and schedule are made
 * here, before any thread runs. NULL when out of memory (or the source or a
 * session could not be made). Free with worker_free. */
struct worker *worker_new(const struct config *cfg, struct run_shared *rs, unsigned index, unsigned conns,
                          unsigned idle, uint64_t budget);

/* Starts the worker's thread (SIGINT and SIGTERM blocked in it: the main
 * thread handles them): it connects, runs the warm-up, the measured
 * phase and the grace, and ends when it has nothing left to do. 0, or
 * pthread_create's error (the thread did not start). */
int worker_spawn(struct worker *w);

/* Waits for the thread worker_spawn started to end. */
void worker_join(struct worker *w);

/* Main thread: the intervals the worker has handed over since the last call,
 * oldest first, linked by `next`; the caller owns them (interval_free). */
struct interval *worker_take_intervals(struct worker *w);

/* Main thread: queues a --control command (CONTROL_RATE with `rate`, or
 * CONTROL_STOP), applied as of at_us (the same for every worker, so the
 * threads' schedules stay one) on the worker's thread. 0, or -1 when out of
 * memory (the command is lost). */
int worker_command(struct worker *w, enum control_kind kind, double rate, uint64_t at_us);

/* Main thread: SIGINT/SIGTERM: the worker stops at once, its window ending
 * at at_us (the requests in flight are aborted, no grace). 0, or -1 when out
 * of memory. */
int worker_interrupt(struct worker *w, uint64_t at_us);

/* Main thread: interrupts a system call the worker's thread is blocked in
 * (EINTR), as a script's io.read; harmless otherwise. After worker_spawn. */
void worker_nudge(struct worker *w);

/* Main thread: a --warmup auto has reached steady state (or its cap): the
 * worker's measured phase begins (closed loop: when the worker gets this;
 * open loop: at run_shared.measure_start_us, which the caller set first).
 * 0, or -1 when out of memory. */
int worker_end_warmup(struct worker *w);

/* After worker_join: the thread's stats (owned by the worker) and how long its
 * measured window was (0: it stopped before its measured phase began). */
const struct stats *worker_stats(const struct worker *w);
uint64_t worker_measured_us(const struct worker *w);

/* Frees the worker and everything it owns (intervals it did not hand over,
 * commands it did not apply); after worker_join, or when its thread never
 * started. NULL is fine. */
void worker_free(struct worker *w);

#endif
