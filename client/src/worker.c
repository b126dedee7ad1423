/* worker: one load thread's libev loop (contract in worker.h). Each
 * connection slot has a socket watcher, a back-off timer, a delay timer (a
 * script's delay()) and a session. The worker decides when a request starts
 * (closed loop: whenever a connection has room; open loop, -R: when its
 * schedule says, on a connection with room) and asks its source what it is;
 * every outcome comes back through the connection's host to worker_done. A
 * 10 ms tick applies the connect and request timeouts, so they fire up to
 * 10 ms late. A source that fails (a script error) stops every worker at
 * once. Once a second the worker hands its interval stats to the main thread
 * (engine.c), and applies the --control commands the main thread queues. */
#include "worker.h"

#include <errno.h>
#include <ev.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "expect.h"
#include "monotonic.h"
#include "pace.h"
#include "reqlog.h"
#include "signals.h"
#include "tls.h"
#include "transport.h"

#define TICK_S 0.01
#define READ_BUFFER 65536
#define BACKOFF_MIN_US 10000
#define BACKOFF_MAX_US 1000000
#define SECOND_US 1000000u

enum conn_state { CONN_IDLE, CONN_CONNECTING, CONN_HANDSHAKE, CONN_OPEN };

struct conn {
    struct worker *w;
    struct session_host host; /* what the session reports to */
    unsigned index;           /* among the worker's connections, for the source */
    ev_io io;
    ev_timer backoff;
    ev_timer delay;           /* the source's delay before the next request */
    ev_timer expiry;          /* datagram protocols: the session's own timer (next_timer) */
    bool handshaking;         /* datagram protocols: the session's handshake is not done */
    enum { DELAY_NONE, DELAY_HELD, DELAY_OVER } delay_state;
    int events; /* what io watches now */
    enum conn_state state;
    struct transport tr;
    struct session *session;
    const uint8_t *out; /* pending bytes of the session's last next_write */
    size_t out_len;
    uint64_t connect_start;
    uint64_t backoff_us;
    uint64_t received; /* bytes on this connection */
    unsigned pending;  /* requests submitted on it whose outcome has not come back */
    bool ready;        /* open loop: in the worker's ready line */
    bool idle;         /* --idle-connections: never carries a request, not counted as load */
};

/* A command from the main thread, applied on the worker's thread: --control's
 * rate and stop, and the end of a --warmup auto. */
struct command {
    struct command *next;
    enum { COMMAND_RATE, COMMAND_STOP, COMMAND_INTERRUPT, COMMAND_MEASURE } kind;
    double rate;
    uint64_t at_us; /* the main thread's now: the same for every worker */
};

struct worker {
    const struct config *cfg;
    struct run_shared *run;
    struct source *source;
    const struct sockaddr *addr; /* the source's, or the URL's */
    socklen_t addr_len;
    pthread_t thread;
    struct ev_loop *loop;
    struct conn *conns;   /* conn_count busy ones, then idle_count idle ones */
    unsigned conn_count, idle_count;
    ev_timer idle_ping;   /* --idle-ping: the idle connections' keep-alive */
    bool dgram;           /* the protocol runs over UDP (QUIC): protocol.datagram */
    bool ever_open;       /* a connection of this thread was established once */
    struct stats stats;
    uint64_t budget;      /* requests left to start in the measured phase; UINT64_MAX: no limit */
    uint64_t inflight;    /* started and not yet ended, warm-up ones included */
    uint64_t open_now;
    uint64_t measure_start; /* in the warm-up: the run's start (the warm-up seconds count from it) */
    uint64_t window_end; /* the deadline, or the last answer of a run without one; 0 until known */
    bool measuring, stopping;
    bool warming; /* in a warm-up whose seconds go to the main thread (cur is one of them) */
    ev_timer tick, warmup, deadline, grace;
    ev_async abort; /* another worker's source failed: stop now */
    unsigned index; /* among the threads */
    struct reqlog_writer *log; /* --log: this thread's lines (reqlog.h), or NULL */
    /* open loop: when requests are sent (pace.h), the worker its host */
    bool paced;
    struct pace pace;
    /* the current second's stats, and what crosses to the main thread under
     * mu (once a second and per command, never per request) */
    struct interval *cur;
    ev_timer second;
    ev_async wake;
    pthread_mutex_t mu;
    struct interval *posted, *posted_tail;
    struct command *commands;
    uint8_t rbuf[READ_BUFFER];
};

static void conn_connect(struct conn *c);
static void conn_close(struct conn *c, enum close_cause cause);
static void worker_source_halted(struct worker *w);
static void conn_flush(struct conn *c, uint64_t now);

/* ---- requests: started here, ended in worker_done ---- */

/* Does what began at start_us count: the measured phase had begun (connections). */
static bool counted(const struct worker *w, uint64_t start_us)
{
    return w->measuring && start_us >= w->measure_start;
}

/* May requests (and connections for them) still start: not stopping, budget left. */
static bool may_start(const struct worker *w)
{
    return !w->stopping && !(w->measuring && w->budget == 0);
}

static void worker_maybe_finish(struct worker *w)
{
    if (w->inflight == 0 && !may_start(w)) ev_break(w->loop, EVBREAK_ONE);
}

/* Counts a request as started (may_start() must hold, but for a request
 * written in the text of the one before it), due at scheduled (closed loop:
 * now) and sent now; returns its context. */
static struct req_ctx worker_start(struct worker *w, const struct request *req, uint64_t scheduled, uint64_t now)
{
    bool measured = w->measuring && scheduled >= w->measure_start;
    if (measured) {
        if (w->budget != UINT64_MAX && w->budget > 0) w->budget--;
        w->stats.started++;
        w->cur->sent++;
        if (w->paced) {
            hist_record(&w->stats.schedule_lag, now - scheduled);
            w->cur->lag_count++;
            w->cur->lag_sum_us += now - scheduled;
        }
        if (req->kind >= 0) stats_kind(&w->stats, (unsigned)req->kind, req->kind_name);
    } else if (w->warming) {
        w->cur->sent++;
    }
    w->inflight++;
    if (w->paced && w->pace.window_sleep) pace_sent(&w->pace, now);
    return (struct req_ctx){.scheduled_us = scheduled, .sent_us = now, .source_data = req->source_data,
                            .kind = req->kind, .measured = measured,
                            .collect = w->source->wants_response || w->cfg->expect_status_set,
                            .body_max = w->source->wants_response ? w->source->body_max : STATS_SAMPLE_LEN,
                            .log_slot = measured && w->log ? reqlog_begin(w->log, req) : 0};
}

/* A counted request completed (a response or an error); in the grace, say so. */
static void request_completed(struct worker *w)
{
    if (w->stopping) w->stats.completed_in_grace++;
}

/* A refused request was never processed: it starts again, on whichever
 * connection takes it (open loop: with its scheduled time), unless the run
 * is stopping. */
static void request_refused(struct worker *w, const struct req_ctx *ctx)
{
    w->stats.refused_streams++;
    if (w->stopping || (w->paced && pace_requeue(&w->pace, ctx->scheduled_us))) {
        w->stats.aborted++; /* it cannot be sent again */
        return;
    }
    w->stats.started--;
    if (w->budget != UINT64_MAX) w->budget++;
}

/* The outcome of a measured request of a kind, if its stats could be made;
 * latency as in the run's stats (from the scheduled time). */
static void account_kind(struct worker *w, const struct req_ctx *ctx, const struct outcome *o, uint64_t latency)
{
    struct stats_kind *k = w->stats.kinds[ctx->kind];
    if (!k) return;
    if (o->kind == OUTCOME_RESPONSE) stats_kind_response(k, o->status, latency);
    else if (o->kind == OUTCOME_ERROR) stats_kind_error(k);
}

/* A measured response that failed its checks: unexpected, counted there only. */
static void account_unexpected(struct worker *w, const struct req_ctx *ctx, const struct outcome *o)
{
    uint64_t latency = o->now_us - ctx->scheduled_us, uncorrected = o->now_us - ctx->sent_us;
    struct stats_kind *k = ctx->kind >= 0 ? w->stats.kinds[ctx->kind] : NULL;
    if (k) stats_kind_unexpected(k, latency);
    const struct response_data *r = o->response;
    stats_unexpected(&w->stats, o->status, latency, uncorrected, k ? k->name : NULL, r ? r->body : NULL,
                     r ? r->body_len : 0);
    interval_unexpected(w->cur, latency, uncorrected);
    w->stats.body_bytes += o->body_bytes;
    request_completed(w);
}

/* Counts the outcome of a measured request, in the run's stats and the
 * second's. Latency runs from the scheduled time (closed loop: the send). */
static void account(struct worker *w, const struct req_ctx *ctx, const struct outcome *o, bool expected)
{
    uint64_t latency = o->now_us - ctx->scheduled_us, uncorrected = o->now_us - ctx->sent_us;
    if (!expected) {
        account_unexpected(w, ctx, o);
        return;
    }
    if (ctx->kind >= 0) account_kind(w, ctx, o, latency);
    switch (o->kind) {
    case OUTCOME_RESPONSE:
        stats_response(&w->stats, o->status, latency, uncorrected);
        interval_response(w->cur, o->status, latency, uncorrected);
        w->stats.body_bytes += o->body_bytes;
        request_completed(w);
        break;
    case OUTCOME_ERROR:
        stats_error(&w->stats, o->error, o->detail, latency);
        interval_error(w->cur, o->error, latency);
        request_completed(w);
        break;
    case OUTCOME_ABORTED:
        w->stats.aborted++;
        break;
    case OUTCOME_REFUSED:
        request_refused(w, ctx);
        break;
    }
}

/* The outcome of a warm-up request, in the warm-up's second only. */
static void account_warmup(struct worker *w, const struct req_ctx *ctx, const struct outcome *o)
{
    uint64_t latency = o->now_us - ctx->scheduled_us;
    if (o->kind == OUTCOME_RESPONSE) interval_response(w->cur, o->status, latency, o->now_us - ctx->sent_us);
    else if (o->kind == OUTCOME_ERROR) interval_error(w->cur, o->error, latency);
}

/* Whether a final response passed its checks: the source's (a flow's
 * steps), else --expect-status; a status outside 100-599 is a protocol
 * error whatever was expected. */
static bool response_expected(struct worker *w, unsigned conn, const struct req_ctx *ctx, const struct outcome *o)
{
    struct source *src = w->source;
    if (o->kind != OUTCOME_RESPONSE || o->status < 100 || o->status > 599) return true;
    if (src->ops->expected) return src->ops->expected(src, conn, ctx, o);
    return !w->cfg->expect_status_set || expect_status_has(&w->cfg->expect_status, o->status);
}

/* The one sink of every request's outcome. */
static void worker_done(struct worker *w, unsigned conn, const struct req_ctx *ctx, const struct outcome *o)
{
    bool expected = response_expected(w, conn, ctx, o);
    if (ctx->measured) account(w, ctx, o, expected);
    else if (w->warming) account_warmup(w, ctx, o);
    if (ctx->log_slot) reqlog_end(w->log, ctx->log_slot, conn, ctx, o, expected);
    if (w->source->ops->on_done) {
        w->source->ops->on_done(w->source, conn, ctx, o);
        if (w->source->state != SOURCE_RUNNING) worker_source_halted(w);
    }
    w->inflight--;
    /* requests are aborted only after the loop has ended: nothing to stop then */
    if (o->kind != OUTCOME_ABORTED) worker_maybe_finish(w);
}

/* ---- the connection as its session's host ---- */

static struct conn *conn_of(struct session_host *h)
{
    return (struct conn *)(void *)((char *)h - offsetof(struct conn, host));
}

static void host_done(struct session_host *h, const struct req_ctx *ctx, const struct outcome *o)
{
    struct conn *c = conn_of(h);
    c->pending--;
    worker_done(c->w, c->index, ctx, o);
}

static void host_first_byte(struct session_host *h, const struct req_ctx *ctx, uint64_t now)
{
    if (ctx->measured) hist_record(&conn_of(h)->w->stats.ttfb, now - ctx->sent_us);
}

static void host_header_bytes(struct session_host *h, uint64_t wire, uint64_t decoded)
{
    struct worker *w = conn_of(h)->w;
    if (!w->measuring) return;
    w->stats.header_bytes += wire;
    w->stats.header_bytes_decoded += decoded;
}

static void host_sample(struct session_host *h, const uint8_t *data, size_t len)
{
    stats_sample(&conn_of(h)->w->stats, data, len);
}

/* The lowest limit any server connection announced, kept across the warm-up (stats.h). */
static void host_peer_settings(struct session_host *h, uint32_t max_streams)
{
    struct stats *st = &conn_of(h)->w->stats;
    if (!st->server_max_streams || max_streams < st->server_max_streams) st->server_max_streams = max_streams;
}

static void conn_count_open(struct conn *c, uint64_t now);
static void worker_stop(struct worker *w, uint64_t window_end);

/* Datagram protocols: the session's handshake is done. */
static void host_connected(struct session_host *h, uint64_t now)
{
    struct conn *c = conn_of(h);
    c->handshaking = false;
    conn_count_open(c, now);
}

/* WebSocket connection events (ws.h), into stats_ws. */
static void ws_event(struct stats_ws *ws, enum conn_event ev, uint64_t code)
{
    switch (ev) {
    case CONN_EVENT_WS_UPGRADED: ws->upgraded++; break;
    case CONN_EVENT_WS_REFUSED:
        ws->refused++;
        ws->refused_status[code < 600 ? code : 0]++;
        break;
    case CONN_EVENT_WS_CLOSED_BY_SERVER:
        ws->closed_by_server++;
        ws->server_codes[stats_ws_code_slot(code)]++;
        break;
    case CONN_EVENT_WS_CLOSED_BY_CLIENT:
        ws->closed_by_client++;
        ws->client_codes[stats_ws_code_slot(code)]++;
        break;
    case CONN_EVENT_WS_PROTOCOL_ERROR: ws->faults[code < STATS_WS_FAULTS ? code : 0]++; break;
    case CONN_EVENT_WS_PING: ws->pings++; break;
    default: break;
    }
}

/* Counts a connection-level event of the measured phase (a failed handshake:
 * if its attempt counts). */
static void host_event(struct session_host *h, enum conn_event ev, uint64_t code)
{
    struct conn *c = conn_of(h);
    struct stats *st = &c->w->stats;
    /* a WebSocket upgrade counts as its connection's establishment does */
    bool handshake = ev == CONN_EVENT_HANDSHAKE_FAILED || ev == CONN_EVENT_TLS_FAILED || ev == CONN_EVENT_WS_UPGRADED ||
                     ev == CONN_EVENT_WS_REFUSED;
    if (c->idle) return; /* idle connections: only idle.* counts */
    if (handshake ? !counted(c->w, c->connect_start) : !c->w->measuring) return;
    switch (ev) {
    case CONN_EVENT_TLS_FAILED: st->tls_errors++; st->quic.handshake_failures++; break;
    case CONN_EVENT_HANDSHAKE_FAILED: st->quic.handshake_failures++; break;
    case CONN_EVENT_IDLE_TIMEOUT: st->quic.idle_timeouts++; break;
    case CONN_EVENT_CLOSED_TRANSPORT: st->quic.closed_transport++; break;
    case CONN_EVENT_CLOSED_APPLICATION: st->quic.closed_application++; break;
    case CONN_EVENT_GOAWAY: st->quic.goaways++; break;
    case CONN_EVENT_STREAM_RESET:
        st->quic.stream_resets[code >= 0x100 && code < 0x100 + STATS_H3_CODES ? code - 0x100 : STATS_H3_CODES]++;
        break;
    default: ws_event(&st->ws, ev, code); break;
    }
}

static const struct session_host_ops conn_host_ops = {
    .connected = host_connected,
    .event = host_event,
    .done = host_done,
    .first_byte = host_first_byte,
    .header_bytes = host_header_bytes,
    .peer_settings = host_peer_settings,
    .sample = host_sample,
};

/* ---- connections ---- */

static void conn_watch(struct conn *c, int events)
{
    if (c->events == events) return;
    ev_io_stop(c->w->loop, &c->io);
    c->events = events;
    if (!events) return;
    ev_io_set(&c->io, c->tr.fd, events);
    ev_io_start(c->w->loop, &c->io);
}

/* The source's delay(): true while the connection waits for its next
 * request (the delay timer runs). */
static bool conn_held(struct conn *c)
{
    struct source *src = c->w->source;
    if (c->delay_state == DELAY_OVER) return false; /* until the next request goes out */
    if (c->delay_state == DELAY_HELD) return true;
    if (!src->ops->delay) return false;
    uint64_t us = src->ops->delay(src, c->index);
    if (src->state != SOURCE_RUNNING) {
        worker_source_halted(c->w);
        return true;
    }
    if (us == 0) return false;
    ev_timer_set(&c->delay, (double)us / 1e6, 0.);
    ev_timer_start(c->w->loop, &c->delay);
    c->delay_state = DELAY_HELD;
    return true;
}

static void delay_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
    struct conn *c = t->data;
    (void)loop;
    (void)revents;
    c->delay_state = DELAY_OVER;
    if (c->state == CONN_OPEN && c->out_len == 0) conn_flush(c, monotonic_now_us());
}

/* next() gave nothing: the source stopped or failed, or (still running) has
 * nothing for this connection now, which then waits for an outcome on it or
 * for the delay() it asks again now (a flow's users thinking). */
static void conn_idle(struct conn *c)
{
    if (c->w->source->state != SOURCE_RUNNING) {
        worker_source_halted(c->w);
        return;
    }
    c->delay_state = DELAY_NONE;
    conn_held(c);
}

/* Submits req, due at scheduled, and the requests written in its text after it
 * (due at the same time); returns the capacity left. */
static unsigned conn_submit(struct conn *c, const struct request *req, uint64_t scheduled, uint64_t now)
{
    struct source *src = c->w->source;
    c->delay_state = DELAY_NONE; /* the next request asks delay() again */
    for (;;) {
        struct req_ctx ctx = worker_start(c->w, req, scheduled, now);
        c->pending++;
        unsigned room = c->session->ops->submit(c->session, req, &ctx);
        if (!req->more) return room;
        req = src->ops->next(src, c->index);
    }
}

static void paced_fill(struct conn *c, uint64_t now);

/* Hands the session requests while it has room and requests may start
 * (open loop: while requests are due). */
static void conn_fill(struct conn *c, uint64_t now)
{
    struct worker *w = c->w;
    struct session *s = c->session;
    if (c->idle) return;
    if (w->paced) {
        paced_fill(c, now);
        return;
    }
    for (unsigned room = s->ops->capacity(s); room > 0 && may_start(w);) {
        if (conn_held(c)) return;
        const struct request *req = w->source->ops->next(w->source, c->index);
        if (!req) {
            conn_idle(c);
            return;
        }
        room = conn_submit(c, req, now, now);
    }
}

/* Datagram protocols: the session's timer, set again after every write. */
static void conn_arm_timer(struct conn *c)
{
    struct worker *w = c->w;
    if (!w->dgram || c->state != CONN_OPEN) return;
    uint64_t at = c->session->ops->next_timer(c->session), now = monotonic_now_us();
    ev_timer_stop(w->loop, &c->expiry);
    if (at == UINT64_MAX) return;
    ev_timer_set(&c->expiry, at > now ? (double)(at - now) / 1e6 : 0., 0.);
    ev_timer_start(w->loop, &c->expiry);
}

static void expiry_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
    struct conn *c = t->data;
    (void)loop;
    (void)revents;
    uint64_t now = monotonic_now_us();
    if (c->session->ops->on_tick(c->session, now) == SESSION_CLOSE) conn_close(c, CLOSE_LOCAL);
    else if (c->out_len == 0) conn_flush(c, now);
    else conn_arm_timer(c);
}

static void conn_write_out(struct conn *c, uint64_t now, bool start_requests);

/* Writes what the session has to send until it has nothing or the socket is
 * full; requests start whenever the last bytes are out. A datagram session's
 * timer is set again after. */
static void conn_flush(struct conn *c, uint64_t now)
{
    conn_write_out(c, now, true);
    conn_arm_timer(c);
}

/* Writes until the session has nothing more or the socket is full; with
 * start_requests, new requests are handed to the session whenever its
 * bytes are out, else only what it queued itself goes (a SETTINGS or PING
 * acknowledgement, a GOAWAY). */
static void conn_write_out(struct conn *c, uint64_t now, bool start_requests)
{
    struct worker *w = c->w;
    for (;;) {
        if (c->out_len == 0) {
            if (start_requests) conn_fill(c, now);
            c->out_len = c->session->ops->next_write(c->session, &c->out, now);
        }
        if (c->out_len == 0) {
            conn_watch(c, EV_READ);
            return;
        }
        ssize_t n = c->tr.ops->write(&c->tr, c->out, c->out_len);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            conn_watch(c, EV_READ | EV_WRITE);
            return;
        }
        if (n < 0) {
            conn_close(c, CLOSE_WRITE_ERROR);
            return;
        }
        if (w->measuring && !c->idle) {
            w->stats.bytes_sent += (uint64_t)n;
            if (w->cur) w->cur->bytes_sent += (uint64_t)n;
        }
        c->out += n;
        c->out_len -= (size_t)n;
    }
}

#define DGRAM_READS 16 /* datagrams read per wake-up before answering them */
#define STREAM_READS 8 /* reads per wake-up of a stream connection with requests in flight */

/* When bytes read now arrived, on the monotonic clock: from the kernel's
 * stamp (realtime) when the read has one, its age taken off the monotonic
 * now (the realtime clock read first: a pause between the two reads can only
 * make the arrival later, never before its request was sent); a stamp in the
 * future or older than a second (the realtime clock stepped) is not trusted.
 * The loop sleeps through windows only while reads come stamped: the kernel
 * turns stamping on a moment after the first socket asks for it, so the
 * first answers of a run can come without. */
static uint64_t conn_arrival(struct conn *c, uint64_t received_ns, uint64_t now)
{
    if (!c->tr.stamped) return now;
    pace_stamped(&c->w->pace, received_ns != 0);
    if (!received_ns) return now;
    struct timespec real, mono;
    clock_gettime(CLOCK_REALTIME, &real);
    clock_gettime(CLOCK_MONOTONIC, &mono);
    uint64_t real_ns = timespec_ns(&real), mono_ns = timespec_ns(&mono);
    if (received_ns > real_ns || real_ns - received_ns > 1000000000u || real_ns - received_ns > mono_ns) return now;
    return (mono_ns - (real_ns - received_ns)) / 1000;
}

/* Reads once and hands what came to the session; false when nothing came
 * (the socket is empty) or the connection closed (c->state says which). */
static bool conn_read_one(struct conn *c, uint64_t *now)
{
    struct worker *w = c->w;
    uint64_t received_ns = 0;
    ssize_t n = c->tr.ops->read(&c->tr, w->rbuf, sizeof w->rbuf, &received_ns);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return false;
    if (n == 0 && w->dgram) return true; /* an empty datagram */
    if (n <= 0) {
        conn_close(c, n == 0 ? CLOSE_EOF : CLOSE_READ_ERROR);
        return false;
    }
    *now = monotonic_now_us();
    if (w->measuring && !c->idle) {
        w->stats.bytes_received += (uint64_t)n;
        if (w->cur) w->cur->bytes_received += (uint64_t)n;
    }
    c->received += (uint64_t)n;
    uint64_t arrived = conn_arrival(c, received_ns, *now);
    if (c->session->ops->on_read(c->session, w->rbuf, (size_t)n, arrived) == SESSION_CLOSE) {
        conn_close(c, CLOSE_LOCAL);
        return false;
    }
    return true;
}

/* Reads, then starts the requests that found room and writes. A stream
 * connection with requests still in flight is read again (up to
 * STREAM_READS times) until the socket is empty, so that the answers the
 * server wrote meanwhile make room too and their requests go out with the
 * others in one write: the kernel's cost over loopback is per write, and
 * answering each read apart made twice the writes h2load makes (issue 42).
 * What the session queues itself between reads goes out at once, as
 * before. With nothing in flight (HTTP/1.1 after its response) there is
 * nothing to wait for: one read. A datagram connection reads up to
 * DGRAM_READS datagrams. */
static void conn_readable(struct conn *c)
{
    uint64_t now = 0;
    int reads = c->w->dgram ? DGRAM_READS : STREAM_READS;
    for (int i = 0; i < reads; i++) {
        bool got = conn_read_one(c, &now);
        if (c->state != CONN_OPEN) return;
        if (!got) {
            if (i > 0) now = 0; /* the empty read took time: what starts now is sent now */
            break;
        }
        if (c->w->dgram) continue;
        if (c->pending == 0) break;
        if (c->out_len == 0) conn_write_out(c, now, false);
        if (c->state != CONN_OPEN) return;
        if (c->out_len > 0) return; /* the socket is full: EV_WRITE takes it from here */
    }
    if (c->out_len == 0) conn_flush(c, now ? now : monotonic_now_us());
}

/* Reconnects after the back-off delay, which doubles up to BACKOFF_MAX_US. */
static void schedule_reconnect(struct conn *c)
{
    ev_timer_set(&c->backoff, (double)c->backoff_us / 1e6, 0.);
    ev_timer_start(c->w->loop, &c->backoff);
    c->backoff_us = c->backoff_us * 2 > BACKOFF_MAX_US ? BACKOFF_MAX_US : c->backoff_us * 2;
}

static void connect_failed(struct conn *c)
{
    struct worker *w = c->w;
    if (c->idle) w->stats.idle.connect_errors++;
    else if (counted(w, c->connect_start)) w->stats.connect_errors++;
    c->tr.ops->close(&c->tr);
    c->events = 0;
    c->state = CONN_IDLE;
    schedule_reconnect(c);
}

/* The connection counts as established: its TCP (and TLS) handshake is
 * done, or a datagram session's own handshake (host_connected). */
/* An idle connection is up: counted apart, and kept alive from now on. */
static void idle_count_open(struct conn *c)
{
    struct stats_idle *idle = &c->w->stats.idle;
    idle->established++;
    if (++idle->open > idle->peak) idle->peak = idle->open;
    if (c->w->cfg->idle_ping_us && c->session->ops->keep_alive)
        c->session->ops->keep_alive(c->session, c->w->cfg->idle_ping_us);
}

static void conn_count_open(struct conn *c, uint64_t now)
{
    struct worker *w = c->w;
    if (c->idle) {
        idle_count_open(c);
        return;
    }
    c->backoff_us = BACKOFF_MIN_US;
    w->open_now++;
    w->ever_open = true;
    if (counted(w, c->connect_start)) {
        w->stats.established++;
        w->cur->new_connections++;
        hist_record(&w->stats.connect, now - c->connect_start);
        /* QUIC's handshakes are full ones (no resumption over QUIC here) */
        if (w->cfg->tls && !w->dgram && tls_resumed(&c->tr)) w->stats.handshakes_resumed++;
        else if (w->cfg->tls) w->stats.handshakes_full++;
    } else if (w->warming) {
        w->cur->new_connections++;
    }
    if (w->open_now > w->stats.peak) w->stats.peak = w->open_now;
    if (w->source->ops->conn_open) w->source->ops->conn_open(w->source, c->index);
}

static void conn_established(struct conn *c, uint64_t now)
{
    c->state = CONN_OPEN;
    c->out_len = 0;
    c->received = 0;
    conn_count_open(c, now);
    c->session->ops->on_connect(c->session, now);
    conn_flush(c, now);
}

/* Datagram protocols: the UDP socket is connected to addr; the session runs
 * its handshake over it (the connection is open for bytes, not counted as
 * established until host_connected). */
static void conn_start_datagram(struct conn *c, const struct sockaddr *addr, socklen_t addr_len, uint64_t now)
{
    struct sockaddr_storage local;
    socklen_t local_len = sizeof local;
    if (getsockname(c->tr.fd, (struct sockaddr *)&local, &local_len) < 0) {
        connect_failed(c);
        return;
    }
    c->state = CONN_OPEN;
    c->handshaking = true;
    c->out_len = 0;
    c->received = 0;
    c->session->ops->set_path(c->session, (struct sockaddr *)&local, local_len, addr, addr_len);
    c->session->ops->on_connect(c->session, now);
    conn_flush(c, now);
}

/* The socket became writable while connecting, or the handshake moved on. */
static void conn_progress(struct conn *c)
{
    if (c->state == CONN_CONNECTING) {
        int err = 0;
        socklen_t len = sizeof err;
        if (getsockopt(c->tr.fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err != 0) {
            ev_io_stop(c->w->loop, &c->io);
            connect_failed(c);
            return;
        }
        c->state = CONN_HANDSHAKE;
    }
    int r = c->tr.ops->handshake(&c->tr);
    if (r == 0) conn_established(c, monotonic_now_us());
    else if (r > 0) conn_watch(c, r == 2 ? EV_WRITE : EV_READ);
    else {
        if (errno == EPROTO && counted(c->w, c->connect_start)) c->w->stats.tls_errors++;
        ev_io_stop(c->w->loop, &c->io);
        connect_failed(c);
    }
}

static void conn_io_cb(struct ev_loop *loop, ev_io *io, int revents)
{
    struct conn *c = io->data;
    (void)loop;
    if (c->state != CONN_OPEN) {
        conn_progress(c);
        return;
    }
    if (revents & EV_READ) conn_readable(c);
    if (c->state == CONN_OPEN && (revents & EV_WRITE) && c->out_len > 0) conn_flush(c, monotonic_now_us());
}

#define DGRAM_RCVBUF (4 << 20) /* room for a window of QUIC packets (capped by net.core.rmem_max) */

static int open_socket(int family, bool dgram)
{
    int fd = socket(family, (dgram ? SOCK_DGRAM : SOCK_STREAM) | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (dgram) {
        int size = DGRAM_RCVBUF;
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    } else if (family != AF_UNIX) {
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    return fd;
}

static void conn_connect(struct conn *c)
{
    struct worker *w = c->w;
    if (!may_start(w)) return;
    c->connect_start = monotonic_now_us();
    if (w->measuring && !c->idle) w->stats.connect_attempts++;
    const struct sockaddr *addr = w->addr;
    socklen_t addr_len = w->addr_len;
    if (w->source->ops->conn_addr && !c->idle) addr = w->source->ops->conn_addr(w->source, c->index, &addr_len);
    int fd = open_socket(addr->sa_family, w->dgram);
    int tr_failed = 0;
    if (w->dgram) transport_plain_init(&c->tr, fd);
    else if (w->cfg->tls) tr_failed = transport_tls_init(&c->tr, fd, w->cfg->setup.tls_client);
    else transport_plain_init(&c->tr, fd);
    if (w->paced && w->pace.window_sleep && fd >= 0 && !c->idle &&
        (addr->sa_family == AF_UNIX || transport_stamp_reads(&c->tr) < 0))
        pace_no_window_sleep(&w->pace);
    if (fd < 0 || tr_failed) {
        connect_failed(c);
        return;
    }
    if (w->dgram) { /* a UDP connect() only sets the peer */
        c->events = 0;
        if (connect(fd, addr, addr_len) < 0) connect_failed(c);
        else conn_start_datagram(c, addr, addr_len, monotonic_now_us());
        return;
    }
    c->state = CONN_CONNECTING;
    c->events = EV_WRITE;
    ev_io_set(&c->io, fd, EV_WRITE);
    ev_io_start(w->loop, &c->io);
    if (connect(fd, addr, addr_len) < 0 && errno != EINPROGRESS) {
        ev_io_stop(w->loop, &c->io);
        connect_failed(c);
    }
}

/* Datagram protocols: the session's last datagram (its CONNECTION_CLOSE),
 * sent once if the socket takes it. */
static void conn_send_last(struct conn *c)
{
    const uint8_t *data;
    size_t len = c->session->ops->next_write(c->session, &data, monotonic_now_us());
    if (len > 0 && c->tr.ops->write(&c->tr, data, len) < 0) { /* the peer learns by its idle timeout */ }
}

/* A datagram connection whose handshake never completed: a connection error
 * (abandoned at the run's end), reconnected after the back-off. */
static void conn_close_handshaking(struct conn *c, enum close_cause cause)
{
    struct worker *w = c->w;
    c->session->ops->on_close(c->session, cause, monotonic_now_us());
    conn_send_last(c);
    c->tr.ops->close(&c->tr);
    c->state = CONN_IDLE;
    c->out_len = 0;
    c->handshaking = false;
    if (c->idle) {
        if (cause == CLOSE_ABORT) return;
        w->stats.idle.connect_errors++;
        schedule_reconnect(c);
        return;
    }
    if (cause == CLOSE_ABORT) {
        if (counted(w, c->connect_start)) w->stats.connects_abandoned++;
        return;
    }
    if (counted(w, c->connect_start)) {
        w->stats.connect_errors++;
        /* bounded by -n alone, a server no handshake ever completes with would
         * keep the run going for ever (over TCP main.c's probe stops it first):
         * the thread stops at its first counted failure (a warm-up's are not),
         * and the run is reported unreachable */
        if (!w->cfg->duration_us && !w->ever_open) {
            worker_stop(w, monotonic_now_us());
            return;
        }
    }
    schedule_reconnect(c);
}

static void conn_close(struct conn *c, enum close_cause cause)
{
    struct worker *w = c->w;
    if (c->state == CONN_IDLE) return;
    ev_io_stop(w->loop, &c->io);
    c->events = 0;
    ev_timer_stop(w->loop, &c->delay);
    ev_timer_stop(w->loop, &c->expiry);
    c->delay_state = DELAY_NONE;
    if (c->handshaking) {
        conn_close_handshaking(c, cause);
        return;
    }
    if (c->state == CONN_OPEN && c->idle) {
        w->stats.idle.open--;
        if (cause != CLOSE_ABORT) w->stats.idle.closed++;
        c->session->ops->on_close(c->session, cause, monotonic_now_us());
        if (w->dgram) conn_send_last(c);
    } else if (c->state == CONN_OPEN) {
        w->open_now--;
        if (w->cur) w->cur->closed_connections++;
        c->session->ops->on_close(c->session, cause, monotonic_now_us());
        if (w->dgram) conn_send_last(c);
        if (w->source->ops->conn_close) w->source->ops->conn_close(w->source, c->index);
    } else if (c->idle) {
        /* an idle connect still in progress: nothing counted */
    } else if (counted(w, c->connect_start)) {
        w->stats.connects_abandoned++;
    }
    bool silent_peer = c->state == CONN_OPEN && c->received == 0 && cause != CLOSE_LOCAL;
    bool idle_lived = c->state == CONN_OPEN && c->idle && monotonic_now_us() - c->connect_start >= BACKOFF_MAX_US;
    c->tr.ops->close(&c->tr);
    c->state = CONN_IDLE;
    c->out_len = 0;
    if (cause == CLOSE_ABORT) return;
    /* an idle connection is opened again after the back-off, which starts over only when it
     * lived a while (a server's idle timeout): one the server closes at once never spins and
     * starves the busy connections */
    if (c->idle) {
        if (idle_lived) c->backoff_us = BACKOFF_MIN_US;
        schedule_reconnect(c);
        return;
    }
    /* a peer that closes without sending a byte may do so forever: do not spin */
    if (silent_peer) schedule_reconnect(c);
    else conn_connect(c);
}

static void backoff_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop;
    (void)revents;
    conn_connect(t->data);
}

/* ---- worker timers ---- */

static void tick_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
    struct worker *w = t->data;
    (void)loop;
    (void)revents;
    uint64_t now = monotonic_now_us();
    for (unsigned i = 0; i < w->conn_count + w->idle_count; i++) {
        struct conn *c = &w->conns[i];
        if (c->handshaking && now - c->connect_start >= w->cfg->connect_timeout_us) {
            if (!c->idle && counted(w, c->connect_start)) w->stats.quic.handshake_failures++;
            conn_close(c, CLOSE_LOCAL);
        } else if (c->state == CONN_OPEN && c->idle && !w->dgram) {
            /* no request to time out: the session is left alone (10,000 of them every 10 ms add up) */
        } else if (c->state == CONN_OPEN) {
            if (c->session->ops->on_tick(c->session, now) == SESSION_CLOSE) conn_close(c, CLOSE_LOCAL);
            else if (c->out_len == 0) conn_flush(c, now); /* what the tick queued (HTTP/2 RST_STREAM) */
        } else if (c->state != CONN_IDLE && now - c->connect_start >= w->cfg->connect_timeout_us) {
            ev_io_stop(w->loop, &c->io);
            connect_failed(c);
        }
    }
}

static void interval_start(struct worker *w, uint64_t now);
static void warmup_end(struct worker *w, uint64_t now);

/* The measured phase begins at `at` (closed loop: now; open loop: the end of
 * the warm-up, the same for every thread): what was recorded is forgotten. */
static void worker_begin_measure(struct worker *w, uint64_t at)
{
    if (w->measuring) return;
    stats_reset(&w->stats);
    w->stats.peak = w->open_now;
    /* the timers count from the loop's clock: bring it to now first */
    ev_now_update(w->loop);
    uint64_t now = monotonic_now_us();
    if (w->warming) warmup_end(w, now);
    /* --warmup auto: the start was not known when the schedule began */
    if (w->paced) pace_measure_from(&w->pace, at);
    w->measure_start = at;
    w->measuring = true;
    if (w->cfg->duration_us) {
        uint64_t end = at + w->cfg->duration_us;
        if (w->paced) pace_cap(&w->pace, end);
        ev_timer_set(&w->deadline, end > now ? (double)(end - now) / 1e6 : 0., 0.);
        ev_timer_start(w->loop, &w->deadline);
    }
    interval_start(w, now);
}

static void warmup_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
    struct worker *w = t->data;
    (void)loop;
    (void)revents;
    worker_begin_measure(w, w->paced ? w->run->measure_start_us : monotonic_now_us());
}

static void grace_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)revents;
    (void)t;
    ev_break(loop, EVBREAK_ONE);
}

/* No request starts any more; the window ends at window_end (the deadline,
 * or a stop), and what is in flight gets the grace. */
static void worker_stop(struct worker *w, uint64_t window_end)
{
    if (w->stopping) return;
    if (!w->measuring) worker_begin_measure(w, window_end);
    if (w->paced) {
        pace_cap(&w->pace, window_end);
        pace_stop(&w->pace);
    }
    ev_timer_stop(w->loop, &w->warmup);
    ev_timer_stop(w->loop, &w->deadline);
    w->stopping = true;
    w->window_end = window_end; /* the grace does not lengthen the window */
    ev_timer_set(&w->grace, (double)w->cfg->grace_us / 1e6, 0.);
    ev_timer_start(w->loop, &w->grace);
    worker_maybe_finish(w);
}

static void deadline_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
    struct worker *w = t->data;
    (void)loop;
    (void)revents;
    if (!w->paced) {
        worker_stop(w, monotonic_now_us());
        return;
    }
    /* open loop: the window is the schedule's, whenever the timer fires; what
     * was due before it goes out first (libev may run this before the pace
     * timer's callback when both are ready). With --pace-resolution the last
     * window goes out whole, at the deadline: a timer a little early waits. */
    uint64_t now = monotonic_now_us();
    if (w->cfg->pace_resolution_us && now < w->pace.cap_us) {
        ev_timer_set(t, (double)(w->pace.cap_us - now) / 1e6, 0.);
        ev_timer_start(loop, t);
        return;
    }
    pace_dispatch(&w->pace, now);
    worker_stop(w, w->pace.cap_us);
}

/* Ends this worker's loop now: what is in flight is aborted. */
static void abort_cb(struct ev_loop *loop, ev_async *a, int revents)
{
    struct worker *w = a->data;
    (void)revents;
    w->stopping = true;
    if (!w->window_end) w->window_end = monotonic_now_us();
    ev_break(loop, EVBREAK_ONE);
}

/* The source stopped this thread (thread:stop()), or failed: then the first
 * failure's message is kept and every worker stops at once. */
static void worker_source_halted(struct worker *w)
{
    if (w->source->state != SOURCE_FAILED) {
        worker_stop(w, monotonic_now_us());
        return;
    }
    struct run_shared *run = w->run;
    if (!atomic_exchange(&run->aborted, true)) {
        snprintf(run->error, sizeof run->error, "%s", w->source->error ? w->source->error : "the source failed");
        for (unsigned i = 0; i < run->worker_count; i++) ev_async_send(run->workers[i]->loop, &run->workers[i]->abort);
    }
    abort_cb(w->loop, &w->abort, 0);
}

/* ---- open loop: the worker as the pace's host (pace.h) ---- */

/* How many may wait in the schedule's line: a run limited by -n takes no
 * more than it may still start. */
static uint64_t pace_limit_of(void *host)
{
    const struct worker *w = host;
    return w->measuring && w->budget != UINT64_MAX ? w->budget : SCHEDULE_NO_LIMIT;
}

static bool pace_may_start_of(void *host)
{
    return may_start(host);
}

static bool pace_measuring_of(void *host)
{
    return ((const struct worker *)host)->measuring;
}

static bool pace_answers_pending_of(void *host)
{
    const struct worker *w = host;
    return w->inflight > 0 && !w->stopping;
}

/* A connection of the ready line has its turn (it is out of the line). */
static void pace_fill_of(void *host, void *conn, uint64_t now)
{
    struct conn *c = conn;
    (void)host;
    c->ready = false;
    if (c->state == CONN_OPEN && c->out_len == 0) conn_flush(c, now);
}

static const struct pace_host_ops pace_host_ops = {
    .may_start = pace_may_start_of,
    .limit = pace_limit_of,
    .measuring = pace_measuring_of,
    .answers_pending = pace_answers_pending_of,
    .fill = pace_fill_of,
};

/* The next due request's scheduled time in *due, if one is due by now; the
 * first one due in the measured phase begins it. */
static bool paced_pop(struct worker *w, uint64_t now, uint64_t *due)
{
    if (!pace_pop(&w->pace, now, due)) return false;
    if (!w->measuring && *due >= w->run->measure_start_us) worker_begin_measure(w, w->run->measure_start_us);
    return true;
}

static void ready_push(struct worker *w, struct conn *c)
{
    if (c->ready) return;
    c->ready = true;
    pace_ready(&w->pace, c);
}

/* Open loop: hands the session the requests that are due while it has room;
 * with room left and nothing due the connection waits in the ready line. The
 * source's next() is called here, when a scheduled request is sent: that is
 * where a script's request() runs. A script's delay() holds this connection:
 * while held it must not get here (nor into the ready line); the requests
 * due meanwhile wait in the schedule's line with their times, or go to other
 * connections, and when the hold ends conn_flush brings it back here. */
static void paced_fill(struct conn *c, uint64_t now)
{
    struct worker *w = c->w;
    struct session *s = c->session;
    unsigned room = s->ops->capacity(s);
    uint64_t due;
    while (room > 0 && may_start(w) && paced_pop(w, now, &due)) {
        if (conn_held(c)) {
            /* delay(): back to the head of the line, its time kept; the
             * connection is not in the ready line while held */
            pace_requeue(&w->pace, due);
            return;
        }
        const struct request *req = w->source->ops->next(w->source, c->index);
        if (!req) {
            /* nothing for this connection now: the request waits for another, its time kept */
            if (w->source->state == SOURCE_RUNNING) pace_requeue(&w->pace, due);
            conn_idle(c);
            return;
        }
        room = conn_submit(c, req, due, now);
    }
    if (room > 0 && may_start(w)) ready_push(w, c);
}

/* Sets up the pace from the run's start; 0 or -1. */
static int paced_init(struct worker *w, const struct run_shared *rs)
{
    w->paced = true;
    /* TCP only: a datagram protocol's session times its own packets */
    bool window_sleep = w->cfg->pace_resolution_us > 0 && !w->dgram;
    return pace_init(&w->pace, w->loop, w->cfg, w->index, w->conn_count, rs->t0_us, rs->measure_start_us,
                     window_sleep, (struct pace_host){.ops = &pace_host_ops, .ctx = w});
}

/* ---- per-second intervals and commands: the worker's side ---- */

static void wake_cb(struct ev_loop *loop, ev_async *a, int revents);

static double seconds_until(uint64_t at)
{
    uint64_t now = monotonic_now_us();
    return at > now ? (double)(at - now) / 1e6 : 0.;
}

/* Queues a closed interval for the main thread and wakes it. */
static void interval_hand_over(struct worker *w, struct interval *iv)
{
    pthread_mutex_lock(&w->mu);
    if (w->posted_tail) w->posted_tail->next = iv;
    else w->posted = iv;
    w->posted_tail = iv;
    pthread_mutex_unlock(&w->mu);
    uint64_t one = 1;
    if (write(w->run->notify_fd, &one, sizeof one) < 0) { /* the counter is full: main is awake anyway */ }
}

/* Hands the current interval to the main thread (which frees it: nothing of
 * it is read after the handover). A next one that cannot be allocated leaves
 * the current one recording (it then spans two seconds). */
static void interval_post(struct worker *w, bool last, uint64_t now)
{
    struct interval *next = NULL;
    if (!last && !(next = interval_new())) return;
    struct interval *iv = w->cur;
    uint64_t index = iv->index;
    iv->end_us = now;
    iv->last = last;
    iv->warmup = w->warming;
    iv->open_connections = w->open_now;
    iv->in_flight = w->inflight;
    interval_hand_over(w, iv);
    w->cur = next;
    if (!next) return;
    /* the second it starts in, rounded (the timer fires a little after the
     * second's start), and always after the last one (a timer late by more
     * than half a second) */
    next->index = (now - w->measure_start + SECOND_US / 2) / SECOND_US;
    if (next->index <= index) next->index = index + 1;
}

static void second_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop;
    (void)revents;
    interval_post(t->data, false, monotonic_now_us());
    reqlog_writer_tick(((struct worker *)t->data)->log);
}

/* The first interval starts with the measured phase (or the recorded warm-up);
 * the next at every whole second of it. */
static void interval_start(struct worker *w, uint64_t now)
{
    w->cur->index = 0;
    uint64_t first = w->measure_start + SECOND_US;
    ev_timer_stop(w->loop, &w->second); /* the warm-up's seconds ran on it */
    ev_timer_set(&w->second, first > now ? (double)(first - now) / 1e6 : 0., 1.);
    ev_timer_start(w->loop, &w->second);
}

/* A signal: the window ends at `at` (unless it had ended), nothing more
 * starts, and the loop ends now: what is in flight is aborted. */
static void worker_interrupted(struct worker *w, uint64_t at)
{
    if (!w->stopping && w->measuring) {
        if (w->paced) {
            pace_cap(&w->pace, at);
            pace_stop(&w->pace);
        }
        w->window_end = at > w->measure_start ? at : w->measure_start;
    }
    w->stopping = true;
    ev_break(w->loop, EVBREAK_ONE);
}

/* The warm-up's last second goes to the main thread, marked last (of the
 * warm-up); the measured phase's first begins. */
static void warmup_end(struct worker *w, uint64_t now)
{
    struct interval *next = interval_new();
    if (!next) { /* the warm-up's last second is lost: the measured phase's first must not be */
        interval_reset(w->cur);
        w->cur->warmup = false;
        w->warming = false;
        return;
    }
    struct interval *iv = w->cur;
    iv->end_us = now;
    iv->last = true;
    iv->warmup = true;
    iv->open_connections = w->open_now;
    iv->in_flight = w->inflight;
    interval_hand_over(w, iv);
    w->cur = next;
    w->warming = false;
}

/* --warmup auto ends (main thread's command): closed loop, now; open loop, at
 * the run's measure_start_us (the same for every thread), unless a request
 * scheduled from then on has begun it already. */
static void warmup_command(struct worker *w)
{
    if (w->measuring || w->stopping) return;
    if (!w->paced) {
        worker_begin_measure(w, monotonic_now_us());
        return;
    }
    ev_timer_stop(w->loop, &w->warmup);
    ev_timer_set(&w->warmup, seconds_until(w->run->measure_start_us), 0.);
    ev_timer_start(w->loop, &w->warmup);
}

/* Commands from the main thread: a new rate (the same `at` in every thread,
 * so the threads' schedules stay one), stop, or the end of the warm-up. */
static void wake_cb(struct ev_loop *loop, ev_async *a, int revents)
{
    struct worker *w = a->data;
    (void)loop;
    (void)revents;
    pthread_mutex_lock(&w->mu);
    struct command *cmd = w->commands;
    w->commands = NULL;
    pthread_mutex_unlock(&w->mu);
    while (cmd) {
        struct command *next = cmd->next;
        if (cmd->kind == COMMAND_INTERRUPT) worker_interrupted(w, cmd->at_us);
        else if (cmd->kind == COMMAND_STOP) worker_stop(w, cmd->at_us);
        else if (cmd->kind == COMMAND_MEASURE) warmup_command(w);
        else if (w->paced && !w->stopping) pace_set_rate(&w->pace, cmd->rate, cmd->at_us);
        free(cmd);
        cmd = next;
    }
}

/* --idle-ping: every open idle connection pings (HTTP/2: a PING frame now;
 * HTTP/3: ngtcp2 pings by itself once told, at the connection's start). */
static void idle_ping_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
    struct worker *w = t->data;
    (void)loop;
    (void)revents;
    if (w->dgram) return;
    uint64_t now = monotonic_now_us();
    for (unsigned i = w->conn_count; i < w->conn_count + w->idle_count; i++) {
        struct conn *c = &w->conns[i];
        if (c->state != CONN_OPEN || !c->session->ops->keep_alive) continue;
        c->session->ops->keep_alive(c->session, w->cfg->idle_ping_us);
        w->stats.idle.pings++;
        if (c->out_len == 0) conn_flush(c, now);
    }
}

/* ---- worker lifecycle ---- */

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    ev_timer_init(&w->tick, tick_cb, TICK_S, TICK_S);
    w->tick.data = w;
    ev_timer_start(w->loop, &w->tick);
    /* open loop: every thread's measured phase starts at the same moment of the one schedule */
    ev_timer_init(&w->warmup, warmup_cb,
                  w->paced ? seconds_until(w->run->measure_start_us) : (double)w->cfg->warmup_us / 1e6, 0.);
    w->warmup.data = w;
    ev_timer_init(&w->deadline, deadline_cb, 0., 0.);
    w->deadline.data = w;
    ev_timer_init(&w->grace, grace_cb, 0., 0.);
    w->grace.data = w;
    w->measure_start = w->run->t0_us;
    if (w->cfg->warmup_us) {
        /* the warm-up's seconds are recorded too; --warmup auto ends when the main thread says */
        w->warming = true;
        interval_start(w, monotonic_now_us());
        if (!w->cfg->warmup_auto) ev_timer_start(w->loop, &w->warmup);
    } else {
        warmup_cb(w->loop, &w->warmup, 0);
    }
    /* the idle connections' connects go out first; their pings every --idle-ping */
    for (unsigned i = w->conn_count; i < w->conn_count + w->idle_count; i++) conn_connect(&w->conns[i]);
    if (w->idle_count && w->cfg->idle_ping_us) {
        double every = (double)w->cfg->idle_ping_us / 1e6;
        ev_timer_init(&w->idle_ping, idle_ping_cb, every, every);
        w->idle_ping.data = w;
        ev_timer_start(w->loop, &w->idle_ping);
    }
    for (unsigned i = 0; i < w->conn_count; i++) conn_connect(&w->conns[i]);
    /* a zero budget has nothing to run (ev_run would wait forever) */
    if (!(w->measuring && w->budget == 0)) ev_run(w->loop, 0);
    /* without a deadline (-n), the window ends with the last answer */
    if (!w->window_end) w->window_end = monotonic_now_us();
    if (w->warming) warmup_end(w, monotonic_now_us()); /* aborted in the warm-up */
    w->stats.idle.open_at_end = w->stats.idle.open;
    for (unsigned i = 0; i < w->conn_count + w->idle_count; i++) {
        ev_timer_stop(w->loop, &w->conns[i].backoff);
        conn_close(&w->conns[i], CLOSE_ABORT);
    }
    if (w->paced) {
        w->stats.scheduled = w->pace.sched.scheduled;
        w->stats.unsent = schedule_unsent(&w->pace.sched);
        w->stats.backlog_max = w->pace.sched.backlog_max;
    }
    interval_post(w, true, monotonic_now_us());
    reqlog_writer_tick(w->log); /* the aborted requests' entries were freed by conn_close */
    return NULL;
}

static void free_intervals(struct interval *iv)
{
    while (iv) {
        struct interval *next = iv->next;
        interval_free(iv);
        iv = next;
    }
}

void worker_free(struct worker *w)
{
    if (!w) return;
    for (unsigned i = 0; w->conns && i < w->conn_count + w->idle_count; i++)
        if (w->conns[i].session) w->conns[i].session->ops->free(w->conns[i].session);
    free(w->conns);
    if (w->source) w->source->ops->free(w->source);
    reqlog_writer_free(w->log);
    if (w->loop) ev_loop_destroy(w->loop);
    stats_free(&w->stats);
    if (w->paced) pace_free(&w->pace);
    interval_free(w->cur);
    free_intervals(w->posted);
    while (w->commands) {
        struct command *next = w->commands->next;
        free(w->commands);
        w->commands = next;
    }
    if (w->loop) pthread_mutex_destroy(&w->mu);
    free(w);
}

static int worker_init(struct worker *w, const struct config *cfg, struct run_shared *rs, unsigned index,
                       unsigned conns, unsigned idle, uint64_t budget)
{
    w->cfg = cfg;
    w->run = rs;
    w->index = index;
    w->budget = budget;
    w->conn_count = conns;
    w->idle_count = idle;
    w->dgram = rs->protocol->datagram;
    w->loop = ev_loop_new(EVFLAG_AUTO);
    if (!w->loop) return -1;
    pthread_mutex_init(&w->mu, NULL);
    /* started here, before the thread runs, so that no command sent early is missed */
    ev_async_init(&w->wake, wake_cb);
    w->wake.data = w;
    ev_async_start(w->loop, &w->wake);
    ev_init(&w->second, second_cb);
    w->second.data = w;
    w->conns = calloc(conns + idle, sizeof *w->conns);
    w->source = rs->source->source_new(rs->source_shared, index, conns);
    if (w->source) w->source->stats = &w->stats;
    w->cur = interval_new();
    if (!w->conns || !w->source || !w->cur || stats_init(&w->stats)) return -1;
    if (cfg->setup.reqlog) w->log = reqlog_writer_new(cfg->setup.reqlog, index);
    w->stats.idle.requested = idle; /* stats_init zeroed it */
    w->addr = w->source->addr ? w->source->addr : (const struct sockaddr *)&cfg->setup.addr;
    w->addr_len = w->source->addr ? w->source->addr_len : cfg->setup.addr_len;
    /* started before any thread runs, so that no abort is missed */
    ev_async_init(&w->abort, abort_cb);
    w->abort.data = w;
    ev_async_start(w->loop, &w->abort);
    if (cfg->rate > 0 && paced_init(w, rs)) return -1;
    for (unsigned i = 0; i < conns + idle; i++) {
        struct conn *c = &w->conns[i];
        c->w = w;
        c->index = i;
        c->idle = i >= conns;
        c->host.ops = &conn_host_ops;
        c->backoff_us = BACKOFF_MIN_US;
        c->tr.fd = -1;
        ev_init(&c->io, conn_io_cb);
        c->io.data = c;
        ev_init(&c->backoff, backoff_cb);
        c->backoff.data = c;
        ev_init(&c->delay, delay_cb);
        c->delay.data = c;
        ev_init(&c->expiry, expiry_cb);
        c->expiry.data = c;
        c->session = rs->protocol->session_new(rs->protocol_shared, &c->host);
        if (!c->session) return -1;
    }
    return 0;
}

struct worker *worker_new(const struct config *cfg, struct run_shared *rs, unsigned index, unsigned conns,
                          unsigned idle, uint64_t budget)
{
    struct worker *w = calloc(1, sizeof *w);
    if (w && worker_init(w, cfg, rs, index, conns, idle, budget)) {
        worker_free(w);
        return NULL;
    }
    return w;
}

int worker_spawn(struct worker *w)
{
    sigset_t old;
    signals_block(&old); /* inherited by the thread */
    int rc = pthread_create(&w->thread, NULL, worker_main, w);
    signals_restore(&old);
    return rc;
}

void worker_nudge(struct worker *w)
{
    signals_nudge(w->thread);
}

void worker_join(struct worker *w)
{
    pthread_join(w->thread, NULL);
}

/* ---- the main thread's side: intervals, commands, the result ---- */

struct interval *worker_take_intervals(struct worker *w)
{
    pthread_mutex_lock(&w->mu);
    struct interval *iv = w->posted;
    w->posted = w->posted_tail = NULL;
    pthread_mutex_unlock(&w->mu);
    return iv;
}

static int queue_command(struct worker *w, const struct command *c)
{
    struct command *cmd = malloc(sizeof *cmd);
    if (!cmd) return -1;
    *cmd = *c;
    pthread_mutex_lock(&w->mu);
    struct command **tail = &w->commands;
    while (*tail) tail = &(*tail)->next;
    *tail = cmd;
    pthread_mutex_unlock(&w->mu);
    ev_async_send(w->loop, &w->wake);
    return 0;
}

int worker_command(struct worker *w, enum control_kind kind, double rate, uint64_t at_us)
{
    return queue_command(w, &(struct command){.kind = kind == CONTROL_STOP ? COMMAND_STOP : COMMAND_RATE,
                                              .rate = rate, .at_us = at_us});
}

int worker_interrupt(struct worker *w, uint64_t at_us)
{
    return queue_command(w, &(struct command){.kind = COMMAND_INTERRUPT, .at_us = at_us});
}

int worker_end_warmup(struct worker *w)
{
    return queue_command(w, &(struct command){.kind = COMMAND_MEASURE});
}

const struct stats *worker_stats(const struct worker *w)
{
    return &w->stats;
}

uint64_t worker_measured_us(const struct worker *w)
{
    /* a thread stopped before its measured phase began measured nothing; a
     * deadline seen late (the loop was held up, by a script) does not lengthen
     * the window */
    if (!w->measuring) return 0;
    uint64_t d = w->window_end - w->measure_start;
    return w->cfg->duration_us && d > w->cfg->duration_us ? w->cfg->duration_us : d;
}
