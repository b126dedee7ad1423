/* Unit tests of HTTP/2: the static source's request (pseudo-headers,
 * :authority with the port only when not the scheme's default, IPv6 in
 * brackets, -H Host, names lowercased, connection-specific headers dropped,
 * content-length for bodies), and the session (http2.c) driven against an
 * in-process nghttp2 server, reporting to a recording host: each outcome
 * once, with the context it was submitted with; capacity within the server's
 * MAX_CONCURRENT_STREAMS; a script's HTTP/1.1 text translated by reqtext into
 * streams, and their responses collected for response() the same however the
 * bytes arrive. */
#include "../src/http2.c"
#include "../src/h2pool.c"
#include "../src/reqtext.c"
#include "../src/source_static.c"
#include "../src/url.c"

#include <stdio.h>
#include <string.h>

#include "tap.h"

/* ---- the static source's request ---- */

/* The request's fields as "name: value\n" lines. */
static void render(const struct request *req, char *out, size_t len)
{
    size_t o = 0;
    out[0] = '\0';
    for (size_t i = 0; i < req->field_count && o < len; i++)
        o += (size_t)snprintf(out + o, len - o, "%.*s: %.*s\n", (int)req->fields[i].namelen, req->fields[i].name,
                              (int)req->fields[i].valuelen, req->fields[i].value);
}

static void base_config(struct config *cfg, const char *host, const char *port, bool tls)
{
    memset(cfg, 0, sizeof *cfg);
    snprintf(cfg->host, sizeof cfg->host, "%s", host);
    snprintf(cfg->port, sizeof cfg->port, "%s", port);
    cfg->tls = tls;
    cfg->method = "GET";
    cfg->path = "/p?q=1";
    cfg->pipeline = 4;
    cfg->keepalive = true;
    cfg->max_header_size = 65536;
    cfg->timeout_us = 1000000;
    cfg->window_bits = 16;
    cfg->connection_window_bits = 20;
}

static void check(const char *name, const struct config *cfg, const char *want)
{
    char got[2048], err[64];
    struct static_shared *sh = static_shared_new(cfg, err, sizeof err);
    if (!sh) {
        TAP_CHECK(0, "http2 request %s: %s", name, err);
        return;
    }
    render(&sh->request, got, sizeof got);
    TAP_CHECK(strcmp(got, want) == 0, "http2 request %s%s%s", name, strcmp(got, want) ? ": got\n" : "",
              strcmp(got, want) ? got : "");
    static_shared_free(sh);
}

static void request_tests(void)
{
    struct config cfg;

    base_config(&cfg, "127.0.0.1", "8081", false);
    check("h2c with a port", &cfg, ":method: GET\n:scheme: http\n:authority: 127.0.0.1:8081\n:path: /p?q=1\n");

    base_config(&cfg, "example.test", "443", true);
    check("https on the default port", &cfg, ":method: GET\n:scheme: https\n:authority: example.test\n:path: /p?q=1\n");

    base_config(&cfg, "::1", "80", false);
    check("IPv6 on the default port", &cfg, ":method: GET\n:scheme: http\n:authority: [::1]\n:path: /p?q=1\n");

    base_config(&cfg, "::1", "8443", true);
    check("IPv6 with a port", &cfg, ":method: GET\n:scheme: https\n:authority: [::1]:8443\n:path: /p?q=1\n");

    base_config(&cfg, "127.0.0.1", "8081", false);
    cfg.method = "POST";
    cfg.headers[cfg.header_count++] = "X-Mixed-Case:  value 1";
    cfg.headers[cfg.header_count++] = "Connection: keep-alive";
    cfg.headers[cfg.header_count++] = "Transfer-Encoding: chunked";
    cfg.headers[cfg.header_count++] = "Host: other.test:9";
    cfg.body = "hello";
    cfg.body_len = 5;
    check("headers and body", &cfg,
          ":method: POST\n:scheme: http\n:authority: other.test:9\n:path: /p?q=1\nx-mixed-case: value 1\n"
          "content-length: 5\n");

    base_config(&cfg, "127.0.0.1", "8081", false);
    cfg.headers[cfg.header_count++] = "Content-Length: 0";
    cfg.body = "abc";
    cfg.body_len = 3;
    check("a given content-length is kept, not doubled", &cfg,
          ":method: GET\n:scheme: http\n:authority: 127.0.0.1:8081\n:path: /p?q=1\ncontent-length: 0\n");

    base_config(&cfg, "127.0.0.1", "8081", false);
    struct http2_shared *sh = h2_shared_new(&cfg);
    TAP_CHECK(sh && sh->stream_window == 65535 && sh->connection_window == 1048575 && sh->streams == 4,
              "http2 windows 2^bits-1 (16 -> 65535, 20 -> 1048575) and -m streams");
    h2_shared_free(sh);
}

/* ---- a recording host ---- */

#define MAX_RECORDS 16

struct recording_host {
    struct session_host base;
    unsigned done;
    struct req_ctx ctx[MAX_RECORDS];
    struct outcome outcome[MAX_RECORDS];
    char response[MAX_RECORDS][512]; /* a collected response as "name: value\n...|body" */
    unsigned first_bytes, samples;
    uint64_t wire, decoded;
    uint64_t decoded_at_done[MAX_RECORDS]; /* the header bytes the host had when each outcome came */
    uint32_t max_streams; /* the last peer_settings */
};

static void rec_done(struct session_host *h, const struct req_ctx *ctx, const struct outcome *o)
{
    struct recording_host *r = (struct recording_host *)h;
    if (r->done < MAX_RECORDS) {
        r->ctx[r->done] = *ctx;
        r->outcome[r->done] = *o;
        r->decoded_at_done[r->done] = r->decoded;
        r->outcome[r->done].response = NULL; /* valid during the call only: rendered below */
        char *out = r->response[r->done];
        size_t n = 0, cap = sizeof r->response[0];
        out[0] = '\0';
        for (size_t i = 0; o->response && i < o->response->header_count && n < cap; i++)
            n += (size_t)snprintf(out + n, cap - n, "%.*s: %.*s\n", (int)o->response->headers[i].name_len,
                                  o->response->headers[i].name, (int)o->response->headers[i].value_len,
                                  o->response->headers[i].value);
        if (o->response && n < cap)
            snprintf(out + n, cap - n, "|%.*s", (int)o->response->body_len, (const char *)o->response->body);
    }
    r->done++;
}

static void rec_first_byte(struct session_host *h, const struct req_ctx *ctx, uint64_t now)
{
    (void)ctx;
    (void)now;
    ((struct recording_host *)h)->first_bytes++;
}

static void rec_header_bytes(struct session_host *h, uint64_t wire, uint64_t decoded)
{
    ((struct recording_host *)h)->wire += wire;
    ((struct recording_host *)h)->decoded += decoded;
}

static void rec_sample(struct session_host *h, const uint8_t *data, size_t len)
{
    (void)data;
    (void)len;
    ((struct recording_host *)h)->samples++;
}

static void rec_peer_settings(struct session_host *h, uint32_t max_streams)
{
    ((struct recording_host *)h)->max_streams = max_streams;
}

static const struct session_host_ops recording_ops = {.done = rec_done,
                                                      .first_byte = rec_first_byte,
                                                      .header_bytes = rec_header_bytes,
                                                      .peer_settings = rec_peer_settings,
                                                      .sample = rec_sample};

/* ---- an in-process server: what it does with each complete request ---- */

enum server_mode { ANSWER, RESET, REFUSE, IGNORE, ECHO };

struct server {
    nghttp2_session *ng;
    enum server_mode mode;
    char path[16][64];       /* ECHO: each stream's :path, by stream id / 2 */
    char method[16][8];
    char authority[16][64];
    size_t body[16];         /* DATA bytes received */
};

static ssize_t server_body(nghttp2_session *ng, int32_t id, uint8_t *buf, size_t len, uint32_t *flags,
                           nghttp2_data_source *src, void *user)
{
    (void)ng;
    (void)id;
    (void)len;
    (void)src;
    (void)user;
    memcpy(buf, "hello", 5);
    *flags |= NGHTTP2_DATA_FLAG_EOF;
    return 5;
}

/* ECHO: a 103, then 200 with headers naming the request, "hello" in two DATA
 * frames and a trailer (which is not a response header). */
static ssize_t echo_body(nghttp2_session *ng, int32_t id, uint8_t *buf, size_t len, uint32_t *flags,
                         nghttp2_data_source *src, void *user)
{
    (void)ng;
    (void)len;
    (void)user;
    if (src->ptr == NULL) { /* first call: "hel" */
        src->ptr = buf;
        memcpy(buf, "hel", 3);
        return 3;
    }
    memcpy(buf, "lo", 2);
    *flags |= NGHTTP2_DATA_FLAG_EOF | NGHTTP2_DATA_FLAG_NO_END_STREAM;
    nghttp2_nv trailer = {(uint8_t *)"x-trailer", (uint8_t *)"t", 9, 1, NGHTTP2_NV_FLAG_NONE};
    nghttp2_submit_trailer(ng, id, &trailer, 1);
    return 2;
}

static void echo(nghttp2_session *ng, struct server *sv, int32_t id)
{
    char seen[128];
    int slot = id / 2 % 16;
    snprintf(seen, sizeof seen, "%s %s %s %zu", sv->method[slot], sv->authority[slot], sv->path[slot], sv->body[slot]);
    nghttp2_nv early[] = {{(uint8_t *)":status", (uint8_t *)"103", 7, 3, NGHTTP2_NV_FLAG_NONE},
                          {(uint8_t *)"link", (uint8_t *)"</a.css>", 4, 8, NGHTTP2_NV_FLAG_NONE}};
    nghttp2_submit_headers(ng, NGHTTP2_FLAG_NONE, id, NULL, early, 2, NULL);
    nghttp2_nv final[] = {{(uint8_t *)":status", (uint8_t *)"200", 7, 3, NGHTTP2_NV_FLAG_NONE},
                          {(uint8_t *)"x-seen", (uint8_t *)seen, 6, strlen(seen), NGHTTP2_NV_FLAG_NONE},
                          {(uint8_t *)"location", (uint8_t *)"/there", 8, 6, NGHTTP2_NV_FLAG_NONE}};
    nghttp2_data_provider body = {.source.ptr = NULL, .read_callback = echo_body};
    nghttp2_submit_response(ng, id, final, 3, &body);
}

static int server_header(nghttp2_session *ng, const nghttp2_frame *frame, const uint8_t *name, size_t namelen,
                         const uint8_t *value, size_t valuelen, uint8_t flags, void *user)
{
    struct server *sv = user;
    (void)ng;
    (void)flags;
    int slot = frame->hd.stream_id / 2 % 16;
    if (namelen == 5 && memcmp(name, ":path", 5) == 0)
        snprintf(sv->path[slot], sizeof sv->path[slot], "%.*s", (int)valuelen, value);
    if (namelen == 7 && memcmp(name, ":method", 7) == 0)
        snprintf(sv->method[slot], sizeof sv->method[slot], "%.*s", (int)valuelen, value);
    if (namelen == 10 && memcmp(name, ":authority", 10) == 0)
        snprintf(sv->authority[slot], sizeof sv->authority[slot], "%.*s", (int)valuelen, value);
    return 0;
}

static int server_data(nghttp2_session *ng, uint8_t flags, int32_t id, const uint8_t *data, size_t len, void *user)
{
    struct server *sv = user;
    (void)ng;
    (void)flags;
    (void)data;
    sv->body[id / 2 % 16] += len;
    return 0;
}

static int server_frame(nghttp2_session *ng, const nghttp2_frame *frame, void *user)
{
    struct server *sv = user;
    if (!(frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) return 0;
    if (sv->mode == ECHO && (frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA)) {
        echo(ng, sv, frame->hd.stream_id);
        return 0;
    }
    if (frame->hd.type != NGHTTP2_HEADERS) return 0;
    int32_t id = frame->hd.stream_id;
    nghttp2_nv status = {(uint8_t *)":status", (uint8_t *)"200", 7, 3, NGHTTP2_NV_FLAG_NONE};
    nghttp2_data_provider body = {.read_callback = server_body};
    if (sv->mode == ANSWER) nghttp2_submit_response(ng, id, &status, 1, &body);
    else if (sv->mode == RESET) nghttp2_submit_rst_stream(ng, NGHTTP2_FLAG_NONE, id, NGHTTP2_INTERNAL_ERROR);
    else if (sv->mode == REFUSE) nghttp2_submit_rst_stream(ng, NGHTTP2_FLAG_NONE, id, NGHTTP2_REFUSED_STREAM);
    return 0;
}

static void server_start(struct server *sv, uint32_t max_streams)
{
    nghttp2_session_callbacks *cb;
    nghttp2_session_callbacks_new(&cb);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, server_frame);
    nghttp2_session_callbacks_set_on_header_callback(cb, server_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, server_data);
    nghttp2_session_server_new(&sv->ng, cb, sv);
    nghttp2_session_callbacks_del(cb);
    nghttp2_settings_entry limit = {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, max_streams};
    nghttp2_submit_settings(sv->ng, NGHTTP2_FLAG_NONE, &limit, 1);
    sv->mode = ANSWER;
}

/* Moves bytes both ways until neither side has any to send. */
static void pump(struct session *s, struct server *sv, uint64_t now)
{
    for (int moved = 1; moved;) {
        moved = 0;
        const uint8_t *out;
        size_t n;
        while ((n = s->ops->next_write(s, &out, now)) > 0) {
            nghttp2_session_mem_recv(sv->ng, out, n);
            moved = 1;
        }
        ssize_t m;
        while ((m = nghttp2_session_mem_send(sv->ng, &out)) > 0) {
            s->ops->on_read(s, out, (size_t)m, now);
            moved = 1;
        }
    }
}

/* The same, the server's frames gathered into one read (as a socket read
 * takes many frames). */
static void pump_whole(struct session *s, struct server *sv, uint64_t now)
{
    static uint8_t in[65536];
    for (int moved = 1; moved;) {
        moved = 0;
        const uint8_t *out;
        size_t n, len = 0;
        while ((n = s->ops->next_write(s, &out, now)) > 0) {
            nghttp2_session_mem_recv(sv->ng, out, n);
            moved = 1;
        }
        ssize_t m;
        while ((m = nghttp2_session_mem_send(sv->ng, &out)) > 0 && len + (size_t)m <= sizeof in) {
            memcpy(in + len, out, (size_t)m);
            len += (size_t)m;
        }
        if (len) {
            s->ops->on_read(s, in, len, now);
            moved = 1;
        }
    }
}

/* ---- the session against it ---- */

struct fixture {
    struct config cfg;
    struct static_shared *source;
    struct http2_shared *shared;
    struct recording_host host;
    struct session *s;
    struct server sv;
    unsigned last_room; /* what submit returned last */
};

static void fixture_start(struct fixture *f, uint32_t max_streams)
{
    char err[64];
    memset(f, 0, sizeof *f);
    base_config(&f->cfg, "127.0.0.1", "8081", false);
    f->source = static_shared_new(&f->cfg, err, sizeof err);
    f->shared = h2_shared_new(&f->cfg);
    f->host.base.ops = &recording_ops;
    f->s = http2_protocol.session_new(f->shared, &f->host.base);
    server_start(&f->sv, max_streams);
    f->s->ops->on_connect(f->s, 1000);
}

static void submit(struct fixture *f, uint64_t now, uintptr_t tag)
{
    struct req_ctx ctx = {.scheduled_us = now, .sent_us = now, .source_data = tag, .kind = -1, .measured = true};
    f->last_room = f->s->ops->submit(f->s, &f->source->request, &ctx);
}

static void fixture_end(struct fixture *f)
{
    f->s->ops->free(f->s);
    nghttp2_session_del(f->sv.ng);
    h2_shared_free(f->shared);
    static_shared_free(f->source);
}

static void test_response(void)
{
    struct fixture f;
    fixture_start(&f, 100);
    TAP_CHECK(f.s->ops->capacity(f.s) == 1, "http2 session: one stream until the server's SETTINGS");
    submit(&f, 1000, 7);
    TAP_CHECK(f.last_room == 0 && f.s->ops->capacity(f.s) == 0,
              "http2 session: no room while that stream is open (submit says so too)");
    pump(f.s, &f.sv, 1500);
    struct outcome *o = &f.host.outcome[0];
    TAP_CHECK(f.host.done == 1 && o->kind == OUTCOME_RESPONSE && o->status == 200 && o->body_bytes == 5 &&
                  o->now_us == 1500 && f.host.ctx[0].source_data == 7 && f.host.ctx[0].sent_us == 1000,
              "http2 session: a response is reported once, with its status, body bytes and context");
    TAP_CHECK(f.host.first_bytes == 1 && f.host.wire > 0 && f.host.decoded > 0 && f.host.samples == 0,
              "http2 session: first byte and header bytes go to the host");
    TAP_CHECK(f.s->ops->capacity(f.s) == 4, "http2 session: -m streams (4) once the server allows 100");
    fixture_end(&f);
}

static void test_server_limit(void)
{
    struct fixture f;
    fixture_start(&f, 2);
    submit(&f, 1000, 1);
    pump(f.s, &f.sv, 1100);
    f.sv.mode = IGNORE;
    unsigned room = f.s->ops->capacity(f.s);
    submit(&f, 1200, 2);
    submit(&f, 1200, 3);
    pump(f.s, &f.sv, 1300);
    TAP_CHECK(room == 2 && f.last_room == 0 && f.s->ops->capacity(f.s) == 0,
              "http2 session: capacity within the server's MAX_CONCURRENT_STREAMS (2 of -m 4)");
    TAP_CHECK(f.host.max_streams == 2, "http2 session: the server's MAX_CONCURRENT_STREAMS reported to the host (%u)",
              f.host.max_streams);
    f.s->ops->on_close(f.s, CLOSE_ABORT, 1400);
    TAP_CHECK(f.host.done == 3 && f.host.outcome[1].kind == OUTCOME_ABORTED &&
                  f.host.outcome[2].kind == OUTCOME_ABORTED && f.host.ctx[1].source_data + f.host.ctx[2].source_data == 5,
              "http2 session: streams in flight at the end are aborted, each once");
    fixture_end(&f);
}

static void test_resets(void)
{
    struct fixture f;
    fixture_start(&f, 100);
    f.sv.mode = RESET;
    submit(&f, 1000, 1);
    pump(f.s, &f.sv, 1100);
    TAP_CHECK(f.host.done == 1 && f.host.outcome[0].kind == OUTCOME_ERROR && f.host.outcome[0].error == REQ_ERR_RESET,
              "http2 session: RST_STREAM from the server is a reset error");
    f.sv.mode = REFUSE;
    submit(&f, 1200, 2);
    pump(f.s, &f.sv, 1300);
    TAP_CHECK(f.host.done == 2 && f.host.outcome[1].kind == OUTCOME_REFUSED && f.host.ctx[1].source_data == 2,
              "http2 session: REFUSED_STREAM is reported refused");
    fixture_end(&f);
}

static void test_timeout(void)
{
    struct fixture f;
    fixture_start(&f, 100);
    f.sv.mode = IGNORE;
    submit(&f, 1000, 1);
    pump(f.s, &f.sv, 1100);
    f.s->ops->on_tick(f.s, 1000 + f.cfg.timeout_us - 1);
    unsigned before = f.host.done;
    f.s->ops->on_tick(f.s, 1000 + f.cfg.timeout_us);
    pump(f.s, &f.sv, 1000 + f.cfg.timeout_us);
    f.s->ops->on_close(f.s, CLOSE_EOF, 1000 + f.cfg.timeout_us);
    TAP_CHECK(before == 0 && f.host.done == 1 && f.host.outcome[0].kind == OUTCOME_ERROR &&
                  f.host.outcome[0].error == REQ_ERR_TIMEOUT,
              "http2 session: a stream times out at --timeout after it was sent, reported once");
    fixture_end(&f);
}

/* Streams sent at different times each time out at their own --timeout,
 * though the ticks look at the slots only once the oldest may have. */
static void test_timeouts_apart(void)
{
    struct fixture f;
    fixture_start(&f, 100);
    pump(f.s, &f.sv, 1000);
    f.sv.mode = IGNORE;
    uint64_t t = f.cfg.timeout_us, sent[3] = {5000, 2000, 8000}, ticks[6];
    unsigned done[6];
    submit(&f, sent[0], 0);
    pump(f.s, &f.sv, sent[0]);
    f.s->ops->on_tick(f.s, 6000); /* looks at the slots: nothing timed out */
    submit(&f, sent[1], 1); /* sent before the one in flight (a time taken earlier) */
    submit(&f, sent[2], 2);
    pump(f.s, &f.sv, sent[2]);
    for (int i = 0; i < 6; i++) {
        ticks[i] = (i < 2 ? sent[1] : i < 4 ? sent[0] : sent[2]) + t - (i % 2 ? 0 : 1);
        f.s->ops->on_tick(f.s, ticks[i]);
        pump(f.s, &f.sv, ticks[i]);
        done[i] = f.host.done;
    }
    TAP_CHECK(done[0] == 0 && done[1] == 1 && done[2] == 1 && done[3] == 2 && done[4] == 2 && done[5] == 3 &&
                  f.host.ctx[0].source_data == 1 && f.host.ctx[1].source_data == 0 && f.host.ctx[2].source_data == 2 &&
                  f.host.outcome[2].error == REQ_ERR_TIMEOUT && f.host.outcome[2].now_us == sent[2] + t,
              "http2 session: streams sent at 5000, 2000 and 8000 us each time out at the tick of its own --timeout "
              "(done after each tick %u %u %u %u %u %u)", done[0], done[1], done[2], done[3], done[4], done[5]);
    fixture_end(&f);
}

/* A stream answered after later streams whose ids took its place in the
 * session's id table (8 places at -m 4) is still found: its response is
 * reported. */
static void test_late_answer(void)
{
    struct fixture f;
    fixture_start(&f, 100);
    pump(f.s, &f.sv, 1000);
    f.sv.mode = IGNORE;
    submit(&f, 1000, 100);
    pump(f.s, &f.sv, 1000);
    int32_t late = ((struct http2_session *)f.s)->slots[0].id;
    f.sv.mode = ANSWER;
    for (unsigned i = 0; i < 10; i++) {
        submit(&f, 2000, i);
        pump(f.s, &f.sv, 2000);
    }
    nghttp2_nv status = {(uint8_t *)":status", (uint8_t *)"204", 7, 3, NGHTTP2_NV_FLAG_NONE};
    nghttp2_submit_response(f.sv.ng, late, &status, 1, NULL);
    pump(f.s, &f.sv, 3000);
    TAP_CHECK(f.host.done == 11 && f.host.outcome[10].kind == OUTCOME_RESPONSE && f.host.outcome[10].status == 204 &&
                  f.host.ctx[10].source_data == 100,
              "http2 session: stream %d answered after 10 later streams is reported (%u done)", late, f.host.done);
    fixture_end(&f);
}

/* Many rounds of -m streams: every slot is taken and freed again, nghttp2's
 * blocks come from the session's pool and are reused (the pool stops growing
 * after the first rounds), and the header bytes reach the host whole, each
 * response's before its outcome. */
static void test_recycling(void)
{
    struct fixture f;
    fixture_start(&f, 100);
    struct http2_session *h = (struct http2_session *)f.s;
    pump(f.s, &f.sv, 1000);
    size_t held = 0, in_use = 0;
    bool full = true;
    enum { ROUNDS = 30 };
    for (unsigned round = 0; round < ROUNDS; round++) {
        unsigned room = f.s->ops->capacity(f.s);
        full = full && room == 4;
        for (unsigned i = 0; i < room; i++) submit(&f, 2000, round * 4 + i);
        full = full && f.last_room == 0;
        pump_whole(f.s, &f.sv, 2100);
        if (round == 2) {
            held = h2pool_held(h->pool);
            in_use = h2pool_in_use(h->pool);
        }
    }
    TAP_CHECK(full && f.host.done == ROUNDS * 4, "http2 session: %d rounds of 4 streams reuse the 4 slots (%u done)",
              ROUNDS, f.host.done);
    TAP_CHECK(held > 0 && h2pool_held(h->pool) == held && h2pool_in_use(h->pool) == in_use,
              "http2 session: nghttp2 allocates from the pool, which holds the same %zu blocks after round 3 and "
              "round %d (now %zu, in use %zu then %zu)", held, ROUNDS, h2pool_held(h->pool), in_use,
              h2pool_in_use(h->pool));
    /* each response's decoded header is ":status" "200": 10 bytes; a round's
     * four HEADERS come before its DATA frames end the streams, in one read */
    TAP_CHECK(f.host.decoded == ROUNDS * 4 * 10 && f.host.decoded_at_done[0] == 40 && f.host.decoded_at_done[5] == 80,
              "http2 session: decoded header bytes given whole (%llu of %d), each response's before its outcome "
              "(%llu, %llu)", (unsigned long long)f.host.decoded, ROUNDS * 4 * 10,
              (unsigned long long)f.host.decoded_at_done[0], (unsigned long long)f.host.decoded_at_done[5]);
    fixture_end(&f);
}

/* ---- a script's text: translated by reqtext, responses collected ---- */

static const char SCRIPT_TEXT[] = "POST /a?x=1 HTTP/1.1\r\nHost: example.test\r\nConnection: keep-alive\r\n"
                                  "Content-Length: 4\r\n\r\nbodyGET /b HTTP/1.1\r\nHost: example.test\r\n\r\n";

static const char *const WANT[2] = {"x-seen: POST example.test /a?x=1 4\nlocation: /there\n|hello",
                                    "x-seen: GET example.test /b 0\nlocation: /there\n|hello"};

/* Settles the connection (SETTINGS both ways), submits the requests of set
 * (collecting their responses) and returns what the server sent back, whole,
 * in out. */
static size_t script_exchange(struct fixture *f, const struct reqtext_set *set, uint8_t *out, size_t cap)
{
    pump(f->s, &f->sv, 1000);
    for (size_t i = 0; i < set->count; i++) {
        struct request req = {.fields = set->h2[i].nva, .field_count = set->h2[i].nvlen,
                              .body = set->requests[i].body, .body_len = set->requests[i].body_len, .kind = -1};
        struct req_ctx ctx = {.sent_us = 1000, .source_data = i, .kind = -1, .measured = true, .collect = true};
        f->s->ops->submit(f->s, &req, &ctx);
    }
    size_t len = 0, n;
    const uint8_t *data;
    while ((n = f->s->ops->next_write(f->s, &data, 1000)) > 0) nghttp2_session_mem_recv(f->sv.ng, data, n);
    ssize_t m;
    while ((m = nghttp2_session_mem_send(f->sv.ng, &data)) > 0 && len + (size_t)m <= cap) {
        memcpy(out + len, data, (size_t)m);
        len += (size_t)m;
    }
    return len;
}

/* The response collected for request i of the text ("" if none). */
static const char *response_of(const struct recording_host *h, uintptr_t i)
{
    for (unsigned k = 0; k < h->done && k < MAX_RECORDS; k++)
        if (h->ctx[k].source_data == i && h->outcome[k].kind == OUTCOME_RESPONSE && h->outcome[k].status == 200)
            return h->response[k];
    return "";
}

static void test_script_text(void)
{
    struct reqtext_h2_opts opts = {.scheme = "http", .authority = "127.0.0.1:8081"};
    struct reqtext_error err;
    struct reqtext_set *set = reqtext_parse(SCRIPT_TEXT, sizeof SCRIPT_TEXT - 1, &opts, &err);
    static uint8_t answer[16384];
    bool same = set != NULL;
    size_t len = 1, cut = 0;
    for (; same && cut <= len; cut++) {
        struct fixture f;
        fixture_start(&f, 100);
        f.sv.mode = ECHO;
        len = script_exchange(&f, set, answer, sizeof answer);
        f.s->ops->on_read(f.s, answer, cut, 1200);
        f.s->ops->on_read(f.s, answer + cut, len - cut, 1200);
        same = f.host.done == 2 && strcmp(response_of(&f.host, 0), WANT[0]) == 0 &&
               strcmp(response_of(&f.host, 1), WANT[1]) == 0;
        if (!same)
            printf("# cut %zu of %zu: %u done, responses '%s' '%s'\n", cut, len, f.host.done, f.host.response[0],
                   f.host.response[1]);
        fixture_end(&f);
    }
    TAP_CHECK(same && len > 100, "http2 script text: a pipelined HTTP/1.1 POST and GET become two streams (Host as "
              ":authority, Connection dropped, the body as DATA); their responses collected without 1xx fields, "
              "pseudo-headers or trailers, the same fed split at each of %zu bytes", len);
    reqtext_release(set);
}

int main(void)
{
    request_tests();
    test_response();
    test_server_limit();
    test_resets();
    test_timeout();
    test_timeouts_apart();
    test_late_answer();
    test_recycling();
    test_script_text();
    TAP_EXIT();
}
