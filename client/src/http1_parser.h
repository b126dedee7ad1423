/* http1_parser: an incremental, allocation-free HTTP/1.x response parser.
 * Feed it bytes in pieces of any size; it stops after each complete final
 * response so the caller can match it to its request. Bodies are counted,
 * never stored. Interim 1xx responses (100, 103...) are skipped. */
#ifndef BARRAGE_HTTP1_PARSER_H
#define BARRAGE_HTTP1_PARSER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum http1_result { HTTP1_MORE, HTTP1_DONE, HTTP1_ERROR };

enum http1_error {
    HTTP1_OK,
    HTTP1_BAD_STATUS,       /* not "HTTP/1.x NNN ..." */
    HTTP1_BAD_HEADER,       /* malformed header line or Content-Length, a bare CR in a value */
    HTTP1_HEADER_TOO_LARGE, /* status line + headers, a chunk-size line or the trailers over the limit */
    HTTP1_BAD_CHUNK,        /* bad chunk size or framing */
    HTTP1_TRUNCATED,        /* EOF before the response was complete */
};

#define HTTP1_NAME_CAP 20

/* Where the bytes of a response go when the caller keeps them (a script's
 * response()): head gets every byte of the status lines and headers, 1xx
 * heads included (the final head is the last one), body the body's bytes with
 * the chunk framing and trailers removed. The spans are the caller's data,
 * valid during the call only. */
struct http1_sink {
    void (*head)(void *user, const uint8_t *data, size_t len);
    void (*body)(void *user, const uint8_t *data, size_t len);
    void *user;
};

struct http1_parser {
    size_t max_header;   /* limit for status line + headers, for each chunk-size line, and for trailers */
    bool head;           /* answering a HEAD request: no body */
    const struct http1_sink *sink; /* NULL: bytes are only counted; set after http1_parser_init,
                                    * kept by http1_parser_next */
    /* the current response, valid once HTTP1_DONE is returned */
    int status;
    bool keep_alive;
    uint64_t body_bytes;     /* body bytes (chunk data only when chunked) */
    uint64_t bytes;          /* every byte of this response, interim ones included */
    unsigned interim;        /* 1xx responses seen before the final one */
    enum http1_error error;
    /* private */
    int state;
    unsigned pos;
    int minor;
    size_t header_bytes;
    uint64_t remaining;
    uint64_t content_length;
    uint64_t value_number;   /* the Content-Length value being read */
    bool has_length, has_te, chunked, conn_close, conn_keep, chunk_digits;
    uint8_t field;           /* the header whose value is being read (http1_parser.c) */
    uint8_t item_state;      /* where in a list item or number the value is */
    uint8_t item_len;        /* characters of the item's token (or digits) so far, saturating */
    uint8_t item_tokens;     /* the known tokens the item can still be (a bit each) */
    unsigned name_len;
    bool name_long;
    char name[HTTP1_NAME_CAP];
};

/* Prepares p for a new connection; max_header is in bytes. */
void http1_parser_init(struct http1_parser *p, size_t max_header);
/* Prepares p for the next response on the same connection. */
void http1_parser_next(struct http1_parser *p, bool head);
/* Consumes up to len bytes; *consumed tells how many. HTTP1_DONE: a final
 * response ended (bytes after it are left for the next response); HTTP1_ERROR:
 * p->error says why, and the connection cannot be used any more. */
enum http1_result http1_parse(struct http1_parser *p, const uint8_t *data, size_t len, size_t *consumed);
/* The peer closed: HTTP1_DONE when the body was delimited by the close,
 * otherwise HTTP1_ERROR with HTTP1_TRUNCATED (p->bytes == 0: nothing arrived). */
enum http1_result http1_parse_eof(struct http1_parser *p);
/* A short name for an error, for messages. */
const char *http1_error_name(enum http1_error e);

#endif
