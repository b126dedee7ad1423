/* Unit tests of http1_parser.c: every fixture fed whole, split at every byte
 * boundary and byte by byte gives the same, expected, sequence of results. */
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
static int feed(const uint8_t *data, size_t len, const size_t *cuts, size_t ncuts, bool head, size_t max_header,
                char *out, size_t outlen)
{
    struct http1_parser p;
    size_t pos = 0, o = 0;
    http1_parser_init(&p, max_header);
    http1_parser_next(&p, head);
    out[0] = '\0';
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
                if (!p.keep_alive) {
                    snprintf(out + o, outlen - o, "ignored:%zu;", len - pos);
                    return 0;
                }
                http1_parser_next(&p, head);
            }
        }
    }
    if (http1_parse_eof(&p) == HTTP1_DONE)
        snprintf(out + o, outlen - o, "%d:%llu:%d:%u(eof);", p.status, (unsigned long long)p.body_bytes,
                 p.keep_alive, p.interim);
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
    char whole[1024], split[1024];
    size_t len = load(name, data);
    if (feed(data, len, NULL, 0, head, max_header, whole, sizeof whole) != 0) strcpy(whole, "stalled");
    TAP_CHECK(len > 0 && strcmp(whole, expected) == 0, "http1 parser %s (head %d, max header %zu) whole: %s",
              name, head, max_header, whole);
    int same = 1;
    for (size_t at = 1; at < len && same; at++) {
        cuts[0] = at;
        if (feed(data, len, cuts, 1, head, max_header, split, sizeof split) != 0 || strcmp(split, whole) != 0) {
            printf("# split at %zu: %s\n", at, split);
            same = 0;
        }
    }
    for (size_t i = 0; i + 1 < len; i++) cuts[i] = i + 1;
    if (same && (feed(data, len, cuts, len ? len - 1 : 0, head, max_header, split, sizeof split) != 0 ||
                 strcmp(split, whole) != 0)) {
        printf("# byte by byte: %s\n", split);
        same = 0;
    }
    TAP_CHECK(same, "http1 parser %s split at every byte boundary and byte by byte: same results", name);
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
    TAP_CHECK(sizeof(struct http1_parser) < 256, "http1 parser state is small and fixed (%zu bytes)",
              sizeof(struct http1_parser));
    TAP_EXIT();
}
