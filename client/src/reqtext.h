/* reqtext: the text a wrk script's request() returns (HTTP/1.1 requests:
 * wrk.format() output or hand-written, several concatenated = pipelined),
 * split into requests, and translated to HTTP/2 header fields for libnghttp2.
 * Pure: no I/O, no Lua, no libev. Not thread-safe: one cache per thread.
 *
 * Accepted text (RFC 9112, as a server would read it, so an error here is a
 * request a server would refuse):
 *  - request line `METHOD SP request-target SP HTTP/1.1` (or HTTP/1.0);
 *    the target is any run of visible bytes (its form matters only for HTTP/2);
 *  - header fields `name: value`, name a token, no whitespace before the
 *    colon, value trimmed of spaces and tabs, no control byte but tab in it;
 *    no obs-fold; Host repeated only with the same value (any case);
 *  - lines end in CRLF or a bare LF (scripts write "\n"); a CR elsewhere is an
 *    error; empty lines before a request (and after the last) are skipped;
 *  - the body: Content-Length bytes (repeats must agree); or
 *    `Transfer-Encoding: chunked`, which is accepted and decoded (wrk's
 *    parser accepts it too, and HTTP/2 needs the decoded bytes): the text
 *    keeps the chunked framing for HTTP/1, `body` is the decoded data. Any
 *    other transfer coding, and Content-Length together with chunked, are
 *    errors. No length and no chunked: no body, so text after the head is the
 *    next request (a body without Content-Length shows as a bad request line,
 *    with a hint saying so).
 *
 * HTTP/2 translation (reqtext_h2), per request, in this order:
 *  :method; :scheme (the caller's); :authority from an absolute-form target's
 *  authority (userinfo dropped), else Host, else the caller's default (left
 *  out when that is empty too); :path from the target (an absolute-form
 *  target's path, "/" when empty, "*" for OPTIONS; "*" only with OPTIONS);
 *  then the header fields in order with lower-cased names, without
 *  Connection, Keep-Alive, Proxy-Connection, Transfer-Encoding, Upgrade, Host,
 *  and TE unless its value is "trailers"; content-length (the body's length in
 *  decimal) where the first Content-Length was, or last when a chunked body is
 *  not empty. Errors: CONNECT, an authority-form target, trailer fields after
 *  a chunked body (they would need a trailing HEADERS frame).
 *
 * Use (per request() call, through the cache): HTTP/1 writes the text as it
 * is and expects set->count responses (requests[i].method says which are
 * HEAD); HTTP/2 submits, per request i, h2[i].nva with a data provider over
 * requests[i].body (END_STREAM at once when body_len is 0), holding the set
 * for each stream and releasing it when the stream closes.
 *
 * Memory: a reqtext_set is one allocation holding a copy of the text, the
 * requests, their fields, decoded chunked bodies and the nghttp2_nv arrays;
 * every pointer in it points into it (or to string literals), so the nv
 * entries carry NGHTTP2_NV_FLAG_NO_COPY_NAME|NO_COPY_VALUE. It is reference
 * counted (not atomically): hold it while anything may still read it (a
 * queued HEADERS frame, a body being sent), release it after. */
#ifndef BARRAGE_REQTEXT_H
#define BARRAGE_REQTEXT_H

#include <nghttp2/nghttp2.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A run of bytes, not NUL-terminated. */
struct reqtext_span {
    const char *ptr;
    size_t len;
};

struct reqtext_field {
    struct reqtext_span name;  /* as written */
    struct reqtext_span value; /* without surrounding spaces and tabs */
};

struct reqtext_request {
    struct reqtext_span text;    /* the whole request as written, request line to end of body */
    struct reqtext_span method, target, version;
    const struct reqtext_field *fields; /* header fields in order (trailer fields not included) */
    size_t field_count;
    struct reqtext_span host;    /* Host's value; ptr NULL when there is none */
    const uint8_t *body;         /* decoded body; may be NULL when body_len is 0 */
    size_t body_len;
    bool has_content_length;
    bool chunked;
    size_t trailer_count;        /* fields after the last chunk */
    size_t trailer_offset;       /* where the first of them starts in the text */
};

/* One request's HTTP/2 header block, for nghttp2_submit_request. */
struct reqtext_h2 {
    const nghttp2_nv *nva;
    size_t nvlen;
};

struct reqtext_h2_opts {
    const char *scheme;    /* "http" or "https"; required */
    const char *authority; /* used when a request has no Host; NULL or "": none */
};

struct reqtext_set {
    const char *text; /* the set's own copy of the text */
    size_t len;
    const struct reqtext_request *requests;
    size_t count;                /* >= 1: requests pipelined in the text */
    const struct reqtext_h2 *h2; /* h2[i] translates requests[i]; NULL when built without opts */
    unsigned long refs;          /* private: reqtext_hold / reqtext_release */
};

struct reqtext_error {
    const char *reason;  /* static text */
    const char *hint;    /* static text or NULL: a likely cause */
    size_t offset;       /* byte of the text where it went wrong (its length: the text ended early) */
    size_t line, column; /* 1-based; the column counts bytes */
    size_t request;      /* 1-based index of the request being read */
};

/* Counts the requests in text[0..len) without allocating: >= 1, or 0 with *err
 * filled (err may be NULL). text need not be NUL-terminated. */
size_t reqtext_count(const char *text, size_t len, struct reqtext_error *err);

/* Parses text[0..len) into a new set holding its own copy of the text, with
 * HTTP/2 header blocks when h2 is not NULL (its strings are copied). Returns
 * the set with one reference (the caller's), or NULL with *err filled (a
 * parse or translation error, or "out of memory"). */
struct reqtext_set *reqtext_parse(const char *text, size_t len, const struct reqtext_h2_opts *h2,
                                  struct reqtext_error *err);

/* Takes one more reference to s. */
void reqtext_hold(struct reqtext_set *s);
/* Drops one reference; the last frees s. NULL is ignored. */
void reqtext_release(struct reqtext_set *s);

/* Formats e as "request N, line L, column C (byte B): reason[; hint]" into
 * buf (cap bytes, NUL-terminated); returns what snprintf returns. */
int reqtext_error_format(const struct reqtext_error *e, char *buf, size_t cap);

/* One-entry cache of the last parse, for a script that keeps returning the
 * same string: a hit costs one length compare and one memcmp, no allocation. */
struct reqtext_cache {
    struct reqtext_set *set; /* the last parse (the cache's reference), or NULL */
    struct reqtext_h2_opts h2;
    bool with_h2;
};

/* Prepares an empty cache; h2 NULL: no HTTP/2 translation. h2's strings are
 * read at every miss, so they must outlive the cache. */
void reqtext_cache_init(struct reqtext_cache *c, const struct reqtext_h2_opts *h2);
/* The parse of text[0..len): the cached set when its text has the same bytes,
 * else a new parse that replaces it (the old one is released: anyone still
 * using it must hold it). Returns a borrowed pointer, valid until the next
 * miss or reqtext_cache_free (hold it to keep it longer), or NULL with *err
 * filled, the cache unchanged. */
struct reqtext_set *reqtext_cache_get(struct reqtext_cache *c, const char *text, size_t len,
                                      struct reqtext_error *err);
/* Releases the cached set; c is empty after. */
void reqtext_cache_free(struct reqtext_cache *c);

#endif
