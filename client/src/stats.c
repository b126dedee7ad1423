/* stats: counters and histograms of one thread, merged at the end. */
#include "stats.h"

#include <stdlib.h>
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
    for (unsigned i = 0; i < STATS_MAX_KINDS; i++) {
        if (!s->kinds[i]) continue;
        hist_free(&s->kinds[i]->latency);
        free(s->kinds[i]->name);
        free(s->kinds[i]);
        s->kinds[i] = NULL;
    }
    hist_free(&s->latency_uncorrected);
    hist_free(&s->schedule_lag);
    hist_free(&s->flow.iteration);
    hist_free(&s->flow.wait);
}

static void stats_ws_merge(struct stats_ws *dst, const struct stats_ws *src)
{
    dst->upgraded += src->upgraded;
    dst->refused += src->refused;
    dst->pings += src->pings;
    dst->closed_by_server += src->closed_by_server;
    dst->closed_by_client += src->closed_by_client;
    for (int i = 0; i < 600; i++) dst->refused_status[i] += src->refused_status[i];
    for (int i = 0; i <= STATS_WS_CODES; i++) {
        dst->server_codes[i] += src->server_codes[i];
        dst->client_codes[i] += src->client_codes[i];
    }
    for (int i = 0; i < STATS_WS_FAULTS; i++) dst->faults[i] += src->faults[i];
}

void stats_reset(struct stats *s)
{
    struct hist latency = s->latency, error_latency = s->error_latency, connect = s->connect, ttfb = s->ttfb;
    struct stats_kind *kinds[STATS_MAX_KINDS];
    struct hist uncorrected = s->latency_uncorrected, lag = s->schedule_lag;
    hist_reset(&latency);
    hist_reset(&error_latency);
    hist_reset(&connect);
    hist_reset(&ttfb);
    for (unsigned i = 0; i < STATS_MAX_KINDS; i++) {
        kinds[i] = s->kinds[i];
        if (!kinds[i]) continue;
        kinds[i]->requests = kinds[i]->succeeded = kinds[i]->failed = kinds[i]->unexpected = 0;
        hist_reset(&kinds[i]->latency);
    }
    hist_reset(&uncorrected);
    hist_reset(&lag);
    struct hist iteration = s->flow.iteration, wait = s->flow.wait;
    if (iteration.counts) hist_reset(&iteration);
    if (wait.counts) hist_reset(&wait);
    uint64_t server_max_streams = s->server_max_streams;
    struct stats_idle idle = s->idle;
    memset(s, 0, sizeof *s);
    s->server_max_streams = server_max_streams;
    s->idle = idle;
    s->latency = latency;
    s->error_latency = error_latency;
    s->connect = connect;
    s->ttfb = ttfb;
    s->latency_uncorrected = uncorrected;
    s->schedule_lag = lag;
    s->flow.iteration = iteration;
    s->flow.wait = wait;
    memcpy(s->kinds, kinds, sizeof kinds);
}

struct stats_kind *stats_kind(struct stats *s, unsigned index, const char *name)
{
    if (s->kinds[index]) return s->kinds[index];
    struct stats_kind *k = calloc(1, sizeof *k);
    if (!k || !(k->name = strdup(name)) || hist_init(&k->latency)) {
        if (k) free(k->name);
        free(k);
        return NULL;
    }
    return s->kinds[index] = k;
}

void stats_kind_response(struct stats_kind *k, int status, uint64_t latency_us)
{
    k->requests++;
    if (status < 100 || status > 599) {
        k->failed++;
        return;
    }
    if (status < 400) k->succeeded++;
    else k->failed++;
    hist_record(&k->latency, latency_us);
}

void stats_kind_error(struct stats_kind *k)
{
    k->requests++;
    k->failed++;
}

void stats_kind_unexpected(struct stats_kind *k, uint64_t latency_us)
{
    k->requests++;
    k->failed++;
    k->unexpected++;
    hist_record(&k->latency, latency_us);
}

/* dst's kind named name: found, or made in the first free index; NULL when full or out of memory. */
static struct stats_kind *kind_named(struct stats *dst, const char *name)
{
    for (unsigned i = 0; i < STATS_MAX_KINDS; i++) {
        if (!dst->kinds[i]) return stats_kind(dst, i, name);
        if (strcmp(dst->kinds[i]->name, name) == 0) return dst->kinds[i];
    }
    return NULL;
}

static void merge_kinds(struct stats *dst, const struct stats *src)
{
    for (unsigned i = 0; i < STATS_MAX_KINDS; i++) {
        const struct stats_kind *from = src->kinds[i];
        struct stats_kind *to = from ? kind_named(dst, from->name) : NULL;
        if (!to) continue;
        to->requests += from->requests;
        to->succeeded += from->succeeded;
        to->failed += from->failed;
        to->unexpected += from->unexpected;
        hist_merge(&to->latency, &from->latency);
    }
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

/* Printable bytes of data (at most cap - 1), '.' for the others. */
static void stats_printable(char *out, size_t cap, const uint8_t *data, size_t len)
{
    size_t n = len < cap - 1 ? len : cap - 1;
    for (size_t i = 0; i < n; i++) out[i] = (data[i] >= 0x20 && data[i] < 0x7f) ? (char)data[i] : '.';
    out[n] = '\0';
}

void stats_unexpected(struct stats *s, int status, uint64_t latency_us, uint64_t uncorrected_us, const char *step,
                      const uint8_t *body, size_t body_len)
{
    s->unexpected++;
    if (status >= 100 && status < 600) s->unexpected_codes[status]++;
    hist_record(&s->latency, latency_us);
    hist_record(&s->latency_uncorrected, uncorrected_us);
    if (s->unexpected_examples >= STATS_SAMPLES) return;
    struct stats_unexpected_example *e = &s->unexpected_example[s->unexpected_examples++];
    e->status = status;
    stats_printable(e->step, sizeof e->step, (const uint8_t *)(step ? step : ""), step ? strlen(step) : 0);
    stats_printable(e->body, sizeof e->body, body, body ? body_len : 0);
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

void stats_flow_time(struct hist *h, uint64_t us)
{
    if (!h->counts && hist_init(h)) return;
    hist_record(h, us);
}

/* A flow time histogram into dst's (made when src has values). */
static void stats_flow_merge(struct hist *dst, const struct hist *src)
{
    if (!src->total || (!dst->counts && hist_init(dst))) return;
    hist_merge(dst, src);
}

void stats_merge(struct stats *dst, const struct stats *src)
{
    dst->started += src->started;
    dst->succeeded += src->succeeded;
    dst->aborted += src->aborted;
    dst->unexpected += src->unexpected;
    for (unsigned i = 0; i < src->unexpected_examples && dst->unexpected_examples < STATS_SAMPLES; i++)
        dst->unexpected_example[dst->unexpected_examples++] = src->unexpected_example[i];
    dst->flow.completed += src->flow.completed;
    dst->flow.capture_failed += src->flow.capture_failed;
    dst->flow.broken += src->flow.broken;
    stats_flow_merge(&dst->flow.iteration, &src->flow.iteration);
    stats_flow_merge(&dst->flow.wait, &src->flow.wait);
    dst->completed_in_grace += src->completed_in_grace;
    if (src->server_max_streams && (!dst->server_max_streams || src->server_max_streams < dst->server_max_streams))
        dst->server_max_streams = src->server_max_streams;
    for (int i = 0; i < REQ_ERR_KINDS; i++) dst->errors[i] += src->errors[i];
    for (int i = 0; i < DETAIL_KINDS; i++) dst->details[i] += src->details[i];
    for (int i = 0; i < 600; i++) dst->codes[i] += src->codes[i];
    for (int i = 0; i < 600; i++) dst->unexpected_codes[i] += src->unexpected_codes[i];
    dst->connect_attempts += src->connect_attempts;
    dst->connect_errors += src->connect_errors;
    dst->established += src->established;
    dst->peak += src->peak;
    dst->connects_abandoned += src->connects_abandoned;
    dst->bytes_received += src->bytes_received;
    dst->bytes_sent += src->bytes_sent;
    dst->body_bytes += src->body_bytes;
    dst->tls_errors += src->tls_errors;
    dst->handshakes_full += src->handshakes_full;
    dst->handshakes_resumed += src->handshakes_resumed;
    dst->idle.requested += src->idle.requested;
    dst->idle.established += src->idle.established;
    dst->idle.connect_errors += src->idle.connect_errors;
    dst->idle.closed += src->idle.closed;
    dst->idle.open += src->idle.open;
    dst->idle.peak += src->idle.peak;
    dst->idle.open_at_end += src->idle.open_at_end;
    dst->idle.pings += src->idle.pings;
    dst->quic.handshake_failures += src->quic.handshake_failures;
    dst->quic.idle_timeouts += src->quic.idle_timeouts;
    dst->quic.closed_transport += src->quic.closed_transport;
    dst->quic.closed_application += src->quic.closed_application;
    dst->quic.goaways += src->quic.goaways;
    for (int i = 0; i <= STATS_H3_CODES; i++) dst->quic.stream_resets[i] += src->quic.stream_resets[i];
    stats_ws_merge(&dst->ws, &src->ws);
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
    merge_kinds(dst, src);
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
    return stats_status_class(s, 4) + stats_status_class(s, 5) + stats_errored(s) + s->unexpected;
}

uint64_t stats_requests(const struct stats *s)
{
    return s->succeeded + stats_failed(s);
}
