/* http2: the HTTP/2 session (session.h) over libnghttp2: up to -m concurrent
 * streams per connection (never above the server's
 * SETTINGS_MAX_CONCURRENT_STREAMS), frames batched into one bounded output
 * buffer per write, every stream reported exactly once. Requests are sent
 * from their header fields and body (struct request). */
#ifndef BARRAGE_HTTP2_H
#define BARRAGE_HTTP2_H

#include "session.h"

/* Defaults of --window-bits and --connection-window-bits (as h2load's). */
#define HTTP2_DEFAULT_WINDOW_BITS 30
#define HTTP2_DEFAULT_CONNECTION_WINDOW_BITS 30

extern const struct protocol http2_protocol;

#endif
