/* Unit tests of ws_frame.c: every fixture (frames a server sends) fed whole,
 * split in two at every byte and byte by byte gives the same, expected trace
 * of messages, control frames and the error; the data pieces add up to each
 * message's bytes. Then the encoder: a client frame's header and mask. */
#include "../src/ws_frame.c"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

#define TRACE_MAX 4096

struct trace {
    char text[TRACE_MAX];
    uint64_t data_bytes, data_hash; /* of the current message's pieces */
    bool offsets_ok;                /* every piece started where the last ended */
};

static void add(struct trace *t, const char *fmt, unsigned long long a, unsigned long long b, unsigned long long c)
{
    size_t n = strlen(t->text);
    snprintf(t->text + n, TRACE_MAX - n, fmt, a, b, c);
}

static void on_data(void *user, enum ws_opcode opcode, uint64_t offset, const uint8_t *piece, size_t len)
{
    struct trace *t = user;
    (void)opcode;
    if (offset != t->data_bytes) t->offsets_ok = false;
    for (size_t i = 0; i < len; i++) t->data_hash = (t->data_hash ^ piece[i]) * 1099511628211ULL;
    t->data_bytes += len;
}

static void on_message(void *user, enum ws_opcode opcode, uint64_t length)
{
    struct trace *t = user;
    add(t, "M%llx:%llu:%llx;", opcode, length, t->data_bytes == length ? t->data_hash & 0xFFFF : 0xBAD);
    t->data_bytes = 0;
    t->data_hash = 14695981039346656037ULL;
}

static void on_control(void *user, enum ws_opcode opcode, const uint8_t *payload, size_t len, uint16_t code)
{
    struct trace *t = user;
    (void)payload;
    add(t, "C%llx:%llu:%llu;", opcode, len, code);
}

static const struct ws_handler handler = {on_data, on_message, on_control};

/* Feeds data in pieces (the first cut bytes, then piece bytes each; 0: the rest at once). */
static void feed(const uint8_t *data, size_t len, size_t cut, size_t piece, uint64_t max, struct trace *t)
{
    struct ws_parser p;
    ws_parser_init(&p, max);
    memset(t, 0, sizeof *t);
    t->offsets_ok = true;
    t->data_hash = 14695981039346656037ULL;
    size_t at = 0;
    enum ws_error e = WS_OK;
    while (at < len && !e) {
        size_t n = at == 0 && cut ? cut : piece ? piece : len - at;
        if (n > len - at) n = len - at;
        e = ws_parse(&p, data + at, n, &handler, t);
        at += n;
    }
    if (e) {
        size_t used = strlen(t->text);
        snprintf(t->text + used, TRACE_MAX - used, "E:%s;", ws_error_name(e));
    } else if (p.header_len || p.remaining || p.in_message) add(t, "partial;", 0, 0, 0);
    if (!t->offsets_ok) add(t, "BAD-OFFSETS;", 0, 0, 0);
}

/* The trace of data fed whole must be want, and every split must give the same. */
static void check(const char *name, const uint8_t *data, size_t len, uint64_t max, const char *want)
{
    struct trace whole, split;
    feed(data, len, 0, 0, max, &whole);
    bool same = true;
    for (size_t cut = 1; cut < len && same; cut++) {
        feed(data, len, cut, 0, max, &split);
        same = strcmp(split.text, whole.text) == 0;
        if (!same) printf("# split at %zu: %s\n", cut, split.text);
    }
    feed(data, len, 0, 1, max, &split);
    if (strcmp(split.text, whole.text)) {
        same = false;
        printf("# byte by byte: %s\n", split.text);
    }
    bool ok = strstr(whole.text, want) == whole.text && strlen(whole.text) == strlen(want);
    if (!ok) printf("# got %s, want %s\n", whole.text, want);
    TAP_CHECK(ok && same, "ws_frame %s: whole, split at every byte and byte by byte", name);
}

/* A server frame: FIN, opcode (with RSV bits), unmasked unless mask, the payload. */
static size_t frame(uint8_t *out, bool fin, unsigned op, const void *payload, size_t len, bool mask)
{
    size_t n = 0;
    out[n++] = (uint8_t)((fin ? 0x80 : 0) | op);
    uint8_t m = mask ? 0x80 : 0;
    if (len < 126) {
        out[n++] = (uint8_t)(m | len);
    } else if (len < 65536) {
        out[n++] = m | 126;
        out[n++] = (uint8_t)(len >> 8);
        out[n++] = (uint8_t)len;
    } else {
        out[n++] = m | 127;
        for (int i = 7; i >= 0; i--) out[n++] = (uint8_t)((uint64_t)len >> (8 * i));
    }
    if (mask) {
        memset(out + n, 0, 4);
        n += 4;
    }
    if (len) memcpy(out + n, payload, len);
    return n + len;
}

static uint8_t buf[1 << 18], big[80000];

/* The expected hash of a message's bytes (as on_message prints it). */
static unsigned hash16(const void *data, size_t len)
{
    uint64_t h = 14695981039346656037ULL;
    for (size_t i = 0; i < len; i++) h = (h ^ ((const uint8_t *)data)[i]) * 1099511628211ULL;
    return (unsigned)(h & 0xFFFF);
}

static void messages(void)
{
    char want[256];
    size_t n = frame(buf, true, WS_TEXT, "hello", 5, false);
    snprintf(want, sizeof want, "M1:5:%x;", hash16("hello", 5));
    check("text", buf, n, 1000, want);

    for (size_t i = 0; i < sizeof big; i++) big[i] = (uint8_t)(i * 7);
    n = frame(buf, true, WS_BINARY, big, 300, false);
    snprintf(want, sizeof want, "M2:300:%x;", hash16(big, 300));
    check("binary, 16-bit length", buf, n, 1000, want);
    n = frame(buf, true, WS_BINARY, big, sizeof big, false);
    snprintf(want, sizeof want, "M2:%zu:%x;", sizeof big, hash16(big, sizeof big));
    check("binary, 64-bit length", buf, n, 1 << 20, want);

    n = frame(buf, true, WS_TEXT, "", 0, false);
    snprintf(want, sizeof want, "M1:0:%x;", hash16("", 0));
    check("empty text", buf, n, 1000, want);

    /* "héllo €𝄞" in three fragments cut inside characters, a ping and a pong between them */
    const char *s = "h\xc3\xa9llo \xe2\x82\xac\xf0\x9d\x84\x9e";
    size_t len = strlen(s);
    n = frame(buf, false, WS_TEXT, s, 2, false);
    n += frame(buf + n, true, WS_PING, "p", 1, false);
    n += frame(buf + n, false, WS_CONTINUATION, s + 2, 8, false);
    n += frame(buf + n, true, WS_PONG, "", 0, false);
    n += frame(buf + n, true, WS_CONTINUATION, s + 10, len - 10, false);
    snprintf(want, sizeof want, "C9:1:0;Ca:0:0;M1:%zu:%x;", len, hash16(s, len));
    check("fragmented UTF-8 with control frames between", buf, n, 1000, want);

    n = frame(buf, true, WS_CLOSE, "\x03\xe8" "bye", 5, false);
    check("close 1000 with a reason", buf, n, 1000, "C8:5:1000;");
    n = frame(buf, true, WS_CLOSE, "", 0, false);
    check("close without a code", buf, n, 1000, "C8:0:1005;");
    n = frame(buf, true, WS_CLOSE, "\x0f\xa0", 2, false);
    check("close 4000 (an application's)", buf, n, 1000, "C8:2:4000;");
    n = frame(buf, true, WS_CLOSE, "\x03\xf6", 2, false);
    check("close 1014", buf, n, 1000, "C8:2:1014;");
    n = frame(buf, true, WS_PING, big, 125, false);
    check("ping of 125 bytes", buf, n, 1000, "C9:125:0;");
    n = frame(buf, true, WS_BINARY, big, 100, false);
    snprintf(want, sizeof want, "M2:100:%x;", hash16(big, 100));
    check("a message of exactly the maximum", buf, n, 100, want);
}

static void refused(void)
{
    size_t n = frame(buf, true, WS_TEXT, "hi", 2, true);
    check("masked frame", buf, n, 1000, "E:masked_frame;");
    for (unsigned rsv = 0x10; rsv <= 0x40; rsv <<= 1) {
        n = frame(buf, true, WS_TEXT | rsv, "hi", 2, false);
        check("RSV bit", buf, n, 1000, "E:reserved_bits;");
    }
    unsigned reserved[] = {3, 7, 0xB, 0xF};
    for (int i = 0; i < 4; i++) {
        n = frame(buf, true, reserved[i], "", 0, false);
        check("reserved opcode", buf, n, 1000, "E:reserved_opcode;");
    }
    n = frame(buf, true, WS_PING, big, 126, false);
    check("ping of 126 bytes", buf, n, 1000, "E:control_too_long;");
    n = frame(buf, false, WS_PING, "x", 1, false);
    check("fragmented ping", buf, n, 1000, "E:control_fragmented;");
    n = frame(buf, true, WS_CONTINUATION, "x", 1, false);
    check("continuation without a message", buf, n, 1000, "E:bad_continuation;");
    n = frame(buf, false, WS_TEXT, "a", 1, false);
    n += frame(buf + n, true, WS_BINARY, "b", 1, false);
    check("a new message inside one", buf, n, 1000, "E:bad_continuation;");
    uint8_t msb[] = {0x82, 127, 0x80, 0, 0, 0, 0, 0, 0, 0};
    check("64-bit length with its top bit", msb, sizeof msb, 1000, "E:bad_length;");
    /* 100 MB announced: refused from the header alone, nothing buffered */
    uint8_t huge[] = {0x82, 127, 0, 0, 0, 0, 0x06, 0x40, 0, 0};
    check("a 100 MB frame header over the maximum", huge, sizeof huge, 64 << 20, "E:message_too_big;");
    n = frame(buf, false, WS_BINARY, big, 60, false);
    n += frame(buf + n, true, WS_CONTINUATION, big, 60, false);
    check("fragments adding up over the maximum", buf, n, 100, "E:message_too_big;");
    const char *bad_utf8[] = {"\xc3\x28", "\xc0\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xff", "\xe2\x82"};
    const char *names[] = {"a bad continuation byte", "overlong", "a surrogate", "above U+10FFFF", "0xFF",
                           "a character cut by the message's end"};
    for (int i = 0; i < 6; i++) {
        n = frame(buf, true, WS_TEXT, bad_utf8[i], strlen(bad_utf8[i]), false);
        char name[80];
        snprintf(name, sizeof name, "text with %s", names[i]);
        check(name, buf, n, 1000, "E:invalid_utf8;");
    }
    uint16_t codes[] = {999, 1004, 1005, 1006, 1015, 2999, 5000};
    for (int i = 0; i < 7; i++) {
        uint8_t c[2] = {(uint8_t)(codes[i] >> 8), (uint8_t)codes[i]};
        n = frame(buf, true, WS_CLOSE, c, 2, false);
        check("close code outside the ranges", buf, n, 1000, "E:bad_close_code;");
    }
    n = frame(buf, true, WS_CLOSE, "\x03", 1, false);
    check("close of 1 byte", buf, n, 1000, "E:bad_close_payload;");
    n = frame(buf, true, WS_CLOSE, "\x03\xe8\xff", 3, false);
    check("close reason not UTF-8", buf, n, 1000, "E:invalid_utf8;");
}

static void encoder(void)
{
    uint8_t header[14], mask[4] = {0x11, 0x22, 0x33, 0x44};
    uint64_t lens[] = {0, 125, 126, 65535, 65536, 1ull << 40};
    size_t want[] = {6, 6, 8, 8, 14, 14};
    bool ok = true;
    for (int i = 0; i < 6; i++) {
        size_t n = ws_frame_header(header, WS_BINARY, lens[i], mask);
        ok &= n == want[i] && header[0] == 0x82 && (header[1] & 0x80) && memcmp(header + n - 4, mask, 4) == 0;
        uint64_t got = header[1] & 0x7F;
        if (got == 126) got = (uint64_t)header[2] << 8 | header[3];
        if (got == 127)
            for (int j = 2, k = 0; k < 8; j++, k++) got = (k ? got << 8 : 0) | header[j];
        ok &= got == lens[i];
    }
    TAP_CHECK(ok, "ws_frame_header: masked client frames, 7-, 16- and 64-bit lengths");
    uint8_t data[11] = "hello world", copy[11];
    memcpy(copy, data, 11);
    ws_mask(copy, 5, mask, 0);
    ws_mask(copy + 5, 6, mask, 5); /* in two pieces, the second from offset 5 */
    bool masked = copy[0] == ('h' ^ 0x11) && copy[5] == (' ' ^ 0x22);
    ws_mask(copy, 11, mask, 0);
    TAP_CHECK(masked && memcmp(copy, data, 11) == 0, "ws_mask: by offset, and twice is the identity");
}

int main(void)
{
    messages();
    refused();
    encoder();
    TAP_EXIT();
}
