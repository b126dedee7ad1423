/* hist: HDR histogram, the layout of HdrHistogram with unit magnitude 0:
 * 2048 sub-buckets (3 significant digits), 22 buckets of doubling width. */
#include "hist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SUB_BUCKET_HALF_MAGNITUDE 10
#define SUB_BUCKET_HALF (1ULL << SUB_BUCKET_HALF_MAGNITUDE)
#define SUB_BUCKET_MASK ((SUB_BUCKET_HALF << 1) - 1)
#define BUCKETS 22 /* 2048 << 21 > 1 hour in us */
_Static_assert(HIST_COUNTS_LEN == (BUCKETS + 1) * SUB_BUCKET_HALF, "hist.h states the layout");

int hist_init(struct hist *h)
{
    memset(h, 0, sizeof *h);
    h->counts = calloc(HIST_COUNTS_LEN, sizeof *h->counts);
    return h->counts ? 0 : -1;
}

void hist_free(struct hist *h)
{
    free(h->counts);
    h->counts = NULL;
}

void hist_reset(struct hist *h)
{
    uint64_t *counts = h->counts;
    memset(counts, 0, HIST_COUNTS_LEN * sizeof *counts);
    memset(h, 0, sizeof *h);
    h->counts = counts;
}

static unsigned bucket_of(uint64_t v)
{
    return (unsigned)(64 - __builtin_clzll(v | SUB_BUCKET_MASK)) - (SUB_BUCKET_HALF_MAGNITUDE + 1);
}

static size_t index_of(uint64_t v)
{
    unsigned b = bucket_of(v);
    uint64_t sub = v >> b;
    return ((size_t)(b + 1) << SUB_BUCKET_HALF_MAGNITUDE) + (size_t)(sub - SUB_BUCKET_HALF);
}

uint64_t hist_lowest_at(size_t i)
{
    size_t b = i >> SUB_BUCKET_HALF_MAGNITUDE;
    uint64_t sub = (i & (SUB_BUCKET_HALF - 1)) + SUB_BUCKET_HALF;
    if (b == 0) { /* the first half-bucket holds 0..1023 at unit width */
        return i;
    }
    return sub << (b - 1);
}

uint64_t hist_highest_at(size_t i)
{
    size_t b = i >> SUB_BUCKET_HALF_MAGNITUDE;
    return b == 0 ? i : hist_lowest_at(i) + (1ULL << (b - 1)) - 1;
}

void hist_record(struct hist *h, uint64_t v)
{
    if (h->total == 0 || v < h->min) h->min = v;
    if (v > h->max) h->max = v;
    h->total++;
    h->sum += (double)v;
    h->sum_sq += (double)v * (double)v;
    if (v > HIST_HIGHEST_US) {
        h->overflow++;
        return;
    }
    h->counts[index_of(v)]++;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
    if (src->total == 0) return;
    for (size_t i = 0; i < HIST_COUNTS_LEN; i++) dst->counts[i] += src->counts[i];
    if (dst->total == 0 || src->min < dst->min) dst->min = src->min;
    if (src->max > dst->max) dst->max = src->max;
    dst->total += src->total;
    dst->overflow += src->overflow;
    dst->sum += src->sum;
    dst->sum_sq += src->sum_sq;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
    if (h->total == 0) return 0;
    uint64_t rank = (uint64_t)ceil(p / 100.0 * (double)h->total);
    if (rank == 0) rank = 1;
    uint64_t seen = 0;
    for (size_t i = 0; i < HIST_COUNTS_LEN; i++) {
        seen += h->counts[i];
        if (seen >= rank) {
            uint64_t v = hist_highest_at(i);
            return v > h->max ? h->max : (v < h->min ? h->min : v);
        }
    }
    return h->max; /* the rank lies among the overflow values */
}

double hist_mean(const struct hist *h)
{
    return h->total ? h->sum / (double)h->total : 0.0;
}

double hist_stdev(const struct hist *h)
{
    if (h->total < 2) return 0.0;
    double mean = hist_mean(h);
    double var = h->sum_sq / (double)h->total - mean * mean;
    return var > 0 ? sqrt(var) : 0.0;
}

uint64_t hist_distinct(const struct hist *h)
{
    uint64_t n = 0;
    for (size_t i = 0; i < HIST_COUNTS_LEN; i++) n += h->counts[i] != 0;
    return n;
}

uint64_t hist_value_at(const struct hist *h, uint64_t index, uint64_t *count)
{
    for (size_t i = 0; i < HIST_COUNTS_LEN; i++) {
        if (h->counts[i] == 0 || index-- > 0) continue;
        *count = h->counts[i];
        uint64_t v = hist_highest_at(i);
        return v > h->max ? h->max : (v < h->min ? h->min : v);
    }
    *count = 0;
    return 0;
}
