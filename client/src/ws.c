/* ws: the WebSocket session. States: UPGRADING (the GET is out, its
 * response is read into head until its blank line), OPEN (messages go out
 * and their echoes come back, in order: the messages in flight are a FIFO
 * ring of -m entries), CLOSING (a close frame is queued or sent, the
 * server's is awaited), DONE (both sent: the connection is closed).
 * Frames are written into `out`; next_write hands it over and the buffers
 * swap at the next call, when the worker is done with the last ones. */
#include "ws.h"

#include <openssl/evp.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include "buffer.h"
#include "rng.h"
#include "url.h"

_Static_assert(WS_FAULT_KINDS <= STATS_WS_FAULTS, "stats_ws.faults holds every ws_fault");

#define WS_GUID "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
/* An echo counts as a 200 response: the record's status classes and their
 * identities (docs/metrics.md) hold for messages as for requests. */
#define WS_ECHO_STATUS 200
#define WS_CODE_NONE 1005     /* a close frame without a code */
#define WS_CODE_ABNORMAL 1006 /* no close frame: the connection just ended */

/* What every session of a run shares, read-only. */
struct ws_shared {
    char *upgrade;           /* the GET up to (not including) Sec-WebSocket-Key */
    uint8_t *payload;        /* the message */
    size_t payload_len;
    enum ws_opcode opcode;   /* WS_TEXT or WS_BINARY */
    unsigned pipeline;
    size_t max_header;
    uint64_t max_message;
    uint64_t timeout_us;
    uint64_t per_connection; /* messages per connection, then the client closes; 0: unlimited */
};

enum ws_state { WS_UPGRADING, WS_OPEN, WS_CLOSING, WS_DONE };

struct ws_session {
    struct session base;
    const struct ws_shared *sh;
    struct session_host *host;
    struct rng rng;
    enum ws_state state;
    uint64_t since_us;         /* when the state began (upgrade and close timeouts) */
    char accept[32];           /* the Sec-WebSocket-Accept the server must answer */
    struct buffer head;        /* the upgrade response, until its blank line */
    struct ws_parser parser;
    struct buffer out, handed; /* frames to write; what next_write handed over last */
    struct req_ctx *ring;      /* sh->pipeline entries: the messages in flight, oldest at head */
    unsigned head_at, inflight;
    uint64_t sent_on_connection;
    bool echo_bad;             /* the echo being read differs from the message */
    bool close_sent;
    uint64_t now_us;           /* the time of the bytes being parsed */
};

const char *ws_refusal_name(unsigned refusal)
{
    static const char *const names[WS_REFUSAL_KINDS] = {
        [WS_REFUSED_CLOSED] = "closed_before_response", [WS_REFUSED_HEAD_TOO_LARGE] = "head_too_large",
        [WS_REFUSED_NOT_HTTP] = "not_http", [WS_REFUSED_NO_UPGRADE] = "no_upgrade_websocket",
        [WS_REFUSED_NO_CONNECTION_UPGRADE] = "no_connection_upgrade", [WS_REFUSED_BAD_ACCEPT] = "bad_accept",
        [WS_REFUSED_EXTENSION] = "extension_not_offered",
    };
    return refusal < WS_REFUSAL_KINDS && names[refusal] ? names[refusal] : "unknown";
}

const char *ws_fault_name(unsigned fault)
{
    switch (fault) {
    case WS_FAULT_ECHO_MISMATCH: return "echo_mismatch";
    case WS_FAULT_UNSOLICITED: return "unsolicited_message";
    case WS_FAULT_UPGRADE_TIMEOUT: return "upgrade_timeout";
    default: return ws_error_name((enum ws_error)fault);
    }
}

/* ---- shared ---- */

static void ws_shared_free(void *shared)
{
    struct ws_shared *sh = shared;
    if (!sh) return;
    free(sh->upgrade);
    free(sh->payload);
    free(sh);
}

/* The upgrade request without its key: the URL's path, Host, the -H headers. */
static char *upgrade_text(const struct config *cfg)
{
    char authority[300];
    url_authority(cfg->host, cfg->port, cfg->tls, authority, sizeof authority);
    struct buffer b = {0};
    char line[600];
    snprintf(line, sizeof line,
             "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n",
             cfg->path, authority);
    bool ok = buffer_add(&b, line, strlen(line));
    for (unsigned i = 0; ok && i < cfg->header_count; i++)
        ok = buffer_add(&b, cfg->headers[i], strlen(cfg->headers[i])) && buffer_add(&b, "\r\n", 2);
    if (ok && buffer_add(&b, "", 1)) return (char *)b.data;
    buffer_free(&b);
    return NULL;
}

/* The message: -b/-B's bytes, else --ws-size bytes of a printable pattern. */
static uint8_t *payload_of(const struct config *cfg, size_t *len)
{
    *len = cfg->body_len ? cfg->body_len : cfg->ws_size;
    uint8_t *p = malloc(*len ? *len : 1);
    if (!p) return NULL;
    if (cfg->body_len) memcpy(p, cfg->body, *len);
    else
        for (size_t i = 0; i < *len; i++) p[i] = (uint8_t)('a' + i % 26);
    return p;
}

static void *ws_shared_new(const struct config *cfg)
{
    struct ws_shared *sh = calloc(1, sizeof *sh);
    if (!sh) return NULL;
    sh->upgrade = upgrade_text(cfg);
    sh->payload = payload_of(cfg, &sh->payload_len);
    sh->opcode = cfg->ws_binary ? WS_BINARY : WS_TEXT;
    sh->pipeline = cfg->pipeline;
    sh->max_header = cfg->max_header_size;
    sh->max_message = cfg->ws_max_message;
    sh->timeout_us = cfg->timeout_us;
    sh->per_connection = cfg->requests_per_connection;
    if (sh->upgrade && sh->payload) return sh;
    ws_shared_free(sh);
    return NULL;
}

/* ---- the messages in flight ---- */

static struct req_ctx *oldest(struct ws_session *s)
{
    return &s->ring[s->head_at];
}

static struct req_ctx pop(struct ws_session *s)
{
    struct req_ctx ctx = s->ring[s->head_at];
    s->head_at = s->head_at + 1 == s->sh->pipeline ? 0 : s->head_at + 1;
    s->inflight--;
    return ctx;
}

static void report(struct ws_session *s, const struct req_ctx *ctx, struct outcome o)
{
    s->host->ops->done(s->host, ctx, &o);
}

/* Every message in flight ends as kind (or aborted). */
static void fail_all(struct ws_session *s, enum req_error kind, enum req_detail detail, bool abort)
{
    while (s->inflight > 0) {
        struct req_ctx ctx = pop(s);
        report(s, &ctx, abort ? outcome_of(OUTCOME_ABORTED) : outcome_error(kind, detail, s->now_us));
    }
}

static void event(struct ws_session *s, enum conn_event ev, uint64_t code)
{
    s->host->ops->event(s->host, ev, code);
}

/* ---- writing frames ---- */

/* Queues a frame, masked with a fresh key; false when out of memory. */
static bool queue_frame(struct ws_session *s, enum ws_opcode opcode, const uint8_t *payload, size_t len)
{
    uint8_t header[14], mask[4];
    uint64_t r = rng_next(&s->rng);
    memcpy(mask, &r, 4);
    size_t n = ws_frame_header(header, opcode, len, mask);
    if (!buffer_reserve(&s->out, n + len)) return false;
    buffer_add(&s->out, header, n);
    uint8_t *at = s->out.data + s->out.len;
    buffer_add(&s->out, payload, len);
    ws_mask(at, len, mask, 0);
    return true;
}

/* Starts the closing handshake with code (unless a close already went out). */
static void start_close(struct ws_session *s, uint16_t code)
{
    if (s->close_sent) return;
    uint8_t payload[2] = {(uint8_t)(code >> 8), (uint8_t)code};
    queue_frame(s, WS_CLOSE, payload, 2);
    s->close_sent = true;
    s->state = WS_CLOSING;
    s->since_us = s->now_us;
    event(s, CONN_EVENT_WS_CLOSED_BY_CLIENT, code);
}

/* A protocol error: the messages in flight fail, the client closes with its code. */
static enum session_verdict protocol_error(struct ws_session *s, unsigned fault, uint16_t code)
{
    event(s, CONN_EVENT_WS_PROTOCOL_ERROR, fault);
    fail_all(s, REQ_ERR_PROTOCOL, DETAIL_NONE, false);
    start_close(s, code);
    s->state = WS_DONE; /* nothing more is read: the close goes out, the next tick closes */
    return SESSION_KEEP;
}

/* ---- the upgrade ---- */

/* base64(SHA-1(key + GUID)), RFC 6455 4.1. */
static void accept_of(const char *key, char out[32])
{
    char text[64];
    uint8_t digest[SHA_DIGEST_LENGTH];
    int n = snprintf(text, sizeof text, "%s%s", key, WS_GUID);
    SHA1((const uint8_t *)text, (size_t)n, digest);
    EVP_EncodeBlock((uint8_t *)out, digest, SHA_DIGEST_LENGTH);
}

/* The value of header name in the head (NUL-terminated), trimmed into out; false when absent. */
static bool head_field(const char *head, const char *name, char *out, size_t cap)
{
    size_t n = strlen(name);
    for (const char *line = strstr(head, "\r\n"); line; line = strstr(line + 2, "\r\n")) {
        const char *f = line + 2;
        if (strncasecmp(f, name, n) || f[n] != ':') continue;
        f += n + 1;
        while (*f == ' ' || *f == '\t') f++;
        size_t len = strcspn(f, "\r");
        while (len && (f[len - 1] == ' ' || f[len - 1] == '\t')) len--;
        snprintf(out, cap, "%.*s", (int)len, f);
        return true;
    }
    return false;
}

/* Whether a comma-separated field value holds token (any case). */
static bool has_token(const char *value, const char *token)
{
    size_t n = strlen(token);
    for (const char *p = value; *p;) {
        while (*p == ' ' || *p == '\t' || *p == ',') p++;
        size_t len = strcspn(p, ",");
        size_t trimmed = len;
        while (trimmed && (p[trimmed - 1] == ' ' || p[trimmed - 1] == '\t')) trimmed--;
        if (trimmed == n && strncasecmp(p, token, n) == 0) return true;
        p += len;
    }
    return false;
}

/* The head is complete (NUL-terminated): 0 when upgraded, else why not: the
 * status (100-599) of a response that is no 101, or a ws_refusal. */
static unsigned upgrade_refusal(struct ws_session *s, const char *head)
{
    char upgrade[64], connection[256], accept[64], ext[256];
    int status;
    if (strncmp(head, "HTTP/1.1 ", 9) || sscanf(head + 9, "%3d", &status) != 1 || status < 100 || status > 599)
        return WS_REFUSED_NOT_HTTP;
    if (status != 101) return (unsigned)status;
    if (!head_field(head, "Upgrade", upgrade, sizeof upgrade) || strcasecmp(upgrade, "websocket"))
        return WS_REFUSED_NO_UPGRADE;
    if (!head_field(head, "Connection", connection, sizeof connection) || !has_token(connection, "upgrade"))
        return WS_REFUSED_NO_CONNECTION_UPGRADE;
    if (!head_field(head, "Sec-WebSocket-Accept", accept, sizeof accept) || strcmp(accept, s->accept))
        return WS_REFUSED_BAD_ACCEPT;
    if (head_field(head, "Sec-WebSocket-Extensions", ext, sizeof ext)) return WS_REFUSED_EXTENSION;
    return 0;
}

static enum session_verdict frames(struct ws_session *s, const uint8_t *data, size_t len);

/* Upgrade response bytes: into head until its blank line; what follows are frames. */
static enum session_verdict upgrade_read(struct ws_session *s, const uint8_t *data, size_t len)
{
    size_t before = s->head.len;
    size_t take = len < s->sh->max_header + 1 - before ? len : s->sh->max_header + 1 - before;
    if (!buffer_add(&s->head, data, take)) return SESSION_CLOSE;
    /* the blank line may straddle the reads: search from 3 bytes back */
    size_t from = before > 3 ? before - 3 : 0;
    uint8_t *end = memmem(s->head.data + from, s->head.len - from, "\r\n\r\n", 4);
    if (!end) {
        if (s->head.len <= s->sh->max_header) return SESSION_KEEP;
        s->host->ops->sample(s->host, s->head.data, s->head.len);
        event(s, CONN_EVENT_WS_REFUSED, WS_REFUSED_HEAD_TOO_LARGE);
        return SESSION_CLOSE;
    }
    size_t head_len = (size_t)(end - s->head.data) + 4;
    end[2] = '\0';
    unsigned refusal = upgrade_refusal(s, (const char *)s->head.data);
    if (refusal) {
        s->host->ops->sample(s->host, s->head.data, head_len);
        event(s, CONN_EVENT_WS_REFUSED, refusal);
        return SESSION_CLOSE;
    }
    event(s, CONN_EVENT_WS_UPGRADED, 0);
    s->state = WS_OPEN;
    size_t used = head_len - before;
    return frames(s, data + used, len - used);
}

/* ---- frames from the server ---- */

static void on_data(void *user, enum ws_opcode opcode, uint64_t offset, const uint8_t *piece, size_t len)
{
    struct ws_session *s = user;
    const struct ws_shared *sh = s->sh;
    (void)opcode;
    if (s->echo_bad) return;
    if (offset + len > sh->payload_len || memcmp(sh->payload + offset, piece, len) != 0) s->echo_bad = true;
}

static void on_message(void *user, enum ws_opcode opcode, uint64_t length)
{
    struct ws_session *s = user;
    if (s->state == WS_CLOSING) return; /* the echo of a message already failed (timed out) */
    bool bad = s->echo_bad || opcode != s->sh->opcode || length != s->sh->payload_len;
    s->echo_bad = false;
    if (s->inflight == 0) {
        event(s, CONN_EVENT_WS_PROTOCOL_ERROR, WS_FAULT_UNSOLICITED);
        return;
    }
    struct req_ctx ctx = pop(s);
    if (bad) {
        event(s, CONN_EVENT_WS_PROTOCOL_ERROR, WS_FAULT_ECHO_MISMATCH);
        report(s, &ctx, outcome_error(REQ_ERR_PROTOCOL, DETAIL_NONE, s->now_us));
    } else {
        report(s, &ctx, outcome_response(WS_ECHO_STATUS, length, s->now_us));
    }
}

static void on_control(void *user, enum ws_opcode opcode, const uint8_t *payload, size_t len, uint16_t code)
{
    struct ws_session *s = user;
    if (opcode == WS_PING) {
        if (!s->close_sent) queue_frame(s, WS_PONG, payload, len);
        event(s, CONN_EVENT_WS_PING, 0);
        return;
    }
    if (opcode != WS_CLOSE) return; /* a pong: nothing asked for it, nothing to do */
    if (!s->close_sent) { /* the server closes: its close is echoed, what was in flight is lost */
        event(s, CONN_EVENT_WS_CLOSED_BY_SERVER, code);
        fail_all(s, REQ_ERR_READ, DETAIL_CLOSED_MID_RESPONSE, false);
        uint8_t echo[2] = {(uint8_t)(code >> 8), (uint8_t)code};
        queue_frame(s, WS_CLOSE, echo, code == WS_CODE_NONE ? 0 : 2);
        s->close_sent = true;
    }
    s->state = WS_DONE;
    s->parser.error = WS_ERR_KINDS; /* nothing after a close counts: stop parsing */
}

static const struct ws_handler handler = {on_data, on_message, on_control};

static enum session_verdict frames(struct ws_session *s, const uint8_t *data, size_t len)
{
    if (s->state == WS_DONE) return SESSION_KEEP;
    enum ws_error e = ws_parse(&s->parser, data, len, &handler, s);
    if (s->state == WS_DONE) return s->out.len || s->handed.len ? SESSION_KEEP : SESSION_CLOSE;
    if (e == WS_OK) return SESSION_KEEP;
    s->host->ops->sample(s->host, data, len);
    return protocol_error(s, e, ws_error_close_code(e));
}

/* ---- session operations ---- */

static void ws_on_connect(struct session *base, uint64_t now)
{
    struct ws_session *s = (struct ws_session *)base;
    uint8_t nonce[16];
    char key[32];
    for (int i = 0; i < 2; i++) {
        uint64_t r = rng_next(&s->rng);
        memcpy(nonce + 8 * i, &r, 8);
    }
    EVP_EncodeBlock((uint8_t *)key, nonce, sizeof nonce);
    accept_of(key, s->accept);
    s->state = WS_UPGRADING;
    s->since_us = s->now_us = now;
    s->head.len = s->out.len = s->handed.len = 0;
    s->head_at = s->inflight = 0;
    s->sent_on_connection = 0;
    s->echo_bad = s->close_sent = false;
    ws_parser_init(&s->parser, s->sh->max_message);
    char tail[80];
    int n = snprintf(tail, sizeof tail, "Sec-WebSocket-Key: %s\r\n\r\n", key);
    if (!buffer_add(&s->out, s->sh->upgrade, strlen(s->sh->upgrade)) || !buffer_add(&s->out, tail, (size_t)n))
        s->state = WS_DONE;
}

static unsigned ws_capacity(struct session *base)
{
    struct ws_session *s = (struct ws_session *)base;
    if (s->state != WS_OPEN || s->inflight >= s->sh->pipeline) return 0;
    if (s->sh->per_connection && s->sent_on_connection >= s->sh->per_connection) return 0;
    return s->sh->pipeline - s->inflight;
}

static unsigned ws_submit(struct session *base, const struct request *req, const struct req_ctx *ctx)
{
    struct ws_session *s = (struct ws_session *)base;
    (void)req;
    if (!queue_frame(s, s->sh->opcode, s->sh->payload, s->sh->payload_len)) {
        report(s, ctx, outcome_error(REQ_ERR_WRITE, DETAIL_NONE, ctx->sent_us));
        return 0;
    }
    unsigned at = s->head_at + s->inflight;
    s->ring[at >= s->sh->pipeline ? at - s->sh->pipeline : at] = *ctx;
    s->inflight++;
    s->sent_on_connection++;
    return ws_capacity(base);
}

static enum session_verdict ws_on_read(struct session *base, const uint8_t *data, size_t len, uint64_t now)
{
    struct ws_session *s = (struct ws_session *)base;
    s->now_us = now;
    enum session_verdict v = s->state == WS_UPGRADING ? upgrade_read(s, data, len) : frames(s, data, len);
    /* --requests-per-connection: the client closes once the last echo is in */
    if (v == SESSION_KEEP && s->state == WS_OPEN && s->inflight == 0 && s->sh->per_connection &&
        s->sent_on_connection >= s->sh->per_connection)
        start_close(s, 1000);
    return v;
}

static size_t ws_next_write(struct session *base, const uint8_t **data, uint64_t now)
{
    struct ws_session *s = (struct ws_session *)base;
    (void)now;
    struct buffer done = s->handed;
    s->handed = s->out;
    s->out = done;
    s->out.len = 0;
    *data = s->handed.data;
    return s->handed.len;
}

static enum session_verdict ws_on_tick(struct session *base, uint64_t now)
{
    struct ws_session *s = (struct ws_session *)base;
    s->now_us = now;
    switch (s->state) {
    case WS_UPGRADING:
        if (now - s->since_us < s->sh->timeout_us) return SESSION_KEEP;
        event(s, CONN_EVENT_WS_PROTOCOL_ERROR, WS_FAULT_UPGRADE_TIMEOUT);
        return SESSION_CLOSE;
    case WS_OPEN:
        if (s->inflight == 0 || now - oldest(s)->sent_us < s->sh->timeout_us) return SESSION_KEEP;
        /* an echo that is late holds up every one behind it */
        fail_all(s, REQ_ERR_TIMEOUT, DETAIL_NONE, false);
        start_close(s, 1000);
        return SESSION_KEEP;
    case WS_CLOSING: /* the server never answered the close */
        return now - s->since_us < s->sh->timeout_us ? SESSION_KEEP : SESSION_CLOSE;
    default: return SESSION_CLOSE;
    }
}

static void ws_on_close(struct session *base, enum close_cause cause, uint64_t now)
{
    struct ws_session *s = (struct ws_session *)base;
    s->now_us = now;
    bool peer = cause != CLOSE_ABORT && cause != CLOSE_LOCAL;
    if (peer && s->state == WS_OPEN) event(s, CONN_EVENT_WS_CLOSED_BY_SERVER, WS_CODE_ABNORMAL);
    if (peer && s->state == WS_UPGRADING) event(s, CONN_EVENT_WS_REFUSED, WS_REFUSED_CLOSED);
    switch (cause) {
    case CLOSE_ABORT: fail_all(s, REQ_ERR_READ, DETAIL_NONE, true); break;
    case CLOSE_WRITE_ERROR: fail_all(s, REQ_ERR_WRITE, DETAIL_NONE, false); break;
    default: fail_all(s, REQ_ERR_READ, DETAIL_CLOSED_MID_RESPONSE, false);
    }
    s->state = WS_DONE;
}

static void ws_free(struct session *base)
{
    struct ws_session *s = (struct ws_session *)base;
    buffer_free(&s->head);
    buffer_free(&s->out);
    buffer_free(&s->handed);
    free(s->ring);
    free(s);
}

static const struct session_ops ws_ops = {
    .on_connect = ws_on_connect,
    .capacity = ws_capacity,
    .submit = ws_submit,
    .on_read = ws_on_read,
    .next_write = ws_next_write,
    .on_tick = ws_on_tick,
    .on_close = ws_on_close,
    .free = ws_free,
};

static struct session *ws_session_new(const void *shared, struct session_host *host)
{
    struct ws_session *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->base.ops = &ws_ops;
    s->sh = shared;
    s->host = host;
    uint64_t seed;
    if (getrandom(&seed, sizeof seed, 0) != sizeof seed) seed = (uint64_t)(uintptr_t)s;
    rng_seed(&s->rng, seed);
    s->ring = calloc(s->sh->pipeline, sizeof *s->ring);
    if (!s->ring) {
        ws_free(&s->base);
        return NULL;
    }
    return &s->base;
}

const struct protocol ws_protocol = {
    .name = "websocket",
    .shared_new = ws_shared_new,
    .shared_free = ws_shared_free,
    .session_new = ws_session_new,
};
