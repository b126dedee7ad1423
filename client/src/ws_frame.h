/* ws_frame: the WebSocket frame parser (RFC 6455 section 5) for frames a
 * server sends, and the encoder of a client's masked frames. Pure: no I/O,
 * no allocation. The parser takes bytes split anywhere, keeps at most a
 * frame header and a control frame's payload (125 bytes), and hands a data
 * message's payload on as it arrives (never buffered), so its memory is
 * fixed whatever the lengths a server announces. What RFC 6455 forbids a
 * server to send ends the parse with a ws_error: a masked frame, a reserved
 * bit (no extension is negotiated), a reserved opcode, a control frame over
 * 125 bytes or fragmented, a continuation without a message or a new
 * message inside one, a 64-bit length with its top bit set, a message over
 * the caller's maximum, invalid UTF-8 in a text message or a close reason,
 * a close payload of 1 byte, a close code outside the allowed ranges. */
#ifndef BARRAGE_WS_FRAME_H
#define BARRAGE_WS_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ws_opcode {
    WS_CONTINUATION = 0x0,
    WS_TEXT = 0x1,
    WS_BINARY = 0x2,
    WS_CLOSE = 0x8,
    WS_PING = 0x9,
    WS_PONG = 0xA,
};

enum ws_error {
    WS_OK,
    WS_ERR_MASKED,             /* a server's frame was masked */
    WS_ERR_RSV,                /* RSV1-3 set without an extension */
    WS_ERR_OPCODE,             /* a reserved opcode */
    WS_ERR_CONTROL_TOO_LONG,   /* a control frame over 125 bytes */
    WS_ERR_CONTROL_FRAGMENTED, /* a control frame without FIN */
    WS_ERR_CONTINUATION,       /* a continuation outside a message, or a data frame inside one */
    WS_ERR_LENGTH,             /* a 64-bit length with its most significant bit set */
    WS_ERR_TOO_BIG,            /* a message over the maximum */
    WS_ERR_UTF8,               /* invalid UTF-8 in a text message or a close reason */
    WS_ERR_CLOSE_PAYLOAD,      /* a close frame with a 1-byte payload */
    WS_ERR_CLOSE_CODE,         /* a close code outside 1000-1003, 1007-1014, 3000-4999 */
    WS_ERR_KINDS
};

/* The error's name, as the record's websocket.protocol_errors keys. */
const char *ws_error_name(enum ws_error e);
/* The close code a client sends for it (1002 protocol error, 1007 invalid
 * data, 1009 too big). */
uint16_t ws_error_close_code(enum ws_error e);

/* What the parser found, called while ws_parse runs; the pointers are valid
 * during the call only. */
struct ws_handler {
    /* A piece of a data message's payload (possibly empty); opcode is the
     * message's (WS_TEXT or WS_BINARY), offset where the piece starts in it. */
    void (*data)(void *user, enum ws_opcode opcode, uint64_t offset, const uint8_t *piece, size_t len);
    /* A data message ended: its opcode and total length. */
    void (*message)(void *user, enum ws_opcode opcode, uint64_t length);
    /* A whole control frame (ping, pong, close), its payload checked. For a
     * close, code is its status code, 1005 (none given) when it has no payload. */
    void (*control)(void *user, enum ws_opcode opcode, const uint8_t *payload, size_t len, uint16_t code);
};

struct ws_parser {
    uint64_t max_message; /* bytes a data message may hold */
    uint8_t header[14];
    unsigned header_len, header_need;
    bool fin;
    enum ws_opcode opcode;     /* the frame's */
    uint64_t remaining;        /* payload bytes of the frame still to come */
    bool in_message;           /* a data message is open (its first frame had no FIN) */
    enum ws_opcode message_op; /* its opcode */
    uint64_t message_len;      /* its bytes so far */
    uint32_t utf8;             /* the UTF-8 decoder's state over a text message (0: at a boundary) */
    uint8_t control[125];
    size_t control_len;
    enum ws_error error;       /* set once; the parser then takes nothing more */
};

/* A parser at a frame's start, refusing data messages over max_message bytes. */
void ws_parser_init(struct ws_parser *p, uint64_t max_message);

/* Parses len bytes, calling h (user passed on) for what completes. Returns
 * WS_OK, or the first error (kept in p->error; later calls return it at
 * once). A handler may stop the parse by setting p->error itself. */
enum ws_error ws_parse(struct ws_parser *p, const uint8_t *data, size_t len, const struct ws_handler *h, void *user);

/* Whether a close code may appear in a close frame (RFC 6455 7.4, IANA's registry). */
bool ws_close_code_valid(uint16_t code);

/* The header of a client frame (FIN set, masked with mask) carrying len
 * payload bytes: writes 6 to 14 bytes into out, returns how many. */
size_t ws_frame_header(uint8_t out[14], enum ws_opcode opcode, uint64_t len, const uint8_t mask[4]);
/* XORs len bytes with the mask, from where offset is in the payload. */
void ws_mask(uint8_t *data, size_t len, const uint8_t mask[4], uint64_t offset);

/* The UTF-8 decoder's step over len bytes from state (0 at a boundary);
 * returns the new state, WS_UTF8_REJECT once invalid. */
#define WS_UTF8_REJECT 1u
uint32_t ws_utf8_step(uint32_t state, const uint8_t *data, size_t len);

#endif
