/* Unit tests of script.c: every item of wrk's scripting API and barrage's
 * extensions, script errors, and the suite's scenarios/ files, with the scripts
 * of tests/scripts/. Run from tests/ (the Makefile does). */
#include "../src/hist.c"
#include "../src/script.c"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>

#include "tap.h"

static struct sockaddr_in target_addr;
static const char *const target_headers[] = {"X-Cmd: yes"};

static struct script_target target(const char *path)
{
    return (struct script_target){
        .url = "http://127.0.0.1:8080/base",
        .scheme = "http",
        .host = "127.0.0.1",
        .port = "8080",
        .path = path,
        .headers = target_headers,
        .header_count = 1,
        .addr = (const struct sockaddr *)&target_addr,
        .addr_len = sizeof target_addr,
    };
}

static struct script *load(const char *file, const struct script_target *t)
{
    char err[SCRIPT_ERROR_MAX];
    struct script *s = script_new(file, t, err, sizeof err);
    if (!s) printf("# %s: %s\n", file, err);
    return s;
}

static struct script_thread *thread(struct script *s, int argc, const char *const *argv)
{
    struct script_thread *t = script_thread_new(s, argc, argv);
    if (!t) printf("# thread: %s\n", script_error(s));
    return t;
}

/* A global string of a state ("" when absent). */
static const char *global(lua_State *L, const char *name)
{
    lua_getglobal(L, name);
    const char *s = lua_isstring(L, -1) ? lua_tostring(L, -1) : "";
    lua_pop(L, 1);
    return s;
}

static bool text_is(const char *what, const char *got, const char *want)
{
    if (strcmp(got, want) == 0) return true;
    printf("# %s: got '%s' want '%s'\n", what, got, want);
    return false;
}

/* Is text exactly: the first line, the header lines in any order, an empty
 * line, then body? */
static bool request_is(const char *text, size_t len, const char *first, const char *const *headers, size_t count,
                       const char *body)
{
    const char *end = memmem(text, len, "\r\n\r\n", 4);
    bool ok = end && (size_t)(text + len - (end + 4)) == strlen(body) && memcmp(end + 4, body, strlen(body)) == 0;
    const char *line = text;
    bool used[16] = {false};
    size_t lines = 0;
    while (ok && line < end + 2) {
        const char *eol = memmem(line, (size_t)(end + 2 - line), "\r\n", 2);
        size_t n = (size_t)(eol - line);
        bool found = false;
        if (lines == 0) {
            found = strlen(first) == n && memcmp(line, first, n) == 0;
        } else {
            for (size_t i = 0; i < count && !found; i++)
                if (!used[i] && strlen(headers[i]) == n && memcmp(line, headers[i], n) == 0) found = used[i] = true;
        }
        ok = found;
        lines++;
        line = eol + 2;
    }
    ok = ok && lines == count + 1;
    if (!ok) printf("# request: '%.*s'\n", (int)len, text);
    return ok;
}

static bool request_is_str(const char *text, const char *first, const char *const *headers, size_t count,
                           const char *body)
{
    return request_is(text, strlen(text), first, headers, count, body);
}

static void test_format(void)
{
    struct script_target tg = target("/base");
    struct script *s = load("scripts/format.lua", &tg);
    struct script_thread *t = s ? thread(s, 0, NULL) : NULL;
    if (!t) {
        TAP_CHECK(0, "wrk.format loads");
        script_free(s);
        return;
    }
    static const char *const early[] = {"X-Cmd: yes"};
    TAP_CHECK(request_is_str(global(t->L, "early"), "GET /base HTTP/1.1", early, 1, ""),
              "wrk.format() at load time: no Host header yet (wrk.init sets it), -H headers in");
    static const char *const plain[] = {"Host: 127.0.0.1:8080", "X-Cmd: yes"};
    TAP_CHECK(request_is_str(global(t->L, "plain"), "GET /base HTTP/1.1", plain, 2, ""),
              "wrk.format() in init: method, path, Host and -H headers from the wrk table");
    static const char *const post[] = {"X-A: 1", "Host: 127.0.0.1:8080", "Content-Length: 5"};
    TAP_CHECK(request_is_str(global(t->L, "post"), "POST /p HTTP/1.1", post, 3, "hello"),
              "wrk.format(method, path, headers, body): the given headers, Host, Content-Length, body");
    static const char *const put[] = {"X-B: 2", "Host: 127.0.0.1:8080"};
    TAP_CHECK(request_is_str(global(t->L, "put"), "PUT /base HTTP/1.1", put, 2, ""),
              "wrk.format with headers and no body: Content-Length removed (as wrk)");
    script_free(s);
}

static void test_default_request(void)
{
    struct script_target tg = target("/base");
    tg.method = "PUT";
    tg.body = "abc";
    tg.body_len = 3;
    struct script *s = load("scripts/default.lua", &tg);
    struct script_thread *t = s ? thread(s, 0, NULL) : NULL;
    struct script_request a = {0}, b = {0};
    bool ok = t && script_request(t, NULL, &a) == 0 && script_request(t, NULL, &b) == 0;
    static const char *const headers[] = {"Host: 127.0.0.1:8080", "X-Cmd: yes", "X-Top: top", "Content-Length: 3"};
    TAP_CHECK(ok && script_is_static(t) && request_is(a.data, a.len, "POST /base HTTP/1.1", headers, 4, "abc"),
              "default request: formatted after init() (its method), body and -H from the command line");
    TAP_CHECK(ok && a.data == b.data && a.kind == 0, "default request: the same string every time, no kind");
    TAP_CHECK(ok && !script_wants_response(t) && !script_has_delay(t) && script_response(t, NULL, 200, NULL, 0,
                                                                                          NULL, 0) == 0,
              "no response() or delay(): not wanted, script_response does nothing");
    script_free(s);
}

static void test_args(void)
{
    struct script_target tg = target("/base");
    struct script *s = load("scripts/args.lua", &tg);
    static const char *const argv[] = {"one", "two"};
    struct script_thread *t = s ? thread(s, 2, argv) : NULL;
    TAP_CHECK(t && text_is("url", global(t->L, "url"), "http://127.0.0.1:8080/base") &&
                  text_is("args", global(t->L, "joined"), "one,two") &&
                  text_is("count", global(t->L, "count"), "2"),
              "init(args): args[0] the URL, args[1..] the script's arguments");
    struct script_conn c;
    if (t) script_conn_open(t, &c);
    TAP_CHECK(t && c.table_ref == LUA_NOREF, "no conn table when no callback takes conn");
    if (t) script_conn_close(t, &c);
    script_free(s);
}

static bool request_path(struct script_thread *t, struct script_conn *c, const char *want_first_line)
{
    struct script_request r;
    if (script_request(t, c, &r) != 0) {
        printf("# %s\n", script_thread_error(t));
        return false;
    }
    size_t n = strlen(want_first_line);
    bool ok = r.len > n + 2 && memcmp(r.data, want_first_line, n) == 0 && r.data[n] == '\r';
    if (!ok) printf("# want '%s' in '%.*s'\n", want_first_line, (int)r.len, r.data);
    return ok;
}

static void test_threads(void)
{
    struct script_target tg = target("/base");
    struct script *s = load("scripts/threads.lua", &tg);
    struct script_thread *t1 = s ? thread(s, 0, NULL) : NULL, *t2 = t1 ? thread(s, 0, NULL) : NULL;
    if (!t2) {
        TAP_CHECK(0, "threads script loads");
        script_free(s);
        return;
    }
    TAP_CHECK(text_is("main", global(s->L, "addr_before"), "127.0.0.1:8080") &&
                  text_is("main", global(s->L, "setup_saw"), "2"),
              "setup(thread) in the main state: thread.addr, thread:get of what thread:set put there");
    TAP_CHECK(text_is("t1", global(t1->L, "init_saw"), "1:t1:30:true") &&
                  text_is("t2", global(t2->L, "init_saw"), "2:t2:30:true") &&
                  text_is("t1", global(t1->L, "own_id"), "1"),
              "thread:set before init: numbers, strings, booleans, nested tables; wrk.thread:get in the thread");
    socklen_t len1, len2;
    const struct sockaddr_in *a1 = (const void *)script_thread_addr(t1, &len1),
                             *a2 = (const void *)script_thread_addr(t2, &len2);
    TAP_CHECK(ntohs(a1->sin_port) == 8080 && ntohs(a2->sin_port) == 9 && len2 == sizeof *a2,
              "thread.addr = wrk.lookup(...)[1] in setup changes that thread's address only");
    bool first = request_path(t1, NULL, "GET /t1 HTTP/1.1") && !script_thread_stopped(t1);
    bool second = request_path(t1, NULL, "GET /t1 HTTP/1.1") && script_thread_stopped(t1);
    bool other = request_path(t2, NULL, "GET /t2 HTTP/1.1") && !script_thread_stopped(t2);
    TAP_CHECK(first && second && other,
              "wrk.thread:stop() sets that thread's stop flag (after the extra request() call and two more)");
    struct hist h;
    hist_init(&h);
    struct script_summary sum = {0};
    TAP_CHECK(script_has_done(s) && script_done(s, &sum, &h, &h) == 0 &&
                  text_is("done", global(s->L, "seen_in_done"), "1=3/20 2=1/20"),
              "done(): thread:get reads each thread's globals (the first thread's extra request() counted)");
    hist_free(&h);
    script_free(s);
}

static void test_kinds(void)
{
    struct script_target tg = target("/base");
    struct script *s = load("scripts/run/texts.lua", &tg);
    struct script_thread *t = s ? thread(s, 0, NULL) : NULL;
    struct script_request r[4];
    bool ok = t != NULL;
    for (int i = 0; ok && i < 4; i++) ok = script_request(t, NULL, &r[i]) == 0;
    if (!ok) {
        TAP_CHECK(0, "kinds script runs");
        script_free(s);
        return;
    }
    static const char *const host[] = {"Host: 127.0.0.1:8080", "X-Cmd: yes"};
    const char *second = memmem(r[0].data, r[0].len, "\r\n\r\n", 4) + 4;
    TAP_CHECK(request_is(r[0].data, (size_t)(second - r[0].data), "GET /b HTTP/1.1", host, 2, "") &&
                  request_is(second, r[0].len - (size_t)(second - r[0].data), "HEAD /c HTTP/1.1", host, 2, ""),
              "request() returning two concatenated requests: one string, both whole");
    TAP_CHECK(r[0].kind == 2 && r[1].kind == 0 && r[2].kind == 1 && r[3].kind == 2 &&
                  script_kind_count(t) == 2 && text_is("kind 1", script_kind_name(t, 1), "a") &&
                  text_is("kind 2", script_kind_name(t, 2), "bc") && !script_kind_name(t, 3),
              "request()'s second value names the kind: numbered per thread by first sight (the extra call saw a)");
    script_free(s);
}

static void test_conn(void)
{
    struct script_target tg = target("/base");
    struct script *s = load("scripts/conn.lua", &tg);
    struct script_thread *t = s ? thread(s, 0, NULL) : NULL;
    if (!t) {
        TAP_CHECK(0, "conn script loads");
        script_free(s);
        return;
    }
    struct script_conn a, b;
    script_conn_open(t, &a);
    script_conn_open(t, &b);
    struct script_request kept;
    bool ok = request_path(t, &a, "GET /c1-nil HTTP/1.1") && script_request(t, &a, &kept) == 0 &&
              request_path(t, &b, "GET /c1-nil HTTP/1.1");
    char copy[256];
    snprintf(copy, sizeof copy, "%.*s", (int)kept.len, kept.data);
    ok = ok && script_response(t, &b, 201, NULL, 0, NULL, 0) == 0 && request_path(t, &b, "GET /c2-201 HTTP/1.1");
    uint64_t delay_us = 0;
    ok = ok && script_delay(t, &a, &delay_us) == 0 && delay_us == 2000;
    TAP_CHECK(ok, "request(conn), response(..., conn), delay(conn): one table per connection");
    struct script_request other;
    for (int i = 0; i < 100; i++) script_request(t, &b, &other);
    lua_gc(t->L, LUA_GCCOLLECT, 0);
    for (int i = 0; i < 100; i++) script_request(t, &b, &other);
    TAP_CHECK(strlen(copy) == kept.len && memcmp(copy, kept.data, kept.len) == 0,
              "a connection's request string stays valid while other connections ask (a full GC between)");
    script_conn_close(t, &a);
    script_conn_open(t, &a);
    TAP_CHECK(request_path(t, &a, "GET /c1-nil HTTP/1.1"), "a new connection gets a new table");
    TAP_CHECK(lua_gettop(t->L) == SLOT_BASE, "the thread's stack is back at its base");
    script_conn_close(t, &a);
    script_conn_close(t, &b);
    script_free(s);
}

static void test_response(void)
{
    struct script_target tg = target("/base");
    struct script *s = load("scripts/response.lua", &tg);
    struct script_thread *t = s ? thread(s, 0, NULL) : NULL;
    static const struct response_header first[] = {
        {"location", "/next", 8, 5},
        {"Content-Type", "text/plain", 12, 10},
        {"x-dup", "1", 5, 1},
        {"x-dup", "2", 5, 1},
    };
    static const struct response_header second[] = {{"x-one", "1", 5, 1}};
    bool ok = t && script_wants_response(t) && script_response(t, NULL, 302, first, 4, "moved", 5) == 0;
    TAP_CHECK(ok && text_is("response", global(t->L, "seen"), "302|/next|text/plain|nil|2|moved|3"),
              "response(status, headers, body): names in any case (headers[\"Location\"] finds location), "
              "the last of a repeated name");
    ok = ok && script_response(t, NULL, 200, second, 1, NULL, 0) == 0;
    TAP_CHECK(ok && text_is("response", global(t->L, "seen"), "200|nil|nil|nil|nil||1") &&
                  text_is("same table", global(t->L, "same_table"), "true"),
              "the headers table is reused, holding only the current response's headers");
    script_free(s);
}

/* One response() call of mutate.lua with the names and values given
 * ("a", "1", ...), in mode; true when it saw exactly want. */
static bool mutate_sees(struct script_thread *t, const char *mode, const struct response_header *headers, size_t count,
                        const char *want)
{
    lua_pushstring(t->L, mode);
    lua_setglobal(t->L, "mode");
    return script_response(t, NULL, 200, headers, count, NULL, 0) == 0 && text_is("seen", global(t->L, "seen"), want);
}

static void test_response_refill(void)
{
    struct script_target tg = target("/base");
    struct script *s = load("scripts/mutate.lua", &tg);
    struct script_thread *t = s ? thread(s, 0, NULL) : NULL;
    static const struct response_header ab[] = {{"a", "1", 1, 1}, {"b", "2", 1, 1}};
    static const struct response_header ab_new[] = {{"a", "5", 1, 1}, {"b", "2", 1, 1}};
    static const struct response_header ac[] = {{"a", "5", 1, 1}, {"c", "3", 1, 1}};
    bool ok = t && mutate_sees(t, "change", ab, 2, "a=1,b=2") && mutate_sees(t, "add", ab, 2, "a=1,b=2");
    TAP_CHECK(ok, "a header the script changed or removed in the reused table is back for the next response");
    ok = ok && mutate_sees(t, "none", ab_new, 2, "a=5,b=2");
    TAP_CHECK(ok, "a key the script added is gone for the next response; a changed value is the new one");
    ok = ok && mutate_sees(t, "none", ac, 2, "a=5,c=3") && mutate_sees(t, "none", ab, 2, "a=1,b=2") &&
         mutate_sees(t, "none", ab, 1, "a=1") && mutate_sees(t, "none", NULL, 0, "");
    TAP_CHECK(ok, "other names, fewer or no headers: only the current response's headers");
    script_free(s);
}

static void test_delay(void)
{
    struct script_target tg = target("/base");
    struct script *s = load("scripts/delay.lua", &tg);
    struct script_thread *t = s ? thread(s, 0, NULL) : NULL;
    static const char *const values[] = {"12.5", "nil", "-3", "'7'", "0"};
    static const uint64_t want[] = {12500, 0, 0, 7000, 0};
    bool ok = t && script_has_delay(t);
    for (size_t i = 0; ok && i < 5; i++) {
        char code[64];
        uint64_t us = 1;
        snprintf(code, sizeof code, "next_delay = %s", values[i]);
        ok = luaL_dostring(t->L, code) == 0 && script_delay(t, NULL, &us) == 0 && us == want[i];
        if (!ok) printf("# delay %s: %llu\n", values[i], (unsigned long long)us);
    }
    TAP_CHECK(ok, "delay(): milliseconds as microseconds (12.5 ms, nil, negative, a numeric string)");
    script_free(s);
}

static void test_done(void)
{
    struct script_target tg = target("/base");
    struct script *s = load("scripts/done.lua", &tg);
    struct hist latency, rates;
    if (!s || hist_init(&latency) || hist_init(&rates)) {
        TAP_CHECK(0, "done script loads");
        script_free(s);
        return;
    }
    static const uint64_t values[] = {100, 100, 100, 250, 7000};
    for (size_t i = 0; i < 5; i++) hist_record(&latency, values[i]);
    hist_record(&rates, 5000);
    hist_record(&rates, 6000);
    struct script_summary sum = {5000000, 1234, 56789, {1, 2, 3, 4, 5}};
    bool ok = script_done(s, &sum, &latency, &rates) == 0;
    TAP_CHECK(ok && text_is("summary", global(s->L, "fields"), "5000000 1234 56789 1 2 3 4 5"),
              "done(summary): duration, requests, bytes, errors.connect/read/write/status/timeout");
    char want[256];
    snprintf(want, sizeof want, "100 7000 %.3f %.3f %llu 7000 3", hist_mean(&latency), hist_stdev(&latency),
             (unsigned long long)hist_percentile(&latency, 50));
    TAP_CHECK(ok && text_is("latency", global(s->L, "stats"), want) &&
                  text_is("unknown", global(s->L, "unknown"), "nil"),
              "stats objects: min max mean stdev percentile(p), #latency distinct values");
    TAP_CHECK(ok && text_is("raw", global(s->L, "raw"), "100:3 7000:1 0:0") &&
                  text_is("rates", global(s->L, "rates"), "5000 6000 2"),
              "latency(i): the i-th distinct value and its count (0, 0 past the end); the requests object");
    hist_free(&latency);
    hist_free(&rates);
    script_free(s);
}

/* Lua's memory in bytes. */
static size_t lua_bytes(lua_State *L)
{
    return (size_t)lua_gc(L, LUA_GCCOUNT, 0) * 1024 + (size_t)lua_gc(L, LUA_GCCOUNTB, 0);
}

static void test_hot_path(void)
{
    struct script_target tg = target("/base");
    struct script *s = load("scripts/hot.lua", &tg);
    struct script_thread *t = s ? thread(s, 0, NULL) : NULL;
    static const struct response_header headers[] = {{"Content-Type", "text/plain", 12, 10}, {"Server", "x", 6, 1}};
    struct script_conn c;
    struct script_request r;
    bool ok = t != NULL;
    size_t before = 0, after = 0;
    if (ok) {
        script_conn_open(t, &c);
        /* the first round warms up (JIT traces); the first call of each round
         * interns the body string again after the collection */
        for (int round = 0; round < 2 && ok; round++) {
            lua_gc(t->L, LUA_GCCOLLECT, 0);
            lua_gc(t->L, LUA_GCSTOP, 0);
            for (int i = 0; i <= 10000 && ok; i++) {
                if (i == 1) before = lua_bytes(t->L);
                ok = script_request(t, &c, &r) == 0 && r.kind == 1 &&
                     script_response(t, &c, 200, headers, 2, "Hello world", 11) == 0;
            }
            after = lua_bytes(t->L);
            lua_gc(t->L, LUA_GCRESTART, 0);
        }
        script_conn_close(t, &c);
    }
    if (after != before) printf("# Lua memory %zu -> %zu bytes\n", before, after);
    TAP_CHECK(ok && after == before,
              "hot path: 10,000 request() and response() calls allocate nothing the script did not ask for");
    script_free(s);
}

/* A callback error: -1, "what(): errors.lua:6: boom in ..." and a traceback. */
static bool error_is(int rc, const char *msg, const char *what, const char *want)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s: ", what);
    bool ok = rc != 0 && strncmp(msg, prefix, strlen(prefix)) == 0 && strstr(msg, want) &&
              (strstr(want, "(the function") || strstr(msg, "stack traceback:"));
    if (!ok) printf("# rc %d, message: %s\n", rc, msg);
    return ok;
}

static void test_thread_errors(void)
{
    static const struct {
        const char *mode, *what, *want;
    } cases[] = {
        {"/setup", "setup()", "scripts/errors.lua:6: boom in setup"},
        {"/transfer", "setup()", "cannot transfer 'function' to thread"},
        {"/cycle", "setup()", "cannot transfer 'table nested over 32 levels (a cycle?)' to thread"},
        {"/init", "init()", "scripts/errors.lua:6: boom in init"},
        {"/request-first", "request()", "scripts/errors.lua:6: boom in request"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct script_target tg = target(cases[i].mode);
        struct script *s = load("scripts/errors.lua", &tg);
        struct script_thread *t = s ? script_thread_new(s, 0, NULL) : NULL;
        TAP_CHECK(s && !t && error_is(-1, script_error(s), cases[i].what, cases[i].want),
                  "runtime error in %s (%s) fails the thread's creation with message and traceback", cases[i].what,
                  cases[i].mode);
        script_free(s);
    }
}

static void test_run_errors(void)
{
    static const struct {
        const char *mode, *what, *want;
    } cases[] = {
        {"/request", "request()", "scripts/errors.lua:6: boom in request"},
        {"/table", "request()", "(error object is a table value)"},
        {"/nil", "request()", "returned nil, not a string (the function defined at scripts/errors.lua:23)"},
        {"/empty", "request()", "returned an empty string (the function defined at scripts/errors.lua:23)"},
        {"/kind", "request()", "returned number as the request's kind, not a string (the function defined at"},
        {"/response", "response()", "scripts/errors.lua:6: boom in response"},
        {"/delay", "delay()", "scripts/errors.lua:6: boom in delay"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct script_target tg = target(cases[i].mode);
        struct script *s = load("scripts/errors.lua", &tg);
        struct script_thread *t = s ? thread(s, 0, NULL) : NULL;
        struct script_request r;
        uint64_t us;
        int rc = !t ? 0 : cases[i].what[0] == 'r' && cases[i].what[2] == 'q' ? script_request(t, NULL, &r)
                      : cases[i].what[0] == 'r' ? script_response(t, NULL, 200, NULL, 0, NULL, 0)
                                                : script_delay(t, NULL, &us);
        TAP_CHECK(t && error_is(rc, script_thread_error(t), cases[i].what, cases[i].want) &&
                      lua_gettop(t->L) == SLOT_BASE && script_request(t, NULL, &r) == 0,
                  "runtime error in %s (%s): -1, message%s; the state still works", cases[i].what, cases[i].mode,
                  strstr(cases[i].want, "(the function") ? " naming the function" : " and traceback");
        script_free(s);
    }
    struct script_target tg = target("/done");
    struct script *s = load("scripts/errors.lua", &tg);
    struct hist h;
    hist_init(&h);
    struct script_summary sum = {0};
    TAP_CHECK(s && error_is(script_done(s, &sum, &h, &h), script_error(s), "done()",
                            "scripts/errors.lua:6: boom in done"),
              "runtime error in done(): -1, message and traceback");
    hist_free(&h);
    script_free(s);
}

static void test_load_errors(void)
{
    struct script_target tg = target("/base");
    char err[SCRIPT_ERROR_MAX];
    struct script *s = script_new("scripts/syntax_error.lua", &tg, err, sizeof err);
    TAP_CHECK(!s && strstr(err, "scripts/syntax_error.lua:3:"), "syntax error: file:line (%s)", s ? "" : err);
    script_free(s);
    s = script_new("scripts/toplevel_error.lua", &tg, err, sizeof err);
    TAP_CHECK(!s && strstr(err, "scripts/toplevel_error.lua:2: top-level boom") && strstr(err, "stack traceback:"),
              "runtime error at load time: file:line, message and traceback");
    script_free(s);
    s = script_new("scripts/missing.lua", &tg, err, sizeof err);
    TAP_CHECK(!s && strstr(err, "cannot open scripts/missing.lua"), "missing script: named (%s)", s ? "" : err);
    script_free(s);
}

/* Runs done() with stdout into a file; returns what it printed (static). */
static const char *done_output(struct script *s, const struct script_summary *sum, const struct hist *latency)
{
    static char out[4096];
    char path[] = "/tmp/barrage-test-script-XXXXXX";
    int fd = mkstemp(path), saved = dup(1);
    out[0] = '\0';
    if (fd < 0 || saved < 0) return out;
    fflush(stdout);
    dup2(fd, 1);
    int rc = script_done(s, sum, latency, latency);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    ssize_t n = pread(fd, out, sizeof out - 1, 0);
    out[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(path);
    if (rc) printf("# %s\n", script_error(s));
    return out;
}

static void test_scenario(const char *name, const char *first_line)
{
    char file[128];
    snprintf(file, sizeof file, "../../scenarios/%s.lua", name);
    struct script_target tg = target("/base");
    struct script *s = load(file, &tg);
    struct script_thread *t1 = s ? thread(s, 0, NULL) : NULL, *t2 = t1 ? thread(s, 0, NULL) : NULL;
    bool ok = t2 != NULL;
    for (size_t i = 0; ok && i < 4; i++) {
        struct script_request r;
        ok = script_request(i % 2 ? t2 : t1, NULL, &r) == 0 &&
             memmem(r.data, r.len, "\r\nHost: 127.0.0.1:8080\r\n", 24) && memmem(r.data, r.len, "\r\n\r\n", 4);
        if (ok && (r.len < strlen(first_line) || memcmp(r.data, first_line, strlen(first_line)) != 0)) {
            printf("# want '%s' in '%.*s'\n", first_line, (int)r.len, r.data);
            ok = false;
        }
    }
    struct hist h;
    hist_init(&h);
    hist_record(&h, 1500);
    struct script_summary sum = {2000000, 1234, 99, {0, 0, 0, 0, 0}};
    const char *printed = ok ? done_output(s, &sum, &h) : "";
    TAP_CHECK(ok && printed[0] == '{' && strstr(printed, "\"requests\":1234,") && strstr(printed, "\"p99\":1500"),
              "scenarios/%s.lua loads, makes requests in two threads, and its done() prints the record", name);
    hist_free(&h);
    script_free(s);
}

static void test_scenarios(void)
{
    /* mixed rotates five; the first thread's extra call took "/" */
    static const char *const mixed[] = {"GET /no-read HTTP/1.1\r\n", "GET /hello HTTP/1.1\r\n",
                                        "GET /file?size=1024 HTTP/1.1\r\n", "POST /load HTTP/1.1\r\n",
                                        "GET / HTTP/1.1\r\n"};
    test_scenario("baseline", "GET / HTTP/1.1\r\n");
    test_scenario("hello", "GET /hello HTTP/1.1\r\n");
    test_scenario("high-concurrency", "GET / HTTP/1.1\r\n");
    test_scenario("large-file", "GET /file?size=1048576 HTTP/1.1\r\n");
    test_scenario("post-load", "POST /load HTTP/1.1\r\n");
    test_scenario("mixed", "GET ");
    struct script_target tg = target("/base");
    struct script *s = load("../../scenarios/mixed.lua", &tg);
    struct script_thread *t = s ? thread(s, 0, NULL) : NULL;
    bool ok = t != NULL;
    for (size_t i = 0; ok && i < 10; i++) {
        struct script_request r;
        ok = script_request(t, NULL, &r) == 0 && r.len > strlen(mixed[i % 5]) &&
             memcmp(r.data, mixed[i % 5], strlen(mixed[i % 5])) == 0;
        if (ok && i % 5 == 3) ok = r.len > 66 && memcmp(r.data + r.len - 66, "{\"id\":42,", 9) == 0;
    }
    TAP_CHECK(ok, "scenarios/mixed.lua rotates its five requests (the POST with its JSON body)");
    script_free(s);
}

int main(void)
{
    target_addr.sin_family = AF_INET;
    target_addr.sin_port = htons(8080);
    target_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    test_format();
    test_default_request();
    test_args();
    test_threads();
    test_kinds();
    test_conn();
    test_response();
    test_response_refill();
    test_delay();
    test_done();
    test_hot_path();
    test_thread_errors();
    test_run_errors();
    test_load_errors();
    test_scenarios();
    TAP_EXIT();
}
