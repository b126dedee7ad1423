/* http1: HTTP/1.1 session. Requests on a connection are answered in order, so
 * the requests in flight are a FIFO (a ring of -m entries, allocated with the
 * session); a connection that dies takes every request in flight on it into
 * the same error bucket. Requests are sent from the source's bytes, never
 * copied: consecutive copies of one request leave in one write. */
#include "http1.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http1_parser.h"

/* What every HTTP/1 session of a run shares, read-only. */
struct http1_shared {
    unsigned pipeline;
    size_t max_header;
    uint64_t timeout_us;
    uint64_t per_connection; /* requests per connection, 0: unlimited */
};

struct h1_entry {
    struct req_ctx ctx;
    const uint8_t *text;
    size_t text_len;
    unsigned copies;
    bool head;
};

struct http1_session {
    struct session base;
    const struct http1_shared *sh;
    struct session_host *host;
    struct http1_parser parser;
    struct h1_entry *ring; /* sh->pipeline entries: the requests in flight, oldest at head */
    unsigned head, inflight;
    unsigned unwritten;    /* the newest this many in flight are not yet handed out by next_write */
    uint64_t sent_on_connection;
    bool closing; /* no more requests on this connection */
};

static void *h1_shared_new(const struct config *cfg)
{
    struct http1_shared *sh = malloc(sizeof *sh);
    if (!sh) return NULL;
    sh->pipeline = cfg->pipeline;
    sh->max_header = cfg->max_header_size;
    sh->timeout_us = cfg->timeout_us;
    sh->per_connection = cfg->keepalive ? cfg->requests_per_connection : 1;
    return sh;
}

static void h1_shared_free(void *shared)
{
    free(shared);
}

/* The i-th request in flight, 0 the oldest. */
static struct h1_entry *entry(struct http1_session *h, unsigned i)
{
    unsigned at = h->head + i;
    return &h->ring[at >= h->sh->pipeline ? at - h->sh->pipeline : at];
}

/* Removes the oldest request in flight; the entry stays readable until the next submit. */
static struct h1_entry *pop(struct http1_session *h)
{
    struct h1_entry *e = entry(h, 0);
    h->head = h->head + 1 == h->sh->pipeline ? 0 : h->head + 1;
    h->inflight--;
    if (h->unwritten > h->inflight) h->unwritten = h->inflight;
    return e;
}

static void report(struct http1_session *h, const struct h1_entry *e, struct outcome o)
{
    h->host->ops->done(h->host, &e->ctx, &o);
}

/* Every request still in flight ends as kind (or aborted). */
static void fail_all(struct http1_session *h, enum req_error kind, enum req_detail detail, uint64_t now, bool abort)
{
    while (h->inflight > 0) {
        struct h1_entry *e = pop(h);
        report(h, e, abort ? outcome_of(OUTCOME_ABORTED) : outcome_error(kind, detail, now));
        detail = detail == DETAIL_CLOSED_MID_RESPONSE ? DETAIL_CLOSED_BEFORE_RESPONSE : detail;
    }
}

static void h1_on_connect(struct session *s, uint64_t now)
{
    struct http1_session *h = (struct http1_session *)s;
    (void)now;
    http1_parser_init(&h->parser, h->sh->max_header);
    h->head = h->inflight = h->unwritten = 0;
    h->sent_on_connection = 0;
    h->closing = false;
}

static unsigned h1_capacity(struct session *s)
{
    struct http1_session *h = (struct http1_session *)s;
    return h->closing ? 0 : h->sh->pipeline - h->inflight;
}

static unsigned h1_submit(struct session *s, const struct request *req, const struct req_ctx *ctx)
{
    struct http1_session *h = (struct http1_session *)s;
    struct h1_entry *e = entry(h, h->inflight);
    e->ctx = *ctx;
    e->text = req->text;
    e->text_len = req->text_len;
    e->copies = req->copies;
    e->head = req->head;
    h->inflight++;
    h->unwritten++;
    if (h->sh->per_connection && ++h->sent_on_connection >= h->sh->per_connection) h->closing = true;
    return h1_capacity(s);
}

static enum req_detail detail_of(enum http1_error e)
{
    switch (e) {
    case HTTP1_HEADER_TOO_LARGE: return DETAIL_HEADER_TOO_LARGE;
    case HTTP1_BAD_HEADER: return DETAIL_BAD_HEADER;
    case HTTP1_BAD_CHUNK: return DETAIL_BAD_CHUNK;
    default: return DETAIL_BAD_STATUS_LINE;
    }
}

/* The response to the oldest request is complete. */
static void answered(struct http1_session *h, uint64_t now)
{
    report(h, pop(h), outcome_response(h->parser.status, h->parser.body_bytes, now));
    http1_parser_next(&h->parser, false);
}

static enum session_verdict h1_on_read(struct session *s, const uint8_t *data, size_t len, uint64_t now)
{
    struct http1_session *h = (struct http1_session *)s;
    while (len > 0) {
        if (h->inflight == 0) { /* bytes nobody asked for */
            h->host->ops->sample(h->host, data, len);
            return SESSION_CLOSE;
        }
        if (h->parser.bytes == 0) { /* a response begins: it answers the oldest request */
            h->parser.head = entry(h, 0)->head;
            h->host->ops->first_byte(h->host, &entry(h, 0)->ctx, now);
        }
        size_t used;
        enum http1_result r = http1_parse(&h->parser, data, len, &used);
        if (r == HTTP1_MORE) return SESSION_KEEP;
        if (r == HTTP1_ERROR) {
            h->host->ops->sample(h->host, data, len);
            fail_all(h, REQ_ERR_PROTOCOL, detail_of(h->parser.error), now, false);
            return SESSION_CLOSE;
        }
        bool server_closes = !h->parser.keep_alive;
        answered(h, now);
        /* what follows answers nothing: the requests queued behind this one become read
         * errors (closed before their response) when the connection closes */
        if (server_closes) return SESSION_CLOSE;
        data += used;
        len -= used;
    }
    return h->closing && h->inflight == 0 ? SESSION_CLOSE : SESSION_KEEP;
}

/* The requests not yet handed out, as far as they are copies of one request in one buffer. */
static size_t h1_next_write(struct session *s, const uint8_t **data, uint64_t now)
{
    struct http1_session *h = (struct http1_session *)s;
    (void)now;
    if (h->unwritten == 0) return 0;
    unsigned first = h->inflight - h->unwritten, run = 1;
    const struct h1_entry *e = entry(h, first);
    while (run < h->unwritten && run < e->copies && entry(h, first + run)->text == e->text &&
           entry(h, first + run)->text_len == e->text_len)
        run++;
    h->unwritten -= run;
    *data = e->text;
    return run * e->text_len;
}

static enum session_verdict h1_on_tick(struct session *s, uint64_t now)
{
    struct http1_session *h = (struct http1_session *)s;
    if (h->inflight == 0 || now - entry(h, 0)->ctx.sent_us < h->sh->timeout_us) return SESSION_KEEP;
    /* a connection whose oldest answer is late will not answer the others in time either */
    fail_all(h, REQ_ERR_TIMEOUT, DETAIL_NONE, now, false);
    return SESSION_CLOSE;
}

static void h1_on_close(struct session *s, enum close_cause cause, uint64_t now)
{
    struct http1_session *h = (struct http1_session *)s;
    if (h->inflight == 0) return;
    switch (cause) {
    case CLOSE_ABORT:
        fail_all(h, REQ_ERR_READ, DETAIL_NONE, now, true);
        break;
    case CLOSE_WRITE_ERROR:
        fail_all(h, REQ_ERR_WRITE, DETAIL_NONE, now, false);
        break;
    case CLOSE_EOF:
        if (http1_parse_eof(&h->parser) == HTTP1_DONE) answered(h, now);
        /* fall through */
    default:
        fail_all(h, REQ_ERR_READ,
                 h->parser.bytes ? DETAIL_CLOSED_MID_RESPONSE : DETAIL_CLOSED_BEFORE_RESPONSE, now, false);
    }
}

static void h1_free(struct session *s)
{
    struct http1_session *h = (struct http1_session *)s;
    free(h->ring);
    free(h);
}

static const struct session_ops http1_ops = {
    .on_connect = h1_on_connect,
    .capacity = h1_capacity,
    .submit = h1_submit,
    .on_read = h1_on_read,
    .next_write = h1_next_write,
    .on_tick = h1_on_tick,
    .on_close = h1_on_close,
    .free = h1_free,
};

static struct session *h1_session_new(const void *shared, struct session_host *host)
{
    struct http1_session *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    h->base.ops = &http1_ops;
    h->sh = shared;
    h->host = host;
    h->ring = calloc(h->sh->pipeline, sizeof *h->ring);
    if (!h->ring) {
        h1_free(&h->base);
        return NULL;
    }
    return &h->base;
}

const struct protocol http1_protocol = {
    .name = "http/1.1",
    .shared_new = h1_shared_new,
    .shared_free = h1_shared_free,
    .session_new = h1_session_new,
};
