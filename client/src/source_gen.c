/* source_gen: requests made from the command line without a script: a list
 * of requests (--urls), a target drawn from a pattern (--rand-url). A
 * request that is the same every time it is sent (the command line's, a
 * short list's line) is encoded once and handed out as is, as the static
 * source does. One whose bytes are written per request (a drawn target, a
 * long list's line) goes into a block from the source's free list, which
 * goes back to the list at its outcome: no allocation per request once as
 * many blocks exist as requests are in flight. The lines of
 * a long list share one encoding per method, origin and body file, so that a
 * list of a million lines costs its paths, not a million encoded requests.
 *
 * Connections are per origin: connection conn of thread t (of T) serves
 * origin (conn * T + t) mod origins, so with at least as many connections as
 * origins every origin has one, and each thread takes the lines of the
 * origins its connections serve. In order, each thread walks each origin's
 * lines from the first, round and round; at random (--urls-random), each
 * request is a line of the origin drawn uniformly, seeded (--seed) per thread.
 *
 * With --jwt-key every request is written into a block (as a drawn target)
 * with one more header field, the token taken from the thread's ring of
 * cfg->setup.jwt_pool (jwtpool.h), which reqbuild_fill copies into the block. */
#include <netdb.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jwtpool.h"
#include "regexgen.h"
#include "reqbuild.h"
#include "rng.h"
#include "source.h"
#include "urllist.h"

#define OWN_LINES_MAX 1024 /* a list up to this long: each line encoded once, its own (make_targets) */

struct gen_target {
    size_t build;     /* its encoding in gen_shared.builds */
    const char *path; /* the target (not owned) */
    size_t path_len;
    size_t origin;
};

struct gen_origin {
    struct sockaddr_storage addr;
    socklen_t addr_len;
    size_t *targets; /* owned: indexes of its targets, in the list's order */
    size_t count;
};

struct gen_shared {
    const struct config *cfg;
    struct urllist list;
    struct gen_target *targets; /* owned */
    size_t target_count;
    struct reqbuild *builds;    /* owned: the encodings the targets share or own */
    size_t build_count, build_cap;
    bool shared;                /* a list over OWN_LINES_MAX: lines share encodings, each request written */
    struct gen_origin *origins; /* owned */
    size_t origin_count;
    bool random;
    struct regexgen *pattern; /* --rand-url, or NULL */
};

struct gen_block {
    struct gen_block *next;
    size_t cap;
    max_align_t data[];
};

struct gen_source {
    struct source base;
    const struct gen_shared *sh;
    unsigned threads, thread;
    struct rng rng;
    size_t *cursor;        /* owned: per origin, the next line in order */
    struct gen_block *free_blocks;
    char *path;            /* owned: a drawn target */
    struct request req;
};

/* ---- the shared part ---- */

static void gen_shared_free(void *shared)
{
    struct gen_shared *sh = shared;
    if (!sh) return;
    for (size_t i = 0; i < sh->build_count; i++) reqbuild_free(&sh->builds[i]);
    free(sh->builds);
    free(sh->targets);
    for (size_t i = 0; i < sh->origin_count; i++) free(sh->origins[i].targets);
    free(sh->origins);
    urllist_free(&sh->list);
    regexgen_free(sh->pattern);
    free(sh);
}

/* host:port to an address (the first of getaddrinfo's); 0 or -1 with err. */
static int resolve_origin(const struct urllist_origin *o, struct gen_origin *out, char *err, size_t errlen)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res;
    int rc = getaddrinfo(o->host, o->port, &hints, &res);
    if (rc) {
        snprintf(err, errlen, "--urls: cannot resolve %s: %s", o->authority, gai_strerror(rc));
        return -1;
    }
    memcpy(&out->addr, res->ai_addr, res->ai_addrlen);
    out->addr_len = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

/* The origins that have lines (the command line's, origin 0, may have none: a
 * list of absolute URLs naming it another way, http://localhost:P/ for
 * http://127.0.0.1:P/), each with its address and its targets; the targets'
 * origins become indexes in sh->origins. 0, or -1 with err ("" when out of memory). */
static int make_origins(struct gen_shared *sh, const struct config *cfg, char *err, size_t errlen)
{
    size_t listed = sh->list.count ? sh->list.origin_count : 1, used = 0, *index = calloc(listed, sizeof *index);
    if (!index) return -1;
    for (size_t i = 0; i < sh->target_count; i++) index[sh->targets[i].origin] = 1;
    for (size_t o = 0; o < listed; o++) index[o] = index[o] ? used++ : SIZE_MAX;
    int rc = 0;
    if (used > cfg->connections) {
        snprintf(err, errlen, "--urls: %zu origins need at least as many connections (-c %u)", used, cfg->connections);
        rc = -1;
    } else if (!(sh->origins = calloc(used, sizeof *sh->origins))) {
        rc = -1;
    }
    for (size_t o = 0; o < listed && rc == 0; o++) {
        if (index[o] == SIZE_MAX) continue;
        struct gen_origin *go = &sh->origins[sh->origin_count++];
        if (o == 0 || cfg->unix_socket) {
            memcpy(&go->addr, &cfg->setup.addr, cfg->setup.addr_len);
            go->addr_len = cfg->setup.addr_len;
        } else if (cfg->tls && strcmp(sh->list.origins[o].host, cfg->host)) {
            snprintf(err, errlen, "--urls: https origins must share the command line's host %s (one certificate name): %s",
                     cfg->host, sh->list.origins[o].authority);
            rc = -1;
        } else {
            rc = resolve_origin(&sh->list.origins[o], go, err, errlen);
        }
        if (rc == 0 && !(go->targets = malloc(sh->target_count * sizeof *go->targets))) rc = -1;
    }
    for (size_t i = 0; i < sh->target_count && rc == 0; i++) {
        struct gen_target *t = &sh->targets[i];
        t->origin = index[t->origin];
        struct gen_origin *go = &sh->origins[t->origin];
        go->targets[go->count++] = i;
    }
    free(index);
    return rc;
}

/* A new encoding of spec in sh->builds; its index, or -1 when out of memory. */
static long add_build(struct gen_shared *sh, const struct config *cfg, const struct reqbuild_spec *spec)
{
    if (sh->build_count == sh->build_cap) {
        size_t cap = sh->build_cap ? 2 * sh->build_cap : 16;
        struct reqbuild *more = realloc(sh->builds, cap * sizeof *more);
        if (!more) return -1;
        sh->builds = more;
        sh->build_cap = cap;
    }
    struct reqbuild *b = &sh->builds[sh->build_count++];
    memset(b, 0, sizeof *b);
    return reqbuild_init(b, cfg, spec) ? -1 : (long)sh->build_count - 1;
}

/* The slot of ln's method, origin and body (lines naming one body file share
 * it) in an open-addressing table (mask + 1 slots, more than the lines) of
 * the first such line's index + 1 (0: none). */
static size_t *shared_slot(size_t *slots, size_t mask, const struct urllist *l, const struct urllist_line *ln)
{
    uint64_t h = (1469598103934665603ULL ^ ln->origin ^ (uintptr_t)ln->body) * 1099511628211ULL; /* FNV-1a */
    for (const char *c = ln->method; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        if (!slots[i]) return &slots[i];
        const struct urllist_line *first = &l->lines[slots[i] - 1];
        if (first->origin == ln->origin && first->body == ln->body && !strcmp(first->method, ln->method))
            return &slots[i];
    }
}

/* One target per list line, or the command line's request. A list of up to
 * OWN_LINES_MAX lines encodes each line (about 1 KiB each, handed out as is);
 * a longer one shares an encoding among the lines of a method, origin and
 * body file, each request written with its path (and body) into a block: a
 * million lines in ~200 MB, not 1 GB. */
static int make_targets(struct gen_shared *sh, const struct config *cfg)
{
    size_t n = sh->list.count ? sh->list.count : 1, mask = 1, *slots = NULL;
    sh->shared = n > OWN_LINES_MAX;
    while (sh->shared && mask < 2 * n) mask <<= 1;
    if (!(sh->targets = calloc(n, sizeof *sh->targets)) || (sh->shared && !(slots = calloc(mask, sizeof *slots))))
        return -1;
    mask--;
    char authority[300];
    bool ipv6 = strchr(cfg->host, ':') != NULL, dflt = strcmp(cfg->port, cfg->tls ? "443" : "80") == 0;
    snprintf(authority, sizeof authority, "%s%s%s%s%s", ipv6 ? "[" : "", cfg->host, ipv6 ? "]" : "", dflt ? "" : ":",
             dflt ? "" : cfg->port);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        struct reqbuild_spec spec = {.method = cfg->method, .path = cfg->path, .authority = authority, .tls = cfg->tls,
                                     .body = cfg->body, .body_len = cfg->body_len};
        struct gen_target *t = &sh->targets[i];
        size_t *slot = NULL;
        if (sh->list.count) {
            const struct urllist_line *ln = &sh->list.lines[i];
            spec.method = ln->method;
            spec.path = ln->path;
            if (ln->origin) spec.authority = sh->list.origins[ln->origin].authority;
            if (ln->body) spec.body = ln->body, spec.body_len = ln->body_len;
            t->origin = ln->origin;
            if (sh->shared) slot = shared_slot(slots, mask, &sh->list, ln);
        }
        t->path = spec.path;
        t->path_len = strlen(spec.path);
        if (slot && *slot) {
            t->build = sh->targets[*slot - 1].build;
        } else {
            long b = add_build(sh, cfg, &spec);
            if (b < 0) rc = -1;
            t->build = b < 0 ? 0 : (size_t)b;
            if (slot) *slot = i + 1;
        }
        sh->target_count++;
    }
    free(slots);
    return rc;
}

static void *gen_shared_new(const struct config *cfg, char *err, size_t errlen)
{
    struct gen_shared *sh = calloc(1, sizeof *sh);
    if (!sh) goto oom;
    sh->cfg = cfg;
    sh->random = cfg->urls_random;
    err[0] = '\0';
    if (cfg->urls_file && urllist_load(&sh->list, cfg->urls_text, cfg->urls_len, cfg->urls_file, cfg->tls, cfg->host,
                                       cfg->port, err, errlen))
        goto fail;
    if (cfg->rand_url) {
        char why[200];
        if (cfg->rand_url[0] != '/') {
            snprintf(err, errlen,
                     "--rand-url '%s': the pattern must start with / (it draws the path) or with the URL's origin, "
                     "http[s]://host[:port]/",
                     cfg->rand_url);
            goto fail;
        }
        struct regexgen_opts opts = {.max_repeat = REGEXGEN_REPEAT_CAP, .literal_dot = cfg->rand_url_literal_dot,
                                     .target = true};
        if (cfg->rand_url_max_repeat >= 0) opts.max_repeat = (unsigned)cfg->rand_url_max_repeat;
        if (!(sh->pattern = regexgen_new_opts(cfg->rand_url, &opts, why, sizeof why))) {
            snprintf(err, errlen, "--rand-url '%s': %s", cfg->rand_url, why);
            goto fail;
        }
    }
    if (make_targets(sh, cfg) || make_origins(sh, cfg, err, errlen)) goto fail;
    return sh;
fail:
    if (err[0]) {
        gen_shared_free(sh);
        return NULL;
    }
oom:
    snprintf(err, errlen, "out of memory");
    gen_shared_free(sh);
    return NULL;
}

/* ---- the thread's source ---- */

static size_t conn_origin(const struct gen_source *s, unsigned conn)
{
    return ((size_t)conn * s->threads + s->thread) % s->sh->origin_count;
}

static const struct gen_target *pick(struct gen_source *s, unsigned conn)
{
    const struct gen_shared *sh = s->sh;
    if (sh->target_count == 1) return &sh->targets[0];
    size_t o = conn_origin(s, conn);
    const struct gen_origin *go = &sh->origins[o];
    size_t i;
    if (sh->random) {
        i = rng_below(&s->rng, go->count);
    } else {
        i = s->cursor[o];
        s->cursor[o] = i + 1 == go->count ? 0 : i + 1;
    }
    return &sh->targets[go->targets[i]];
}

static const struct request *gen_next_fixed(struct source *base, unsigned conn)
{
    const struct gen_source *s = (struct gen_source *)base;
    return &s->sh->builds[pick((struct gen_source *)base, conn)->build].fixed;
}

/* A block of at least size bytes, from the free list when one is big enough. */
static struct gen_block *block_get(struct gen_source *s, size_t size)
{
    struct gen_block *b = s->free_blocks;
    if (b) s->free_blocks = b->next;
    if (b && b->cap >= size) return b;
    struct gen_block *bigger = realloc(b, sizeof *b + size);
    if (!bigger) {
        free(b);
        return NULL;
    }
    bigger->cap = size;
    return bigger;
}

/* The extra field of --jwt-key with the thread's next token; NULL (the source
 * failed) when signing failed. */
static struct reqbuild_extra *take_token(struct gen_source *s, struct reqbuild_extra *x)
{
    const struct config *cfg = s->sh->cfg;
    size_t len;
    const char *token = jwtpool_take(cfg->setup.jwt_pool, s->thread, &len);
    if (!token) {
        s->base.state = SOURCE_FAILED;
        s->base.error = "--jwt-key: signing a token failed";
        return NULL;
    }
    *x = (struct reqbuild_extra){.name = cfg->jwt_name, .name_len = strlen(cfg->jwt_name), .prefix = cfg->jwt_prefix,
                                 .prefix_len = strlen(cfg->jwt_prefix), .token = token, .token_len = len};
    return x;
}

static const struct request *gen_next_drawn(struct source *base, unsigned conn)
{
    struct gen_source *s = (struct gen_source *)base;
    const struct gen_target *t = pick(s, conn);
    const struct reqbuild *build = &s->sh->builds[t->build];
    const char *path = t->path;
    size_t path_len = t->path_len;
    if (s->sh->pattern) {
        path_len = regexgen_generate(s->sh->pattern, &s->rng, s->path);
        path = s->path;
    }
    struct reqbuild_extra jwt, *extra = NULL;
    if (s->sh->cfg->setup.jwt_pool) {
        if (!(extra = take_token(s, &jwt))) return NULL;
    }
    struct gen_block *b = block_get(s, reqbuild_size(build, path_len, extra));
    if (!b) {
        s->base.state = SOURCE_FAILED;
        s->base.error = "out of memory";
        return NULL;
    }
    reqbuild_fill(build, b->data, path, path_len, extra, &s->req);
    s->req.source_data = (uintptr_t)b;
    return &s->req;
}

static void gen_on_done(struct source *base, unsigned conn, const struct req_ctx *ctx, const struct outcome *o)
{
    struct gen_source *s = (struct gen_source *)base;
    struct gen_block *b = (struct gen_block *)ctx->source_data;
    (void)conn;
    (void)o;
    b->next = s->free_blocks;
    s->free_blocks = b;
}

static const struct sockaddr *gen_conn_addr(struct source *base, unsigned conn, socklen_t *len)
{
    struct gen_source *s = (struct gen_source *)base;
    const struct gen_origin *go = &s->sh->origins[conn_origin(s, conn)];
    *len = go->addr_len;
    return (const struct sockaddr *)&go->addr;
}

static void gen_free(struct source *base)
{
    struct gen_source *s = (struct gen_source *)base;
    while (s->free_blocks) {
        struct gen_block *next = s->free_blocks->next;
        free(s->free_blocks);
        s->free_blocks = next;
    }
    free(s->cursor);
    free(s->path);
    free(s);
}

static const struct source_ops fixed_ops = {.next = gen_next_fixed, .conn_addr = gen_conn_addr, .free = gen_free};
static const struct source_ops drawn_ops = {.next = gen_next_drawn, .on_done = gen_on_done,
                                            .conn_addr = gen_conn_addr, .free = gen_free};

static struct source *gen_source_new(const void *shared, unsigned thread, unsigned connections)
{
    const struct gen_shared *sh = shared;
    (void)connections;
    struct gen_source *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->sh = sh;
    s->threads = sh->cfg->threads;
    s->thread = thread;
    s->base.ops = sh->pattern || sh->cfg->setup.jwt_pool || sh->shared ? &drawn_ops : &fixed_ops;
    rng_seed(&s->rng, sh->cfg->setup.seed ^ ((uint64_t)thread * 0xd1b54a32d192ed03ULL));
    s->cursor = calloc(sh->origin_count, sizeof *s->cursor);
    if (sh->pattern) s->path = malloc(regexgen_max_len(sh->pattern) + 1);
    if (!s->cursor || (sh->pattern && !s->path)) {
        gen_free(&s->base);
        return NULL;
    }
    return &s->base;
}

const struct source_type source_gen = {
    .name = "gen",
    .shared_new = gen_shared_new,
    .shared_free = gen_shared_free,
    .source_new = gen_source_new,
};
