/* http2: HTTP/2 session over libnghttp2. Each stream has a slot holding its
 * request's context and what arrived; the slot's outcome is reported to the
 * host once, when nghttp2 closes the stream (or when the connection ends):
 *   complete response            -> response
 *   our timeout (RST CANCEL sent) -> error timeout, at the tick
 *   refused (RST REFUSED_STREAM, above a GOAWAY's last-stream-id, never sent)
 *                                -> refused: the worker starts it again
 *   RST_STREAM from the server   -> error reset
 *   headers over --max-header-size -> error protocol (header_too_large)
 *   any other stream error       -> error protocol
 * A connection error (garbage, a bad frame) makes nghttp2 queue a GOAWAY: the
 * session then closes the connection and the streams in flight are protocol
 * errors. For a request whose source reads the response (ctx.collect), the
 * slot keeps its header fields (pseudo-headers left out) and body in buffers
 * that are reused by the slot's next streams. */
#include "http2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buffer.h"
#include "collect.h"
#include "h2pool.h"

/* What every HTTP/2 session of a run shares, read-only. */
struct http2_shared {
    unsigned streams; /* -m: concurrent streams per connection */
    size_t max_header;
    uint64_t timeout_us;
    uint64_t per_connection; /* requests per connection, 0: unlimited */
    int32_t stream_window, connection_window;
    nghttp2_session_callbacks *callbacks; /* owned */
};

#define OUT_BATCH 65536      /* stop asking nghttp2 for frames past this many bytes */
#define OUT_SLACK (16384 + 9 + 1024) /* one more frame of the default maximum size */

struct h2_stream {
    int32_t id; /* 0: the slot is free */
    struct collect collect; /* what arrived for a stream with ctx.collect; the buffers outlive the stream */
    struct req_ctx ctx;
    const uint8_t *body; /* the request's DATA, the source's */
    size_t body_len;
    uint64_t body_bytes, header_bytes;
    size_t body_sent;
    int status;
    bool got_headers, complete, reset_by_peer, timed_out, too_large, sent, trailers;
};

struct http2_session {
    struct session base;
    const struct http2_shared *sh;
    struct session_host *host;
    nghttp2_session *ng;
    struct h2_stream *slots; /* sh->streams of them */
    struct h2_stream **idle; /* the free slots: a stack of sh->streams - active */
    unsigned active;         /* slots in use */
    uint64_t wire_pending, decoded_pending; /* header bytes not yet given to the host */
    uint64_t oldest_sent;    /* no stream in flight and not timed out was sent before this */
    uint64_t now;
    uint64_t started_on_connection;
    int32_t goaway_last_id;  /* valid when goaway */
    struct h2_stream **by_id; /* the slot of stream id at (id / 2) & by_id_mask, if no later stream took the place */
    unsigned by_id_mask;
    struct h2pool *pool;     /* what nghttp2 allocates, recycled: the thread's, taken on the first connect */
    bool settings_received, goaway, broken, closing;
    uint8_t *out;
    size_t out_cap;
};

/* ---- shared ---- */

static int32_t window_of(unsigned bits)
{
    return (int32_t)(((uint64_t)1 << bits) - 1);
}

static ssize_t read_body(nghttp2_session *ng, int32_t id, uint8_t *buf, size_t len, uint32_t *flags,
                         nghttp2_data_source *src, void *user);
static int on_begin_frame(nghttp2_session *ng, const nghttp2_frame_hd *hd, void *user);
static int on_begin_headers(nghttp2_session *ng, const nghttp2_frame *frame, void *user);
static int on_header(nghttp2_session *ng, const nghttp2_frame *frame, const uint8_t *name, size_t namelen,
                     const uint8_t *value, size_t valuelen, uint8_t flags, void *user);
static int on_data_chunk(nghttp2_session *ng, uint8_t flags, int32_t id, const uint8_t *data, size_t len, void *user);
static int on_frame_recv(nghttp2_session *ng, const nghttp2_frame *frame, void *user);
static int on_frame_send(nghttp2_session *ng, const nghttp2_frame *frame, void *user);
static int on_stream_close(nghttp2_session *ng, int32_t id, uint32_t error_code, void *user);

static int make_callbacks(struct http2_shared *sh)
{
    nghttp2_session_callbacks *cb;
    if (nghttp2_session_callbacks_new(&cb)) return -1;
    nghttp2_session_callbacks_set_on_begin_frame_callback(cb, on_begin_frame);
    nghttp2_session_callbacks_set_on_begin_headers_callback(cb, on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data_chunk);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame_recv);
    nghttp2_session_callbacks_set_on_frame_send_callback(cb, on_frame_send);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_stream_close);
    sh->callbacks = cb;
    return 0;
}

static void h2_shared_free(void *shared)
{
    struct http2_shared *sh = shared;
    if (!sh) return;
    if (sh->callbacks) nghttp2_session_callbacks_del(sh->callbacks);
    free(sh);
}

static void *h2_shared_new(const struct config *cfg)
{
    struct http2_shared *sh = calloc(1, sizeof *sh);
    if (!sh || make_callbacks(sh)) {
        h2_shared_free(sh);
        return NULL;
    }
    sh->streams = cfg->pipeline;
    sh->max_header = cfg->max_header_size;
    sh->timeout_us = cfg->timeout_us;
    sh->per_connection = cfg->keepalive ? cfg->requests_per_connection : 1;
    sh->stream_window = window_of(cfg->window_bits);
    sh->connection_window = window_of(cfg->connection_window_bits);
    return sh;
}

/* ---- slots ---- */

/* The slot of stream id, or NULL: from by_id (no lookup in nghttp2's map),
 * else from nghttp2 (a later stream took the place). */
static struct h2_stream *slot_of(struct http2_session *h, int32_t id)
{
    struct h2_stream *st = h->by_id[((uint32_t)id >> 1) & h->by_id_mask];
    if (st && st->id == id) return st;
    st = nghttp2_session_get_stream_user_data(h->ng, id);
    return st && st->id == id ? st : NULL;
}

static void slot_free(struct http2_session *h, struct h2_stream *st)
{
    st->id = 0;
    h->idle[h->sh->streams - h->active] = st;
    h->active--;
}

/* Every slot free (a new connection), the first on top. */
static void slots_reset(struct http2_session *h)
{
    for (unsigned i = 0; i < h->sh->streams; i++) h->idle[i] = &h->slots[h->sh->streams - 1 - i];
    h->active = 0;
}

/* Never sent, or above a GOAWAY's last-stream-id: the server did not process it. */
static bool unprocessed(const struct http2_session *h, const struct h2_stream *st)
{
    return !st->sent || (h->goaway && st->id > h->goaway_last_id);
}

/* The header bytes counted since the last call go to the host: before each
 * outcome (which may begin or end the measured phase) and after each read,
 * so that they count exactly as if given one by one. */
static void header_bytes_flush(struct http2_session *h)
{
    if (!h->wire_pending && !h->decoded_pending) return;
    h->host->ops->header_bytes(h->host, h->wire_pending, h->decoded_pending);
    h->wire_pending = h->decoded_pending = 0;
}

static void report(struct http2_session *h, const struct h2_stream *st, struct outcome o)
{
    header_bytes_flush(h);
    h->host->ops->done(h->host, &st->ctx, &o);
}

/* A complete response: its outcome, with what was collected. */
static void report_response(struct http2_session *h, struct h2_stream *st)
{
    struct outcome o = outcome_response(st->status, st->body_bytes, h->now);
    struct response_data data;
    if (st->ctx.collect && collect_result(&st->collect, &data)) o.response = &data;
    report(h, st, o);
    collect_trim(&st->collect); /* a big body is not held by the slot for the run */
}

/* The stream ended without a response: why. */
static void slot_failed(struct http2_session *h, struct h2_stream *st, uint32_t error_code)
{
    if (st->timed_out) return; /* accounted when it timed out */
    if (error_code == NGHTTP2_REFUSED_STREAM || unprocessed(h, st))
        report(h, st, outcome_of(OUTCOME_REFUSED));
    else if (st->too_large)
        report(h, st, outcome_error(REQ_ERR_PROTOCOL, DETAIL_HEADER_TOO_LARGE, h->now));
    else if (st->reset_by_peer)
        report(h, st, outcome_error(REQ_ERR_RESET, DETAIL_NONE, h->now));
    else
        report(h, st, outcome_error(REQ_ERR_PROTOCOL, DETAIL_NONE, h->now));
}

/* ---- nghttp2 callbacks ---- */

static ssize_t read_body(nghttp2_session *ng, int32_t id, uint8_t *buf, size_t len, uint32_t *flags,
                         nghttp2_data_source *src, void *user)
{
    struct h2_stream *st = src->ptr;
    (void)ng;
    (void)id;
    (void)user;
    size_t left = st->body_len - st->body_sent, n = left < len ? left : len;
    memcpy(buf, st->body + st->body_sent, n);
    st->body_sent += n;
    if (st->body_sent == st->body_len) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

static int on_begin_frame(nghttp2_session *ng, const nghttp2_frame_hd *hd, void *user)
{
    struct http2_session *h = user;
    (void)ng;
    /* header block bytes on the wire, for the compression savings (as h2load) */
    if (hd->type == NGHTTP2_HEADERS || hd->type == NGHTTP2_CONTINUATION) h->wire_pending += hd->length;
    return 0;
}

static int on_begin_headers(nghttp2_session *ng, const nghttp2_frame *frame, void *user)
{
    struct http2_session *h = user;
    (void)ng;
    struct h2_stream *st = slot_of(h, frame->hd.stream_id);
    if (st && !st->got_headers) {
        st->got_headers = true;
        h->host->ops->first_byte(h->host, &st->ctx, h->now);
    } else if (st && st->status >= 200) {
        st->trailers = true; /* a header block after the final response's: not collected */
    }
    return 0;
}

static int on_header(nghttp2_session *ng, const nghttp2_frame *frame, const uint8_t *name, size_t namelen,
                     const uint8_t *value, size_t valuelen, uint8_t flags, void *user)
{
    struct http2_session *h = user;
    (void)ng;
    (void)flags;
    struct h2_stream *st = slot_of(h, frame->hd.stream_id);
    if (!st) return 0;
    h->decoded_pending += namelen + valuelen;
    st->header_bytes += namelen + valuelen;
    if (st->header_bytes > h->sh->max_header) {
        st->too_large = true;
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE; /* resets this stream only */
    }
    if (namelen == 7 && memcmp(name, ":status", 7) == 0) {
        int status = 0;
        for (size_t i = 0; i < valuelen && i < 3; i++) status = status * 10 + (value[i] - '0');
        st->status = status;
        collect_reset_fields(&st->collect); /* a 1xx response's fields are not the final ones */
    } else if (st->ctx.collect && !st->trailers && namelen > 0 && name[0] != ':') {
        collect_field(&st->collect, name, namelen, value, valuelen);
    }
    return 0;
}

static int on_data_chunk(nghttp2_session *ng, uint8_t flags, int32_t id, const uint8_t *data, size_t len, void *user)
{
    struct http2_session *h = user;
    (void)ng;
    (void)flags;
    struct h2_stream *st = slot_of(h, id);
    if (!st) return 0;
    st->body_bytes += len;
    if (st->ctx.collect) collect_body(&st->collect, data, len, st->ctx.body_max);
    return 0;
}

static int on_frame_recv(nghttp2_session *ng, const nghttp2_frame *frame, void *user)
{
    struct http2_session *h = user;
    (void)ng;
    switch (frame->hd.type) {
    case NGHTTP2_SETTINGS:
        if (frame->hd.flags & NGHTTP2_FLAG_ACK) return 0;
        h->settings_received = true;
        h->host->ops->peer_settings(h->host, nghttp2_session_get_remote_settings(h->ng, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS));
        return 0;
    case NGHTTP2_GOAWAY:
        h->goaway = true;
        h->goaway_last_id = frame->goaway.last_stream_id;
        return 0;
    case NGHTTP2_RST_STREAM: {
        struct h2_stream *st = slot_of(h, frame->hd.stream_id);
        if (st) st->reset_by_peer = true;
        return 0;
    }
    case NGHTTP2_HEADERS:
    case NGHTTP2_DATA: {
        struct h2_stream *st = slot_of(h, frame->hd.stream_id);
        if (st && (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) && st->status >= 200) st->complete = true;
        return 0;
    }
    default:
        return 0;
    }
}

static int on_frame_send(nghttp2_session *ng, const nghttp2_frame *frame, void *user)
{
    struct http2_session *h = user;
    (void)ng;
    if (frame->hd.type == NGHTTP2_HEADERS) {
        struct h2_stream *st = slot_of(h, frame->hd.stream_id);
        if (st) st->sent = true;
    } else if (frame->hd.type == NGHTTP2_GOAWAY) {
        /* we never end a connection this way ourselves: nghttp2 found a connection error */
        h->broken = true;
    }
    return 0;
}

static int on_stream_close(nghttp2_session *ng, int32_t id, uint32_t error_code, void *user)
{
    struct http2_session *h = user;
    (void)ng;
    struct h2_stream *st = slot_of(h, id);
    if (!st) return 0;
    if (st->complete && !st->timed_out) report_response(h, st);
    else slot_failed(h, st, error_code);
    slot_free(h, st);
    return 0;
}

/* ---- the session ---- */

static void h2_drop_session(struct http2_session *h)
{
    if (!h->ng) return;
    nghttp2_session_del(h->ng);
    h->ng = NULL;
}

static void h2_on_connect(struct session *s, uint64_t now)
{
    struct http2_session *h = (struct http2_session *)s;
    h->now = now;
    h->settings_received = h->goaway = h->broken = h->closing = false;
    h->started_on_connection = 0;
    slots_reset(h);
    if (!h->pool && !(h->pool = h2pool_of_thread())) {
        h->broken = true;
        return;
    }
    nghttp2_mem mem = h2pool_mem(h->pool);
    if (nghttp2_session_client_new3(&h->ng, h->sh->callbacks, h, NULL, &mem)) {
        h->ng = NULL;
        h->broken = true;
        return;
    }
    nghttp2_settings_entry settings[] = {
        {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, (uint32_t)h->sh->stream_window},
        {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, (uint32_t)(h->sh->max_header > UINT32_MAX ? UINT32_MAX : h->sh->max_header)},
    };
    if (nghttp2_submit_settings(h->ng, NGHTTP2_FLAG_NONE, settings, sizeof settings / sizeof settings[0]) ||
        nghttp2_session_set_local_window_size(h->ng, NGHTTP2_FLAG_NONE, 0, h->sh->connection_window))
        h->broken = true;
}

/* How many streams may be open now: -m, within the server's limit. Until
 * the server's SETTINGS arrive its limit is unknown: one stream, so that a
 * peer which does not speak HTTP/2 fails a request, counted, not silently. */
static unsigned stream_limit(struct http2_session *h)
{
    if (!h->settings_received) return 1;
    uint32_t server = nghttp2_session_get_remote_settings(h->ng, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);
    return server < h->sh->streams ? server : h->sh->streams;
}

/* The free slot a new stream takes (taken when its id is set, active++). */
static struct h2_stream *free_slot(struct http2_session *h)
{
    return h->idle[h->sh->streams - h->active - 1];
}

static unsigned h2_capacity(struct session *s)
{
    struct http2_session *h = (struct http2_session *)s;
    if (!h->ng || h->goaway || h->closing || h->broken) return 0;
    unsigned limit = stream_limit(h);
    return h->active < limit ? limit - h->active : 0;
}

static unsigned h2_submit(struct session *s, const struct request *req, const struct req_ctx *ctx)
{
    struct http2_session *h = (struct http2_session *)s;
    struct h2_stream *st = free_slot(h);
    struct collect collect = st->collect; /* the buffers stay with the slot */
    memset(st, 0, sizeof *st);
    st->collect = collect;
    collect_reset(&st->collect);
    st->ctx = *ctx;
    st->body = req->body;
    st->body_len = req->body_len;
    nghttp2_data_provider body = {.source.ptr = st, .read_callback = read_body};
    int32_t id = nghttp2_submit_request(h->ng, NULL, req->fields, req->field_count, req->body_len ? &body : NULL, st);
    if (id < 0) { /* stream ids used up: this connection is done */
        report(h, st, outcome_of(OUTCOME_REFUSED));
        h->closing = true;
        return 0;
    }
    st->id = id;
    h->by_id[((uint32_t)id >> 1) & h->by_id_mask] = st;
    if (h->active++ == 0 || ctx->sent_us < h->oldest_sent) h->oldest_sent = ctx->sent_us;
    if (h->sh->per_connection && ++h->started_on_connection >= h->sh->per_connection) h->closing = true;
    return h2_capacity(s);
}

static bool grow_out(struct http2_session *h, size_t need)
{
    if (need <= h->out_cap) return true;
    uint8_t *bigger = realloc(h->out, need);
    if (!bigger) return false;
    h->out = bigger;
    h->out_cap = need;
    return true;
}

static size_t h2_next_write(struct session *s, const uint8_t **data, uint64_t now)
{
    struct http2_session *h = (struct http2_session *)s;
    h->now = now;
    *data = h->out;
    if (!h->ng || h->broken) return 0;
    size_t len = 0;
    /* many streams' frames in one buffer, one write; bounded by OUT_BATCH */
    while (len < OUT_BATCH) {
        const uint8_t *frame;
        ssize_t n = nghttp2_session_mem_send(h->ng, &frame);
        if (n < 0) {
            h->broken = true;
            break;
        }
        if (n == 0) break;
        if (!grow_out(h, len + (size_t)n)) {
            h->broken = true;
            break;
        }
        memcpy(h->out + len, frame, (size_t)n);
        len += (size_t)n;
    }
    *data = h->out;
    return len;
}

/* Nothing more to do on this connection? */
static bool finished(struct http2_session *h)
{
    if (!h->ng || h->broken) return true;
    if ((h->closing || h->goaway) && h->active == 0) return true;
    return !nghttp2_session_want_read(h->ng) && !nghttp2_session_want_write(h->ng);
}

static enum session_verdict h2_on_read(struct session *s, const uint8_t *data, size_t len, uint64_t now)
{
    struct http2_session *h = (struct http2_session *)s;
    h->now = now;
    if (!h->ng) return SESSION_CLOSE;
    ssize_t n = nghttp2_session_mem_recv(h->ng, data, len);
    header_bytes_flush(h);
    /* a server's first frame is SETTINGS: without it, keep what it said for --verbose */
    if (n < 0 || !h->settings_received) h->host->ops->sample(h->host, data, len);
    if (n < 0) h->broken = true;
    return finished(h) ? SESSION_CLOSE : SESSION_KEEP;
}

static enum session_verdict h2_on_tick(struct session *s, uint64_t now)
{
    struct http2_session *h = (struct http2_session *)s;
    h->now = now;
    if (finished(h)) return SESSION_CLOSE;
    /* the slots are looked at only when the oldest stream may have timed out
     * (a tick every 10 ms on every connection would touch every slot) */
    if (h->active == 0 || now - h->oldest_sent < h->sh->timeout_us) return SESSION_KEEP;
    uint64_t oldest = now;
    for (unsigned i = 0; i < h->sh->streams; i++) {
        struct h2_stream *st = &h->slots[i];
        if (st->id == 0 || st->timed_out) continue;
        if (now - st->ctx.sent_us < h->sh->timeout_us) {
            if (st->ctx.sent_us < oldest) oldest = st->ctx.sent_us;
            continue;
        }
        /* counted now, once; the slot frees when nghttp2 has sent the RST_STREAM */
        st->timed_out = true;
        report(h, st, outcome_error(REQ_ERR_TIMEOUT, DETAIL_NONE, now));
        nghttp2_submit_rst_stream(h->ng, NGHTTP2_FLAG_NONE, st->id, NGHTTP2_CANCEL);
    }
    h->oldest_sent = oldest;
    return SESSION_KEEP;
}

static void h2_on_close(struct session *s, enum close_cause cause, uint64_t now)
{
    struct http2_session *h = (struct http2_session *)s;
    h->now = now;
    for (unsigned i = 0; i < h->sh->streams; i++) {
        struct h2_stream *st = &h->slots[i];
        if (st->id == 0) continue;
        if (st->timed_out) {
            /* already accounted */
        } else if (cause == CLOSE_ABORT) {
            report(h, st, outcome_of(OUTCOME_ABORTED));
        } else if (unprocessed(h, st)) {
            report(h, st, outcome_of(OUTCOME_REFUSED));
        } else if (h->broken) {
            report(h, st, outcome_error(REQ_ERR_PROTOCOL, DETAIL_NONE, now));
        } else if (cause == CLOSE_WRITE_ERROR) {
            report(h, st, outcome_error(REQ_ERR_WRITE, DETAIL_NONE, now));
        } else {
            report(h, st, outcome_error(REQ_ERR_READ,
                                        st->got_headers ? DETAIL_CLOSED_MID_RESPONSE : DETAIL_CLOSED_BEFORE_RESPONSE,
                                        now));
        }
        slot_free(h, st);
    }
    /* slots are all free now, so nghttp2's own stream close callbacks find nothing */
    h2_drop_session(h);
}

static void h2_free(struct session *s)
{
    struct http2_session *h = (struct http2_session *)s;
    h2_drop_session(h);
    for (unsigned i = 0; h->slots && i < h->sh->streams; i++) {
        collect_free(&h->slots[i].collect);
    }
    free(h->slots);
    free(h->idle);
    free(h->by_id);
    free(h->out);
    h2pool_release(h->pool); /* after the nghttp2 session, which gave its blocks back */
    free(h);
}

static void h2_keep_alive(struct session *s, uint64_t every_us)
{
    struct http2_session *h = (struct http2_session *)s;
    (void)every_us;
    if (h->ng) nghttp2_submit_ping(h->ng, NGHTTP2_FLAG_NONE, NULL); /* out of memory: the next one */
}

static const struct session_ops http2_ops = {
    .on_connect = h2_on_connect,
    .capacity = h2_capacity,
    .submit = h2_submit,
    .on_read = h2_on_read,
    .next_write = h2_next_write,
    .on_tick = h2_on_tick,
    .on_close = h2_on_close,
    .free = h2_free,
    .keep_alive = h2_keep_alive,
};

static struct session *h2_session_new(const void *shared, struct session_host *host)
{
    const struct http2_shared *sh = shared;
    struct http2_session *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    h->base.ops = &http2_ops;
    h->sh = sh;
    h->host = host;
    h->slots = calloc(sh->streams, sizeof *h->slots);
    h->idle = calloc(sh->streams, sizeof *h->idle);
    /* room for twice the streams, so that streams in flight seldom share a place */
    h->by_id_mask = 1;
    while (h->by_id_mask < 2 * sh->streams - 1) h->by_id_mask = h->by_id_mask * 2 + 1;
    h->by_id = calloc((size_t)h->by_id_mask + 1, sizeof *h->by_id);
    h->out_cap = OUT_BATCH + OUT_SLACK;
    h->out = malloc(h->out_cap);
    if (!h->slots || !h->idle || !h->by_id || !h->out) {
        h2_free(&h->base);
        return NULL;
    }
    return &h->base;
}

const struct protocol http2_protocol = {
    .name = "h2",
    .shared_new = h2_shared_new,
    .shared_free = h2_shared_free,
    .session_new = h2_session_new,
};
