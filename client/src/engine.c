/* engine: the main thread of a run (contract in engine.h): sets up what the
 * worker threads share, starts them (worker.c), supervises them while they
 * run (their per-second intervals into the timeline, --live, --control),
 * writes the --hdr-log header and merges their stats when they have ended. */
#include "engine.h"

#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "control.h"
#include "hdrlog.h"
#include "interval.h"
#include "monotonic.h"
#include "metrics.h"
#include "report.h"
#include "signals.h"
#include "steady.h"
#include "timeline.h"
#include "worker.h"

#define CONTROL_FILE_POLL_MS 100 /* how often a regular --control file is read */
#define WATCHDOG_SLACK_US 500000  /* past the run's end (or a signal) before the sources are halted */
#define NUDGE_EVERY_MS 100        /* then how often threads still running are nudged (EINTR) */
#define WARMUP_END_AHEAD_US 20000 /* open loop: the measured phase starts this far after the
                                   * main thread decides, so that every thread knows it first */

static void run_shared_free(struct run_shared *rs)
{
    if (rs->protocol_shared) rs->protocol->shared_free(rs->protocol_shared);
    if (rs->notify_fd >= 0) close(rs->notify_fd);
}

/* Merges the threads' stats into out; 0, or -1 when out of memory. */
static int merge_results(struct worker *const *workers, unsigned threads, struct run_result *out)
{
    if (stats_init(&out->stats)) return -1;
    if (hist_init(&out->thread_rps)) {
        stats_free(&out->stats);
        return -1;
    }
    out->duration_us = 0;
    for (unsigned i = 0; i < threads; i++) {
        stats_merge(&out->stats, worker_stats(workers[i]));
        uint64_t d = worker_measured_us(workers[i]);
        if (d > out->duration_us) out->duration_us = d;
        if (d) hist_record(&out->thread_rps, stats_requests(worker_stats(workers[i])) * 1000000 / d);
    }
    return 0;
}

/* ---- the main thread while the workers run: intervals, --control, --live ---- */

/* Moves what each worker handed over into the timeline (the warm-up's seconds into out->warmup's). */
static void collect_intervals(struct worker **workers, unsigned threads, struct run_result *out)
{
    for (unsigned i = 0; i < threads; i++) {
        struct interval *iv = worker_take_intervals(workers[i]);
        while (iv) {
            struct interval *next = iv->next;
            timeline_add(iv->warmup ? &out->warmup.timeline : &out->timeline, i, iv);
            iv = next;
        }
    }
}

/* The interval log's header: BaseTime is the start of the measured phase. */
static int hdr_log_start(const struct config *cfg, uint64_t measure_start_us)
{
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    int64_t epoch_us = (int64_t)wall.tv_sec * 1000000 + wall.tv_nsec / 1000;
    epoch_us += (int64_t)measure_start_us - (int64_t)monotonic_now_us();
    char comment[512];
    snprintf(comment, sizeof comment,
             "barrage %s: untagged: latency of final responses from their %s; Tag=uncorrected: from the send "
             "(fixed-rate runs only); Tag=errors: errored requests; untagged + errors = requests",
             cfg->url, cfg->rate > 0 ? "scheduled time (corrected for coordinated omission)" : "send");
    if (strpbrk(comment, "\r\n")) snprintf(comment, sizeof comment, "barrage: see the record for the run");
    return hdrlog_write_header(cfg->setup.hdr_log, (uint64_t)(epoch_us / 1000), cfg->hdr_log_ns ? HDRLOG_NS : HDRLOG_US,
                               comment);
}

/* The measured phase starts at `at`: the timeline counts from it, the log's
 * header is written. 0, or -1 when the log could not be written. */
static int measured_begin(const struct config *cfg, struct timeline *tl, uint64_t at)
{
    timeline_begin(tl, at);
    if (cfg->duration_us) timeline_window_end(tl, at + cfg->duration_us);
    return cfg->setup.hdr_log && hdr_log_start(cfg, at) ? -1 : 0;
}

/* The watchdog's state: when the run must have ended (UINT64_MAX: not known). */
struct watch {
    uint64_t halt_at; /* then the sources are halted and the threads nudged */
    bool interrupted, halted;
};

/* When a run whose measured phase starts at `start` must have ended (no -d: never). */
static uint64_t halt_time(const struct config *cfg, uint64_t start)
{
    return cfg->duration_us ? start + cfg->duration_us + cfg->grace_us + WATCHDOG_SLACK_US : UINT64_MAX;
}

/* --warmup auto, on the main thread: feeds each closed second of the warm-up
 * to the steady-state test and ends the warm-up when it passes or the cap
 * has passed. */
struct warmup_watch {
    bool deciding; /* a --warmup auto not yet ended */
    struct steady steady;
    size_t fed;    /* warm-up entries given to the test */
    uint64_t cap_at;
};

/* The value the test watches in a whole second (steady_second). */
static double watched_value(const struct steady_rule *rule, const struct timeline_entry *e)
{
    double rps = e->length_us ? (double)e->succeeded * 1e6 / (double)e->length_us : 0;
    return steady_second(rule, rps, e->target_rate, e->latency.present ? (double)e->latency.p99 : -1);
}

static void warmup_decide(const struct config *cfg, struct worker **workers, struct run_shared *rs,
                          struct run_result *out, struct warmup_watch *ww, struct watch *w)
{
    const struct timeline *wt = &out->warmup.timeline;
    bool steady = false;
    while (!steady && ww->fed < wt->len)
        steady = steady_add(&ww->steady, watched_value(&ww->steady.rule, &wt->entries[ww->fed++]));
    uint64_t now = monotonic_now_us();
    if (!steady && now < ww->cap_at) return;
    uint64_t at = cfg->rate > 0 ? now + WARMUP_END_AHEAD_US : now;
    ww->deciding = false;
    out->warmup.steady = steady;
    out->warmup.duration_us = at - rs->t0_us;
    rs->measure_start_us = at; /* atomic: the workers read it */
    if (halt_time(cfg, at) < w->halt_at) w->halt_at = halt_time(cfg, at);
    if (measured_begin(cfg, &out->timeline, at)) {
        report_error("cannot write --hdr-log %s: %s", cfg->hdr_log_path, strerror(errno));
        out->timeline.failed = true;
    }
    for (unsigned i = 0; i < cfg->threads; i++)
        if (worker_end_warmup(workers[i])) report_error("out of memory: the end of the warm-up lost for thread %u", i);
}

/* Queues a command for every worker, with the same time for all. */
static void command_all(struct worker **workers, unsigned threads, enum control_kind kind, double rate, uint64_t at)
{
    for (unsigned i = 0; i < threads; i++)
        if (worker_command(workers[i], kind, rate, at))
            report_error("out of memory: --control command lost for thread %u", i);
}

/* Applies the commands that arrived on --control; *stopped once a stop was sent. */
static void apply_control(const struct config *cfg, struct worker **workers, struct timeline *tl, bool *stopped)
{
    struct control_command cmd;
    while ((cmd = control_next(cfg->setup.control)).kind != CONTROL_NONE) {
        uint64_t now = monotonic_now_us();
        if (cmd.kind == CONTROL_BAD) {
            report_error("--control: ignored '%s' (commands: rate N, stop)", cmd.line);
        } else if (cmd.kind == CONTROL_RATE && cfg->rate == 0) {
            report_error("--control: ignored '%s': the rate of a closed-loop run cannot change (use -R)", cmd.line);
        } else if (!*stopped) {
            command_all(workers, cfg->threads, cmd.kind, cmd.rate, now);
            if (cmd.kind == CONTROL_RATE) timeline_rate_change(tl, now, cmd.rate);
            else timeline_window_end(tl, now);
            *stopped = cmd.kind == CONTROL_STOP;
        }
    }
}

/* SIGINT/SIGTERM: every worker stops at once, the window ends now. */
static void interrupt_all(const struct config *cfg, struct worker **workers, struct timeline *tl, struct watch *w)
{
    uint64_t now = monotonic_now_us();
    w->interrupted = true;
    for (unsigned i = 0; i < cfg->threads; i++)
        if (worker_interrupt(workers[i], now)) report_error("out of memory: thread %u not interrupted", i);
    timeline_window_end(tl, now);
    if (now + WATCHDOG_SLACK_US < w->halt_at) w->halt_at = now + WATCHDOG_SLACK_US;
}

/* A thread still running when the run must have ended is held up by its
 * source (a script in an endless loop, or blocked): the source is halted,
 * and the threads nudged out of a blocking call, again every NUDGE_EVERY_MS. */
static void watchdog(const struct config *cfg, struct worker **workers, const struct run_shared *rs,
                     const struct run_result *out, struct watch *w)
{
    uint64_t now = monotonic_now_us();
    if (now < w->halt_at) return;
    if (!w->halted && rs->source->halt) rs->source->halt(rs->source_shared, w->interrupted);
    w->halted = true;
    for (unsigned i = 0; i < cfg->threads; i++)
        if (!out->timeline.finished[i] || !out->warmup.timeline.finished[i]) worker_nudge(workers[i]);
    w->halt_at = now + NUDGE_EVERY_MS * 1000;
}

/* poll's timeout in ms: until the watchdog's time, a --warmup auto's cap, or
 * the control file's next read (-1: none of them). */
static int poll_timeout(int control_timeout, const struct watch *w, const struct warmup_watch *ww)
{
    uint64_t until = w->halt_at;
    if (ww->deciding && ww->cap_at < until) until = ww->cap_at;
    if (until == UINT64_MAX) return control_timeout;
    uint64_t now = monotonic_now_us();
    int ms = until > now ? (int)((until - now + 999) / 1000) : 0;
    return control_timeout >= 0 && control_timeout < ms ? control_timeout : ms;
}

/* Until every worker has handed over its last interval: merges the seconds
 * as they complete (--live prints each), ends a --warmup auto, reads
 * --control, stops the workers on SIGINT/SIGTERM, and keeps the watchdog. */
static void supervise(const struct config *cfg, struct worker **workers, struct run_shared *rs,
                      struct run_result *out)
{
    struct timeline *tl = &out->timeline;
    struct pollfd fds[2] = {{.fd = rs->notify_fd, .events = POLLIN}, {.fd = -1, .events = POLLIN}};
    int timeout = -1;
    bool stopped = false;
    struct warmup_watch ww = {.deciding = cfg->warmup_auto, .cap_at = rs->t0_us + cfg->warmup_us};
    steady_init(&ww.steady, steady_rule_for(cfg->rate > 0));
    /* --warmup auto: the latest the measured phase can start is the cap */
    struct watch watch = {.halt_at = halt_time(cfg, cfg->warmup_auto ? ww.cap_at + WARMUP_END_AHEAD_US
                                                                     : rs->measure_start_us)};
    if (cfg->setup.control) {
        fds[1].fd = control_poll_fd(cfg->setup.control);
        if (fds[1].fd < 0) timeout = CONTROL_FILE_POLL_MS;
    }
    while (!timeline_complete(tl) || !timeline_complete(&out->warmup.timeline)) {
        if (!watch.interrupted && signals_caught()) interrupt_all(cfg, workers, tl, &watch);
        watchdog(cfg, workers, rs, out, &watch);
        if (poll(fds, 2, poll_timeout(timeout, &watch, &ww)) > 0 && (fds[0].revents & POLLIN)) {
            uint64_t posts;
            if (read(rs->notify_fd, &posts, sizeof posts) < 0) { /* nothing to clear */ }
        }
        if (!watch.interrupted && signals_caught()) interrupt_all(cfg, workers, tl, &watch);
        if (cfg->setup.control) apply_control(cfg, workers, tl, &stopped);
        collect_intervals(workers, cfg->threads, out);
        timeline_close(&out->warmup.timeline);
        if (ww.deciding && !stopped && !watch.interrupted) warmup_decide(cfg, workers, rs, out, &ww, &watch);
        size_t added = timeline_close(tl);
        for (size_t i = tl->len - added; cfg->live && i < tl->len; i++) report_live(cfg, &tl->entries[i]);
    }
    if (ww.deciding) out->warmup.duration_us = monotonic_now_us() - rs->t0_us; /* stopped in the warm-up */
}

/* Sets up every thread, runs them and waits for them; 0, or -1 with the reason in errbuf. */
static int run_workers(struct worker **workers, const struct config *cfg, struct run_shared *rs,
                       struct run_result *out, char *errbuf, size_t errlen)
{
    unsigned started = 0;
    int rc = -1;
    for (unsigned i = 0; i < cfg->threads; i++) {
        unsigned conns = cfg->connections / cfg->threads + (i < cfg->connections % cfg->threads);
        uint64_t budget = cfg->requests ? cfg->requests / cfg->threads + (i < cfg->requests % cfg->threads)
                                        : UINT64_MAX;
        unsigned idle = cfg->idle_connections / cfg->threads + (i < cfg->idle_connections % cfg->threads);
        if (!(workers[i] = worker_new(cfg, rs, i, conns, idle, budget))) {
            snprintf(errbuf, errlen, "out of memory setting up thread %u", i);
            return -1;
        }
    }
    for (; started < cfg->threads; started++) {
        if (worker_spawn(workers[started])) {
            snprintf(errbuf, errlen, "cannot start thread %u: %s", started, strerror(errno));
            break;
        }
    }
    if (started == cfg->threads) rc = 0;
    for (unsigned i = started; i < cfg->threads; i++) /* nothing will come */
        out->timeline.finished[i] = out->warmup.timeline.finished[i] = true;
    supervise(cfg, workers, rs, out);
    for (unsigned i = 0; i < started; i++) worker_join(workers[i]);
    return rc;
}

/* The measured and the warm-up timelines, empty; 0, or -1 when out of memory. */
static int timelines_init(const struct config *cfg, struct run_result *out, uint64_t t0, uint64_t measure_start)
{
    double rate = cfg->rate > 0 ? cfg->rate : -1;
    enum hdrlog_unit unit = cfg->hdr_log_ns ? HDRLOG_NS : HDRLOG_US;
    if (timeline_init(&out->timeline, cfg->threads, measure_start, rate, cfg->setup.hdr_log, unit)) return -1;
    if (timeline_init(&out->warmup.timeline, cfg->threads, t0, rate, NULL, unit)) {
        timeline_free(&out->timeline);
        return -1;
    }
    if (cfg->stage_count) timeline_stages(&out->timeline, cfg->stages_start_rate, cfg->stages, cfg->stage_count);
    if (cfg->setup.metrics) {
        out->timeline.on_second = metrics_on_second;
        out->timeline.on_second_ctx = cfg->setup.metrics;
    }
    if (!cfg->warmup_us) /* no warm-up: no seconds of it will come */
        for (unsigned i = 0; i < cfg->threads; i++) out->warmup.timeline.finished[i] = true;
    return 0;
}

int engine_run(const struct config *cfg, const struct protocol *protocol, const struct source_type *source,
               void *source_shared, struct run_result *out, char *errbuf, size_t errlen)
{
    struct worker **workers = calloc(cfg->threads, sizeof *workers);
    struct run_shared rs = {.protocol = protocol, .source = source, .source_shared = source_shared, .workers = workers,
                            .worker_count = cfg->threads, .t0_us = monotonic_now_us()};
    uint64_t measure_start = cfg->warmup_auto ? UINT64_MAX : rs.t0_us + cfg->warmup_us;
    atomic_init(&rs.measure_start_us, measure_start);
    rs.notify_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    signals_set_wake(rs.notify_fd); /* a signal wakes supervise() */
    int rc = -1;
    atomic_init(&rs.aborted, false);
    snprintf(errbuf, errlen, "out of memory");
    if (timelines_init(cfg, out, rs.t0_us, measure_start)) {
        free(workers);
        run_shared_free(&rs);
        return -1;
    }
    out->warmup.duration_us = cfg->warmup_auto ? 0 : cfg->warmup_us;
    out->warmup.steady = false;
    if (!cfg->warmup_auto && measured_begin(cfg, &out->timeline, measure_start)) {
        snprintf(errbuf, errlen, "cannot write --hdr-log %s: %s", cfg->hdr_log_path, strerror(errno));
    } else if (rs.notify_fd < 0) {
        snprintf(errbuf, errlen, "eventfd: %s", strerror(errno));
    } else if (workers && (rs.protocol_shared = protocol->shared_new(cfg))) {
        rc = run_workers(workers, cfg, &rs, out, errbuf, errlen);
        if (rc == 0 && merge_results(workers, cfg->threads, out)) {
            snprintf(errbuf, errlen, "out of memory");
            rc = -1;
        }
        snprintf(out->error, sizeof out->error, "%s", atomic_load(&rs.aborted) ? rs.error : "");
    }
    signals_set_wake(-1);
    out->interrupted = signals_caught();
    for (unsigned i = 0; workers && i < cfg->threads; i++) worker_free(workers[i]);
    free(workers);
    run_shared_free(&rs);
    if (rc) {
        timeline_free(&out->timeline);
        timeline_free(&out->warmup.timeline);
    }
    return rc;
}
