/* http3: the HTTP/3 session over nghttp3 and quic.h (contract in http3.h).
 * Each request has a slot holding its context and what arrived; its outcome
 * is reported to the host once:
 *   complete response (the stream's end after a final status) -> response
 *   our timeout (stream reset H3_REQUEST_CANCELLED) -> error timeout, at the tick
 *   reset by the server with H3_REQUEST_REJECTED, at or above a GOAWAY's
 *   stream id, or never opened        -> refused: the worker starts it again
 *   reset by the server with another code -> error reset (the code counted)
 *   headers over --max-header-size    -> error protocol (header_too_large)
 *   the connection closed or timed out -> error read (closed before/mid response)
 * The connection's own fate (handshake failure, idle timeout, the peer's
 * CONNECTION_CLOSE with a transport or HTTP/3 code, GOAWAY) goes to the host
 * as events. Lost packets only delay: ngtcp2 resends them. For a request
 * whose source reads the response (ctx.collect) the slot keeps its header
 * fields (pseudo-headers left out) and body (collect.h). */
#include "http3.h"

#include <nghttp3/nghttp3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "quic.h"
#include "report.h"

/* What every HTTP/3 session of a run shares, read-only. */
struct http3_shared {
    unsigned streams; /* -m */
    size_t max_header;
    uint64_t timeout_us;
    uint64_t per_connection; /* requests per connection, 0: unlimited */
    const struct quic_client *client;
    const char *target; /* the URL, for the first handshake failure's message */
    atomic_bool reported; /* the first handshake failure was printed */
};

struct h3_stream {
    int64_t id; /* -1: the slot is free */
    struct req_ctx ctx;
    struct collect collect; /* ctx.collect: what arrived; the buffers outlive the stream */
    const uint8_t *body; /* the request's DATA, the source's */
    size_t body_len;
    uint64_t body_bytes, header_bytes, reset_code;
    int status;
    bool got_headers, complete, reset_by_peer, timed_out, too_large;
};

struct http3_session {
    struct session base;
    struct http3_shared *sh;
    struct session_host *host;
    struct sockaddr_storage local, remote;
    socklen_t local_len, remote_len;
    struct quic_conn *q;
    nghttp3_conn *h3;
    struct h3_stream *slots; /* sh->streams of them */
    unsigned active;
    uint64_t now;
    uint64_t started_on_connection;
    int64_t goaway_id; /* valid when goaway */
    bool goaway, closing, broken, connected, ended;
    uint8_t out[QUIC_DATAGRAM_MAX];
};

void http3_library_versions(const char **ngtcp2, const char **nghttp3)
{
    *ngtcp2 = quic_library_version();
    *nghttp3 = nghttp3_version(0)->version_str;
}

/* ---- slots ---- */

static struct h3_stream *slot_of(struct http3_session *h, int64_t id, void *stream_user)
{
    struct h3_stream *st = stream_user;
    if (st && st->id == id) return st;
    for (unsigned i = 0; i < h->sh->streams; i++)
        if (h->slots[i].id == id) return &h->slots[i];
    return NULL;
}

static void report(struct http3_session *h, struct h3_stream *st, struct outcome o)
{
    h->host->ops->done(h->host, &st->ctx, &o);
}

static void slot_free(struct http3_session *h, struct h3_stream *st)
{
    st->id = -1;
    h->active--;
}

/* At or above a GOAWAY's id: the server did not process it. */
static bool unprocessed(const struct http3_session *h, const struct h3_stream *st)
{
    return h->goaway && st->id >= h->goaway_id;
}

/* The stream ended: its one outcome. */
static void slot_done(struct http3_session *h, struct h3_stream *st)
{
    if (st->timed_out) {
        /* accounted when it timed out */
    } else if (st->complete) {
        struct outcome o = outcome_response(st->status, st->body_bytes, h->now);
        struct response_data data;
        if (st->ctx.collect && collect_result(&st->collect, &data)) o.response = &data;
        report(h, st, o);
        collect_trim(&st->collect); /* a big body is not held by the slot for the run */
    } else if ((st->reset_by_peer && st->reset_code == NGHTTP3_H3_REQUEST_REJECTED) || unprocessed(h, st)) {
        report(h, st, outcome_of(OUTCOME_REFUSED));
    } else if (st->too_large) {
        report(h, st, outcome_error(REQ_ERR_PROTOCOL, DETAIL_HEADER_TOO_LARGE, h->now));
    } else if (st->reset_by_peer) {
        report(h, st, outcome_error(REQ_ERR_RESET, DETAIL_NONE, h->now));
    } else {
        report(h, st, outcome_error(REQ_ERR_PROTOCOL, DETAIL_NONE, h->now));
    }
    slot_free(h, st);
}

/* ---- nghttp3 callbacks ---- */

static int h3_stream_close(nghttp3_conn *c, int64_t id, uint64_t code, void *user, void *stream_user)
{
    struct http3_session *h = user;
    (void)c;
    (void)code;
    struct h3_stream *st = slot_of(h, id, stream_user);
    if (st) slot_done(h, st);
    return 0;
}

static int h3_recv_data(nghttp3_conn *c, int64_t id, const uint8_t *data, size_t len, void *user, void *stream_user)
{
    struct http3_session *h = user;
    (void)c;
    struct h3_stream *st = slot_of(h, id, stream_user);
    if (st) st->body_bytes += len;
    if (st && st->ctx.collect) collect_body(&st->collect, data, len, st->ctx.body_max);
    quic_conn_consumed(h->q, id, len); /* the body is counted, not kept */
    return 0;
}

static int h3_deferred_consume(nghttp3_conn *c, int64_t id, size_t consumed, void *user, void *stream_user)
{
    struct http3_session *h = user;
    (void)c;
    (void)stream_user;
    quic_conn_consumed(h->q, id, consumed);
    return 0;
}

static int h3_begin_headers(nghttp3_conn *c, int64_t id, void *user, void *stream_user)
{
    struct http3_session *h = user;
    (void)c;
    struct h3_stream *st = slot_of(h, id, stream_user);
    if (st && !st->got_headers) {
        st->got_headers = true;
        h->host->ops->first_byte(h->host, &st->ctx, h->now);
    }
    return 0;
}

static int parse_status(const uint8_t *v, size_t len)
{
    int status = 0;
    for (size_t i = 0; i < len && i < 3; i++) status = status * 10 + (v[i] - '0');
    return status;
}

static int h3_recv_header(nghttp3_conn *c, int64_t id, int32_t token, nghttp3_rcbuf *name, nghttp3_rcbuf *value,
                          uint8_t flags, void *user, void *stream_user)
{
    struct http3_session *h = user;
    (void)c;
    (void)flags;
    struct h3_stream *st = slot_of(h, id, stream_user);
    if (!st || st->too_large) return 0;
    nghttp3_vec n = nghttp3_rcbuf_get_buf(name), v = nghttp3_rcbuf_get_buf(value);
    st->header_bytes += n.len + v.len;
    if (st->header_bytes > h->sh->max_header) {
        st->too_large = true;
        quic_conn_shutdown_stream(h->q, id, NGHTTP3_H3_EXCESSIVE_LOAD);
        return 0;
    }
    if (token == NGHTTP3_QPACK_TOKEN__STATUS) {
        st->status = parse_status(v.base, v.len);
        collect_reset_fields(&st->collect); /* a 1xx response's fields are not the final ones */
    } else if (st->ctx.collect && n.len > 0 && n.base[0] != ':') {
        collect_field(&st->collect, n.base, n.len, v.base, v.len);
    }
    return 0;
}

static int h3_end_stream(nghttp3_conn *c, int64_t id, void *user, void *stream_user)
{
    struct http3_session *h = user;
    (void)c;
    struct h3_stream *st = slot_of(h, id, stream_user);
    if (st && st->status >= 200 && !st->too_large) st->complete = true;
    return 0;
}

/* nghttp3 asks for a stream to be reset or stopped. */
static int h3_shutdown_stream(nghttp3_conn *c, int64_t id, uint64_t code, void *user, void *stream_user)
{
    struct http3_session *h = user;
    (void)c;
    (void)stream_user;
    quic_conn_shutdown_stream(h->q, id, code);
    return 0;
}

/* GOAWAY: streams at or above id were not processed: refused now (they
 * start again elsewhere); the rest may finish. */
static int h3_goaway(nghttp3_conn *c, int64_t id, void *user)
{
    struct http3_session *h = user;
    (void)c;
    if (!h->goaway) h->host->ops->event(h->host, CONN_EVENT_GOAWAY, 0);
    h->goaway = true;
    h->goaway_id = id;
    for (unsigned i = 0; i < h->sh->streams; i++) {
        struct h3_stream *st = &h->slots[i];
        if (st->id < 0 || st->id < id) continue;
        quic_conn_shutdown_stream(h->q, st->id, NGHTTP3_H3_REQUEST_CANCELLED);
        slot_done(h, st);
    }
    return 0;
}

static ssize_t read_body(nghttp3_conn *c, int64_t id, nghttp3_vec *vec, size_t veccnt, uint32_t *pflags, void *user,
                         void *stream_user)
{
    struct h3_stream *st = stream_user;
    (void)c;
    (void)id;
    (void)user;
    (void)veccnt;
    vec[0].base = (uint8_t *)st->body;
    vec[0].len = st->body_len;
    *pflags |= NGHTTP3_DATA_FLAG_EOF;
    return 1;
}

static const nghttp3_callbacks h3_callbacks = {
    .stream_close = h3_stream_close,
    .recv_data = h3_recv_data,
    .deferred_consume = h3_deferred_consume,
    .begin_headers = h3_begin_headers,
    .recv_header = h3_recv_header,
    .stop_sending = h3_shutdown_stream,
    .end_stream = h3_end_stream,
    .reset_stream = h3_shutdown_stream,
    .shutdown = h3_goaway,
};

/* ---- QUIC events (quic.h) ---- */

/* After the handshake: nghttp3 and its three unidirectional streams. */
static int h3_setup(struct http3_session *h)
{
    nghttp3_settings settings;
    nghttp3_settings_default(&settings);
    settings.max_field_section_size = h->sh->max_header;
    int64_t ctrl, qenc, qdec;
    if (nghttp3_conn_client_new(&h->h3, &h3_callbacks, &settings, NULL, h)) {
        h->h3 = NULL;
        return -1;
    }
    if (quic_conn_open_uni(h->q, &ctrl) || quic_conn_open_uni(h->q, &qenc) || quic_conn_open_uni(h->q, &qdec) ||
        nghttp3_conn_bind_control_stream(h->h3, ctrl) || nghttp3_conn_bind_qpack_streams(h->h3, qenc, qdec))
        return -1;
    return 0;
}

static int ev_handshake_done(void *user)
{
    struct http3_session *h = user;
    if (h3_setup(h)) return -1;
    h->connected = true;
    h->host->ops->connected(h->host, h->now);
    uint64_t max = quic_conn_peer_max_bidi(h->q);
    h->host->ops->peer_settings(h->host, max > UINT32_MAX ? UINT32_MAX : (uint32_t)max);
    return 0;
}

static int ev_stream_data(void *user, int64_t id, const uint8_t *data, size_t len, bool fin)
{
    struct http3_session *h = user;
    if (!h->h3) return -1;
    nghttp3_ssize n = nghttp3_conn_read_stream(h->h3, id, data, len, fin);
    if (n < 0) return -1;
    quic_conn_consumed(h->q, id, (size_t)n);
    return 0;
}

static int ev_acked(void *user, int64_t id, uint64_t len)
{
    struct http3_session *h = user;
    return h->h3 && nghttp3_conn_add_ack_offset(h->h3, id, len) ? -1 : 0;
}

static int ev_stream_reset(void *user, int64_t id, uint64_t code)
{
    struct http3_session *h = user;
    struct h3_stream *st = slot_of(h, id, NULL);
    if (st && !st->reset_by_peer) {
        st->reset_by_peer = true;
        st->reset_code = code;
        /* one that answers our own reset (a timeout, headers too large) is not the server's doing */
        if (!st->timed_out && !st->too_large && code != NGHTTP3_H3_REQUEST_REJECTED)
            h->host->ops->event(h->host, CONN_EVENT_STREAM_RESET, code);
    }
    if (h->h3) nghttp3_conn_shutdown_stream_read(h->h3, id);
    return 0;
}

static int ev_stream_close(void *user, int64_t id, uint64_t code)
{
    struct http3_session *h = user;
    if (h->h3) {
        int rv = nghttp3_conn_close_stream(h->h3, id, code == UINT64_MAX ? NGHTTP3_H3_NO_ERROR : code);
        if (rv && rv != NGHTTP3_ERR_STREAM_NOT_FOUND) return -1;
    }
    struct h3_stream *st = slot_of(h, id, NULL); /* one nghttp3 did not know */
    if (st) slot_done(h, st);
    return 0;
}

static int ev_unblock(void *user, int64_t id)
{
    struct http3_session *h = user;
    return h->h3 && nghttp3_conn_unblock_stream(h->h3, id) ? -1 : 0;
}

static ssize_t ev_pull(void *user, int64_t *id, int *fin, struct quic_vec *vec, size_t veccnt)
{
    struct http3_session *h = user;
    nghttp3_vec v[16];
    if (!h->h3) return 0;
    nghttp3_ssize n = nghttp3_conn_writev_stream(h->h3, id, fin, v, veccnt < 16 ? veccnt : 16);
    if (n < 0) return -1;
    for (nghttp3_ssize i = 0; i < n; i++) vec[i] = (struct quic_vec){v[i].base, v[i].len};
    return n;
}

static int ev_pushed(void *user, int64_t id, size_t n)
{
    struct http3_session *h = user;
    return h->h3 && nghttp3_conn_add_write_offset(h->h3, id, n) ? -1 : 0;
}

static void ev_blocked(void *user, int64_t id, bool shut)
{
    struct http3_session *h = user;
    if (!h->h3) return;
    if (shut) nghttp3_conn_shutdown_stream_write(h->h3, id);
    else nghttp3_conn_block_stream(h->h3, id);
}

static const struct quic_events quic_events = {
    .handshake_done = ev_handshake_done,
    .stream_data = ev_stream_data,
    .acked = ev_acked,
    .stream_reset = ev_stream_reset,
    .stream_close = ev_stream_close,
    .unblock = ev_unblock,
    .pull = ev_pull,
    .pushed = ev_pushed,
    .blocked = ev_blocked,
};

/* ---- shared ---- */

static void h3_shared_free(void *shared)
{
    free(shared);
}

static void *h3_shared_new(const struct config *cfg)
{
    struct http3_shared *sh = calloc(1, sizeof *sh);
    if (!sh) return NULL;
    sh->streams = cfg->pipeline;
    sh->max_header = cfg->max_header_size;
    sh->timeout_us = cfg->timeout_us;
    sh->per_connection = cfg->keepalive ? cfg->requests_per_connection : 1;
    sh->client = cfg->setup.quic_client;
    sh->target = cfg->url;
    return sh;
}

/* ---- the session ---- */

static void h3_drop(struct http3_session *h)
{
    if (h->h3) nghttp3_conn_del(h->h3);
    quic_conn_free(h->q);
    h->h3 = NULL;
    h->q = NULL;
}

static void h3_set_path(struct session *s, const struct sockaddr *local, socklen_t local_len,
                        const struct sockaddr *remote, socklen_t remote_len)
{
    struct http3_session *h = (struct http3_session *)s;
    h->local_len = local_len < sizeof h->local ? local_len : sizeof h->local;
    h->remote_len = remote_len < sizeof h->remote ? remote_len : sizeof h->remote;
    memcpy(&h->local, local, h->local_len);
    memcpy(&h->remote, remote, h->remote_len);
}

static void h3_on_connect(struct session *s, uint64_t now)
{
    struct http3_session *h = (struct http3_session *)s;
    h3_drop(h);
    h->now = now;
    h->goaway = h->closing = h->broken = h->connected = h->ended = false;
    h->started_on_connection = 0;
    h->active = 0;
    h->q = quic_conn_new(h->sh->client, (struct sockaddr *)&h->local, h->local_len, (struct sockaddr *)&h->remote,
                         h->remote_len, &quic_events, h, now);
    if (!h->q) h->broken = true;
}

static void h3_keep_alive(struct session *s, uint64_t every_us)
{
    struct http3_session *h = (struct http3_session *)s;
    if (h->q) quic_conn_keep_alive(h->q, every_us);
}

static unsigned h3_capacity(struct session *s)
{
    struct http3_session *h = (struct http3_session *)s;
    if (!h->h3 || !h->connected || h->goaway || h->closing || h->broken || h->ended) return 0;
    uint64_t left = quic_conn_bidi_left(h->q), room = h->sh->streams - h->active;
    return (unsigned)(left < room ? left : room);
}

static struct h3_stream *free_slot(struct http3_session *h)
{
    for (unsigned i = 0; i < h->sh->streams; i++)
        if (h->slots[i].id < 0) return &h->slots[i];
    return NULL;
}

/* The request's fields as nghttp3 takes them (copied by nghttp3). */
static int submit_fields(struct http3_session *h, struct h3_stream *st, const struct request *req)
{
    nghttp3_nv stack[32], *nv = req->field_count <= 32 ? stack : malloc(req->field_count * sizeof *nv);
    if (!nv) return -1;
    for (size_t i = 0; i < req->field_count; i++)
        nv[i] = (nghttp3_nv){req->fields[i].name, req->fields[i].value, req->fields[i].namelen,
                             req->fields[i].valuelen, NGHTTP3_NV_FLAG_NONE};
    nghttp3_data_reader body = {.read_data = read_body};
    int rv = nghttp3_conn_submit_request(h->h3, st->id, nv, req->field_count, req->body_len ? &body : NULL, st);
    if (nv != stack) free(nv);
    return rv ? -1 : 0;
}

static unsigned h3_submit(struct session *s, const struct request *req, const struct req_ctx *ctx)
{
    struct http3_session *h = (struct http3_session *)s;
    struct h3_stream *st = free_slot(h);
    struct collect collect = st->collect; /* the buffers stay with the slot */
    collect_reset(&collect);
    *st = (struct h3_stream){.id = -1, .ctx = *ctx, .collect = collect, .body = req->body, .body_len = req->body_len};
    if (quic_conn_open_bidi(h->q, &st->id)) {
        st->id = -1;
        report(h, st, outcome_of(OUTCOME_REFUSED)); /* no stream credit: never sent */
        return 0;
    }
    h->active++;
    if (submit_fields(h, st, req)) {
        quic_conn_shutdown_stream(h->q, st->id, NGHTTP3_H3_INTERNAL_ERROR);
        report(h, st, outcome_of(OUTCOME_REFUSED));
        slot_free(h, st);
        h->closing = true;
        return 0;
    }
    if (h->sh->per_connection && ++h->started_on_connection >= h->sh->per_connection) h->closing = true;
    return h3_capacity(s);
}

static size_t h3_next_write(struct session *s, const uint8_t **data, uint64_t now)
{
    struct http3_session *h = (struct http3_session *)s;
    h->now = now;
    *data = h->out;
    return h->q ? quic_conn_write(h->q, h->out, sizeof h->out, now) : 0;
}

static uint64_t h3_next_timer(struct session *s)
{
    struct http3_session *h = (struct http3_session *)s;
    return h->q ? quic_conn_expiry_us(h->q) : UINT64_MAX;
}

/* The connection is over: why, to the host, once (a failed handshake
 * printed once per run). */
static void note_end(struct http3_session *h)
{
    uint64_t code;
    const char *reason;
    enum quic_end end = quic_conn_ended(h->q, &code, &reason);
    if (h->ended || end == QUIC_END_NONE) return;
    h->ended = true;
    if (!h->connected && end != QUIC_END_LOCAL) {
        h->host->ops->event(h->host, end == QUIC_END_TLS ? CONN_EVENT_TLS_FAILED : CONN_EVENT_HANDSHAKE_FAILED, 0);
        if (!atomic_exchange(&h->sh->reported, true))
            report_error("QUIC handshake with %s failed: %s", h->sh->target, reason ? reason : "no answer");
        return;
    }
    if (end == QUIC_END_LOCAL) h->broken = true; /* an error here (a bad frame, a library failure) */
    else if (end == QUIC_END_IDLE) h->host->ops->event(h->host, CONN_EVENT_IDLE_TIMEOUT, 0);
    else if (end == QUIC_END_PEER_TRANSPORT) h->host->ops->event(h->host, CONN_EVENT_CLOSED_TRANSPORT, code);
    else if (end == QUIC_END_PEER_APP) h->host->ops->event(h->host, CONN_EVENT_CLOSED_APPLICATION, code);
}

/* Nothing more to do on this connection? */
static bool finished(struct http3_session *h)
{
    if (!h->q || h->broken) return true;
    note_end(h);
    if (h->ended) return true;
    return (h->closing || h->goaway) && h->active == 0;
}

static enum session_verdict h3_on_read(struct session *s, const uint8_t *data, size_t len, uint64_t now)
{
    struct http3_session *h = (struct http3_session *)s;
    h->now = now;
    if (h->q) quic_conn_read(h->q, data, len, now);
    return finished(h) ? SESSION_CLOSE : SESSION_KEEP;
}

/* Requests past --timeout: counted now, once; their streams reset. */
static void expire_requests(struct http3_session *h, uint64_t now)
{
    for (unsigned i = 0; i < h->sh->streams; i++) {
        struct h3_stream *st = &h->slots[i];
        if (st->id < 0 || st->timed_out || now - st->ctx.sent_us < h->sh->timeout_us) continue;
        st->timed_out = true;
        report(h, st, outcome_error(REQ_ERR_TIMEOUT, DETAIL_NONE, now));
        quic_conn_shutdown_stream(h->q, st->id, NGHTTP3_H3_REQUEST_CANCELLED);
    }
}

static enum session_verdict h3_on_tick(struct session *s, uint64_t now)
{
    struct http3_session *h = (struct http3_session *)s;
    h->now = now;
    if (h->q && now >= quic_conn_expiry_us(h->q)) quic_conn_on_expiry(h->q, now);
    if (finished(h)) return SESSION_CLOSE;
    expire_requests(h, now);
    return SESSION_KEEP;
}

static void h3_on_close(struct session *s, enum close_cause cause, uint64_t now)
{
    struct http3_session *h = (struct http3_session *)s;
    h->now = now;
    bool mid;
    for (unsigned i = 0; i < h->sh->streams; i++) {
        struct h3_stream *st = &h->slots[i];
        if (st->id < 0) continue;
        mid = st->got_headers;
        if (st->timed_out) { /* already accounted */
        } else if (cause == CLOSE_ABORT) report(h, st, outcome_of(OUTCOME_ABORTED));
        else if (unprocessed(h, st)) report(h, st, outcome_of(OUTCOME_REFUSED));
        else if (h->broken) report(h, st, outcome_error(REQ_ERR_PROTOCOL, DETAIL_NONE, now));
        else if (cause == CLOSE_WRITE_ERROR) report(h, st, outcome_error(REQ_ERR_WRITE, DETAIL_NONE, now));
        else report(h, st, outcome_error(REQ_ERR_READ, mid ? DETAIL_CLOSED_MID_RESPONSE : DETAIL_CLOSED_BEFORE_RESPONSE, now));
        slot_free(h, st);
    }
    /* a CONNECTION_CLOSE for the server: the worker's last next_write gives it */
    if (h->q) quic_conn_close(h->q, NGHTTP3_H3_NO_ERROR);
}

static void h3_free(struct session *s)
{
    struct http3_session *h = (struct http3_session *)s;
    h3_drop(h);
    for (unsigned i = 0; h->slots && i < h->sh->streams; i++) collect_free(&h->slots[i].collect);
    free(h->slots);
    free(h);
}

static const struct session_ops http3_ops = {
    .on_connect = h3_on_connect,
    .capacity = h3_capacity,
    .submit = h3_submit,
    .on_read = h3_on_read,
    .next_write = h3_next_write,
    .on_tick = h3_on_tick,
    .on_close = h3_on_close,
    .free = h3_free,
    .set_path = h3_set_path,
    .next_timer = h3_next_timer,
    .keep_alive = h3_keep_alive,
};

static struct session *h3_session_new(const void *shared, struct session_host *host)
{
    struct http3_shared *sh = (struct http3_shared *)shared;
    struct http3_session *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    h->base.ops = &http3_ops;
    h->sh = sh;
    h->host = host;
    h->slots = calloc(sh->streams, sizeof *h->slots);
    if (!h->slots) {
        free(h);
        return NULL;
    }
    for (unsigned i = 0; i < sh->streams; i++) h->slots[i].id = -1;
    return &h->base;
}

const struct protocol http3_protocol = {
    .name = "h3",
    .datagram = true,
    .shared_new = h3_shared_new,
    .shared_free = h3_shared_free,
    .session_new = h3_session_new,
};
