/* ws_frame: RFC 6455 frames, server to client (parsed) and client to
 * server (encoded). The parser reads a frame's header into header[] (2
 * bytes, then as many as the length and mask bits say), then its payload:
 * a data frame's straight to the handler, a control frame's into control[]. */
#include "ws_frame.h"

#include <string.h>

static const char *const error_names[WS_ERR_KINDS] = {
    [WS_OK] = "none",
    [WS_ERR_MASKED] = "masked_frame",
    [WS_ERR_RSV] = "reserved_bits",
    [WS_ERR_OPCODE] = "reserved_opcode",
    [WS_ERR_CONTROL_TOO_LONG] = "control_too_long",
    [WS_ERR_CONTROL_FRAGMENTED] = "control_fragmented",
    [WS_ERR_CONTINUATION] = "bad_continuation",
    [WS_ERR_LENGTH] = "bad_length",
    [WS_ERR_TOO_BIG] = "message_too_big",
    [WS_ERR_UTF8] = "invalid_utf8",
    [WS_ERR_CLOSE_PAYLOAD] = "bad_close_payload",
    [WS_ERR_CLOSE_CODE] = "bad_close_code",
};

const char *ws_error_name(enum ws_error e)
{
    return e < WS_ERR_KINDS ? error_names[e] : "unknown";
}

uint16_t ws_error_close_code(enum ws_error e)
{
    switch (e) {
    case WS_ERR_UTF8: return 1007;
    case WS_ERR_TOO_BIG: return 1009;
    default: return 1002;
    }
}

/* ---- UTF-8 (RFC 3629): state 0 at a boundary, 1 rejected, else
 * need << 16 | lo << 8 | hi: continuation bytes still needed and the range
 * the next one must fall in (narrower after E0, ED, F0, F4: no overlongs,
 * surrogates or code points above U+10FFFF) ---- */

static uint32_t utf8_lead(uint8_t c)
{
    if (c < 0x80) return 0;
    if (c >= 0xC2 && c <= 0xDF) return 1u << 16 | 0x80u << 8 | 0xBF;
    if (c == 0xE0) return 2u << 16 | 0xA0u << 8 | 0xBF;
    if (c == 0xED) return 2u << 16 | 0x80u << 8 | 0x9F;
    if (c >= 0xE1 && c <= 0xEF) return 2u << 16 | 0x80u << 8 | 0xBF;
    if (c == 0xF0) return 3u << 16 | 0x90u << 8 | 0xBF;
    if (c >= 0xF1 && c <= 0xF3) return 3u << 16 | 0x80u << 8 | 0xBF;
    if (c == 0xF4) return 3u << 16 | 0x80u << 8 | 0x8F;
    return WS_UTF8_REJECT;
}

uint32_t ws_utf8_step(uint32_t state, const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < len && state != WS_UTF8_REJECT; i++) {
        uint8_t c = data[i];
        if (state == 0) {
            state = utf8_lead(c);
            continue;
        }
        uint32_t need = state >> 16, lo = (state >> 8) & 0xFF, hi = state & 0xFF;
        if (c < lo || c > hi) return WS_UTF8_REJECT;
        state = need == 1 ? 0 : (need - 1) << 16 | 0x80u << 8 | 0xBF;
    }
    return state;
}

/* ---- parsing ---- */

void ws_parser_init(struct ws_parser *p, uint64_t max_message)
{
    memset(p, 0, sizeof *p);
    p->max_message = max_message;
    p->header_need = 2;
}

bool ws_close_code_valid(uint16_t code)
{
    return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);
}

static enum ws_error fail(struct ws_parser *p, enum ws_error e)
{
    p->error = e;
    return e;
}

/* The first two bytes are in: checks them, sets how long the header is. */
static enum ws_error header_start(struct ws_parser *p)
{
    uint8_t b0 = p->header[0], b1 = p->header[1];
    p->fin = b0 & 0x80;
    p->opcode = (enum ws_opcode)(b0 & 0x0F);
    if (b0 & 0x70) return fail(p, WS_ERR_RSV);
    if (b1 & 0x80) return fail(p, WS_ERR_MASKED);
    bool control = p->opcode & 0x8;
    if (control && p->opcode != WS_CLOSE && p->opcode != WS_PING && p->opcode != WS_PONG) return fail(p, WS_ERR_OPCODE);
    if (!control && p->opcode > WS_BINARY) return fail(p, WS_ERR_OPCODE);
    unsigned len7 = b1 & 0x7F;
    if (control && len7 > 125) return fail(p, WS_ERR_CONTROL_TOO_LONG);
    if (control && !p->fin) return fail(p, WS_ERR_CONTROL_FRAGMENTED);
    if (!control && (p->opcode == WS_CONTINUATION) != p->in_message) return fail(p, WS_ERR_CONTINUATION);
    p->header_need = len7 == 126 ? 4 : len7 == 127 ? 10 : 2;
    return WS_OK;
}

/* The whole header is in: the payload's length, checked. */
static enum ws_error header_end(struct ws_parser *p)
{
    uint64_t len = p->header[1] & 0x7F;
    if (len == 126) len = (uint64_t)p->header[2] << 8 | p->header[3];
    if (len == 127) {
        if (p->header[2] & 0x80) return fail(p, WS_ERR_LENGTH);
        len = 0;
        for (int i = 2; i < 10; i++) len = len << 8 | p->header[i];
    }
    p->remaining = len;
    p->control_len = 0;
    if (p->opcode & 0x8) return WS_OK;
    if (p->opcode != WS_CONTINUATION) {
        p->in_message = true;
        p->message_op = p->opcode;
        p->message_len = 0;
        p->utf8 = 0;
    }
    if (len > p->max_message - p->message_len) return fail(p, WS_ERR_TOO_BIG);
    return WS_OK;
}

/* A close frame's payload: empty, or a valid code and a UTF-8 reason. */
static enum ws_error close_check(struct ws_parser *p, uint16_t *code)
{
    *code = 1005;
    if (p->control_len == 0) return WS_OK;
    if (p->control_len == 1) return fail(p, WS_ERR_CLOSE_PAYLOAD);
    *code = (uint16_t)(p->control[0] << 8 | p->control[1]);
    if (!ws_close_code_valid(*code)) return fail(p, WS_ERR_CLOSE_CODE);
    if (ws_utf8_step(0, p->control + 2, p->control_len - 2) != 0) return fail(p, WS_ERR_UTF8);
    return WS_OK;
}

/* The frame's payload is all in. */
static enum ws_error frame_end(struct ws_parser *p, const struct ws_handler *h, void *user)
{
    p->header_len = 0;
    p->header_need = 2;
    if (p->opcode & 0x8) {
        uint16_t code = 0;
        if (p->opcode == WS_CLOSE && close_check(p, &code)) return p->error;
        h->control(user, p->opcode, p->control, p->control_len, code);
        return p->error;
    }
    if (!p->fin) return WS_OK;
    if (p->message_op == WS_TEXT && p->utf8 != 0) return fail(p, WS_ERR_UTF8);
    p->in_message = false;
    h->message(user, p->message_op, p->message_len);
    return p->error;
}

/* Payload bytes of the current frame; returns how many it took. */
static size_t payload(struct ws_parser *p, const uint8_t *data, size_t len, const struct ws_handler *h, void *user)
{
    size_t n = len < p->remaining ? len : (size_t)p->remaining;
    if (p->opcode & 0x8) {
        memcpy(p->control + p->control_len, data, n);
        p->control_len += n;
    } else {
        if (p->message_op == WS_TEXT && (p->utf8 = ws_utf8_step(p->utf8, data, n)) == WS_UTF8_REJECT) {
            fail(p, WS_ERR_UTF8);
            return n;
        }
        h->data(user, p->message_op, p->message_len, data, n);
        p->message_len += n;
    }
    p->remaining -= n;
    return n;
}

enum ws_error ws_parse(struct ws_parser *p, const uint8_t *data, size_t len, const struct ws_handler *h, void *user)
{
    size_t at = 0;
    while (!p->error && at < len) {
        if (p->header_len < p->header_need) {
            size_t n = p->header_need - p->header_len;
            if (n > len - at) n = len - at;
            memcpy(p->header + p->header_len, data + at, n);
            p->header_len += (unsigned)n;
            at += n;
            if (p->header_len == 2 && header_start(p)) break;
            if (p->header_len < p->header_need) continue;
            if (header_end(p)) break;
            if (p->remaining == 0) frame_end(p, h, user);
            continue;
        }
        at += payload(p, data + at, len - at, h, user);
        if (!p->error && p->remaining == 0) frame_end(p, h, user);
    }
    return p->error;
}

/* ---- encoding ---- */

size_t ws_frame_header(uint8_t out[14], enum ws_opcode opcode, uint64_t len, const uint8_t mask[4])
{
    size_t n = 2;
    out[0] = (uint8_t)(0x80 | opcode);
    if (len < 126) {
        out[1] = (uint8_t)(0x80 | len);
    } else if (len <= 0xFFFF) {
        out[1] = 0x80 | 126;
        out[2] = (uint8_t)(len >> 8);
        out[3] = (uint8_t)len;
        n = 4;
    } else {
        out[1] = 0x80 | 127;
        for (int i = 0; i < 8; i++) out[2 + i] = (uint8_t)(len >> (56 - 8 * i));
        n = 10;
    }
    memcpy(out + n, mask, 4);
    return n + 4;
}

void ws_mask(uint8_t *data, size_t len, const uint8_t mask[4], uint64_t offset)
{
    for (size_t i = 0; i < len; i++) data[i] ^= mask[(offset + i) & 3];
}
