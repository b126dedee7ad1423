/* interval: one thread's second of counts and histograms. */
#include "interval.h"

#include <stdlib.h>

struct interval *interval_new(void)
{
    struct interval *iv = calloc(1, sizeof *iv);
    if (!iv) return NULL;
    if (hist_init(&iv->latency) || hist_init(&iv->uncorrected) || hist_init(&iv->error_latency)) {
        interval_free(iv);
        return NULL;
    }
    return iv;
}

void interval_free(struct interval *iv)
{
    if (!iv) return;
    hist_free(&iv->latency);
    hist_free(&iv->uncorrected);
    hist_free(&iv->error_latency);
    free(iv);
}

void interval_reset(struct interval *iv)
{
    struct interval keep = *iv;
    hist_reset(&keep.latency);
    hist_reset(&keep.uncorrected);
    hist_reset(&keep.error_latency);
    *iv = (struct interval){.next = keep.next, .index = keep.index, .warmup = keep.warmup, .latency = keep.latency,
                            .uncorrected = keep.uncorrected, .error_latency = keep.error_latency};
}

void interval_response(struct interval *iv, int status, uint64_t latency_us, uint64_t uncorrected_us)
{
    if (status < 100 || status > 599) { /* not HTTP: a protocol error, as stats_response */
        interval_error(iv, REQ_ERR_PROTOCOL, latency_us);
        return;
    }
    iv->requests++;
    if (status < 400) iv->succeeded++;
    else if (status < 500) iv->status_4xx++;
    else iv->status_5xx++;
    hist_record(&iv->latency, latency_us);
    hist_record(&iv->uncorrected, uncorrected_us);
}

void interval_unexpected(struct interval *iv, uint64_t latency_us, uint64_t uncorrected_us)
{
    iv->requests++;
    iv->unexpected++;
    hist_record(&iv->latency, latency_us);
    hist_record(&iv->uncorrected, uncorrected_us);
}

void interval_error(struct interval *iv, enum req_error kind, uint64_t latency_us)
{
    iv->requests++;
    iv->errors[kind]++;
    hist_record(&iv->error_latency, latency_us);
}

void interval_merge(struct interval *dst, const struct interval *src)
{
    if (src->end_us > dst->end_us) dst->end_us = src->end_us;
    dst->sent += src->sent;
    dst->requests += src->requests;
    dst->succeeded += src->succeeded;
    dst->status_4xx += src->status_4xx;
    dst->status_5xx += src->status_5xx;
    dst->unexpected += src->unexpected;
    for (int i = 0; i < REQ_ERR_KINDS; i++) dst->errors[i] += src->errors[i];
    dst->open_connections += src->open_connections;
    dst->new_connections += src->new_connections;
    dst->closed_connections += src->closed_connections;
    dst->in_flight += src->in_flight;
    dst->bytes_sent += src->bytes_sent;
    dst->bytes_received += src->bytes_received;
    dst->lag_count += src->lag_count;
    dst->lag_sum_us += src->lag_sum_us;
    hist_merge(&dst->latency, &src->latency);
    hist_merge(&dst->uncorrected, &src->uncorrected);
    hist_merge(&dst->error_latency, &src->error_latency);
}

uint64_t interval_failed(const struct interval *iv)
{
    return iv->requests - iv->succeeded;
}
