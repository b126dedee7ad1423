/* http2: the HTTP/2 session (session.h) over libnghttp2: up to -m concurrent
 * streams per connection (never above the server's
 * SETTINGS_MAX_CONCURRENT_STREAMS), frames batched into one bounded output
 * buffer per write, every stream accounted exactly once. */
#ifndef BARRAGE_HTTP2_H
#define BARRAGE_HTTP2_H

#include <nghttp2/nghttp2.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "session.h"

struct worker;

/* Defaults of --window-bits and --connection-window-bits (as h2load's). */
#define HTTP2_DEFAULT_WINDOW_BITS 30
#define HTTP2_DEFAULT_CONNECTION_WINDOW_BITS 30

/* What every HTTP/2 session of a run shares, read-only. */
struct http2_shared {
    nghttp2_nv *nva; /* owned: the request's header fields */
    size_t nvlen;
    char *strings;   /* owned: the bytes nva points into */
    const uint8_t *body;
    size_t body_len;
    unsigned streams; /* -m: concurrent streams per connection */
    size_t max_header;
    uint64_t timeout_us;
    uint64_t per_connection; /* requests per connection, 0: unlimited */
    int32_t stream_window, connection_window;
    nghttp2_session_callbacks *callbacks; /* owned */
};

/* Builds the request from cfg; returns 0, or -1 (out of memory). */
int http2_shared_init(struct http2_shared *sh, const struct config *cfg);
void http2_shared_free(struct http2_shared *sh);
/* A session for one connection slot of worker w; NULL when out of memory.
 * sh must outlive it. Free with s->ops->free. */
struct session *http2_session_new(const struct http2_shared *sh, struct worker *w);

#endif
