/* http1: HTTP/1.1 session. Requests on a connection are answered in order, so
 * in-flight requests are a FIFO of start times; a connection that dies takes
 * every request in flight on it into the same error bucket. */
#include "http1.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "http1_parser.h"

struct http1_session {
    struct session base;
    const struct http1_shared *sh;
    struct worker *w;
    struct http1_parser parser;
    uint64_t starts[CONFIG_MAX_PIPELINE]; /* ring of in-flight start times */
    unsigned head, inflight;
    uint64_t sent_on_connection;
    bool closing; /* no more requests on this connection */
};

int http1_shared_init(struct http1_shared *sh, const struct config *cfg)
{
    size_t cap = strlen(cfg->method) + strlen(cfg->path) + strlen(cfg->host) + cfg->body_len + 256;
    for (unsigned i = 0; i < cfg->header_count; i++) cap += strlen(cfg->headers[i]) + 2;
    char *req = malloc(cap);
    if (!req) return -1;
    size_t len = (size_t)snprintf(req, cap, "%s %s HTTP/1.1\r\n", cfg->method, cfg->path);
    if (!config_header(cfg, "host"))
        len += (size_t)snprintf(req + len, cap - len, "Host: %s%s%s\r\n", cfg->host,
                                strcmp(cfg->port, "80") ? ":" : "", strcmp(cfg->port, "80") ? cfg->port : "");
    for (unsigned i = 0; i < cfg->header_count; i++)
        len += (size_t)snprintf(req + len, cap - len, "%s\r\n", cfg->headers[i]);
    if (cfg->body_len > 0 && !config_header(cfg, "content-length"))
        len += (size_t)snprintf(req + len, cap - len, "Content-Length: %zu\r\n", cfg->body_len);
    if (!cfg->keepalive && !config_header(cfg, "connection"))
        len += (size_t)snprintf(req + len, cap - len, "Connection: close\r\n");
    len += (size_t)snprintf(req + len, cap - len, "\r\n");
    if (cfg->body_len) memcpy(req + len, cfg->body, cfg->body_len);
    len += cfg->body_len;

    sh->pipeline = cfg->pipeline;
    sh->requests = malloc(len * cfg->pipeline);
    if (!sh->requests) {
        free(req);
        return -1;
    }
    for (unsigned i = 0; i < cfg->pipeline; i++) memcpy(sh->requests + i * len, req, len);
    free(req);
    sh->request_len = len;
    sh->head = strcmp(cfg->method, "HEAD") == 0;
    sh->max_header = cfg->max_header_size;
    sh->timeout_us = cfg->timeout_us;
    sh->per_connection = cfg->keepalive ? cfg->requests_per_connection : 1;
    return 0;
}

void http1_shared_free(struct http1_shared *sh)
{
    free(sh->requests);
    sh->requests = NULL;
}

static uint64_t oldest_start(const struct http1_session *h)
{
    return h->starts[h->head];
}

static uint64_t pop_start(struct http1_session *h)
{
    uint64_t start = h->starts[h->head];
    h->head = (h->head + 1) % CONFIG_MAX_PIPELINE;
    h->inflight--;
    return start;
}

/* Every request still in flight ends as kind (or aborted). */
static void fail_all(struct http1_session *h, enum req_error kind, enum req_detail detail, uint64_t now, bool abort)
{
    while (h->inflight > 0) {
        uint64_t start = pop_start(h);
        if (abort) worker_aborted(h->w, start);
        else worker_error(h->w, start, kind, detail, now);
        detail = detail == DETAIL_CLOSED_MID_RESPONSE ? DETAIL_CLOSED_BEFORE_RESPONSE : detail;
    }
}

static void h1_on_connect(struct session *s, uint64_t now)
{
    struct http1_session *h = (struct http1_session *)s;
    (void)now;
    http1_parser_init(&h->parser, h->sh->max_header);
    http1_parser_next(&h->parser, h->sh->head);
    h->head = h->inflight = 0;
    h->sent_on_connection = 0;
    h->closing = false;
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

static enum session_verdict h1_on_read(struct session *s, const uint8_t *data, size_t len, uint64_t now)
{
    struct http1_session *h = (struct http1_session *)s;
    while (len > 0) {
        if (h->inflight == 0) { /* bytes nobody asked for */
            worker_sample(h->w, data, len);
            return SESSION_CLOSE;
        }
        if (h->parser.bytes == 0) worker_first_byte(h->w, oldest_start(h), now);
        size_t used;
        enum http1_result r = http1_parse(&h->parser, data, len, &used);
        if (r == HTTP1_MORE) return SESSION_KEEP;
        if (r == HTTP1_ERROR) {
            worker_sample(h->w, data, len);
            fail_all(h, REQ_ERR_PROTOCOL, detail_of(h->parser.error), now, false);
            return SESSION_CLOSE;
        }
        worker_response(h->w, pop_start(h), h->parser.status, h->parser.body_bytes, now);
        bool server_closes = !h->parser.keep_alive;
        http1_parser_next(&h->parser, h->sh->head);
        /* what follows answers nothing: the requests queued behind this one become read
         * errors (closed before their response) when the connection closes */
        if (server_closes) return SESSION_CLOSE;
        data += used;
        len -= used;
    }
    return h->closing && h->inflight == 0 ? SESSION_CLOSE : SESSION_KEEP;
}

static size_t h1_next_write(struct session *s, const uint8_t **data, uint64_t now)
{
    struct http1_session *h = (struct http1_session *)s;
    unsigned n = 0;
    while (!h->closing && h->inflight < h->sh->pipeline && worker_take_request(h->w)) {
        h->starts[(h->head + h->inflight) % CONFIG_MAX_PIPELINE] = now;
        h->inflight++;
        n++;
        if (h->sh->per_connection && ++h->sent_on_connection >= h->sh->per_connection) h->closing = true;
    }
    *data = h->sh->requests;
    return n * h->sh->request_len;
}

static enum session_verdict h1_on_tick(struct session *s, uint64_t now)
{
    struct http1_session *h = (struct http1_session *)s;
    if (h->inflight == 0 || now - oldest_start(h) < h->sh->timeout_us) return SESSION_KEEP;
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
        if (http1_parse_eof(&h->parser) == HTTP1_DONE) {
            worker_response(h->w, pop_start(h), h->parser.status, h->parser.body_bytes, now);
            http1_parser_next(&h->parser, h->sh->head);
        }
        /* fall through */
    default:
        fail_all(h, REQ_ERR_READ,
                 h->parser.bytes ? DETAIL_CLOSED_MID_RESPONSE : DETAIL_CLOSED_BEFORE_RESPONSE, now, false);
    }
}

static void h1_free(struct session *s)
{
    free(s);
}

static const struct session_ops http1_ops = {
    .on_connect = h1_on_connect,
    .on_read = h1_on_read,
    .next_write = h1_next_write,
    .on_tick = h1_on_tick,
    .on_close = h1_on_close,
    .free = h1_free,
};

struct session *http1_session_new(const struct http1_shared *sh, struct worker *w)
{
    struct http1_session *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    h->base.ops = &http1_ops;
    h->sh = sh;
    h->w = w;
    return &h->base;
}
