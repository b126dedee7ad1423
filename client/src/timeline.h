/* timeline: the main thread's side of the per-second stats. Worker threads
 * hand over one interval (interval.h) per second of the measured phase and a
 * last, partial one when they end; the timeline merges the threads' intervals
 * of each second into one entry (counts, latency percentiles, open
 * connections, the target rate in force), writes the second's HdrHistogram
 * interval log lines when there is a log, and keeps the entries for the
 * record. Every interval's counts go into exactly one entry, so the entries
 * add up to the run's totals. No clock, no threads: the engine calls it from
 * the main thread. */
#ifndef BARRAGE_TIMELINE_H
#define BARRAGE_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hdrlog.h"
#include "interval.h"
#include "stages.h"

struct timeline_latency {
    bool present; /* false: nothing measured in the second */
    uint64_t p50, p90, p99, max;
};

struct timeline_entry {
    uint64_t start_us, length_us; /* from the start of the measured phase */
    bool in_grace;                /* it starts after the deadline (or stop) */
    uint64_t sent, requests, succeeded, failed, status_4xx, status_5xx, errors[REQ_ERR_KINDS];
    uint64_t open_connections;
    uint64_t new_connections; /* established in the second: connections per second */
    struct timeline_latency latency, uncorrected;
    double target_rate; /* mean target over the part before the window's end; < 0: none
                         * (closed loop, or the whole second is in the grace) */
};

struct timeline_change {
    uint64_t at_us; /* monotonic */
    double rate;
};

struct timeline {
    unsigned threads;
    uint64_t measure_start; /* monotonic us; entry k starts k seconds after it */
    bool open_loop;
    uint64_t window_end; /* monotonic us; UINT64_MAX until known */
    FILE *hdr_log;       /* not owned; NULL: no log */
    enum hdrlog_unit hdr_log_unit;
    struct timeline_change *changes; /* owned; [0] is the initial rate */
    size_t nchanges, changes_cap;
    struct interval **head, **tail;  /* owned: each thread's intervals not yet merged */
    bool *finished;                  /* the thread's last interval arrived */
    uint64_t next_index;             /* the next entry to close */
    struct interval *scratch;        /* owned: one second, merged */
    struct timeline_entry *entries;  /* owned */
    size_t len, cap;
    bool failed; /* out of memory, or the log could not be written: entries may be missing */
    /* --rate-stages: the target follows them (not owned; NULL: the changes) */
    const struct rate_stage *stages;
    size_t stage_count;
    double stages_start_rate;
    /* --metrics-listen: called with each merged second (not owned; NULL: none) */
    void (*on_second)(void *ctx, const struct interval *merged);
    void *on_second_ctx;
};

/* An empty timeline for `threads` threads; rate < 0 for a closed-loop run.
 * hdr_log (may be NULL) must stay open until timeline_free; its header is
 * the caller's (hdrlog_write_header). Returns 0, or -1 when out of memory. */
int timeline_init(struct timeline *tl, unsigned threads, uint64_t measure_start_us, double rate, FILE *hdr_log,
                  enum hdrlog_unit unit);
void timeline_free(struct timeline *tl);
/* Thread `thread` hands over iv (the timeline owns it from here). */
void timeline_add(struct timeline *tl, unsigned thread, struct interval *iv);
/* Closes every second that each thread has either reported or passed (or
 * ended before): merges, summarises, writes the log lines. Returns how many
 * entries it added (the last ones of tl->entries), for --live. */
size_t timeline_close(struct timeline *tl);
/* Every thread has finished and every interval is in an entry. */
bool timeline_complete(const struct timeline *tl);
/* The target rate changes to `rate` at at_us; a change at or before the
 * previous one's time (in the warm-up: the measured phase's start) replaces it. */
void timeline_rate_change(struct timeline *tl, uint64_t at_us, double rate);
/* The target follows these stages from the measured phase's start
 * (stages.h), starting at start_rate; st must outlive the timeline. */
void timeline_stages(struct timeline *tl, double start_rate, const struct rate_stage *st, size_t n);
/* The first whole second (not in the grace) whose achieved rate (sent) fell
 * below `fraction` of its target: its index in entries, or -1. */
long timeline_first_short(const struct timeline *tl, double fraction);
/* The measured phase starts at at_us (for a --warmup auto, known only when
 * the warm-up ends; until then the timeline was made with UINT64_MAX): the
 * entries and the initial rate count from it. Before any entry closes. */
void timeline_begin(struct timeline *tl, uint64_t at_us);
/* The measured window ends at at_us (the deadline, or a stop). */
void timeline_window_end(struct timeline *tl, uint64_t at_us);

#endif
