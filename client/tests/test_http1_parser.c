/* Unit tests of http1_parser.c: every fixture fed whole, split at every byte
 * boundary and byte by byte gives the same, expected, sequence of results, and
 * the same bytes to a sink (heads, decoded bodies). */
#include "../src/http1_parser.c"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

#define FIXTURES "fixtures/http1/"
#define MAX_FIXTURE (1 << 16)

/* Appends the results of feeding data in pieces of the given sizes (the last
 * piece takes the rest) to out: "status:body:keepalive:interim;" per response,
 * then "end;" (clean EOF), "truncated;", or "error:NAME;". A response without
 * keep-alive ends the connection as a client must (RFC 9112 9.6): the bytes
 * after it are never parsed, "ignored:N;" counts them. Returns -1 when the
 * parser stalls (consumes nothing without finishing). */
/* What a sink received for the current response: lengths and FNV-1a hashes
 * of the head and body bytes, and the bytes themselves (the first 4096). */
struct collected {
    size_t head_len, body_len;
    uint64_t head_hash, body_hash;
    char head[4096], body[4096];
};

static void collect(uint64_t *hash, size_t *len, char *keep, const uint8_t *data, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        *hash = (*hash ^ data[i]) * 1099511628211ULL;
        if (*len + i < 4095) keep[*len + i] = (char)data[i];
    }
    *len += n;
    keep[*len < 4095 ? *len : 4095] = '\0';
}

static void keep_head(void *user, const uint8_t *data, size_t n)
{
    struct collected *c = user;
    collect(&c->head_hash, &c->head_len, c->head, data, n);
}

static void keep_body(void *user, const uint8_t *data, size_t n)
{
    struct collected *c = user;
    collect(&c->body_hash, &c->body_len, c->body, data, n);
}

static void collected_reset(struct collected *c)
{
    c->head_len = c->body_len = 0;
    c->head_hash = c->body_hash = 14695981039346656037ULL;
    c->head[0] = c->body[0] = '\0';
}

/* Appends "Hlen/hash,Blen/hash;" of what the sink got for one response to digest;
 * a body that differs in length from body_bytes is marked "MISMATCH". */
static size_t digest_add(char *digest, size_t d, size_t cap, const struct collected *c, uint64_t body_bytes)
{
    return d + (size_t)snprintf(digest + d, cap - d, "H%zu/%llx,B%zu/%llx%s;", c->head_len,
                                (unsigned long long)c->head_hash, c->body_len, (unsigned long long)c->body_hash,
                                c->body_len == body_bytes ? "" : "MISMATCH");
}

static char digest[4096];       /* feed's sink digest of its last call */
static struct collected last;   /* what the sink got for the last response of the last feed */

static int feed(const uint8_t *data, size_t len, const size_t *cuts, size_t ncuts, bool head, size_t max_header,
                char *out, size_t outlen)
{
    struct http1_parser p;
    struct collected got;
    struct http1_sink sink = {keep_head, keep_body, &got};
    size_t pos = 0, o = 0, d = 0;
    http1_parser_init(&p, max_header);
    p.sink = &sink;
    http1_parser_next(&p, head);
    collected_reset(&got);
    out[0] = digest[0] = '\0';
    for (size_t piece = 0; piece <= ncuts; piece++) {
        size_t end = piece < ncuts ? cuts[piece] : len;
        while (pos < end) {
            size_t used;
            enum http1_result r = http1_parse(&p, data + pos, end - pos, &used);
            pos += used;
            if (r == HTTP1_ERROR) {
                snprintf(out + o, outlen - o, "error:%s;", http1_error_name(p.error));
                return 0;
            }
            if (r == HTTP1_MORE && pos != end) return -1;
            if (r == HTTP1_DONE) {
                if (used == 0) return -1;
                o += (size_t)snprintf(out + o, outlen - o, "%d:%llu:%d:%u;", p.status,
                                      (unsigned long long)p.body_bytes, p.keep_alive, p.interim);
                d = digest_add(digest, d, sizeof digest, &got, p.body_bytes);
                last = got;
                collected_reset(&got);
                if (!p.keep_alive) {
                    snprintf(out + o, outlen - o, "ignored:%zu;", len - pos);
                    return 0;
                }
                http1_parser_next(&p, head);
            }
        }
    }
    if (http1_parse_eof(&p) == HTTP1_DONE) {
        snprintf(out + o, outlen - o, "%d:%llu:%d:%u(eof);", p.status, (unsigned long long)p.body_bytes,
                 p.keep_alive, p.interim);
        digest_add(digest, d, sizeof digest, &got, p.body_bytes);
        last = got;
    }
    else snprintf(out + o, outlen - o, "%s", p.bytes ? "truncated;" : "end;");
    return 0;
}

static size_t load(const char *name, uint8_t *buf)
{
    char path[512];
    snprintf(path, sizeof path, FIXTURES "%s", name);
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t n = fread(buf, 1, MAX_FIXTURE, f);
    fclose(f);
    return n;
}

static void test_fixture(const char *name, bool head, size_t max_header, const char *expected)
{
    static uint8_t data[MAX_FIXTURE];
    static size_t cuts[MAX_FIXTURE];
    char whole[1024], split[1024], whole_digest[sizeof digest];
    size_t len = load(name, data);
    if (feed(data, len, NULL, 0, head, max_header, whole, sizeof whole) != 0) strcpy(whole, "stalled");
    strcpy(whole_digest, digest);
    TAP_CHECK(len > 0 && strcmp(whole, expected) == 0 && !strstr(digest, "MISMATCH"),
              "http1 parser %s (head %d, max header %zu) whole: %s (sink %s)", name, head, max_header, whole, digest);
    int same = 1;
    for (size_t at = 1; at < len && same; at++) {
        cuts[0] = at;
        if (feed(data, len, cuts, 1, head, max_header, split, sizeof split) != 0 || strcmp(split, whole) != 0 ||
            strcmp(digest, whole_digest) != 0) {
            printf("# split at %zu: %s (sink %s)\n", at, split, digest);
            same = 0;
        }
    }
    for (size_t i = 0; i + 1 < len; i++) cuts[i] = i + 1;
    if (same && (feed(data, len, cuts, len ? len - 1 : 0, head, max_header, split, sizeof split) != 0 ||
                 strcmp(split, whole) != 0 || strcmp(digest, whole_digest) != 0)) {
        printf("# byte by byte: %s (sink %s)\n", split, digest);
        same = 0;
    }
    TAP_CHECK(same, "http1 parser %s split at every byte boundary and byte by byte: same results and sink bytes",
              name);
}

/* The sink's bytes themselves: a chunked body decoded, trailers left out; 1xx
 * heads before the final one. */
static void test_sink_content(void)
{
    static uint8_t data[MAX_FIXTURE];
    char out[1024];
    size_t len = load("chunked.http", data);
    /* feed the first response only: it ends where the second begins */
    static const char second_head[] = "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip";
    const char *second = memmem(data, len, second_head, strlen(second_head));
    feed(data, second ? (size_t)(second - (const char *)data) : len, NULL, 0, false, 65536, out, sizeof out);
    bool ok = strcmp(last.body, "hello0123456789") == 0 &&
              strcmp(last.head, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n") == 0;
    if (!ok) printf("# head '%s' body '%s'\n", last.head, last.body);
    TAP_CHECK(ok, "http1 parser sink: a chunked body decoded, the head whole, no trailers");
    len = load("interim.http", data);
    feed(data, len, NULL, 0, false, 65536, out, sizeof out);
    const char *final_head = strstr(last.head, "HTTP/1.1 201 Created\r\n");
    static const char interim_heads[] = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103";
    ok = strncmp(last.head, interim_heads, strlen(interim_heads)) == 0 && final_head &&
         strcmp(final_head, "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n") == 0 && strcmp(last.body, "ok") == 0;
    if (!ok) printf("# head '%s' body '%s'\n", last.head, last.body);
    TAP_CHECK(ok, "http1 parser sink: 1xx heads come before the final head");
}

int main(void)
{
    FILE *f = fopen(FIXTURES "expected.txt", "r");
    char line[1024];
    int cases = 0;
    while (f && fgets(line, sizeof line, f)) {
        char name[256], expected[512];
        int head;
        size_t max_header;
        if (line[0] == '#' || sscanf(line, "%255s %d %zu %511[^\n]", name, &head, &max_header, expected) != 4) continue;
        test_fixture(name, head != 0, max_header, expected);
        cases++;
    }
    if (f) fclose(f);
    TAP_CHECK(cases >= 20, "http1 parser fixtures read (%d)", cases);
    test_sink_content();
    TAP_CHECK(sizeof(struct http1_parser) < 256, "http1 parser state is small and fixed (%zu bytes)",
              sizeof(struct http1_parser));
    TAP_EXIT();
}
