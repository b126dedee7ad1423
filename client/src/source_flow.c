/* source_flow: requests from a flow (--flow FILE, flow.h): virtual users,
 * each running the chain's steps in order, again and again.
 *
 * Users and connections: the run's --users are dealt to the threads (user N,
 * from 1, to thread (N - 1) mod T) and, in a thread, to its connections in
 * turn; a user stays on its connection (its requests are the connection's,
 * so HTTP/2 and HTTP/3 multiplex a connection's users). Each connection keeps
 * a line of its users that are ready to send their next step; next() takes
 * the first. A user waits for its step's answer before its next step (and
 * for its think time after it: delay() holds the connection until the first
 * thinking user is ready). When no user of the connection is ready, next()
 * returns NULL with the source still running: the connection waits for an
 * answer or its delay (source.h).
 *
 * Each user writes its request (target, header values and body with the
 * variables written out) into its own buffers, which stay as they are until
 * the request's outcome: a user has one request in flight at most. Memory
 * follows what is in flight, not the users: a body without variables is sent
 * from the flow's one copy (HTTP/2, HTTP/3; HTTP/1.1 copies it into the
 * request's text, through the thread's scratch buffer, not the user's), and a
 * user's buffers over FLOW_USER_KEEP bytes are freed at the request's outcome.
 *
 * The outcome of a step: a response goes through expected() (the step's
 * `expect` lines, else --expect-status) before the worker counts it; then its
 * captures are taken; a capture that finds nothing ends the user's iteration
 * (counted in stats.flow.capture_failed), as does an error (flow.broken); the
 * last step's answer completes it (flow.completed). A refused request (HTTP/2
 * REFUSED_STREAM) is sent again: the user's line keeps it first.
 *
 * With --jwt-key each request carries a token of the thread's ring of
 * cfg->setup.jwt_pool (jwtpool.h) in its own header field (as source_gen's
 * requests do), unless the step sets that field itself. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "flow.h"
#include "flowvars.h"
#include "jwtpool.h"
#include "monotonic.h"
#include "rng.h"
#include "source.h"
#include "stats.h"
#include "url.h"

struct flow_shared {
    const struct config *cfg;
    struct flow flow;
    char authority[300]; /* the URL's, or a -H Host's */
    size_t max_headers;  /* the most header fields a request of the flow can have */
};

struct flow_user {
    struct flow_user *next; /* in its connection's ready line or thinking list */
    unsigned number;        /* from 1, over the run */
    unsigned conn;
    size_t step;            /* the step to send (or in flight) */
    uint64_t seq;           /* its iteration, from 0 */
    uint64_t ready_at;      /* thinking: when its next step may go */
    uint64_t ready_us;      /* when it became ready to send its step; 0: not known (its first) */
    uint64_t iteration_us;  /* when its iteration's first step became ready (or was sent) */
    uint64_t wait_us;       /* its request in flight: ready to handed out; UINT64_MAX: not known */
    struct flowvars_buf *values; /* owned: per captured variable */
    /* the request in flight: its bytes live here until its outcome */
    struct flowvars_buf text, target, piece, body, strings, scratch;
    struct flowvars_buf pattern; /* an `expect body ~` with variables, written out */
    nghttp2_nv *nva;        /* owned: max_headers + 5 fields */
    size_t *field_at;       /* owned: offsets of names and values in strings */
};

/* A user keeps buffers up to this size from request to request (reused);
 * larger ones (a big body) are freed at the outcome. */
#define FLOW_USER_KEEP ((size_t)64 << 10)

struct flow_conn {
    struct flow_user *head, *tail; /* ready, in order */
    struct flow_user *thinking;    /* waiting for their think time, any order */
};

struct flow_source {
    struct source base;
    const struct flow_shared *sh;
    unsigned thread;         /* its ring of the token pool */
    bool h2;                 /* header fields (HTTP/2, HTTP/3), else HTTP/1.1 text */
    struct rng rng;
    struct flow_user *users; /* owned */
    size_t user_count;
    struct flow_conn *conns; /* owned */
    unsigned conn_count;
    struct flowvars_buf body; /* HTTP/1.1: a body written out before it joins the request's text */
    struct request req;      /* what next() returns */
};

/* ---- shared ---- */

static void flow_shared_free(void *shared)
{
    struct flow_shared *sh = shared;
    if (!sh) return;
    flow_free(&sh->flow);
    free(sh);
}

/* Every --fail-on STEP.STAT names a step of the flow: 0, or -1 with err
 * naming the item and the steps there are. */
static int flow_check_steps_named(const struct flow *flow, const struct config *cfg, char *err, size_t errlen)
{
    for (unsigned i = 0; i < cfg->fail_on.count; i++) {
        const struct threshold *t = &cfg->fail_on.items[i];
        bool found = !t->step_len;
        for (size_t s = 0; s < flow->count && !found; s++)
            found = strlen(flow->steps[s].name) == t->step_len && !memcmp(flow->steps[s].name, t->figure, t->step_len);
        if (found) continue;
        size_t at = (size_t)snprintf(err, errlen, "--fail-on '%s': the flow has no step '%.*s' (name one with a "
                                     "'step NAME' line); its steps:", t->text, (int)t->step_len, t->figure);
        for (size_t s = 0; s < flow->count && at < errlen; s++)
            at += (size_t)snprintf(err + at, errlen - at, "%s '%s'", s ? "," : "", flow->steps[s].name);
        return -1;
    }
    return 0;
}

static void *flow_shared_new(const struct config *cfg, char *err, size_t errlen)
{
    struct flow_shared *sh = calloc(1, sizeof *sh);
    if (!sh) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    sh->cfg = cfg;
    if (flow_load(&sh->flow, cfg->flow_file, err, errlen) || flow_check_steps_named(&sh->flow, cfg, err, errlen)) {
        flow_free(&sh->flow);
        free(sh);
        return NULL;
    }
    const char *host = config_header(cfg, "host");
    if (host) snprintf(sh->authority, sizeof sh->authority, "%s", host);
    else url_authority(cfg->host, cfg->port, cfg->tls, sh->authority, sizeof sh->authority);
    for (size_t i = 0; i < sh->flow.count; i++)
        if (sh->flow.steps[i].header_count > sh->max_headers) sh->max_headers = sh->flow.steps[i].header_count;
    sh->max_headers += cfg->header_count + 1; /* and --jwt-key's */
    return sh;
}

/* ---- the users' lines ---- */

static void flow_ready(struct flow_conn *c, struct flow_user *u, bool first)
{
    u->next = NULL;
    if (first && c->head) {
        u->next = c->head;
        c->head = u;
    } else if (c->tail) {
        c->tail->next = u;
        c->tail = u;
    } else {
        c->head = c->tail = u;
    }
}

/* Moves the thinking users whose time has come to the ready line; the
 * earliest time still to come (UINT64_MAX: none). */
static uint64_t flow_wake(struct flow_conn *c, uint64_t now)
{
    uint64_t earliest = UINT64_MAX;
    for (struct flow_user **p = &c->thinking; *p;) {
        struct flow_user *u = *p;
        if (u->ready_at <= now) {
            *p = u->next;
            u->ready_us = u->ready_at;
            flow_ready(c, u, false);
        } else {
            if (u->ready_at < earliest) earliest = u->ready_at;
            p = &u->next;
        }
    }
    return earliest;
}

/* ---- one request, written for its user ---- */

static bool flow_step_sets(const struct flow_step *st, const char *name, size_t len)
{
    for (size_t i = 0; i < st->header_count; i++)
        if (strlen(st->headers[i].name) == len && !strncasecmp(st->headers[i].name, name, len)) return true;
    return false;
}

/* Header fields HTTP/2 forbids (RFC 9113 8.2.2) or carries as pseudo-headers. */
static bool flow_h2_dropped(const char *name, size_t len)
{
    static const char *const names[] = {"connection", "keep-alive", "proxy-connection", "transfer-encoding",
                                        "upgrade", "host"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i]) == len && !strncasecmp(names[i], name, len)) return true;
    return false;
}

/* One header field into the user's request: a line of text, or a field's
 * name (lower case) and value into strings, their offsets noted. */
static int flow_field(struct flow_source *s, struct flow_user *u, size_t *n, const char *name, size_t name_len,
                      const char *value, size_t value_len)
{
    if (!s->h2) {
        return flowvars_append(&u->text, name, name_len) || flowvars_append(&u->text, ": ", 2) ||
               flowvars_append(&u->text, value, value_len) || flowvars_append(&u->text, "\r\n", 2);
    }
    if (name[0] != ':' && flow_h2_dropped(name, name_len)) return 0;
    size_t at = u->strings.len;
    if (flowvars_append(&u->strings, name, name_len) || flowvars_append(&u->strings, "", 1)) return -1;
    for (size_t i = 0; i < name_len; i++) u->strings.p[at + i] = (char)tolower((unsigned char)u->strings.p[at + i]);
    size_t v = u->strings.len;
    if (flowvars_append(&u->strings, value, value_len) || flowvars_append(&u->strings, "", 1)) return -1;
    u->field_at[*n * 4] = at, u->field_at[*n * 4 + 1] = name_len;
    u->field_at[*n * 4 + 2] = v, u->field_at[*n * 4 + 3] = value_len;
    (*n)++;
    return 0;
}

/* --jwt-key's field (name and prefix + the thread's next token) unless the
 * step sets that field; 0, 1 (no token: the source failed), -1 (memory). */
static int flow_token(struct flow_source *s, struct flow_user *u, const struct flow_step *st, size_t *n)
{
    const struct config *cfg = s->sh->cfg;
    if (!cfg->setup.jwt_pool || flow_step_sets(st, cfg->jwt_name, strlen(cfg->jwt_name))) return 0;
    size_t len;
    const char *token = jwtpool_take(cfg->setup.jwt_pool, s->thread, &len);
    if (!token) return 1;
    u->piece.len = 0;
    if (flowvars_append(&u->piece, cfg->jwt_prefix, strlen(cfg->jwt_prefix)) || flowvars_append(&u->piece, token, len))
        return -1;
    return flow_field(s, u, n, cfg->jwt_name, strlen(cfg->jwt_name), u->piece.p, u->piece.len) ? -1 : 0;
}

/* The -H fields the step does not set itself (cli.c refuses one of --jwt-key's name), then the step's own. */
static int flow_headers(struct flow_source *s, struct flow_user *u, const struct flow_step *st,
                        const struct flowvars_env *env, size_t *n)
{
    const struct config *cfg = s->sh->cfg;
    for (unsigned i = 0; i < cfg->header_count; i++) {
        const char *h = cfg->headers[i], *colon = strchr(h, ':'), *v = colon + 1;
        size_t name_len = (size_t)(colon - h);
        if (flow_step_sets(st, h, name_len) || (name_len == 4 && !strncasecmp(h, "host", 4))) continue;
        while (*v == ' ' || *v == '\t') v++;
        if (flow_field(s, u, n, h, name_len, v, strlen(v))) return -1;
    }
    for (size_t i = 0; i < st->header_count; i++) {
        const struct flow_header *h = &st->headers[i];
        u->piece.len = 0;
        if (flowvars_expand(&h->value, env, &u->piece)) return -1;
        if (strlen(h->name) == 4 && !strncasecmp(h->name, "host", 4)) continue; /* the authority, below */
        if (flow_field(s, u, n, h->name, strlen(h->name), u->piece.p ? u->piece.p : "", u->piece.len)) return -1;
    }
    return 0;
}

/* The step's Host field, written out, else the shared authority. */
static int flow_authority(struct flow_user *u, const struct flow_shared *sh, const struct flow_step *st,
                          const struct flowvars_env *env)
{
    u->scratch.len = 0;
    for (size_t i = 0; i < st->header_count; i++)
        if (strlen(st->headers[i].name) == 4 && !strncasecmp(st->headers[i].name, "host", 4))
            return flowvars_expand(&st->headers[i].value, env, &u->scratch);
    return flowvars_append(&u->scratch, sh->authority, strlen(sh->authority));
}

/* A body with no variable: the same bytes for every request. */
static bool flow_body_constant(const struct flow_template *t)
{
    for (size_t i = 0; i < t->part_count; i++)
        if (t->parts[i].kind != FLOW_LITERAL) return false;
    return true;
}

/* The step's body written out: the flow's own bytes when constant (HTTP/2,
 * HTTP/3 send them from there), else into the user's buffer (HTTP/2, HTTP/3:
 * kept until the outcome) or the thread's (HTTP/1.1: copied into the text);
 * *body and *len name it. 0 or -1 (memory). */
static int flow_body(struct flow_source *s, struct flow_user *u, const struct flow_step *st,
                     const struct flowvars_env *env, const char **body, size_t *len)
{
    *body = "", *len = 0;
    if (!st->has_body) return 0;
    if (flow_body_constant(&st->body) && st->body.part_count) {
        const struct flow_part *p = &st->body.parts[0];
        *body = st->body.text + p->off, *len = p->len;
        return 0;
    }
    struct flowvars_buf *into = s->h2 ? &u->body : &s->body;
    into->len = 0;
    if (flowvars_expand(&st->body, env, into)) return -1;
    *body = into->p ? into->p : "", *len = into->len;
    return 0;
}

static bool flow_sends_length(const struct flow_step *st)
{
    return st->has_body || !strcmp(st->method, "POST") || !strcmp(st->method, "PUT") || !strcmp(st->method, "PATCH");
}

/* Writes user u's current step: the HTTP/1.1 text or the HTTP/2 fields and
 * body; 0, -1 when out of memory, 1 when no token could be signed. */
static int flow_write(struct flow_source *s, struct flow_user *u)
{
    const struct flow_shared *sh = s->sh;
    const struct config *cfg = sh->cfg;
    const struct flow_step *st = &sh->flow.steps[u->step];
    struct flowvars_env env = {.flow = &sh->flow, .user = u->number, .seq = u->seq, .values = u->values, .rng = &s->rng};
    u->text.len = u->target.len = u->piece.len = u->body.len = u->strings.len = 0;
    const char *body;
    size_t body_len;
    if (flowvars_expand(&st->target, &env, &u->piece) ||
        flowvars_target(u->piece.p ? u->piece.p : "", u->piece.len, &u->target) ||
        flow_body(s, u, st, &env, &body, &body_len) || flow_authority(u, sh, st, &env))
        return -1;
    char length[24];
    int length_len = snprintf(length, sizeof length, "%zu", body_len);
    bool sends_length = flow_sends_length(st) && !flow_step_sets(st, "content-length", 14) && !config_header(cfg, "content-length");
    size_t n = 0;
    int token = 0;
    if (!s->h2) {
        if (flowvars_append(&u->text, st->method, strlen(st->method)) || flowvars_append(&u->text, " ", 1) ||
            flowvars_append(&u->text, u->target.p, u->target.len) || flowvars_append(&u->text, " HTTP/1.1\r\n", 11) ||
            flow_field(s, u, &n, "Host", 4, u->scratch.p, u->scratch.len) || flow_headers(s, u, st, &env, &n) ||
            (token = flow_token(s, u, st, &n)) ||
            (sends_length && flow_field(s, u, &n, "Content-Length", 14, length, (size_t)length_len)) ||
            (!cfg->keepalive && !config_header(cfg, "connection") && !flow_step_sets(st, "connection", 10) &&
             flow_field(s, u, &n, "Connection", 10, "close", 5)) ||
            flowvars_append(&u->text, "\r\n", 2) || flowvars_append(&u->text, body, body_len))
            return token ? token : -1;
        s->req = (struct request){.text = (const uint8_t *)u->text.p, .text_len = u->text.len, .copies = 1,
                                  .head = !strcmp(st->method, "HEAD")};
    } else {
        const char *scheme = cfg->tls ? "https" : "http";
        if (flow_field(s, u, &n, ":method", 7, st->method, strlen(st->method)) ||
            flow_field(s, u, &n, ":scheme", 7, scheme, strlen(scheme)) ||
            flow_field(s, u, &n, ":authority", 10, u->scratch.p, u->scratch.len) ||
            flow_field(s, u, &n, ":path", 5, u->target.p, u->target.len) || flow_headers(s, u, st, &env, &n) ||
            (token = flow_token(s, u, st, &n)) ||
            (sends_length && flow_field(s, u, &n, "content-length", 14, length, (size_t)length_len)))
            return token ? token : -1;
        for (size_t i = 0; i < n; i++) /* strings is final now: the fields point into it */
            u->nva[i] = (nghttp2_nv){.name = (uint8_t *)u->strings.p + u->field_at[i * 4], .namelen = u->field_at[i * 4 + 1],
                                     .value = (uint8_t *)u->strings.p + u->field_at[i * 4 + 2],
                                     .valuelen = u->field_at[i * 4 + 3],
                                     .flags = NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE};
        s->req = (struct request){.copies = 1, .head = !strcmp(st->method, "HEAD"), .fields = u->nva, .field_count = n,
                                  .body = (const uint8_t *)body, .body_len = body_len};
    }
    s->req.kind = (int)u->step;
    s->req.kind_name = st->name;
    s->req.source_data = (uintptr_t)u;
    s->req.user = u->number;
    s->req.iteration = u->seq;
    return 0;
}

/* ---- the source ---- */

static const struct request *flow_next(struct source *base, unsigned conn)
{
    struct flow_source *s = (struct flow_source *)base;
    struct flow_conn *c = &s->conns[conn];
    if (c->thinking) flow_wake(c, monotonic_now_us());
    struct flow_user *u = c->head;
    if (!u) return NULL; /* every user of the connection waits: an answer or a think time */
    if (!(c->head = u->next)) c->tail = NULL;
    uint64_t now = monotonic_now_us();
    u->wait_us = u->ready_us ? (now > u->ready_us ? now - u->ready_us : 0) : UINT64_MAX;
    if (u->step == 0) u->iteration_us = u->ready_us ? u->ready_us : now;
    int rc = flow_write(s, u);
    if (rc) {
        base->state = SOURCE_FAILED;
        base->error = rc > 0 ? "--jwt-key: signing a token failed" : "--flow: out of memory";
        return NULL;
    }
    return &s->req;
}

static uint64_t flow_delay(struct source *base, unsigned conn)
{
    struct flow_source *s = (struct flow_source *)base;
    struct flow_conn *c = &s->conns[conn];
    if (c->head || !c->thinking) return 0;
    uint64_t now = monotonic_now_us(), at = flow_wake(c, now);
    return c->head || at == UINT64_MAX ? 0 : at - now;
}

static bool flow_expected(struct source *base, unsigned conn, const struct req_ctx *ctx, const struct outcome *o)
{
    struct flow_source *s = (struct flow_source *)base;
    struct flow_user *u = (struct flow_user *)ctx->source_data;
    const struct flow_step *st = &s->sh->flow.steps[u->step];
    const struct config *cfg = s->sh->cfg;
    (void)conn;
    bool ok = st->expect_status ? expect_status_has(&st->status, o->status)
              : cfg->expect_status_set ? expect_status_has(&cfg->expect_status, o->status)
                                       : true;
    if (!ok || !st->expect_body) return ok;
    if (!o->response) return false;
    if (!st->body_pattern.part_count)
        return flowvars_matches(&st->body_re, o->response->body, o->response->body_len, &u->scratch);
    struct flowvars_env env = {.flow = &s->sh->flow, .user = u->number, .seq = u->seq, .values = u->values, .rng = &s->rng};
    return flowvars_matches_pattern(&st->body_pattern, &env, o->response->body, o->response->body_len, &u->pattern,
                                    &u->scratch) == 1;
}

/* The user's iteration ends (completed or not): the next begins at step 0. */
static void flow_restart(struct flow_user *u)
{
    u->step = 0;
    u->seq++;
}

/* Takes the step's captures; false when one found nothing (or memory ran out). */
static bool flow_captured(struct flow_user *u, const struct flow_step *st, const struct outcome *o)
{
    for (size_t i = 0; i < st->capture_count; i++)
        if (flowvars_capture(&st->captures[i], o->response, &u->values[st->captures[i].var]) != 1) return false;
    return true;
}

/* The user's request buffers once its request is done: a large one freed. */
static void flow_user_trim(struct flow_user *u)
{
    struct flowvars_buf *bufs[] = {&u->text, &u->target, &u->piece, &u->body, &u->strings, &u->scratch};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i]->cap > FLOW_USER_KEEP) flowvars_buf_free(bufs[i]);
}

static void flow_on_done(struct source *base, unsigned conn, const struct req_ctx *ctx, const struct outcome *o)
{
    struct flow_source *s = (struct flow_source *)base;
    struct flow_user *u = (struct flow_user *)ctx->source_data;
    struct flow_conn *c = &s->conns[conn];
    struct stats_flow *counts = ctx->measured && base->stats ? &base->stats->flow : NULL;
    const struct flow_step *st = &s->sh->flow.steps[u->step];
    if (o->kind == OUTCOME_ABORTED) return; /* the run has ended */
    if (o->kind == OUTCOME_REFUSED) {
        flow_ready(c, u, true); /* sent again, first */
        return;
    }
    flow_user_trim(u); /* after the refused case: a refused request is sent again as it is */
    if (counts && u->wait_us != UINT64_MAX) stats_flow_time(&counts->wait, u->wait_us);
    if (o->kind == OUTCOME_ERROR) {
        if (counts) counts->broken++;
        flow_restart(u);
    } else if (!flow_captured(u, st, o)) {
        if (counts) counts->capture_failed++;
        flow_restart(u);
    } else if (++u->step == s->sh->flow.count) {
        if (counts) {
            counts->completed++;
            stats_flow_time(&counts->iteration, o->now_us > u->iteration_us ? o->now_us - u->iteration_us : 0);
        }
        flow_restart(u);
    }
    if (st->think_us && o->kind == OUTCOME_RESPONSE) {
        u->ready_at = o->now_us + st->think_us;
        u->next = c->thinking;
        c->thinking = u;
    } else {
        u->ready_us = o->now_us;
        flow_ready(c, u, false);
    }
}

static void flow_source_free(struct source *base)
{
    struct flow_source *s = (struct flow_source *)base;
    for (size_t i = 0; s->users && i < s->user_count; i++) {
        struct flow_user *u = &s->users[i];
        for (size_t v = 0; u->values && v < s->sh->flow.var_count; v++) flowvars_buf_free(&u->values[v]);
        free(u->values);
        flowvars_buf_free(&u->text);
        flowvars_buf_free(&u->target);
        flowvars_buf_free(&u->piece);
        flowvars_buf_free(&u->body);
        flowvars_buf_free(&u->strings);
        flowvars_buf_free(&u->scratch);
        flowvars_buf_free(&u->pattern);
        free(u->nva);
        free(u->field_at);
    }
    free(s->users);
    free(s->conns);
    flowvars_buf_free(&s->body);
    free(s);
}

static const struct source_ops flow_ops = {
    .next = flow_next,
    .on_done = flow_on_done,
    .delay = flow_delay,
    .expected = flow_expected,
    .free = flow_source_free,
};

/* Thread thread's users (of the run's cfg->users over cfg->threads) on its connections. */
static int flow_users_new(struct flow_source *s, unsigned thread)
{
    const struct config *cfg = s->sh->cfg;
    unsigned threads = cfg->threads ? cfg->threads : 1;
    s->user_count = cfg->users / threads + (thread < cfg->users % threads);
    if (!s->user_count) return 0;
    if (!(s->users = calloc(s->user_count, sizeof *s->users))) return -1;
    size_t fields = s->sh->max_headers + 6;
    for (size_t i = 0; i < s->user_count; i++) {
        struct flow_user *u = &s->users[i];
        u->number = (unsigned)(i * threads + thread + 1);
        u->conn = (unsigned)(i % s->conn_count);
        u->values = calloc(s->sh->flow.var_count + 1, sizeof *u->values);
        u->nva = calloc(fields, sizeof *u->nva);
        u->field_at = calloc(fields * 4, sizeof *u->field_at);
        if (!u->values || !u->nva || !u->field_at) return -1;
        flow_ready(&s->conns[u->conn], u, false);
    }
    return 0;
}

static struct source *flow_source_new(const void *shared, unsigned thread, unsigned connections)
{
    const struct flow_shared *sh = shared;
    struct flow_source *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->sh = sh;
    s->thread = thread;
    s->base.ops = &flow_ops;
    s->base.wants_response = sh->flow.reads_body || sh->flow.checks_status;
    s->base.body_max = sh->flow.reads_body ? 0 : STATS_SAMPLE_LEN; /* statuses only: the example's start */
    s->h2 = sh->cfg->setup.h2 || sh->cfg->h3;
    s->conn_count = connections ? connections : 1;
    rng_seed(&s->rng, sh->cfg->setup.seed ^ ((uint64_t)thread + 1) * 0x9E3779B97F4A7C15ULL);
    if (!(s->conns = calloc(s->conn_count, sizeof *s->conns)) || flow_users_new(s, thread)) {
        flow_source_free(&s->base);
        return NULL;
    }
    return &s->base;
}

const struct source_type source_flow = {
    .name = "flow",
    .shared_new = flow_shared_new,
    .shared_free = flow_shared_free,
    .source_new = flow_source_new,
};
