/* source_script: requests from a wrk script (script.c, SCRIPTING.md). Each
 * worker thread uses the script state main made for it. Before each request
 * text the connection asks delay(); request() gives the text, which reqtext
 * splits into requests: on HTTP/1.1 the text goes out as written, with the
 * requests after the first marked as written in it (request.more), on HTTP/2
 * each request becomes a stream of its own, handed out one per next(), so a
 * connection with few free streams sends the rest later. response() gets each
 * final response (sessions collect them, ctx.collect) with the connection's
 * table. A script error fails the source (the run stops), thread:stop() stops
 * the thread.
 *
 * Parses are cached by the string's address and checked byte for byte, so a
 * script that returns prebuilt strings (even several in turn, as
 * scenarios/mixed.lua) costs a Lua call, a lookup and a memcmp per text, and
 * allocates nothing. Every request handed out holds a reference on its parse
 * (reqtext_hold) until its outcome, so the bytes it points to outlive the
 * cache entry and the Lua string.
 *
 * With --jwt-key each text is written again with a fresh token in each of its
 * requests (textfield.h: the header right after the request line, replacing
 * one of that name the script wrote) and parsed anew: a set of its own per
 * request() call, never cached, released when its last request ends. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jwtpool.h"
#include "reqtext.h"
#include "script.h"
#include "source.h"
#include "source_script.h"
#include "textfield.h"
#include "url.h"

#define CACHE_SLOTS 64 /* parses kept, by the address of the string they came from */
#define CACHE_WAYS 8   /* slots a string may be in: the ones after its hash's */
#define SOURCE_ERROR_MAX 1024

struct script_shared {
    struct script *script;
    const struct config *cfg;       /* its h2 and h3, known once the target answered (ALPN) */
    struct reqtext_h2_opts h2_opts; /* HTTP/2 only: the URL's scheme and authority */
    char authority[300];
};

/* One connection: its Lua table and the text whose requests are being handed out. */
struct script_conn_state {
    struct script_conn lua;
    struct reqtext_set *set; /* held; NULL when the next request needs a request() call */
    size_t next;             /* index in set of the next request to hand out */
    int kind;                /* of set's requests, -1: none */
    bool open;
};

struct cache_entry {
    const char *string; /* the address of the Lua string parsed: a hint, checked by memcmp */
    struct reqtext_set *set;
};

struct script_source {
    struct source base;
    const struct script_shared *sh;
    struct script_thread *t;
    unsigned thread;               /* the worker thread's index: its ring of --jwt-key tokens */
    struct script_conn_state *conns;
    unsigned conn_count;
    struct request req;            /* what next() returns */
    bool h2;                       /* header fields, not text: HTTP/2 (ALPN's or --h2) or HTTP/3 */
    struct reqtext_set *default_set; /* no request() function: wrk's default request, parsed once */
    struct cache_entry cache[CACHE_SLOTS];
    unsigned evict;                /* which of a string's slots a miss takes when all are used */
    char error[SOURCE_ERROR_MAX];  /* a bad request text (other errors are the script's) */
};

/* ---- shared ---- */

static void script_shared_free(void *shared)
{
    free(shared);
}

static void *script_shared_new(const struct config *cfg, char *err, size_t errlen)
{
    struct script_shared *sh = calloc(1, sizeof *sh);
    if (!sh || !cfg->setup.script) {
        snprintf(err, errlen, "%s", sh ? "no script loaded" : "out of memory");
        free(sh);
        return NULL;
    }
    sh->script = cfg->setup.script;
    sh->cfg = cfg;
    /* a request without Host gets the URL's authority, as the static request does */
    url_authority(cfg->host, cfg->port, cfg->tls, sh->authority, sizeof sh->authority);
    sh->h2_opts = (struct reqtext_h2_opts){.scheme = cfg->tls ? "https" : "http", .authority = sh->authority};
    return sh;
}

/* ---- errors and stops ---- */

/* The script failed: its message (callback, Lua's message, traceback). */
static void script_failed(struct script_source *s)
{
    s->base.state = SOURCE_FAILED;
    s->base.error = script_thread_error(s->t);
}

/* After a callback: thread:stop() ends the thread's run. */
static bool stopped(struct script_source *s)
{
    if (!script_thread_stopped(s->t)) return false;
    if (s->base.state == SOURCE_RUNNING) s->base.state = SOURCE_STOP;
    return true;
}

/* ---- request texts ---- */

/* The first of the CACHE_WAYS slots a string may be in. */
static unsigned cache_home(const char *string)
{
    return (unsigned)(((uint64_t)(uintptr_t)string * 0x9E3779B97F4A7C15ULL) >> 58) % CACHE_SLOTS;
}

/* The slot for text: the one holding its parse, else a free one, else one to evict (*hit false). */
static struct cache_entry *cache_slot(struct script_source *s, const char *text, size_t len, bool *hit)
{
    unsigned home = cache_home(text);
    struct cache_entry *free_slot = NULL;
    for (unsigned i = 0; i < CACHE_WAYS; i++) {
        struct cache_entry *e = &s->cache[(home + i) % CACHE_SLOTS];
        if (!e->set) {
            if (!free_slot) free_slot = e;
        } else if (e->string == text && e->set->len == len && memcmp(e->set->text, text, len) == 0) {
            *hit = true;
            return e;
        }
    }
    *hit = false;
    return free_slot ? free_slot : &s->cache[(home + s->evict++ % CACHE_WAYS) % CACHE_SLOTS];
}

/* The parse of text (a Lua string at that address), from the cache or new;
 * borrowed (the cache holds it). NULL with the source failed. */
static struct reqtext_set *parse(struct script_source *s, const char *text, size_t len)
{
    bool hit;
    struct cache_entry *e = cache_slot(s, text, len, &hit);
    if (hit) return e->set;
    struct reqtext_error err;
    struct reqtext_set *set = reqtext_parse(text, len, s->h2 ? &s->sh->h2_opts : NULL, &err);
    if (!set) {
        int n = snprintf(s->error, sizeof s->error, "request(): the text it returned is not a request barrage can "
                                                    "send: ");
        reqtext_error_format(&err, s->error + n, sizeof s->error - (size_t)n);
        s->base.state = SOURCE_FAILED;
        s->base.error = s->error;
        return NULL;
    }
    reqtext_release(e->set); /* requests in flight hold their own references */
    *e = (struct cache_entry){text, set};
    return set;
}

/* --jwt-key: request i's token, the thread's next one (textfield_value_fn). */
static const char *token_take(void *ctx, size_t i, size_t *len)
{
    struct script_source *s = ctx;
    (void)i;
    return jwtpool_take(s->sh->cfg->setup.jwt_pool, s->thread, len);
}

/* --jwt-key: set's text with a fresh token in each request, parsed: a set of
 * its own (one reference, the caller's). NULL with the source failed. */
static struct reqtext_set *with_tokens(struct script_source *s, const struct reqtext_set *set)
{
    const struct config *cfg = s->sh->cfg;
    const struct textfield field = {.name = cfg->jwt_name, .prefix = cfg->jwt_prefix};
    size_t len;
    char *text = textfield_write(set, &field, token_take, s, &len);
    struct reqtext_error err;
    struct reqtext_set *own = text ? reqtext_parse(text, len, s->h2 ? &s->sh->h2_opts : NULL, &err) : NULL;
    free(text);
    if (own) return own;
    if (text) {
        int n = snprintf(s->error, sizeof s->error, "--jwt-key: the text with its token is not a request: ");
        reqtext_error_format(&err, s->error + n, sizeof s->error - (size_t)n);
    } else {
        snprintf(s->error, sizeof s->error, "--jwt-key: signing a token failed (or out of memory)");
    }
    s->base.state = SOURCE_FAILED;
    s->base.error = s->error;
    return NULL;
}

/* Calls request() (once for wrk's default request) and makes its parse the
 * connection's text (with --jwt-key: its own copy with tokens); -1 when the
 * source stopped or failed. */
static int fetch(struct script_source *s, struct script_conn_state *c)
{
    if (stopped(s)) return -1;
    struct reqtext_set *set = s->default_set;
    int kind = -1;
    if (!set) {
        struct script_request r;
        if (script_request(s->t, c->open ? &c->lua : NULL, &r)) {
            script_failed(s);
            return -1;
        }
        if (stopped(s) || !(set = parse(s, r.data, r.len))) return -1;
        kind = (int)r.kind - 1;
        if (script_is_static(s->t)) {
            s->default_set = set;
            reqtext_hold(set);
        }
    }
    if (s->sh->cfg->setup.jwt_pool) {
        if (!(set = with_tokens(s, set))) return -1;
    } else {
        reqtext_hold(set);
    }
    reqtext_release(c->set);
    c->set = set;
    c->next = 0;
    c->kind = kind;
    return 0;
}

static bool is_head(const struct reqtext_request *r)
{
    return r->method.len == 4 && memcmp(r->method.ptr, "HEAD", 4) == 0;
}

/* The connection's next request of its text, holding the text for it. */
static const struct request *give(struct script_source *s, struct script_conn_state *c)
{
    struct reqtext_set *set = c->set;
    size_t i = c->next++;
    const struct reqtext_request *r = &set->requests[i];
    struct request *req = &s->req;
    *req = (struct request){.copies = 1, .head = is_head(r), .kind = c->kind, .source_data = (uintptr_t)set};
    if (c->kind >= 0) req->kind_name = script_kind_name(s->t, (unsigned)c->kind + 1);
    if (s->h2) {
        req->fields = set->h2[i].nva;
        req->field_count = set->h2[i].nvlen;
        req->body = r->body;
        req->body_len = r->body_len;
    } else {
        /* the text goes out as written, with the first of its requests */
        req->text = (const uint8_t *)set->text;
        req->text_len = i == 0 ? set->len : 0;
        req->more = c->next < set->count;
    }
    reqtext_hold(set);
    return req;
}

/* ---- the source ---- */

static const struct request *script_next(struct source *base, unsigned conn)
{
    struct script_source *s = (struct script_source *)base;
    struct script_conn_state *c = &s->conns[conn];
    /* the rest of a text first: on HTTP/1.1 it was written with the first */
    if (c->set && c->next < c->set->count) return give(s, c);
    if (base->state != SOURCE_RUNNING || fetch(s, c)) return NULL;
    return give(s, c);
}

static uint64_t script_delay_us(struct source *base, unsigned conn)
{
    struct script_source *s = (struct script_source *)base;
    struct script_conn_state *c = &s->conns[conn];
    uint64_t us = 0;
    if (c->set && c->next < c->set->count) return 0; /* the rest of a text: no new request() call */
    if (script_delay(s->t, c->open ? &c->lua : NULL, &us)) script_failed(s);
    else stopped(s);
    return us;
}

static void script_on_done(struct source *base, unsigned conn, const struct req_ctx *ctx, const struct outcome *o)
{
    struct script_source *s = (struct script_source *)base;
    struct script_conn_state *c = &s->conns[conn];
    const struct response_data *r = o->response;
    if (r && base->state == SOURCE_RUNNING) {
        if (script_response(s->t, c->open ? &c->lua : NULL, o->status, r->headers, r->header_count,
                            (const char *)r->body, r->body_len))
            script_failed(s);
        else stopped(s);
    }
    reqtext_release((struct reqtext_set *)ctx->source_data);
}

static void script_conn_opened(struct source *base, unsigned conn)
{
    struct script_source *s = (struct script_source *)base;
    struct script_conn_state *c = &s->conns[conn];
    script_conn_open(s->t, &c->lua);
    c->open = true;
}

static void script_conn_closed(struct source *base, unsigned conn)
{
    struct script_source *s = (struct script_source *)base;
    struct script_conn_state *c = &s->conns[conn];
    if (c->open) script_conn_close(s->t, &c->lua);
    c->open = false;
    reqtext_release(c->set); /* the rest of a text is not sent */
    c->set = NULL;
}

static void script_source_free(struct source *base)
{
    struct script_source *s = (struct script_source *)base;
    for (unsigned i = 0; s->conns && i < s->conn_count; i++) script_conn_closed(base, i);
    for (unsigned i = 0; i < CACHE_SLOTS; i++) reqtext_release(s->cache[i].set);
    reqtext_release(s->default_set);
    free(s->conns);
    free(s);
}

static const struct source_ops script_ops = {
    .next = script_next,
    .on_done = script_on_done,
    .delay = script_delay_us,
    .conn_open = script_conn_opened,
    .conn_close = script_conn_closed,
    .free = script_source_free,
};

/* Without delay() the worker never asks. */
static const struct source_ops script_ops_no_delay = {
    .next = script_next,
    .on_done = script_on_done,
    .conn_open = script_conn_opened,
    .conn_close = script_conn_closed,
    .free = script_source_free,
};

static struct source *script_source_new(const void *shared, unsigned thread, unsigned connections)
{
    const struct script_shared *sh = shared;
    struct script_thread *t = script_thread_at(sh->script, thread);
    struct script_source *s = calloc(1, sizeof *s);
    if (!t || !s) {
        free(s);
        return NULL;
    }
    s->sh = sh;
    s->t = t;
    s->thread = thread;
    s->h2 = sh->cfg->setup.h2 || sh->cfg->h3; /* HTTP/3 sends the same header fields */
    s->conn_count = connections;
    s->conns = calloc(connections, sizeof *s->conns);
    if (!s->conns) {
        free(s);
        return NULL;
    }
    s->base.ops = script_has_delay(t) ? &script_ops : &script_ops_no_delay;
    s->base.wants_response = script_wants_response(t);
    s->base.addr = script_thread_addr(t, &s->base.addr_len);
    return &s->base;
}

static void script_shared_halt(void *shared, bool interrupted)
{
    const struct script_shared *sh = shared;
    script_halt(sh->script, interrupted ? SCRIPT_HALT_SIGNAL : SCRIPT_HALT_DEADLINE);
}

const struct source_type source_script = {
    .name = "script",
    .shared_new = script_shared_new,
    .shared_free = script_shared_free,
    .source_new = script_source_new,
    .halt = script_shared_halt,
};

/* ---- the script's life around the run (main) ---- */

/* Does the URL name a port (wrk.port, and Host with a port, only then)? */
static bool url_names_port(const char *url)
{
    const char *authority = strstr(url, "://");
    authority = authority ? authority + 3 : url;
    size_t len = strcspn(authority, "/?#");
    const char *close = authority[0] == '[' ? memchr(authority, ']', len) : NULL;
    const char *after = close ? close + 1 : authority;
    return memchr(after, ':', len - (size_t)(after - authority)) != NULL;
}

struct script *source_script_load(const struct config *cfg, char *err, size_t errlen)
{
    const struct script_target target = {
        .url = cfg->url,
        .scheme = cfg->tls ? "https" : "http",
        .host = cfg->host,
        .port = url_names_port(cfg->url) ? cfg->port : NULL,
        .path = cfg->path,
        .method = cfg->method,
        .headers = cfg->headers,
        .header_count = cfg->header_count,
        .body = cfg->body,
        .body_len = cfg->body_len,
        .addr = (const struct sockaddr *)&cfg->setup.addr,
        .addr_len = cfg->setup.addr_len,
        .callback_limit_us = cfg->timeout_us,
    };
    return script_new(cfg->script_file, &target, err, errlen);
}

int source_script_threads(struct script *s, const struct config *cfg)
{
    for (unsigned i = 0; i < cfg->threads; i++)
        if (!script_thread_new(s, (int)cfg->script_arg_count, cfg->script_args)) return -1;
    return 0;
}

int source_script_done(struct script *s, const struct run_result *r)
{
    const struct stats *st = &r->stats;
    /* wrk's five counts: responses are requests, read holds what made a
     * connection unusable (protocol errors and HTTP/2 resets too) */
    struct script_summary summary = {
        .duration_us = r->duration_us,
        .requests = st->succeeded + stats_status_class(st, 4) + stats_status_class(st, 5),
        .bytes = st->bytes_received,
        .errors = {.connect = st->connect_errors,
                   .read = st->errors[REQ_ERR_READ] + st->errors[REQ_ERR_PROTOCOL] + st->errors[REQ_ERR_RESET],
                   .write = st->errors[REQ_ERR_WRITE],
                   .status = stats_status_class(st, 4) + stats_status_class(st, 5),
                   .timeout = st->errors[REQ_ERR_TIMEOUT]},
    };
    return script_done(s, &summary, &st->latency, &r->thread_rps);
}
