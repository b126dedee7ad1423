/* metrics_text: the run's figures as --metrics-listen serves them (Prometheus'
 * text exposition format 0.0.4): running totals of the measured phase that
 * the main thread adds each merged second to (timeline.c's merge), and their
 * rendering. Latency is a classic cumulative histogram in seconds whose
 * bucket bounds are 2^(k/8) us, k = 0..METRICS_BUCKETS-1 (1 us to ~71 min):
 * each bucket is 9.05% wide, so histogram_quantile's interpolation lands
 * within 9.1% of the value (HDR's own 0.1% on top). No I/O, no threads. */
#ifndef BARRAGE_METRICS_TEXT_H
#define BARRAGE_METRICS_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "interval.h"
#include "stats.h"

#define METRICS_BUCKETS_PER_DOUBLING 8
#define METRICS_BUCKETS 257 /* 2^0 .. 2^32 us */

struct metrics_totals {
    uint64_t sent, succeeded, status_4xx, status_5xx, unexpected, errors[REQ_ERR_KINDS];
    uint64_t bytes_sent, bytes_received;
    uint64_t connections_opened, connections_closed;
    uint64_t open_connections, in_flight; /* at the last second's end */
    uint64_t lag_count;                   /* requests sent on a schedule (-R) */
    double lag_sum_us;
    uint64_t buckets[METRICS_BUCKETS]; /* latency: values in bucket k (not cumulative) */
    uint64_t latency_count;            /* every latency, those above the last bound included */
    double latency_sum_us;
    uint64_t seconds; /* merged seconds so far */
    bool finished;    /* the run is over: these are the final figures */
};

/* The upper bound of bucket k in microseconds. */
double metrics_bucket_bound_us(unsigned k);
/* The bucket a value (us) falls in: the lowest k with value <= its bound;
 * METRICS_BUCKETS for values above every bound (+Inf only). */
unsigned metrics_bucket_of(uint64_t value_us);
/* Adds one merged second of the measured phase (counters add, gauges are
 * its end's). Every latency of m->latency lands in one bucket. */
void metrics_totals_add(struct metrics_totals *t, const struct interval *m);
/* The exposition text, NUL-terminated, malloc'd (the caller frees it);
 * *len its length. NULL when out of memory. */
char *metrics_render(const struct metrics_totals *t, size_t *len);

#endif
