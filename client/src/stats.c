/* stats: counters and histograms of one thread, merged at the end. */
#include "stats.h"

#include <string.h>

int stats_init(struct stats *s)
{
    memset(s, 0, sizeof *s);
    if (hist_init(&s->latency) || hist_init(&s->error_latency) || hist_init(&s->connect) || hist_init(&s->ttfb) ||
        hist_init(&s->latency_uncorrected) || hist_init(&s->schedule_lag)) {
        stats_free(s);
        return -1;
    }
    return 0;
}

void stats_free(struct stats *s)
{
    hist_free(&s->latency);
    hist_free(&s->error_latency);
    hist_free(&s->connect);
    hist_free(&s->ttfb);
    hist_free(&s->latency_uncorrected);
    hist_free(&s->schedule_lag);
}

void stats_reset(struct stats *s)
{
    struct hist latency = s->latency, error_latency = s->error_latency, connect = s->connect, ttfb = s->ttfb;
    struct hist uncorrected = s->latency_uncorrected, lag = s->schedule_lag;
    hist_reset(&latency);
    hist_reset(&error_latency);
    hist_reset(&connect);
    hist_reset(&ttfb);
    hist_reset(&uncorrected);
    hist_reset(&lag);
    memset(s, 0, sizeof *s);
    s->latency = latency;
    s->error_latency = error_latency;
    s->connect = connect;
    s->ttfb = ttfb;
    s->latency_uncorrected = uncorrected;
    s->schedule_lag = lag;
}

void stats_response(struct stats *s, int status, uint64_t latency_us, uint64_t uncorrected_us)
{
    if (status < 100 || status > 599) {
        /* every final status lands in one bucket (docs/metrics.md): this one is not HTTP */
        stats_error(s, REQ_ERR_PROTOCOL, DETAIL_BAD_STATUS_LINE, latency_us);
        return;
    }
    s->codes[status]++;
    if (status < 400) s->succeeded++;
    hist_record(&s->latency, latency_us);
    hist_record(&s->latency_uncorrected, uncorrected_us);
}

void stats_error(struct stats *s, enum req_error kind, enum req_detail detail, uint64_t latency_us)
{
    s->errors[kind]++;
    s->details[detail]++;
    hist_record(&s->error_latency, latency_us);
}

void stats_sample(struct stats *s, const uint8_t *data, size_t len)
{
    if (s->samples >= STATS_SAMPLES) return;
    char *out = s->sample[s->samples++];
    size_t n = len < STATS_SAMPLE_LEN - 1 ? len : STATS_SAMPLE_LEN - 1;
    for (size_t i = 0; i < n; i++) out[i] = (data[i] >= 0x20 && data[i] < 0x7f) ? (char)data[i] : '.';
    out[n] = '\0';
}

void stats_merge(struct stats *dst, const struct stats *src)
{
    dst->started += src->started;
    dst->succeeded += src->succeeded;
    dst->aborted += src->aborted;
    dst->completed_in_grace += src->completed_in_grace;
    for (int i = 0; i < REQ_ERR_KINDS; i++) dst->errors[i] += src->errors[i];
    for (int i = 0; i < DETAIL_KINDS; i++) dst->details[i] += src->details[i];
    for (int i = 0; i < 600; i++) dst->codes[i] += src->codes[i];
    dst->connect_attempts += src->connect_attempts;
    dst->connect_errors += src->connect_errors;
    dst->established += src->established;
    dst->peak += src->peak;
    dst->connects_abandoned += src->connects_abandoned;
    dst->bytes_received += src->bytes_received;
    dst->bytes_sent += src->bytes_sent;
    dst->body_bytes += src->body_bytes;
    dst->tls_errors += src->tls_errors;
    dst->refused_streams += src->refused_streams;
    dst->header_bytes += src->header_bytes;
    dst->header_bytes_decoded += src->header_bytes_decoded;
    hist_merge(&dst->latency, &src->latency);
    hist_merge(&dst->error_latency, &src->error_latency);
    hist_merge(&dst->connect, &src->connect);
    hist_merge(&dst->ttfb, &src->ttfb);
    hist_merge(&dst->latency_uncorrected, &src->latency_uncorrected);
    hist_merge(&dst->schedule_lag, &src->schedule_lag);
    dst->scheduled += src->scheduled;
    dst->unsent += src->unsent;
    dst->backlog_max += src->backlog_max;
    for (unsigned i = 0; i < src->samples && dst->samples < STATS_SAMPLES; i++)
        memcpy(dst->sample[dst->samples++], src->sample[i], STATS_SAMPLE_LEN);
}

uint64_t stats_errored(const struct stats *s)
{
    uint64_t n = 0;
    for (int i = 0; i < REQ_ERR_KINDS; i++) n += s->errors[i];
    return n;
}

uint64_t stats_status_class(const struct stats *s, int hundreds)
{
    uint64_t n = 0;
    for (int c = hundreds * 100; c < hundreds * 100 + 100; c++) n += s->codes[c];
    return n;
}

uint64_t stats_failed(const struct stats *s)
{
    return stats_status_class(s, 4) + stats_status_class(s, 5) + stats_errored(s);
}

uint64_t stats_requests(const struct stats *s)
{
    return s->succeeded + stats_failed(s);
}
