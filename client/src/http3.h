/* http3: the HTTP/3 session (session.h) over nghttp3, on a QUIC connection
 * (quic.h): a datagram protocol (the worker gives it a connected UDP socket;
 * the QUIC handshake, its timers and every packet are the session's). Up to
 * -m concurrent requests per connection, never above the streams the server
 * allows (MAX_STREAMS); requests are sent from the same header fields and
 * body as over HTTP/2 (struct request). Every call into nghttp3 is in
 * http3.c; built only with HAVE_H3 (the Makefile checks the libraries). */
#ifndef BARRAGE_HTTP3_H
#define BARRAGE_HTTP3_H

#include "session.h"

extern const struct protocol http3_protocol;

/* The libraries' versions at run time ("0.12.1"; static strings). */
void http3_library_versions(const char **ngtcp2, const char **nghttp3);

#endif
