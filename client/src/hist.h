/* hist: an HDR histogram of microsecond values (3 significant digits, 1 us to
 * 1 hour). Values above the range are counted as overflow and still take part
 * in min, max, mean and stdev; a percentile that falls among them is the max.
 * No I/O, no locking: one histogram per thread, merged at the end. */
#ifndef BARRAGE_HIST_H
#define BARRAGE_HIST_H

#include <stddef.h>
#include <stdint.h>

#define HIST_HIGHEST_US 3600000000ULL /* 1 hour */
/* counts[] as HdrHistogram lays it out for lowest 1, highest 1 hour, 3
 * significant digits: 23 half-buckets of 1024 slots */
#define HIST_COUNTS_LEN 23552

struct hist {
    uint64_t *counts;   /* owned; HIST_COUNTS_LEN entries */
    uint64_t total;     /* values recorded, overflow included */
    uint64_t overflow;  /* values above HIST_HIGHEST_US */
    uint64_t min, max;
    double sum, sum_sq;
};

/* Allocates the counts; returns 0, or -1 when out of memory. */
int hist_init(struct hist *h);
/* Frees the counts; the struct may be initialised again. */
void hist_free(struct hist *h);
/* Forgets every value (keeps the memory). */
void hist_reset(struct hist *h);
void hist_record(struct hist *h, uint64_t value_us);
/* Adds every value of src to dst. */
void hist_merge(struct hist *dst, const struct hist *src);
/* The value at percentile p (0 < p <= 100): the highest value equivalent to
 * the recorded one at that rank, so within 0.1% of the exact value. 0 when empty. */
uint64_t hist_percentile(const struct hist *h, double p);
double hist_mean(const struct hist *h);
double hist_stdev(const struct hist *h);
/* Distinct values recorded (non-empty buckets; overflow not counted). */
uint64_t hist_distinct(const struct hist *h);
/* The index-th distinct value (0-based, ascending; its bucket's highest
 * equivalent value, within min..max) and its count in *count; 0 and *count 0
 * past the end. What wrk's stats objects give a script as latency(i). */
uint64_t hist_value_at(const struct hist *h, uint64_t index, uint64_t *count);
/* The lowest and the highest value that land in counts[i] (i < HIST_COUNTS_LEN). */
uint64_t hist_lowest_at(size_t i);
uint64_t hist_highest_at(size_t i);

#endif
