/* libFuzzer target for the HTTP/1 response parser. The first input byte picks
 * the options (HEAD, the header limit) and a split point; the rest is fed
 * whole, in two pieces, and (when short) byte by byte, and all must give the
 * same results (status, body bytes, keep-alive and interim count of every
 * response, and the end). Any difference, stall, head counted past the limit or
 * sanitizer report is a crash. */
#include "../src/http1_parser.c"

#include <stdlib.h>
#include <string.h>

#define MAX_RESPONSES 4096
#define MAX_BYTEWISE 4096 /* longer inputs are only split once: byte by byte is slow */

struct outcome {
    size_t responses;
    int status[MAX_RESPONSES];
    uint64_t body[MAX_RESPONSES];
    bool keep_alive[MAX_RESPONSES];
    unsigned interim[MAX_RESPONSES];
    int end; /* -1 error, 0 clean end, 1 done at EOF, 2 truncated */
    enum http1_error error;
};

static void record(struct outcome *o, const struct http1_parser *p)
{
    if (o->responses < MAX_RESPONSES) {
        o->status[o->responses] = p->status;
        o->body[o->responses] = p->body_bytes;
        o->keep_alive[o->responses] = p->keep_alive;
        o->interim[o->responses] = p->interim;
    }
    o->responses++;
}

/* Feeds data in pieces: the first ends at cut, the others are piece bytes long
 * (0: the rest at once). */
static void run(const uint8_t *data, size_t len, size_t cut, size_t piece, bool head, size_t max_header,
                struct outcome *o)
{
    struct http1_parser p;
    size_t pos = 0, end = cut;
    memset(o, 0, sizeof *o);
    http1_parser_init(&p, max_header);
    http1_parser_next(&p, head);
    for (;;) {
        while (pos < end) {
            size_t used;
            enum http1_result r = http1_parse(&p, data + pos, end - pos, &used);
            pos += used;
            if (p.header_bytes > max_header) abort();
            if (r == HTTP1_ERROR) {
                o->end = -1;
                o->error = p.error;
                return;
            }
            if (r == HTTP1_MORE && pos != end) abort(); /* stalled */
            if (r == HTTP1_DONE) {
                if (used == 0) abort();
                record(o, &p);
                http1_parser_next(&p, head);
            }
        }
        if (pos == len) break;
        end = piece && len - pos > piece ? pos + piece : len;
    }
    o->end = http1_parse_eof(&p) == HTTP1_DONE ? 1 : (p.bytes ? 2 : 0);
}

static bool same(const struct outcome *a, const struct outcome *b)
{
    if (a->responses != b->responses || a->end != b->end || a->error != b->error) return false;
    size_t n = a->responses < MAX_RESPONSES ? a->responses : MAX_RESPONSES;
    return !memcmp(a->status, b->status, n * sizeof a->status[0]) && !memcmp(a->body, b->body, n * sizeof a->body[0]) &&
           !memcmp(a->keep_alive, b->keep_alive, n * sizeof a->keep_alive[0]) &&
           !memcmp(a->interim, b->interim, n * sizeof a->interim[0]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const size_t limits[4] = {65536, 64, 200, 8};
    static struct outcome whole, split;
    if (size < 1) return 0;
    bool head = data[0] & 1;
    size_t max_header = limits[(data[0] >> 1) & 3];
    data++;
    size--;
    size_t cut = size ? (size_t)data[0] * 7919 % (size + 1) : 0;
    run(data, size, size, 0, head, max_header, &whole);
    run(data, size, cut, 0, head, max_header, &split);
    if (!same(&whole, &split)) abort();
    if (size <= MAX_BYTEWISE) {
        run(data, size, size ? 1 : 0, 1, head, max_header, &split);
        if (!same(&whole, &split)) abort();
    }
    return 0;
}
