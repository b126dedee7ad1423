/* Unit tests of reqtext.c: wrk.format() output and hand-written requests,
 * pipelined texts, chunked bodies, every error with its place, every prefix
 * of valid texts, random mutations, the HTTP/2 header blocks, and the cache
 * (no allocation on a hit). */
#include <nghttp2/nghttp2.h>
#include <stdlib.h>

static size_t allocations;

static void *counted_malloc(size_t n)
{
    allocations++;
    return malloc(n);
}

#define malloc(n) counted_malloc(n)
#include "../src/reqtext.c"
#undef malloc

#include <stdio.h>
#include <string.h>

#include "reqtext_check.h"
#include "tap.h"

static const struct reqtext_h2_opts H2_OPTS = {"http", "default.test:8080"};

/* A copy of text in a buffer of exactly len bytes, so that ASan sees any read past it. */
static char *exact(const char *text, size_t len)
{
    char *p = malloc(len ? len : 1);
    memcpy(p, text, len);
    return p;
}

static struct reqtext_set *parse_n(const char *text, size_t len, const struct reqtext_h2_opts *h2,
                                   struct reqtext_error *err)
{
    char *copy = exact(text, len);
    struct reqtext_set *set = reqtext_parse(copy, len, h2, err);
    free(copy);
    return set;
}

static bool span_eq(struct reqtext_span s, const char *want)
{
    return s.len == strlen(want) && memcmp(s.ptr, want, s.len) == 0;
}

/* "name: value\n" per field, for comparing whole header lists. */
static const char *fields_text(const struct reqtext_request *r)
{
    static char out[4096];
    size_t o = 0;
    for (size_t i = 0; i < r->field_count; i++)
        o += (size_t)snprintf(out + o, sizeof out - o, "%.*s: %.*s\n", (int)r->fields[i].name.len,
                              r->fields[i].name.ptr, (int)r->fields[i].value.len, r->fields[i].value.ptr);
    out[o] = '\0';
    return out;
}

/* "name: value\n" per nv entry; "!" marks an entry nghttp2 would copy. */
static const char *nv_text(const struct reqtext_h2 *h)
{
    static char out[4096];
    size_t o = 0;
    const uint8_t no_copy = NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE;
    for (size_t i = 0; i < h->nvlen; i++)
        o += (size_t)snprintf(out + o, sizeof out - o, "%s%.*s: %.*s\n", h->nva[i].flags == no_copy ? "" : "!",
                              (int)h->nva[i].namelen, (const char *)h->nva[i].name, (int)h->nva[i].valuelen,
                              (const char *)h->nva[i].value);
    out[o] = '\0';
    return out;
}

/* s with its line ends shown as "|", for a TAP line. */
static const char *oneline(const char *s)
{
    static char out[4096];
    size_t i = 0;
    for (; s[i] && i + 1 < sizeof out; i++) out[i] = s[i] == '\n' ? '|' : s[i];
    out[i] = '\0';
    return out;
}

/* What wrk.format(method, path, headers, body) returns, headers in the given
 * order (wrk's is pairs() order) with Content-Length set from the body at
 * length_at (wrk: headers["Content-Length"] = body and #body). */
static size_t wrk_format(char *out, size_t cap, const char *method, const char *path, const char *const *headers,
                         size_t length_at, const char *body)
{
    size_t o = (size_t)snprintf(out, cap, "%s %s HTTP/1.1\r\n", method, path);
    for (size_t i = 0;; i++) {
        if (i == length_at && body) o += (size_t)snprintf(out + o, cap - o, "Content-Length: %zu\r\n", strlen(body));
        if (!headers[i]) break;
        o += (size_t)snprintf(out + o, cap - o, "%s\r\n", headers[i]);
    }
    return o + (size_t)snprintf(out + o, cap - o, "\r\n%s", body ? body : "");
}

static void test_wrk_default(void)
{
    const char *text = "GET / HTTP/1.1\r\nHost: localhost:8080\r\n\r\n";
    struct reqtext_error e = {0};
    struct reqtext_set *set = parse_n(text, strlen(text), NULL, &e);
    const struct reqtext_request *r = set ? &set->requests[0] : NULL;
    TAP_CHECK(set && set->count == 1 && span_eq(r->method, "GET") && span_eq(r->target, "/") &&
                  span_eq(r->version, "HTTP/1.1") && strcmp(fields_text(r), "Host: localhost:8080\n") == 0 &&
                  span_eq(r->host, "localhost:8080") && r->body_len == 0 && !r->has_content_length &&
                  r->text.len == strlen(text) && set->h2 == NULL,
              "reqtext: wrk's default request");
    reqtext_release(set);
}

static void test_wrk_body(void)
{
    static const char *const headers[] = {"Host: example.com", "Content-Type: application/json",
                                          "X-Token:  abc  ", NULL};
    char text[512];
    size_t len = wrk_format(text, sizeof text, "POST", "/api?x=1", headers, 1, "{\"a\": 1}");
    struct reqtext_error e = {0};
    struct reqtext_set *set = parse_n(text, len, NULL, &e);
    const struct reqtext_request *r = set ? &set->requests[0] : NULL;
    TAP_CHECK(set && set->count == 1 && span_eq(r->method, "POST") && span_eq(r->target, "/api?x=1") &&
                  strcmp(fields_text(r), "Host: example.com\nContent-Length: 8\nContent-Type: application/json\n"
                                         "X-Token: abc\n") == 0 &&
                  r->has_content_length && r->body_len == 8 && memcmp(r->body, "{\"a\": 1}", 8) == 0 &&
                  r->text.len == len,
              "reqtext: wrk.format with headers and a body: fields in order, values trimmed, body");
    reqtext_release(set);
}

static const char PIPELINED[] = "GET /one HTTP/1.1\r\nHost: a\r\n\r\n"
                                "POST /two HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello"
                                "GET /three HTTP/1.0\nHost: a\n\n";

static void test_pipelined(void)
{
    struct reqtext_error e = {0};
    size_t len = sizeof PIPELINED - 1;
    struct reqtext_set *set = parse_n(PIPELINED, len, NULL, &e);
    bool ok = set && set->count == 3 && reqtext_count(PIPELINED, len, &e) == 3;
    for (size_t i = 0, at = 0; ok && i < 3; i++) {
        ok = (size_t)(set->requests[i].text.ptr - set->text) == at;
        at += set->requests[i].text.len;
        ok = ok && (i < 2 || at == len);
    }
    ok = ok && span_eq(set->requests[1].target, "/two") && set->requests[1].body_len == 5 &&
         span_eq(set->requests[2].target, "/three") && span_eq(set->requests[2].version, "HTTP/1.0");
    TAP_CHECK(ok, "reqtext: three pipelined requests: counted, contiguous spans, each its own body");
    reqtext_release(set);
}

static void test_line_ends(void)
{
    const char *lf = "POST /x HTTP/1.1\nHost: a\nContent-Length: 3\n\nabc";
    const char *blank = "\r\n\nGET / HTTP/1.1\r\nHost: a\r\n\r\n\r\n\n\r\nGET /2 HTTP/1.1\nHost: a\n\n\n";
    struct reqtext_error e = {0};
    struct reqtext_set *set = parse_n(lf, strlen(lf), NULL, &e);
    TAP_CHECK(set && set->count == 1 && set->requests[0].body_len == 3 &&
                  strcmp(fields_text(&set->requests[0]), "Host: a\nContent-Length: 3\n") == 0,
              "reqtext: LF-only line ends");
    reqtext_release(set);
    set = parse_n(blank, strlen(blank), NULL, &e);
    TAP_CHECK(set && set->count == 2 && set->requests[0].text.ptr == set->text + 3 &&
                  set->requests[0].text.len == 27 && span_eq(set->requests[1].target, "/2"),
              "reqtext: empty lines before, between and after requests are skipped");
    reqtext_release(set);
}

static const char CHUNKED[] = "POST /up HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
                              "5\r\nhello\r\n6 ; name=value\r\n world\r\n0\r\n\r\n"
                              "GET /next HTTP/1.1\r\nHost: a\r\n\r\n";

static void test_chunked(void)
{
    const char *lf = "POST / HTTP/1.1\nTransfer-Encoding: Chunked\n\n3\nabc\nA\n0123456789\n0\n\n";
    const char *trailer = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\nX-Sum: 1\r\n\r\n";
    struct reqtext_error e = {0};
    struct reqtext_set *set = parse_n(CHUNKED, sizeof CHUNKED - 1, &H2_OPTS, &e);
    const struct reqtext_request *r = set ? &set->requests[0] : NULL;
    TAP_CHECK(set && set->count == 2 && r->chunked && r->body_len == 11 && memcmp(r->body, "hello world", 11) == 0 &&
                  r->text.len == sizeof CHUNKED - 1 - 31 && span_eq(set->requests[1].target, "/next"),
              "reqtext: a chunked body is decoded (extensions skipped); the text keeps its framing");
    TAP_CHECK(set && strcmp(nv_text(&set->h2[0]), ":method: POST\n:scheme: http\n:authority: a\n:path: /up\n"
                                                  "content-length: 11\n") == 0,
              "reqtext: chunked over HTTP/2: no transfer-encoding, content-length of the decoded body: %s",
              set ? oneline(nv_text(&set->h2[0])) : "(null)");
    reqtext_release(set);
    set = parse_n(lf, strlen(lf), NULL, &e);
    TAP_CHECK(set && set->requests[0].body_len == 13 && memcmp(set->requests[0].body, "abc0123456789", 13) == 0,
              "reqtext: chunked with LF line ends and a hexadecimal size");
    reqtext_release(set);
    set = parse_n(trailer, strlen(trailer), NULL, &e);
    TAP_CHECK(set && set->requests[0].trailer_count == 1 && set->requests[0].field_count == 1 &&
                  set->requests[0].text.len == strlen(trailer),
              "reqtext: trailer fields after a chunked body are read and not taken for header fields");
    reqtext_release(set);
    set = parse_n(trailer, strlen(trailer), &H2_OPTS, &e);
    TAP_CHECK(!set && e.offset == strlen(trailer) - 12 && strstr(e.reason, "trailer"),
              "reqtext: trailer fields are an HTTP/2 error at their place (byte %zu: %s)", e.offset,
              e.reason ? e.reason : "no error");
    reqtext_release(set);
}

struct bad_case {
    const char *text;
    size_t len; /* 0: strlen */
    const char *reason;
    size_t offset, request;
};

static const struct bad_case BAD[] = {
    {"", 0, "no request", 0, 1},
    {"\r\n\n", 0, "no request", 3, 1},
    {"GET / HTTP/1.1\r\nHost: a\r\n", 0, "ends inside the head", 25, 1},
    {"GET / HTTP/1.1", 0, "ends inside the request line", 14, 1},
    {"GET /\r\n\r\n", 0, "no HTTP version", 5, 1},
    {"GET / HTTP/2\r\n\r\n", 0, "not HTTP/1.1", 6, 1},
    {"GET / HTTP/1.1 \r\n\r\n", 0, "not HTTP/1.1", 6, 1},
    {"HTTP/1.1 200 OK\r\n\r\n", 0, "invalid character in the method", 4, 1},
    {"GET\r\n\r\n", 0, "nothing after the method", 3, 1},
    {" GET / HTTP/1.1\r\n\r\n", 0, "does not start with a method", 0, 1},
    {"GET  / HTTP/1.1\r\n\r\n", 0, "no request-target", 4, 1},
    {"GET /a\x01 HTTP/1.1\r\n\r\n", 0, "invalid character in the request-target", 6, 1},
    {"GET / HTTP/1.1\r\nHost a\r\n\r\n", 0, "without a colon", 16, 1},
    {"GET / HTTP/1.1\r\nHost : a\r\n\r\n", 0, "whitespace between", 20, 1},
    {"GET / HTTP/1.1\r\nX@y: 1\r\n\r\n", 0, "invalid character in a header field name", 17, 1},
    {"GET / HTTP/1.1\r\n: 1\r\n\r\n", 0, "empty header field name", 16, 1},
    {"GET / HTTP/1.1\r\nHost: a\r\n b\r\n\r\n", 0, "obs-fold", 25, 1},
    {"GET / HTTP/1.1\r\nX: a\rb\r\n\r\n", 0, "CR not followed by LF", 20, 1},
    {"GET / HTTP/1.1\r\nX: a\0b\r\n\r\n", 26, "control character", 20, 1},
    {"GET / HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n", 0, "Host repeated with another value", 25, 1},
    {"GET / HTTP/1.1\r\nHost: ab\r\nhost: a\r\n\r\n", 0, "Host repeated with another value", 26, 1},
    {"POST / HTTP/1.1\r\nContent-Length: 5x\r\n\r\nhello", 0, "not a number", 34, 1},
    {"POST / HTTP/1.1\r\nContent-Length:\r\n\r\n", 0, "not a number", 32, 1},
    {"POST / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n", 0, "too large", 33, 1},
    {"POST / HTTP/1.1\r\nContent-Length: 5\r\ncontent-length: 6\r\n\r\nhello", 0, "another value", 52, 1},
    {"POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nhello", 0, "inside the body", 44, 1},
    {"POST / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 0, "both", 0, 1},
    {"POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 0, "other than chunked", 36, 1},
    {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", 0, "twice", 45, 1},
    {"POST / HTTP/1.1\r\nTransfer-Encoding: , \r\n\r\n", 0, "without chunked", 36, 1},
    {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 0, "not a hexadecimal", 47, 1},
    {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5x\r\nhello\r\n", 0, "after the chunk size", 48, 1},
    {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", 0, "inside a chunk", 53, 1},
    {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloX0\r\n\r\n", 0, "not followed by a line end", 55, 1},
    {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r", 0, "inside the chunked body", 56, 1},
    {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", 0, "inside the chunked body", 57, 1},
    {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFF\r\n", 0, "too large", 47, 1},
    {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: 1\r\n", 0, "inside the trailer", 56, 1},
    {"POST / HTTP/1.1\r\nHost: a\r\n\r\nname=value", 0, "ends inside the request line", 38, 2},
    {"POST / HTTP/1.1\r\nHost: a\r\n\r\nhello world\n", 0, "no HTTP version", 39, 2},
};

static void test_errors(void)
{
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        const struct bad_case *c = &BAD[i];
        size_t len = c->len ? c->len : strlen(c->text);
        struct reqtext_error e = {0}, ce = {0};
        char msg[256], why[256];
        struct reqtext_set *set = parse_n(c->text, len, NULL, &e);
        size_t count = reqtext_count(c->text, len, &ce);
        bool ok = !set && count == 0 && e.reason && strstr(e.reason, c->reason) && e.offset == c->offset &&
                  e.request == c->request && ce.offset == e.offset && check_error(c->text, len, &e, why, sizeof why);
        if (e.reason) reqtext_error_format(&e, msg, sizeof msg);
        TAP_CHECK(ok, "reqtext: error case %zu: %s", i + 1, e.reason ? msg : "(no error)");
        reqtext_release(set);
    }
}

static void test_error_format(void)
{
    const char *text = "GET / HTTP/1.1\r\nHost: a\r\n\r\nPOST / HTTP/1.1\r\nHost: b\r\n\r\n{\"a\":1}\r\n";
    struct reqtext_error e = {0};
    char msg[256];
    size_t count = reqtext_count(text, strlen(text), &e);
    reqtext_error_format(&e, msg, sizeof msg);
    TAP_CHECK(count == 0 && strcmp(msg, "request 3, line 7, column 1 (byte 55): the request line does not start "
                                        "with a method (a token); the text after the previous request is not a "
                                        "request: a body without Content-Length?") == 0,
              "reqtext: error message with request, line, column, byte and hint: %s", msg);
}

/* Every prefix parses or fails as the whole text says it must: it parses
 * exactly when it ends at a request's end (plus empty lines), with the
 * requests before; anything else is an error inside the prefix. */
static bool prefixes_ok(const char *text, size_t len)
{
    struct reqtext_error e = {0};
    struct reqtext_set *whole = parse_n(text, len, NULL, &e);
    bool ok = whole != NULL;
    for (size_t k = 0; ok && k <= len; k++) {
        size_t done = 0;
        const char *end = text;
        while (done < whole->count &&
               whole->requests[done].text.ptr + whole->requests[done].text.len <= whole->text + k) {
            end = text + (whole->requests[done].text.ptr + whole->requests[done].text.len - whole->text);
            done++;
        }
        bool complete = done > 0 && check_only_empty_lines(end, (size_t)(text + k - end));
        char *copy = exact(text, k), why[256];
        size_t count = reqtext_count(copy, k, &e);
        ok = complete ? count == done : count == 0 && e.offset <= k;
        ok = ok && reqtext_check(copy, k, &H2_OPTS, why, sizeof why);
        if (!ok) printf("# prefix %zu: count %zu, want %zu %s\n", k, count, complete ? done : 0, why);
        free(copy);
    }
    reqtext_release(whole);
    return ok;
}

static void test_prefixes(void)
{
    char wrk[512];
    static const char *const headers[] = {"Host: h", "User-Agent: wrk", NULL};
    size_t wrk_len = wrk_format(wrk, sizeof wrk, "PUT", "/p", headers, 2, "body bytes");
    TAP_CHECK(prefixes_ok(PIPELINED, sizeof PIPELINED - 1), "reqtext: every prefix of a pipelined text");
    TAP_CHECK(prefixes_ok(CHUNKED, sizeof CHUNKED - 1), "reqtext: every prefix of a chunked text");
    TAP_CHECK(prefixes_ok(wrk, wrk_len), "reqtext: every prefix of wrk.format output");
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Replaces, inserts or deletes a byte, favouring the bytes the syntax turns on. */
static size_t mutate(char *buf, size_t len, size_t cap)
{
    static const char interesting[] = "\r\n: \t;0Fz,\x7f\x01";
    char c = rng() % 4 ? interesting[rng() % (sizeof interesting - 1)] : (char)rng();
    size_t at = len ? rng() % len : 0;
    switch (rng() % 3) {
    case 0:
        if (len) buf[at] = c;
        return len;
    case 1:
        if (len == cap) return len;
        memmove(buf + at + 1, buf + at, len - at);
        buf[at] = c;
        return len + 1;
    default:
        if (len) memmove(buf + at, buf + at + 1, len - at - 1);
        return len ? len - 1 : 0;
    }
}

static void test_mutations(void)
{
    const char *seeds[] = {PIPELINED, CHUNKED, "GET http://u:p@h:1/x?y HTTP/1.1\r\nTE: trailers\r\n\r\n"};
    char buf[512], why[256] = "";
    size_t rounds = 0, parsed = 0;
    bool ok = true;
    for (; ok && rounds < 20000; rounds++) {
        const char *seed = seeds[rounds % 3];
        size_t len = strlen(seed);
        memcpy(buf, seed, len);
        for (uint64_t m = 1 + rng() % 4; m > 0; m--) len = mutate(buf, len, sizeof buf);
        char *copy = exact(buf, len);
        ok = reqtext_check(copy, len, &H2_OPTS, why, sizeof why);
        parsed += reqtext_count(copy, len, NULL) > 0;
        if (!ok) printf("# mutation %zu (%zu bytes): %s\n", rounds, len, why);
        free(copy);
    }
    TAP_CHECK(ok && parsed > 1000, "reqtext: %zu random mutations hold the contract (%zu still parse)", rounds, parsed);
}

static void test_h2_round_trip(void)
{
    static const char *const headers[] = {"Host: example.com:8080", "Connection: keep-alive", "User-Agent: wrk",
                                          "Content-Type: text/plain", "Keep-Alive: timeout=5", "X-Request-Id: 42",
                                          "TE: trailers", "Upgrade: h2c", NULL};
    char text[1024];
    size_t len = wrk_format(text, sizeof text, "POST", "/submit?x=1", headers, 3, "hello world");
    size_t one = len;
    len += wrk_format(text + len, sizeof text - len, "GET", "/second", headers, 0, NULL);
    struct reqtext_error e = {0};
    struct reqtext_set *set = parse_n(text, len, &H2_OPTS, &e);
    TAP_CHECK(set && set->count == 2 && set->requests[0].text.len == one &&
                  strcmp(nv_text(&set->h2[0]), ":method: POST\n:scheme: http\n:authority: example.com:8080\n"
                                               ":path: /submit?x=1\nuser-agent: wrk\ncontent-length: 11\n"
                                               "content-type: text/plain\nx-request-id: 42\nte: trailers\n") == 0 &&
                  set->requests[0].body_len == 11 && memcmp(set->requests[0].body, "hello world", 11) == 0,
              "reqtext: wrk.format text with headers and a body -> HTTP/2 fields in order, no copies: %s",
              set ? oneline(nv_text(&set->h2[0])) : "(null)");
    TAP_CHECK(set && strcmp(nv_text(&set->h2[1]), ":method: GET\n:scheme: http\n:authority: example.com:8080\n"
                                                  ":path: /second\nuser-agent: wrk\ncontent-type: text/plain\n"
                                                  "x-request-id: 42\nte: trailers\n") == 0 &&
                  set->requests[1].body_len == 0,
              "reqtext: the second pipelined request has its own block, without content-length");
    reqtext_release(set);
}

struct h2_case {
    const char *text, *want; /* want: nv_text of the first request, or "error: REASON" */
    const char *default_authority;
};

static const struct h2_case H2_CASES[] = {
    {"GET /a HTTP/1.1\r\nX-UPPER: V\r\n\r\n", ":method: GET\n:scheme: http\n:authority: default.test:8080\n"
                                             ":path: /a\nx-upper: V\n", "default.test:8080"},
    {"GET /a HTTP/1.1\r\n\r\n", ":method: GET\n:scheme: http\n:path: /a\n", NULL},
    {"GET /a HTTP/1.1\r\nHost:\r\n\r\n", ":method: GET\n:scheme: http\n:authority: d\n:path: /a\n", "d"},
    {"GET http://user:pw@h.test:81/p/q?r HTTP/1.1\r\nHost: other\r\n\r\n",
     ":method: GET\n:scheme: http\n:authority: h.test:81\n:path: /p/q?r\n", "d"},
    {"GET https://h.test HTTP/1.1\r\n\r\n", ":method: GET\n:scheme: http\n:authority: h.test\n:path: /\n", "d"},
    {"GET http://h.test?q=1 HTTP/1.1\r\n\r\n", ":method: GET\n:scheme: http\n:authority: h.test\n:path: /?q=1\n", "d"},
    {"OPTIONS http://h.test HTTP/1.1\r\n\r\n", ":method: OPTIONS\n:scheme: http\n:authority: h.test\n:path: *\n", "d"},
    {"OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n", ":method: OPTIONS\n:scheme: http\n:authority: h\n:path: *\n", "d"},
    {"GET http:///p HTTP/1.1\r\nHost: h\r\n\r\n", ":method: GET\n:scheme: http\n:authority: h\n:path: /p\n", "d"},
    {"GET / HTTP/1.1\r\nhost: H.test\r\nHost: h.test\r\n\r\n", ":method: GET\n:scheme: http\n:authority: h.test\n"
                                                              ":path: /\n", "d"},
    {"GET / HTTP/1.1\r\nTE: gzip\r\nProxy-Connection: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
     ":method: GET\n:scheme: http\n:authority: d\n:path: /\n", "d"},
    {"POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n", ":method: POST\n:scheme: http\n:authority: d\n:path: /\n"
                                                    "content-length: 0\n", "d"},
    {"POST / HTTP/1.1\r\nContent-Length: 002\r\nContent-Length: 2\r\n\r\nhi",
     ":method: POST\n:scheme: http\n:authority: d\n:path: /\ncontent-length: 2\n", "d"},
    {"GET * HTTP/1.1\r\n\r\n", "error: only for OPTIONS", "d"},
    {"GET h.test:80 HTTP/1.1\r\n\r\n", "error: not /path", "d"},
    {"CONNECT h.test:443 HTTP/1.1\r\n\r\n", "error: CONNECT", "d"},
    {"GET 1http://h/ HTTP/1.1\r\n\r\n", "error: not /path", "d"},
};

static void test_h2_cases(void)
{
    for (size_t i = 0; i < sizeof H2_CASES / sizeof H2_CASES[0]; i++) {
        const struct h2_case *c = &H2_CASES[i];
        struct reqtext_h2_opts opts = {"http", c->default_authority};
        struct reqtext_error e = {0};
        struct reqtext_set *set = parse_n(c->text, strlen(c->text), &opts, &e);
        const char *got = set ? nv_text(&set->h2[0]) : e.reason ? e.reason : "(nothing)";
        bool ok = strncmp(c->want, "error: ", 7) == 0 ? !set && e.reason && strstr(e.reason, c->want + 7) &&
                                                            e.offset == strcspn(c->text, " ") + 1
                                                      : set && strcmp(got, c->want) == 0;
        TAP_CHECK(ok, "reqtext: HTTP/2 case %zu: %s", i + 1, oneline(got));
        reqtext_release(set);
    }
}

/* What an nghttp2 server session received: its header fields as nv_text
 * shows them, the body bytes, and the streams that ended well. */
struct h2_peer {
    char headers[2048], body[256];
    size_t headers_len, body_len;
    int ended;
};

static int peer_header(nghttp2_session *ng, const nghttp2_frame *frame, const uint8_t *name, size_t namelen,
                       const uint8_t *value, size_t valuelen, uint8_t flags, void *user)
{
    struct h2_peer *p = user;
    (void)ng, (void)frame, (void)flags;
    p->headers_len += (size_t)snprintf(p->headers + p->headers_len, sizeof p->headers - p->headers_len,
                                       "%.*s: %.*s\n", (int)namelen, (const char *)name, (int)valuelen,
                                       (const char *)value);
    return 0;
}

static int peer_data(nghttp2_session *ng, uint8_t flags, int32_t id, const uint8_t *data, size_t len, void *user)
{
    struct h2_peer *p = user;
    (void)ng, (void)flags, (void)id;
    if (p->body_len + len <= sizeof p->body) memcpy(p->body + p->body_len, data, len);
    p->body_len += len;
    return 0;
}

static int peer_frame(nghttp2_session *ng, const nghttp2_frame *frame, void *user)
{
    struct h2_peer *p = user;
    (void)ng;
    if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
        (frame->hd.flags & NGHTTP2_FLAG_END_STREAM))
        p->ended++;
    return 0;
}

/* Sends a whole body at once (the test bodies fit the first window). */
static ssize_t send_body(nghttp2_session *ng, int32_t id, uint8_t *buf, size_t len, uint32_t *flags,
                         nghttp2_data_source *src, void *user)
{
    const struct reqtext_request *r = src->ptr;
    (void)ng, (void)id, (void)user;
    if (r->body_len > len) return NGHTTP2_ERR_CALLBACK_FAILURE;
    memcpy(buf, r->body, r->body_len);
    *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)r->body_len;
}

static nghttp2_session *peer_server(struct h2_peer *p)
{
    nghttp2_session_callbacks *cb;
    nghttp2_session *server = NULL;
    nghttp2_session_callbacks_new(&cb);
    nghttp2_session_callbacks_set_on_header_callback(cb, peer_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, peer_data);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, peer_frame);
    nghttp2_session_server_new(&server, cb, p);
    nghttp2_session_callbacks_del(cb);
    return server;
}

/* Submits every request of set on an nghttp2 client and feeds the bytes to an
 * nghttp2 server (which checks the fields as RFC 9113 8.2 says, and the
 * content-length against the DATA); true when it read them all. */
static bool through_nghttp2(const struct reqtext_set *set, struct h2_peer *p)
{
    nghttp2_session_callbacks *cb;
    nghttp2_session *client = NULL, *server = peer_server(p);
    nghttp2_session_callbacks_new(&cb);
    nghttp2_session_client_new(&client, cb, NULL);
    nghttp2_session_callbacks_del(cb);
    bool ok = client && server && nghttp2_submit_settings(client, NGHTTP2_FLAG_NONE, NULL, 0) == 0;
    for (size_t i = 0; ok && i < set->count; i++) {
        nghttp2_data_provider body = {.source.ptr = (void *)(uintptr_t)&set->requests[i], .read_callback = send_body};
        ok = nghttp2_submit_request(client, NULL, set->h2[i].nva, set->h2[i].nvlen,
                                    set->requests[i].body_len ? &body : NULL, NULL) > 0;
    }
    for (;;) {
        const uint8_t *out;
        ssize_t n = ok ? nghttp2_session_mem_send(client, &out) : 0;
        if (n <= 0) break;
        ok = nghttp2_session_mem_recv(server, out, (size_t)n) == n;
    }
    ok = ok && p->ended == (int)set->count;
    nghttp2_session_del(client);
    nghttp2_session_del(server);
    return ok;
}

static void test_nghttp2_reads_blocks(void)
{
    const char *text = "POST /form HTTP/1.1\r\nHost: h.test\r\nConnection: keep-alive\r\nTE: trailers\r\n"
                       "Content-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello"
                       "PUT http://a.test/x HTTP/1.1\nTransfer-Encoding: chunked\nKeep-Alive: 1\n\n3\nabc\n0\n\n"
                       "OPTIONS * HTTP/1.1\r\nUpgrade: h2c\r\nX-Y: z\r\n\r\n";
    struct reqtext_error e = {0};
    struct h2_peer peer = {0};
    struct reqtext_set *set = parse_n(text, strlen(text), &H2_OPTS, &e);
    bool ok = set && through_nghttp2(set, &peer);
    const char *want = ":method: POST\n:scheme: http\n:authority: h.test\n:path: /form\nte: trailers\n"
                       "content-type: text/plain\ncontent-length: 5\n"
                       ":method: PUT\n:scheme: http\n:authority: a.test\n:path: /x\ncontent-length: 3\n"
                       ":method: OPTIONS\n:scheme: http\n:authority: default.test:8080\n:path: *\nx-y: z\n";
    TAP_CHECK(ok && strcmp(peer.headers, want) == 0 && peer.body_len == 8 && memcmp(peer.body, "helloabc", 8) == 0,
              "reqtext: an nghttp2 server session reads every header block and body as sent: %s",
              oneline(peer.headers));
    reqtext_release(set);
}

static void test_cache(void)
{
    const char *a = "GET /a HTTP/1.1\r\nHost: h\r\n\r\n", *b = "GET /b HTTP/1.1\r\nHost: h\r\n\r\n";
    size_t len = strlen(a);
    char *a1 = exact(a, len), *a2 = exact(a, len), *b1 = exact(b, len);
    struct reqtext_cache cache;
    struct reqtext_error e = {0};
    reqtext_cache_init(&cache, &H2_OPTS);
    struct reqtext_set *first = reqtext_cache_get(&cache, a1, len, &e);
    size_t before = allocations;
    bool same = first != NULL;
    for (int i = 0; i < 1000 && same; i++) same = reqtext_cache_get(&cache, i % 2 ? a1 : a2, len, &e) == first;
    TAP_CHECK(same && allocations == before, "reqtext cache: the same bytes (from other buffers) hit, %zu allocations",
              allocations - before);
    reqtext_hold(first);
    struct reqtext_set *second = reqtext_cache_get(&cache, b1, len, &e);
    TAP_CHECK(second && second != first && span_eq(second->requests[0].target, "/b") &&
                  span_eq(first->requests[0].target, "/a") && first->h2[0].nva[3].valuelen == 2 &&
                  memcmp(first->h2[0].nva[3].value, "/a", 2) == 0,
              "reqtext cache: other bytes of the same length miss; a held old parse stays readable");
    reqtext_release(first);
    struct reqtext_set *bad = reqtext_cache_get(&cache, "nonsense", 8, &e);
    TAP_CHECK(!bad && e.reason && cache.set == second && reqtext_cache_get(&cache, b1, len, &e) == second,
              "reqtext cache: a text that does not parse is an error and leaves the cache as it was");
    reqtext_cache_free(&cache);
    reqtext_cache_init(&cache, NULL);
    struct reqtext_set *plain = reqtext_cache_get(&cache, a1, len, &e);
    TAP_CHECK(plain && plain->h2 == NULL && cache.set == plain, "reqtext cache: without HTTP/2 options, no header blocks");
    reqtext_cache_free(&cache);
    TAP_CHECK(cache.set == NULL, "reqtext cache: freed");
    free(a1);
    free(a2);
    free(b1);
}

static void test_no_hidden_allocation(void)
{
    size_t before = allocations;
    size_t count = reqtext_count(PIPELINED, sizeof PIPELINED - 1, NULL);
    size_t after_count = allocations;
    struct reqtext_set *set = reqtext_parse(CHUNKED, sizeof CHUNKED - 1, &H2_OPTS, NULL);
    TAP_CHECK(count == 3 && after_count == before && allocations - after_count == 1 && set,
              "reqtext: counting allocates nothing, a parse with HTTP/2 blocks allocates once");
    reqtext_release(set);
}

int main(void)
{
    test_wrk_default();
    test_wrk_body();
    test_pipelined();
    test_line_ends();
    test_chunked();
    test_errors();
    test_error_format();
    test_prefixes();
    test_mutations();
    test_h2_round_trip();
    test_h2_cases();
    test_nghttp2_reads_blocks();
    test_cache();
    test_no_hidden_allocation();
    TAP_EXIT();
}
