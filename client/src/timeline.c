/* timeline: per-thread queues of intervals, closed second by second. */
#include "timeline.h"

#include <stdlib.h>
#include <string.h>

#include "hdrlog.h"

#define SECOND_US 1000000u

int timeline_init(struct timeline *tl, unsigned threads, uint64_t measure_start_us, double rate, FILE *hdr_log,
                  enum hdrlog_unit unit)
{
    *tl = (struct timeline){.threads = threads, .measure_start = measure_start_us, .open_loop = rate >= 0,
                            .window_end = UINT64_MAX, .hdr_log = hdr_log,
                            .hdr_log_unit = unit};
    tl->head = calloc(threads, sizeof *tl->head);
    tl->tail = calloc(threads, sizeof *tl->tail);
    tl->finished = calloc(threads, sizeof *tl->finished);
    tl->scratch = interval_new();
    tl->changes_cap = 4;
    tl->changes = malloc(tl->changes_cap * sizeof *tl->changes);
    if (!tl->head || !tl->tail || !tl->finished || !tl->scratch || !tl->changes) {
        timeline_free(tl);
        return -1;
    }
    tl->changes[tl->nchanges++] = (struct timeline_change){.at_us = measure_start_us, .rate = rate};
    return 0;
}

void timeline_free(struct timeline *tl)
{
    for (unsigned i = 0; tl->head && i < tl->threads; i++) {
        while (tl->head[i]) {
            struct interval *next = tl->head[i]->next;
            interval_free(tl->head[i]);
            tl->head[i] = next;
        }
    }
    free(tl->head);
    free(tl->tail);
    free(tl->finished);
    interval_free(tl->scratch);
    free(tl->changes);
    free(tl->entries);
    memset(tl, 0, sizeof *tl);
}

void timeline_add(struct timeline *tl, unsigned thread, struct interval *iv)
{
    iv->next = NULL;
    if (tl->tail[thread]) tl->tail[thread]->next = iv;
    else tl->head[thread] = iv;
    tl->tail[thread] = iv;
    if (iv->last) tl->finished[thread] = true;
}

void timeline_rate_change(struct timeline *tl, uint64_t at_us, double rate)
{
    struct timeline_change *last = &tl->changes[tl->nchanges - 1];
    if (at_us <= last->at_us) { /* in the warm-up, or at the same moment: it replaces the last */
        last->rate = rate;
        return;
    }
    if (tl->nchanges == tl->changes_cap) {
        struct timeline_change *grown = realloc(tl->changes, 2 * tl->changes_cap * sizeof *grown);
        if (!grown) {
            tl->failed = true;
            return;
        }
        tl->changes = grown;
        tl->changes_cap *= 2;
    }
    tl->changes[tl->nchanges++] = (struct timeline_change){.at_us = at_us, .rate = rate};
}

void timeline_begin(struct timeline *tl, uint64_t at_us)
{
    tl->measure_start = at_us;
    tl->changes[0].at_us = at_us;
}

void timeline_window_end(struct timeline *tl, uint64_t at_us)
{
    if (at_us < tl->window_end) tl->window_end = at_us;
}

/* Second k can close: every thread has an interval from k on, or has finished. */
static bool second_ready(const struct timeline *tl, uint64_t k)
{
    for (unsigned i = 0; i < tl->threads; i++)
        if (!tl->finished[i] && !(tl->head[i] && tl->head[i]->index >= k)) return false;
    return true;
}

static bool any_left(const struct timeline *tl)
{
    for (unsigned i = 0; i < tl->threads; i++)
        if (tl->head[i]) return true;
    return false;
}

bool timeline_complete(const struct timeline *tl)
{
    for (unsigned i = 0; i < tl->threads; i++)
        if (!tl->finished[i]) return false;
    return !any_left(tl);
}

/* The mean target rate over [a, b) (monotonic us, a < b). */
static double mean_rate(const struct timeline *tl, uint64_t a, uint64_t b)
{
    if (tl->stages) return stages_mean(tl->stages_start_rate, tl->stages, tl->stage_count, tl->measure_start, a, b);
    double sum = 0;
    for (size_t i = 0; i < tl->nchanges; i++) {
        uint64_t from = tl->changes[i].at_us, to = i + 1 < tl->nchanges ? tl->changes[i + 1].at_us : UINT64_MAX;
        if (from < a) from = a;
        if (to > b) to = b;
        if (to > from) sum += tl->changes[i].rate * (double)(to - from);
    }
    return sum / (double)(b - a);
}

static struct timeline_latency summary(const struct hist *h)
{
    if (h->total == 0) return (struct timeline_latency){.present = false};
    return (struct timeline_latency){.present = true, .p50 = hist_percentile(h, 50), .p90 = hist_percentile(h, 90),
                                     .p99 = hist_percentile(h, 99), .max = h->max};
}

static struct timeline_entry entry_of(const struct timeline *tl, const struct interval *m, uint64_t k)
{
    uint64_t start = tl->measure_start + k * SECOND_US;
    uint64_t end = m->end_us > start ? m->end_us : start;
    if (end - start > SECOND_US) end = start + SECOND_US;
    struct timeline_entry e = {
        .start_us = k * SECOND_US, .length_us = end - start, .in_grace = start >= tl->window_end,
        .sent = m->sent, .requests = m->requests, .succeeded = m->succeeded, .failed = interval_failed(m),
        .status_4xx = m->status_4xx, .status_5xx = m->status_5xx, .open_connections = m->open_connections,
        .new_connections = m->new_connections,
        .latency = summary(&m->latency), .uncorrected = summary(&m->uncorrected), .target_rate = -1,
    };
    memcpy(e.errors, m->errors, sizeof e.errors);
    uint64_t until = end < tl->window_end ? end : tl->window_end;
    if (tl->open_loop && until > start) e.target_rate = mean_rate(tl, start, until);
    return e;
}

static void write_log(struct timeline *tl, const struct timeline_entry *e, const struct interval *m)
{
    if (!tl->hdr_log) return;
    int rc = hdrlog_write_interval(tl->hdr_log, tl->hdr_log_unit, NULL, e->start_us, e->length_us, &m->latency);
    if (rc == 0 && tl->open_loop)
        rc = hdrlog_write_interval(tl->hdr_log, tl->hdr_log_unit, "uncorrected", e->start_us, e->length_us, &m->uncorrected);
    if (rc == 0 && m->error_latency.total)
        rc = hdrlog_write_interval(tl->hdr_log, tl->hdr_log_unit, "errors", e->start_us, e->length_us, &m->error_latency);
    if (rc) tl->failed = true;
}

/* Merges every thread's intervals of second k (the heads with index k, or
 * below: a thread's indices only grow, so that cannot happen, but nothing
 * may stay behind) into one entry. */
static void close_second(struct timeline *tl, uint64_t k)
{
    struct interval *m = tl->scratch;
    interval_reset(m);
    m->end_us = 0;
    for (unsigned i = 0; i < tl->threads; i++) {
        struct interval *iv;
        while ((iv = tl->head[i]) && iv->index <= k) {
            interval_merge(m, iv);
            tl->head[i] = iv->next;
            if (!tl->head[i]) tl->tail[i] = NULL;
            interval_free(iv);
        }
    }
    if (tl->len == tl->cap) {
        size_t cap = tl->cap ? 2 * tl->cap : 64;
        struct timeline_entry *grown = realloc(tl->entries, cap * sizeof *grown);
        if (!grown) {
            tl->failed = true; /* the second's counts are lost to the timeline, not to the totals */
            return;
        }
        tl->entries = grown;
        tl->cap = cap;
    }
    struct timeline_entry *e = &tl->entries[tl->len++];
    *e = entry_of(tl, m, k);
    write_log(tl, e, m);
    if (tl->on_second) tl->on_second(tl->on_second_ctx, m);
}

size_t timeline_close(struct timeline *tl)
{
    size_t before = tl->len;
    while (any_left(tl) && second_ready(tl, tl->next_index)) {
        close_second(tl, tl->next_index);
        tl->next_index++;
    }
    return tl->len - before;
}

void timeline_stages(struct timeline *tl, double start_rate, const struct rate_stage *st, size_t n)
{
    tl->stages = st;
    tl->stage_count = n;
    tl->stages_start_rate = start_rate;
}

long timeline_first_short(const struct timeline *tl, double fraction)
{
    for (size_t i = 0; i < tl->len; i++) {
        const struct timeline_entry *e = &tl->entries[i];
        if (e->in_grace || e->length_us < SECOND_US || e->target_rate < 0) continue;
        if ((double)e->sent < fraction * e->target_rate * (double)e->length_us / 1e6) return (long)i;
    }
    return -1;
}
