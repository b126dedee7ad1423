/* libFuzzer target for the HTTP/1 response parser. The first input byte picks
 * the options (HEAD, a small header limit) and a split point; the rest is fed
 * whole and then in two pieces, and both must give the same results (status,
 * body bytes, keep-alive and interim count of every response, and the end). Any
 * difference, stall or sanitizer report is a crash. */
#include "../src/http1_parser.c"

#include <stdlib.h>
#include <string.h>

#define MAX_RESPONSES 4096

struct outcome {
    size_t responses;
    int status[MAX_RESPONSES];
    uint64_t body[MAX_RESPONSES];
    bool keep_alive[MAX_RESPONSES];
    unsigned interim[MAX_RESPONSES];
    int end; /* -1 error, 0 clean end, 1 done at EOF, 2 truncated */
    enum http1_error error;
};

static void run(const uint8_t *data, size_t len, size_t cut, bool head, size_t max_header, struct outcome *o)
{
    struct http1_parser p;
    size_t pos = 0;
    memset(o, 0, sizeof *o);
    http1_parser_init(&p, max_header);
    http1_parser_next(&p, head);
    for (int piece = 0; piece < 2; piece++) {
        size_t end = piece == 0 ? cut : len;
        while (pos < end) {
            size_t used;
            enum http1_result r = http1_parse(&p, data + pos, end - pos, &used);
            pos += used;
            if (r == HTTP1_ERROR) {
                o->end = -1;
                o->error = p.error;
                return;
            }
            if (r == HTTP1_MORE && pos != end) abort(); /* stalled */
            if (r == HTTP1_DONE) {
                if (used == 0) abort();
                if (o->responses < MAX_RESPONSES) {
                    o->status[o->responses] = p.status;
                    o->body[o->responses] = p.body_bytes;
                    o->keep_alive[o->responses] = p.keep_alive;
                    o->interim[o->responses] = p.interim;
                }
                o->responses++;
                http1_parser_next(&p, head);
            }
        }
    }
    o->end = http1_parse_eof(&p) == HTTP1_DONE ? 1 : (p.bytes ? 2 : 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct outcome whole, split;
    if (size < 1) return 0;
    bool head = data[0] & 1;
    size_t max_header = (data[0] & 2) ? 64 : 65536;
    data++;
    size--;
    size_t cut = size ? (size_t)data[0] * 7919 % (size + 1) : 0;
    run(data, size, size, head, max_header, &whole);
    run(data, size, cut, head, max_header, &split);
    if (whole.responses != split.responses || whole.end != split.end || whole.error != split.error) abort();
    size_t n = whole.responses < MAX_RESPONSES ? whole.responses : MAX_RESPONSES;
    if (memcmp(whole.status, split.status, n * sizeof whole.status[0]) ||
        memcmp(whole.body, split.body, n * sizeof whole.body[0]) ||
        memcmp(whole.keep_alive, split.keep_alive, n * sizeof whole.keep_alive[0]) ||
        memcmp(whole.interim, split.interim, n * sizeof whole.interim[0]))
        abort();
    return 0;
}
