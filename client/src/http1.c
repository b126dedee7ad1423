/* http1: HTTP/1.1 session. Requests on a connection are answered in order, so
 * the requests in flight are a FIFO (a ring of -m entries, allocated with the
 * session, grown only for a script string that pipelines more); a connection
 * that dies takes every request in flight on it into the same error bucket.
 * Requests are sent from the source's bytes, never copied: consecutive copies
 * of one request leave in one write. For a request whose source reads the
 * response (ctx.collect), the parser's sink keeps its head and body in buffers
 * that grow and are reused, and the outcome carries the header fields. */
#include "http1.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buffer.h"
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

/* The response being read, for a request with ctx.collect. */
struct h1_collect {
    struct buffer head, body; /* head: every head of the response, 1xx ones first */
    struct buffer fields;     /* struct response_header[] into head */
    size_t body_max;          /* the most body bytes kept (ctx.body_max; 0: all) */
    bool failed;              /* out of memory: reported without its data */
};

struct http1_session {
    struct session base;
    const struct http1_shared *sh;
    struct session_host *host;
    struct http1_parser parser;
    struct http1_sink sink;  /* into collect */
    struct h1_collect collect;
    struct h1_entry *ring;   /* ring_size entries: the requests in flight, oldest at head */
    unsigned ring_size;      /* sh->pipeline, more after a longer pipelined string */
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
    return &h->ring[at >= h->ring_size ? at - h->ring_size : at];
}

/* Doubles the ring, the requests in flight kept in order; -1 when out of memory. */
static int grow_ring(struct http1_session *h)
{
    struct h1_entry *bigger = calloc(h->ring_size * 2, sizeof *bigger);
    if (!bigger) return -1;
    for (unsigned i = 0; i < h->inflight; i++) bigger[i] = *entry(h, i);
    free(h->ring);
    h->ring = bigger;
    h->ring_size *= 2;
    h->head = 0;
    return 0;
}

/* Removes the oldest request in flight; the entry stays readable until the next submit. */
static struct h1_entry *pop(struct http1_session *h)
{
    struct h1_entry *e = entry(h, 0);
    h->head = h->head + 1 == h->ring_size ? 0 : h->head + 1;
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
    /* a pipelined string may have taken more than -m */
    return h->closing || h->inflight >= h->sh->pipeline ? 0 : h->sh->pipeline - h->inflight;
}

static unsigned h1_submit(struct session *s, const struct request *req, const struct req_ctx *ctx)
{
    struct http1_session *h = (struct http1_session *)s;
    if (h->inflight == h->ring_size && grow_ring(h)) {
        h->closing = true;
        report(h, &(struct h1_entry){.ctx = *ctx}, outcome_error(REQ_ERR_WRITE, DETAIL_NONE, ctx->sent_us));
        return 0;
    }
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

/* ---- collecting a response for its source ---- */

static void collect_head(void *user, const uint8_t *data, size_t len)
{
    struct h1_collect *c = user;
    if (!buffer_add(&c->head, data, len)) c->failed = true;
}

static void collect_body(void *user, const uint8_t *data, size_t len)
{
    struct h1_collect *c = user;
    size_t room = !c->body_max ? len : c->body.len < c->body_max ? c->body_max - c->body.len : 0;
    if (!buffer_add(&c->body, data, len < room ? len : room)) c->failed = true;
}

/* The line at *at (ending in LF or CRLF): its length without the line end; *at moves past it. */
static size_t next_line(const uint8_t *buf, size_t end, size_t *at, const uint8_t **line)
{
    *line = buf + *at;
    const uint8_t *lf = memchr(*line, '\n', end - *at);
    size_t len = lf ? (size_t)(lf - *line) : end - *at;
    *at += len + (lf != NULL);
    return len && (*line)[len - 1] == '\r' ? len - 1 : len;
}

static bool is_blank(uint8_t c)
{
    return c == ' ' || c == '\t';
}

/* The final head's header fields (the parser has checked the heads; those of
 * 1xx responses come first and are dropped): values without surrounding
 * blanks; an obs-fold joins its line to the value with blanks in place of the
 * line end. Returns how many, or -1 (out of memory). */
static long split_fields(struct h1_collect *c)
{
    uint8_t *buf = c->head.data;
    size_t at = 0, n = 0;
    bool status_line = true;
    const uint8_t *line;
    c->fields.len = 0;
    while (at < c->head.len) {
        size_t len = next_line(buf, c->head.len, &at, &line);
        if (len == 0 && at < c->head.len) { /* a 1xx head ended: the final one follows */
            c->fields.len = n = 0;
            status_line = true;
            continue;
        }
        if (status_line || len == 0) {
            status_line = false;
            continue;
        }
        struct response_header *fields = (struct response_header *)(void *)c->fields.data;
        if (is_blank(line[0]) && n > 0) { /* obs-fold: the previous value goes on over the line end */
            struct response_header *f = &fields[n - 1];
            uint8_t *from = (uint8_t *)f->value + f->value_len;
            memset(from, ' ', (size_t)(line - from));
            f->value_len = (size_t)(line + len - (const uint8_t *)f->value);
        } else {
            const uint8_t *colon = memchr(line, ':', len), *v = colon + 1, *end = line + len;
            while (v < end && is_blank(*v)) v++;
            struct response_header f = {(const char *)line, (const char *)v, (size_t)(colon - line), (size_t)(end - v)};
            if (!buffer_add(&c->fields, &f, sizeof f)) return -1;
            fields = (struct response_header *)(void *)c->fields.data;
            n++;
        }
        struct response_header *f = &fields[n - 1];
        while (f->value_len && is_blank((uint8_t)f->value[f->value_len - 1])) f->value_len--;
    }
    return (long)n;
}

/* The response to the oldest request is complete. */
static void answered(struct http1_session *h, uint64_t now)
{
    struct outcome o = outcome_response(h->parser.status, h->parser.body_bytes, now);
    struct response_data data;
    if (h->parser.sink && !h->collect.failed) {
        long fields = split_fields(&h->collect);
        data = (struct response_data){(const struct response_header *)(void *)h->collect.fields.data,
                                      fields < 0 ? 0 : (size_t)fields, h->collect.body.data, h->collect.body.len};
        if (fields >= 0) o.response = &data;
    }
    report(h, pop(h), o);
    buffer_trim(&h->collect.head); /* a big response is not held by the connection for the run */
    buffer_trim(&h->collect.body);
    buffer_trim(&h->collect.fields);
    http1_parser_next(&h->parser, false);
}

/* A response begins: collect it when its request's source reads it. */
static void response_begins(struct http1_session *h, const struct h1_entry *e)
{
    h->parser.head = e->head;
    h->parser.sink = e->ctx.collect ? &h->sink : NULL;
    h->collect.head.len = h->collect.body.len = 0;
    h->collect.body_max = e->ctx.body_max;
    h->collect.failed = false;
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
            response_begins(h, entry(h, 0));
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
    /* requests whose bytes went out in the text before them (a pipelined string) */
    while (h->unwritten > 0 && entry(h, h->inflight - h->unwritten)->text_len == 0) h->unwritten--;
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
    buffer_free(&h->collect.head);
    buffer_free(&h->collect.body);
    buffer_free(&h->collect.fields);
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
    h->sink = (struct http1_sink){collect_head, collect_body, &h->collect};
    h->ring_size = h->sh->pipeline;
    h->ring = calloc(h->ring_size, sizeof *h->ring);
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
