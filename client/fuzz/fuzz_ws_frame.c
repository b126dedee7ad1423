/* libFuzzer target for the WebSocket frame parser (ws_frame.c). The first
 * input byte picks the maximum message size (64 << (byte & 15)) and a split
 * point; the rest is fed whole, in two pieces, and (when short) byte by byte,
 * and all must give the same trace: each message's opcode, length and the
 * bytes its data pieces carried (which must add up to the length, each piece
 * starting where the last ended), each control frame, and the error (a
 * message an error cuts short leaves no trace: how much of it came before
 * the error depends on the pieces). A
 * message over the maximum, a control payload over 125 bytes, a difference
 * or a sanitizer report is a crash. */
#include "../src/ws_frame.c"

#include <stdlib.h>
#include <string.h>

#define MAX_BYTEWISE 4096 /* longer inputs are only split once: byte by byte is slow */

struct trace {
    uint64_t hash;         /* over every completed event, in order */
    uint64_t data_hash;    /* the current message's bytes (an error may cut it anywhere) */
    uint64_t data_bytes;   /* of the current message */
    uint64_t max;
    enum ws_error error;
    size_t events;
};

static void mix(struct trace *t, uint64_t v)
{
    t->hash = (t->hash ^ v) * 1099511628211ULL;
}

static void on_data(void *user, enum ws_opcode opcode, uint64_t offset, const uint8_t *piece, size_t len)
{
    struct trace *t = user;
    if (offset != t->data_bytes || (opcode != WS_TEXT && opcode != WS_BINARY)) abort();
    for (size_t i = 0; i < len; i++) t->data_hash = (t->data_hash ^ piece[i]) * 1099511628211ULL;
    t->data_bytes += len;
    if (t->data_bytes > t->max) abort();
}

static void on_message(void *user, enum ws_opcode opcode, uint64_t length)
{
    struct trace *t = user;
    if (length != t->data_bytes || length > t->max) abort();
    mix(t, 0x100 | opcode);
    mix(t, length);
    mix(t, t->data_hash);
    t->data_bytes = t->data_hash = 0;
    t->events++;
}

static void on_control(void *user, enum ws_opcode opcode, const uint8_t *payload, size_t len, uint16_t code)
{
    struct trace *t = user;
    if (len > 125 || (opcode == WS_CLOSE && len >= 2 && !ws_close_code_valid(code))) abort();
    mix(t, 0x200 | opcode);
    for (size_t i = 0; i < len; i++) mix(t, payload[i]);
    mix(t, code);
    t->events++;
}

static const struct ws_handler handler = {on_data, on_message, on_control};

static void run(const uint8_t *data, size_t len, size_t cut, size_t piece, uint64_t max, struct trace *t)
{
    struct ws_parser p;
    ws_parser_init(&p, max);
    memset(t, 0, sizeof *t);
    t->hash = 14695981039346656037ULL;
    t->max = max;
    size_t at = 0;
    while (at < len && !t->error) {
        size_t n = at == 0 && cut ? cut : piece ? piece : len - at;
        if (n > len - at) n = len - at;
        t->error = ws_parse(&p, data + at, n, &handler, t);
        at += n;
    }
    /* once failed, the parser takes nothing more */
    if (t->error && ws_parse(&p, data, len, &handler, t) != t->error) abort();
}

static void same(const struct trace *a, const struct trace *b)
{
    if (a->hash != b->hash || a->error != b->error || a->events != b->events) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    uint64_t max = 64ull << (data[0] & 15);
    data++;
    size--;
    struct trace whole, split;
    run(data, size, 0, 0, max, &whole);
    if (size > 1) {
        run(data, size, 1 + (size_t)(data[-1] >> 4) * size / 16 % (size - 1), 0, max, &split);
        same(&whole, &split);
    }
    if (size <= MAX_BYTEWISE) {
        run(data, size, 0, 1, max, &split);
        same(&whole, &split);
    }
    return 0;
}
