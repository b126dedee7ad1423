/* interval: what one worker thread saw in one second of the measured phase
 * (the per-second timeline of issue 11), or of the warm-up (issue 21): the requests that ended in it, by
 * bucket, their latency from the schedule (corrected) and from the send
 * (uncorrected), the errors' latency, the requests sent and the connections
 * open at its end. A worker records into its current interval on its own
 * thread and hands the whole interval over once a second (worker.c); the
 * main thread merges the threads' intervals of one second (timeline.c). No
 * I/O, no locking.
 * Buckets as in stats.h: requests = succeeded + failed, failed = 4xx + 5xx +
 * errored; a status outside 100-599 is a protocol error, as stats_response. */
#ifndef BARRAGE_INTERVAL_H
#define BARRAGE_INTERVAL_H

#include <stdbool.h>
#include <stdint.h>

#include "hist.h"
#include "stats.h"

struct interval {
    struct interval *next; /* the list it is in (posted to main, or free) */
    uint64_t index;        /* second of the measured phase it starts in, from 0 */
    uint64_t end_us;       /* when the thread closed it (monotonic) */
    bool last;             /* the thread's final interval of its phase: the end of the run, or
                            * (warmup) the end of the warm-up */
    bool warmup;           /* a second of the warm-up (index from the run's start), not of the measured phase */
    uint64_t sent;         /* requests written (a refused HTTP/2 stream sent again counts again) */
    uint64_t requests, succeeded, status_4xx, status_5xx, unexpected; /* unexpected: stats.h */
    uint64_t errors[REQ_ERR_KINDS];
    uint64_t open_connections; /* at its end */
    uint64_t new_connections;  /* established in it (handshakes done) */
    /* for --metrics-listen (metrics_text.h): established connections closed in
     * it, requests in flight at its end, load bytes, and the schedule's lag (-R) */
    uint64_t closed_connections, in_flight, bytes_sent, bytes_received, lag_count, lag_sum_us;
    struct hist latency, uncorrected, error_latency; /* microseconds */
};

/* A zeroed interval (histograms allocated), or NULL when out of memory.
 * Free with interval_free. */
struct interval *interval_new(void);
void interval_free(struct interval *iv);
/* Forgets everything recorded (keeps the memory); next, index and warmup are kept. */
void interval_reset(struct interval *iv);
/* A final response: status, latency from the schedule and from the send. */
void interval_response(struct interval *iv, int status, uint64_t latency_us, uint64_t uncorrected_us);
/* A final response that failed its checks (stats.h), latencies as a response's. */
void interval_unexpected(struct interval *iv, uint64_t latency_us, uint64_t uncorrected_us);
/* A request error, latency from the schedule. */
void interval_error(struct interval *iv, enum req_error kind, uint64_t latency_us);
/* Adds src's counts and histograms into dst (open_connections add up: the
 * threads' connections are disjoint; end_us becomes the later one). */
void interval_merge(struct interval *dst, const struct interval *src);
/* requests - succeeded. */
uint64_t interval_failed(const struct interval *iv);

#endif
