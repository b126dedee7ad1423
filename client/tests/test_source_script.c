/* Unit tests of source_script.c: what the script source hands the engine for
 * HTTP/1.1 (a text as written, pipelined requests after it, HEAD) and HTTP/2
 * (one stream per request, Host as :authority), delay() asked once per text,
 * kinds, response() through on_done, errors and thread:stop() as source
 * states, and no C allocation per request once warm (malloc and calloc of
 * the source and reqtext are counted; neither reallocs). Run from tests/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long allocations;

static void *counted_malloc(size_t n)
{
    allocations++;
    return malloc(n);
}

static void *counted_calloc(size_t n, size_t size)
{
    allocations++;
    return calloc(n, size);
}

#define malloc counted_malloc
#define calloc counted_calloc
#include "../src/reqtext.c"
#include "../src/url.c"
#include "../src/source_script.c"
#undef malloc
#undef calloc
#include "../src/hist.c"
#include "../src/script.c"
#include "../src/stats.c"
#include "../src/textfield.c"

/* --jwt-key's pool (jwtpool.c, with OpenSSL and a signer thread) is not under test here:
 * no fixture sets a key, so a token is never taken. */
const char *jwtpool_take(struct jwtpool *p, unsigned ring, size_t *len)
{
    (void)p, (void)ring;
    *len = 0;
    return "";
}

#include <arpa/inet.h>

#include "tap.h"

struct fixture {
    struct config cfg;
    struct script *script;
    void *shared;
    struct source *src;
};

/* The script file for one thread with two connections (both open). */
static bool fixture_start(struct fixture *f, const char *file, bool h2, const char *const *args, unsigned argc)
{
    char err[SCRIPT_ERROR_MAX];
    memset(f, 0, sizeof *f);
    struct sockaddr_in *in = (struct sockaddr_in *)&f->cfg.setup.addr;
    in->sin_family = AF_INET;
    in->sin_port = htons(8080);
    in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    f->cfg.setup.addr_len = sizeof *in;
    f->cfg.url = "http://127.0.0.1:8080/";
    snprintf(f->cfg.host, sizeof f->cfg.host, "127.0.0.1");
    snprintf(f->cfg.port, sizeof f->cfg.port, "8080");
    f->cfg.path = "/";
    f->cfg.method = "GET";
    f->cfg.threads = 1;
    f->cfg.setup.h2 = h2;
    f->cfg.script_file = file;
    f->cfg.script_args = args;
    f->cfg.script_arg_count = argc;
    f->script = source_script_load(&f->cfg, err, sizeof err);
    if (!f->script || source_script_threads(f->script, &f->cfg)) {
        printf("# %s: %s\n", file, f->script ? script_error(f->script) : err);
        return false;
    }
    f->cfg.setup.script = f->script;
    f->shared = source_script.shared_new(&f->cfg, err, sizeof err);
    f->src = f->shared ? source_script.source_new(f->shared, 0, 2) : NULL;
    if (!f->src) return false;
    f->src->ops->conn_open(f->src, 0);
    f->src->ops->conn_open(f->src, 1);
    return true;
}

static void fixture_end(struct fixture *f)
{
    if (f->src) f->src->ops->free(f->src);
    if (f->shared) source_script.shared_free(f->shared);
    script_free(f->script);
}

/* Reports a request handed out as aborted (so that it lets go of its text). */
static void finish(struct source *src, unsigned conn, uintptr_t source_data)
{
    struct req_ctx ctx = {.source_data = source_data, .kind = -1};
    struct outcome o = outcome_of(OUTCOME_ABORTED);
    src->ops->on_done(src, conn, &ctx, &o);
}

/* Hands out one request and reports it answered (with headers and a body when
 * the source reads responses). */
static const struct request *one(struct source *src, unsigned conn)
{
    const struct request *req = src->ops->next(src, conn);
    if (!req) return NULL;
    static const struct response_header headers[] = {{"Content-Type", "text/plain", 12, 10}};
    struct response_data data = {headers, 1, (const uint8_t *)"body", 4};
    struct req_ctx ctx = {.source_data = req->source_data, .kind = req->kind, .collect = src->wants_response};
    struct outcome o = outcome_response(200, 4, 0);
    o.response = src->wants_response ? &data : NULL;
    src->ops->on_done(src, conn, &ctx, &o);
    return req;
}

static void test_http1_texts(void)
{
    struct fixture f;
    bool ok = fixture_start(&f, "scripts/run/texts.lua", false, NULL, 0);
    /* wrk's extra request() call took /a: the next text is /b with /c pipelined in it */
    const struct request *b = ok ? f.src->ops->next(f.src, 0) : NULL;
    struct request first = b ? *b : (struct request){0};
    const struct request *c = b ? f.src->ops->next(f.src, 0) : NULL;
    ok = ok && c && first.more && !c->more && first.text_len > 0 && c->text_len == 0 && !first.head && c->head &&
         memmem(first.text, first.text_len, "HEAD /c HTTP/1.1\r\n", 18) && first.kind == c->kind &&
         strcmp(first.kind_name, "bc") == 0 && first.copies == 1;
    TAP_CHECK(ok, "script source http/1.1: a text of two requests goes out whole with the first, the HEAD after it "
                  "marked as written in it, both of the text's kind");
    if (c) {
        finish(f.src, 0, first.source_data);
        finish(f.src, 0, c->source_data);
    }
    const struct request *d = ok ? f.src->ops->next(f.src, 1) : NULL;
    TAP_CHECK(d && !d->more && d->kind == -1 && memcmp(d->text, "GET /d HTTP/1.1\r\n", 17) == 0,
              "script source http/1.1: request() is called per text, across the connections; no kind: -1");
    if (d) finish(f.src, 1, d->source_data);
    fixture_end(&f);
}

static void test_http2_streams(void)
{
    struct fixture f;
    bool ok = fixture_start(&f, "scripts/run/texts.lua", true, NULL, 0);
    uint64_t delay = ok ? f.src->ops->delay ? 1 : 0 : 1;
    const struct request *b = ok ? f.src->ops->next(f.src, 0) : NULL;
    struct request first = b ? *b : (struct request){0};
    const struct request *c = b ? f.src->ops->next(f.src, 0) : NULL;
    char line[256] = "";
    for (size_t i = 0; c && i < c->field_count; i++)
        snprintf(line + strlen(line), sizeof line - strlen(line), "%.*s=%.*s ", (int)c->fields[i].namelen,
                 c->fields[i].name, (int)c->fields[i].valuelen, c->fields[i].value);
    ok = ok && c && !first.more && !c->more && c->head &&
         strcmp(line, ":method=HEAD :scheme=http :authority=127.0.0.1:8080 :path=/c ") == 0;
    if (!ok) printf("# fields: %s\n", line);
    if (c) {
        finish(f.src, 0, first.source_data);
        finish(f.src, 0, c->source_data);
    }
    TAP_CHECK(ok && delay == 0, "script source h2: each request of a text is a stream of its own (Host as "
                                ":authority), no delay() without one in the script");
    fixture_end(&f);
}

static void test_delay(void)
{
    static const char *const args[] = {"2.5"};
    struct fixture f;
    bool ok = fixture_start(&f, "scripts/run/delay.lua", true, args, 1);
    ok = ok && f.src->ops->delay && f.src->ops->delay(f.src, 0) == 2500;
    TAP_CHECK(ok, "script source: delay() in microseconds (2.5 ms: 2500)");
    fixture_end(&f);
    ok = fixture_start(&f, "scripts/run/texts.lua", true, NULL, 0);
    TAP_CHECK(ok && f.src->ops->delay == NULL, "script source: no delay() in the script, never asked");
    fixture_end(&f);
}

/* mixed.lua rotates five prebuilt texts: once each text is cached, handing out
 * requests and hearing their responses allocates nothing in C. */
static void test_no_allocation(void)
{
    struct fixture f;
    bool ok = true;
    for (int h2 = 0; h2 <= 1; h2++) {
        ok = fixture_start(&f, "../../scenarios/mixed.lua", h2, NULL, 0) && ok; /* always started: always ended */
        for (int i = 0; ok && i < 20; i++) ok = one(f.src, (unsigned)i % 2) != NULL;
        long before = allocations;
        for (int i = 0; ok && i < 10000; i++) ok = one(f.src, (unsigned)i % 2) != NULL;
        if (allocations != before) printf("# h2 %d: %ld allocations in 10,000 requests\n", h2, allocations - before);
        ok = ok && allocations == before;
        fixture_end(&f);
    }
    ok = fixture_start(&f, "scripts/hot.lua", false, NULL, 0) && ok && f.src->wants_response;
    for (int i = 0; ok && i < 20; i++) ok = one(f.src, 0) != NULL;
    long before = allocations;
    for (int i = 0; ok && i < 10000; i++) ok = one(f.src, 0) != NULL;
    ok = ok && allocations == before && f.src->state == SOURCE_RUNNING;
    fixture_end(&f);
    TAP_CHECK(ok, "script source: 10,000 requests of five rotating texts (h1, h2) and of a script with response() "
                  "allocate nothing in C once warm");
}

static void test_states(void)
{
    struct fixture f;
    bool ok = fixture_start(&f, "scripts/run/badtext.lua", false, NULL, 0);
    /* wrk's extra call does not parse; the first request does */
    ok = ok && f.src->ops->next(f.src, 0) == NULL && f.src->state == SOURCE_FAILED &&
         strstr(f.src->error, "request(): the text it returned is not a request") &&
         strstr(f.src->error, "line 1, column 9");
    if (!ok && f.src) printf("# %s\n", f.src->error ? f.src->error : "(no error)");
    TAP_CHECK(ok, "script source: a text that is not a request fails the source, naming where");
    fixture_end(&f);
    ok = fixture_start(&f, "scripts/run/stop.lua", false, NULL, 0);
    int given = 0;
    while (ok && given < 10 && one(f.src, 0)) given++;
    TAP_CHECK(ok && given == 4 && f.src->state == SOURCE_STOP,
              "script source: thread:stop() in request() stops the source before that request (%d given)", given);
    fixture_end(&f);
}

int main(void)
{
    test_http1_texts();
    test_http2_streams();
    test_delay();
    test_no_allocation();
    test_states();
    TAP_EXIT();
}
