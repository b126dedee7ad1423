/* engine: libev glue. One loop per worker thread; each connection slot has a
 * socket watcher, a back-off timer, a delay timer (a script's delay()) and a
 * session. The worker decides when a request starts (closed loop: whenever a
 * connection has room) and asks its source what it is; every outcome comes
 * back through the connection's host to worker_done. A 10 ms tick applies the
 * connect and request timeouts, so they fire up to 10 ms late. A source that
 * fails (a script error) stops every worker at once. */
#include "engine.h"

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
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "tls.h"
#include "transport.h"

#define TICK_S 0.01
#define READ_BUFFER 65536
#define BACKOFF_MIN_US 10000
#define BACKOFF_MAX_US 1000000

enum conn_state { CONN_IDLE, CONN_CONNECTING, CONN_HANDSHAKE, CONN_OPEN };

struct conn {
    struct worker *w;
    struct session_host host; /* what the session reports to */
    unsigned index;           /* among the worker's connections, for the source */
    ev_io io;
    ev_timer backoff;
    ev_timer delay;           /* the source's delay before the next request */
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
};

struct worker {
    const struct config *cfg;
    struct run_shared *run;
    struct source *source;
    const struct sockaddr *addr; /* the source's, or the URL's */
    socklen_t addr_len;
    pthread_t thread;
    struct ev_loop *loop;
    struct conn *conns;
    unsigned conn_count;
    struct stats stats;
    uint64_t budget;      /* requests left to start in the measured phase; UINT64_MAX: no limit */
    uint64_t inflight;    /* started and not yet ended, warm-up ones included */
    uint64_t open_now;
    uint64_t measure_start;
    uint64_t window_end; /* the deadline, or the last answer of a run without one; 0 until known */
    bool measuring, stopping;
    ev_timer tick, warmup, deadline, grace;
    ev_async abort; /* another worker's source failed: stop now */
    uint8_t rbuf[READ_BUFFER];
};

/* What the threads share for one run: read-only but for the abort. */
struct run_shared {
    const struct protocol *protocol;
    const struct source_type *source;
    void *protocol_shared, *source_shared;
    struct worker *workers;
    unsigned worker_count;
    atomic_bool aborted;
    char error[ENGINE_ERROR_MAX]; /* the first failing source's message, written by the one that set aborted */
};

static void conn_connect(struct conn *c);
static void conn_close(struct conn *c, enum close_cause cause);
static void worker_source_halted(struct worker *w);
static void conn_flush(struct conn *c, uint64_t now);

uint64_t engine_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

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
 * written in the text of the one before it); returns its context. */
static struct req_ctx worker_start(struct worker *w, const struct request *req, uint64_t now)
{
    if (w->measuring) {
        if (w->budget != UINT64_MAX && w->budget > 0) w->budget--;
        w->stats.started++;
        if (req->kind >= 0) stats_kind(&w->stats, (unsigned)req->kind, req->kind_name);
    }
    w->inflight++;
    return (struct req_ctx){.scheduled_us = now, .sent_us = now, .source_data = req->source_data,
                            .kind = req->kind, .measured = w->measuring, .collect = w->source->wants_response};
}

/* A counted request completed (a response or an error); in the grace, say so. */
static void request_completed(struct worker *w)
{
    if (w->stopping) w->stats.completed_in_grace++;
}

/* A refused request was never processed: it starts again, on whichever
 * connection takes it, unless the run is stopping. */
static void request_refused(struct worker *w)
{
    w->stats.refused_streams++;
    if (w->stopping) {
        w->stats.aborted++; /* it cannot be sent again */
        return;
    }
    w->stats.started--;
    if (w->budget != UINT64_MAX) w->budget++;
}

/* The outcome of a measured request of a kind, if its stats could be made. */
static void account_kind(struct worker *w, const struct req_ctx *ctx, const struct outcome *o)
{
    struct stats_kind *k = w->stats.kinds[ctx->kind];
    if (!k) return;
    if (o->kind == OUTCOME_RESPONSE) stats_kind_response(k, o->status, o->now_us - ctx->sent_us);
    else if (o->kind == OUTCOME_ERROR) stats_kind_error(k);
}

/* Counts the outcome of a measured request. */
static void account(struct worker *w, const struct req_ctx *ctx, const struct outcome *o)
{
    if (ctx->kind >= 0) account_kind(w, ctx, o);
    switch (o->kind) {
    case OUTCOME_RESPONSE:
        stats_response(&w->stats, o->status, o->now_us - ctx->sent_us);
        w->stats.body_bytes += o->body_bytes;
        request_completed(w);
        break;
    case OUTCOME_ERROR:
        stats_error(&w->stats, o->error, o->detail, o->now_us - ctx->sent_us);
        request_completed(w);
        break;
    case OUTCOME_ABORTED:
        w->stats.aborted++;
        break;
    case OUTCOME_REFUSED:
        request_refused(w);
        break;
    }
}

/* The one sink of every request's outcome. */
static void worker_done(struct worker *w, unsigned conn, const struct req_ctx *ctx, const struct outcome *o)
{
    if (ctx->measured) account(w, ctx, o);
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

static const struct session_host_ops conn_host_ops = {
    .done = host_done,
    .first_byte = host_first_byte,
    .header_bytes = host_header_bytes,
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
    if (c->delay_state == DELAY_OVER) {
        c->delay_state = DELAY_NONE;
        return false;
    }
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
    if (c->state == CONN_OPEN && c->out_len == 0) conn_flush(c, engine_now_us());
}

/* Submits req and the requests written in its text after it; returns the capacity left. */
static unsigned conn_submit(struct conn *c, const struct request *req, uint64_t now)
{
    struct source *src = c->w->source;
    for (;;) {
        struct req_ctx ctx = worker_start(c->w, req, now);
        unsigned room = c->session->ops->submit(c->session, req, &ctx);
        if (!req->more) return room;
        req = src->ops->next(src, c->index);
    }
}

/* Hands the session requests while it has room and requests may start. */
static void conn_fill(struct conn *c, uint64_t now)
{
    struct worker *w = c->w;
    struct session *s = c->session;
    for (unsigned room = s->ops->capacity(s); room > 0 && may_start(w);) {
        if (conn_held(c)) return;
        const struct request *req = w->source->ops->next(w->source, c->index);
        if (!req) {
            worker_source_halted(w);
            return;
        }
        room = conn_submit(c, req, now);
    }
}

/* Writes what the session has to send until it has nothing or the socket is
 * full; requests start whenever the last bytes are out. */
static void conn_flush(struct conn *c, uint64_t now)
{
    struct worker *w = c->w;
    for (;;) {
        if (c->out_len == 0) {
            conn_fill(c, now);
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
        if (w->measuring) w->stats.bytes_sent += (uint64_t)n;
        c->out += n;
        c->out_len -= (size_t)n;
    }
}

static void conn_readable(struct conn *c)
{
    struct worker *w = c->w;
    ssize_t n = c->tr.ops->read(&c->tr, w->rbuf, sizeof w->rbuf);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
    if (n <= 0) {
        conn_close(c, n == 0 ? CLOSE_EOF : CLOSE_READ_ERROR);
        return;
    }
    uint64_t now = engine_now_us();
    if (w->measuring) w->stats.bytes_received += (uint64_t)n;
    c->received += (uint64_t)n;
    if (c->session->ops->on_read(c->session, w->rbuf, (size_t)n, now) == SESSION_CLOSE) {
        conn_close(c, CLOSE_LOCAL);
        return;
    }
    if (c->out_len == 0) conn_flush(c, now);
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
    if (counted(w, c->connect_start)) w->stats.connect_errors++;
    c->tr.ops->close(&c->tr);
    c->events = 0;
    c->state = CONN_IDLE;
    schedule_reconnect(c);
}

static void conn_established(struct conn *c, uint64_t now)
{
    struct worker *w = c->w;
    c->state = CONN_OPEN;
    c->backoff_us = BACKOFF_MIN_US;
    w->open_now++;
    if (counted(w, c->connect_start)) {
        w->stats.established++;
        hist_record(&w->stats.connect, now - c->connect_start);
    }
    if (w->open_now > w->stats.peak) w->stats.peak = w->open_now;
    c->out_len = 0;
    c->received = 0;
    if (w->source->ops->conn_open) w->source->ops->conn_open(w->source, c->index);
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
    if (r == 0) conn_established(c, engine_now_us());
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
    if (c->state == CONN_OPEN && (revents & EV_WRITE) && c->out_len > 0) conn_flush(c, engine_now_us());
}

static int open_socket(int family)
{
    int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (family != AF_UNIX) {
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    return fd;
}

static void conn_connect(struct conn *c)
{
    struct worker *w = c->w;
    if (!may_start(w)) return;
    c->connect_start = engine_now_us();
    if (w->measuring) w->stats.connect_attempts++;
    int fd = open_socket(w->addr->sa_family);
    int tr_failed = 0;
    if (w->cfg->tls) tr_failed = transport_tls_init(&c->tr, fd, w->cfg->tls_client);
    else transport_plain_init(&c->tr, fd);
    if (fd < 0 || tr_failed) {
        connect_failed(c);
        return;
    }
    c->state = CONN_CONNECTING;
    c->events = EV_WRITE;
    ev_io_set(&c->io, fd, EV_WRITE);
    ev_io_start(w->loop, &c->io);
    if (connect(fd, w->addr, w->addr_len) < 0 && errno != EINPROGRESS) {
        ev_io_stop(w->loop, &c->io);
        connect_failed(c);
    }
}

static void conn_close(struct conn *c, enum close_cause cause)
{
    struct worker *w = c->w;
    if (c->state == CONN_IDLE) return;
    ev_io_stop(w->loop, &c->io);
    c->events = 0;
    ev_timer_stop(w->loop, &c->delay);
    c->delay_state = DELAY_NONE;
    if (c->state == CONN_OPEN) {
        w->open_now--;
        c->session->ops->on_close(c->session, cause, engine_now_us());
        if (w->source->ops->conn_close) w->source->ops->conn_close(w->source, c->index);
    } else if (counted(w, c->connect_start)) {
        w->stats.connects_abandoned++;
    }
    bool silent_peer = c->state == CONN_OPEN && c->received == 0 && cause != CLOSE_LOCAL;
    c->tr.ops->close(&c->tr);
    c->state = CONN_IDLE;
    c->out_len = 0;
    if (cause == CLOSE_ABORT) return;
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
    uint64_t now = engine_now_us();
    for (unsigned i = 0; i < w->conn_count; i++) {
        struct conn *c = &w->conns[i];
        if (c->state == CONN_OPEN) {
            if (c->session->ops->on_tick(c->session, now) == SESSION_CLOSE) conn_close(c, CLOSE_LOCAL);
            else if (c->out_len == 0) conn_flush(c, now); /* what the tick queued (HTTP/2 RST_STREAM) */
        } else if (c->state != CONN_IDLE && now - c->connect_start >= w->cfg->connect_timeout_us) {
            ev_io_stop(w->loop, &c->io);
            connect_failed(c);
        }
    }
}

static void warmup_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
    struct worker *w = t->data;
    (void)loop;
    (void)revents;
    stats_reset(&w->stats);
    w->stats.peak = w->open_now;
    /* the deadline timer counts from the loop's clock: bring it to now first */
    ev_now_update(w->loop);
    w->measure_start = engine_now_us();
    w->measuring = true;
    if (w->cfg->duration_us) {
        ev_timer_set(&w->deadline, (double)w->cfg->duration_us / 1e6, 0.);
        ev_timer_start(w->loop, &w->deadline);
    }
}

static void grace_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)revents;
    (void)t;
    ev_break(loop, EVBREAK_ONE);
}

/* No request starts any more; those in flight get the grace. */
static void worker_stop(struct worker *w)
{
    if (w->stopping) return;
    w->stopping = true;
    w->window_end = engine_now_us(); /* the grace does not lengthen the window */
    ev_timer_stop(w->loop, &w->warmup);
    ev_timer_stop(w->loop, &w->deadline);
    ev_timer_set(&w->grace, (double)w->cfg->grace_us / 1e6, 0.);
    ev_timer_start(w->loop, &w->grace);
    worker_maybe_finish(w);
}

static void deadline_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop;
    (void)revents;
    worker_stop(t->data);
}

/* Ends this worker's loop now: what is in flight is aborted. */
static void abort_cb(struct ev_loop *loop, ev_async *a, int revents)
{
    struct worker *w = a->data;
    (void)revents;
    w->stopping = true;
    if (!w->window_end) w->window_end = engine_now_us();
    ev_break(loop, EVBREAK_ONE);
}

/* The source stopped this thread (thread:stop()), or failed: then the first
 * failure's message is kept and every worker stops at once. */
static void worker_source_halted(struct worker *w)
{
    if (w->source->state != SOURCE_FAILED) {
        worker_stop(w);
        return;
    }
    struct run_shared *run = w->run;
    if (!atomic_exchange(&run->aborted, true)) {
        snprintf(run->error, sizeof run->error, "%s", w->source->error ? w->source->error : "the source failed");
        for (unsigned i = 0; i < run->worker_count; i++) ev_async_send(run->workers[i].loop, &run->workers[i].abort);
    }
    abort_cb(w->loop, &w->abort, 0);
}

/* ---- worker lifecycle ---- */

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    ev_timer_init(&w->tick, tick_cb, TICK_S, TICK_S);
    w->tick.data = w;
    ev_timer_start(w->loop, &w->tick);
    ev_timer_init(&w->warmup, warmup_cb, (double)w->cfg->warmup_us / 1e6, 0.);
    w->warmup.data = w;
    ev_timer_init(&w->deadline, deadline_cb, 0., 0.);
    w->deadline.data = w;
    ev_timer_init(&w->grace, grace_cb, 0., 0.);
    w->grace.data = w;
    if (w->cfg->warmup_us) ev_timer_start(w->loop, &w->warmup);
    else warmup_cb(w->loop, &w->warmup, 0);
    for (unsigned i = 0; i < w->conn_count; i++) conn_connect(&w->conns[i]);
    /* a zero budget has nothing to run (ev_run would wait forever) */
    if (!(w->measuring && w->budget == 0)) ev_run(w->loop, 0);
    /* without a deadline (-n), the window ends with the last answer */
    if (!w->window_end) w->window_end = engine_now_us();
    for (unsigned i = 0; i < w->conn_count; i++) {
        ev_timer_stop(w->loop, &w->conns[i].backoff);
        conn_close(&w->conns[i], CLOSE_ABORT);
    }
    return NULL;
}

static void worker_free(struct worker *w)
{
    for (unsigned i = 0; i < w->conn_count; i++)
        if (w->conns[i].session) w->conns[i].session->ops->free(w->conns[i].session);
    free(w->conns);
    if (w->source) w->source->ops->free(w->source);
    if (w->loop) ev_loop_destroy(w->loop);
    stats_free(&w->stats);
}

static int worker_init(struct worker *w, const struct config *cfg, struct run_shared *rs, unsigned thread,
                       unsigned conns, uint64_t budget)
{
    w->cfg = cfg;
    w->run = rs;
    w->budget = budget;
    w->conn_count = conns;
    w->loop = ev_loop_new(EVFLAG_AUTO);
    w->conns = calloc(conns, sizeof *w->conns);
    w->source = rs->source->source_new(rs->source_shared, thread, conns);
    if (!w->loop || !w->conns || !w->source || stats_init(&w->stats)) return -1;
    w->addr = w->source->addr ? w->source->addr : (const struct sockaddr *)&cfg->addr;
    w->addr_len = w->source->addr ? w->source->addr_len : cfg->addr_len;
    /* started before any thread runs, so that no abort is missed */
    ev_async_init(&w->abort, abort_cb);
    w->abort.data = w;
    ev_async_start(w->loop, &w->abort);
    for (unsigned i = 0; i < conns; i++) {
        struct conn *c = &w->conns[i];
        c->w = w;
        c->index = i;
        c->host.ops = &conn_host_ops;
        c->backoff_us = BACKOFF_MIN_US;
        c->tr.fd = -1;
        ev_init(&c->io, conn_io_cb);
        c->io.data = c;
        ev_init(&c->backoff, backoff_cb);
        c->backoff.data = c;
        ev_init(&c->delay, delay_cb);
        c->delay.data = c;
        c->session = rs->protocol->session_new(rs->protocol_shared, &c->host);
        if (!c->session) return -1;
    }
    return 0;
}

static void run_shared_free(struct run_shared *rs)
{
    if (rs->protocol_shared) rs->protocol->shared_free(rs->protocol_shared);
    if (rs->source_shared) rs->source->shared_free(rs->source_shared);
}

/* Merges the threads' stats into out; 0, or -1 when out of memory. */
static int merge_results(const struct worker *workers, unsigned threads, struct run_result *out)
{
    if (stats_init(&out->stats)) return -1;
    if (hist_init(&out->thread_rps)) {
        stats_free(&out->stats);
        return -1;
    }
    out->duration_us = 0;
    for (unsigned i = 0; i < threads; i++) {
        stats_merge(&out->stats, &workers[i].stats);
        /* a thread stopped before its measured phase began measured nothing */
        uint64_t d = workers[i].measuring ? workers[i].window_end - workers[i].measure_start : 0;
        if (d > out->duration_us) out->duration_us = d;
        if (d) hist_record(&out->thread_rps, stats_requests(&workers[i].stats) * 1000000 / d);
    }
    return 0;
}

/* Sets up every thread, runs them and waits for them; 0, or -1 with the reason in errbuf. */
static int run_workers(struct worker *workers, const struct config *cfg, struct run_shared *rs, char *errbuf,
                       size_t errlen)
{
    unsigned started = 0;
    int rc = -1;
    for (unsigned i = 0; i < cfg->threads; i++) {
        unsigned conns = cfg->connections / cfg->threads + (i < cfg->connections % cfg->threads);
        uint64_t budget = cfg->requests ? cfg->requests / cfg->threads + (i < cfg->requests % cfg->threads)
                                        : UINT64_MAX;
        if (worker_init(&workers[i], cfg, rs, i, conns, budget)) {
            snprintf(errbuf, errlen, "out of memory setting up thread %u", i);
            return -1;
        }
    }
    for (; started < cfg->threads; started++) {
        if (pthread_create(&workers[started].thread, NULL, worker_main, &workers[started])) {
            snprintf(errbuf, errlen, "cannot start thread %u: %s", started, strerror(errno));
            break;
        }
    }
    if (started == cfg->threads) rc = 0;
    for (unsigned i = 0; i < started; i++) pthread_join(workers[i].thread, NULL);
    return rc;
}

int engine_run(const struct config *cfg, const struct protocol *protocol, const struct source_type *source,
               struct run_result *out, char *errbuf, size_t errlen)
{
    struct worker *workers = calloc(cfg->threads, sizeof *workers);
    struct run_shared rs = {.protocol = protocol, .source = source, .workers = workers,
                            .worker_count = cfg->threads};
    int rc = -1;
    atomic_init(&rs.aborted, false);
    snprintf(errbuf, errlen, "out of memory");
    if (workers && (rs.source_shared = source->shared_new(cfg, errbuf, errlen)) &&
        (rs.protocol_shared = protocol->shared_new(cfg))) {
        rc = run_workers(workers, cfg, &rs, errbuf, errlen);
        if (rc == 0 && merge_results(workers, cfg->threads, out)) {
            snprintf(errbuf, errlen, "out of memory");
            rc = -1;
        }
        snprintf(out->error, sizeof out->error, "%s", atomic_load(&rs.aborted) ? rs.error : "");
    }
    for (unsigned i = 0; workers && i < cfg->threads; i++) worker_free(&workers[i]);
    free(workers);
    run_shared_free(&rs);
    return rc;
}
