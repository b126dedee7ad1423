/* ws: the WebSocket session (RFC 6455, session.h) for ws:// and wss://
 * URLs. A connection is upgraded with an HTTP/1.1 GET (Upgrade: websocket,
 * no extension offered: permessage-deflate is off), then carries messages:
 * each "request" the worker submits is one message, sent masked, and its
 * outcome is the server's echo of it (the next data message to arrive; an
 * echo server answers in order). An echo that is the message whole (type,
 * length, bytes) is a response with status 200 (so the record's status
 * identities hold); anything else is a protocol error. Pings are answered with pongs; the close handshake runs
 * both ways (the server's close is echoed, --requests-per-connection makes
 * the client close after N messages). HTTP/2 WebSocket (RFC 8441) is not
 * spoken. What happens to connections is reported through host->event
 * (CONN_EVENT_WS_*): upgraded, refused (code: the status of a response
 * that is no 101, else a ws_refusal), closed by the server or the client (code: the close
 * code, 1005 none given, 1006 no close frame), protocol errors (code: a
 * ws_fault). */
#ifndef BARRAGE_WS_H
#define BARRAGE_WS_H

#include "session.h"
#include "ws_frame.h"

/* Protocol errors beyond the frame parser's (enum ws_error comes first). */
enum ws_fault {
    WS_FAULT_ECHO_MISMATCH = WS_ERR_KINDS, /* the echo differs from the message (type, length or bytes) */
    WS_FAULT_UNSOLICITED,                  /* a data message with none in flight */
    WS_FAULT_UPGRADE_TIMEOUT,              /* no upgrade response within --timeout */
    WS_FAULT_KINDS
};

/* Why an upgrade failed when no status says it (codes below 100, beside
 * the statuses 100-599 of responses that are no 101). */
enum ws_refusal {
    WS_REFUSED_CLOSED = 1,            /* the connection ended before a response */
    WS_REFUSED_HEAD_TOO_LARGE,        /* the response's head over --max-header-size */
    WS_REFUSED_NOT_HTTP,              /* no HTTP/1.1 status line */
    WS_REFUSED_NO_UPGRADE,            /* a 101 without Upgrade: websocket */
    WS_REFUSED_NO_CONNECTION_UPGRADE, /* a 101 without Connection: upgrade */
    WS_REFUSED_BAD_ACCEPT,            /* a 101 whose Sec-WebSocket-Accept is not the key's */
    WS_REFUSED_EXTENSION,             /* a 101 with an extension the client did not offer */
    WS_REFUSAL_KINDS
};

/* The refusal's name (the record's websocket.refused_reasons keys). */
const char *ws_refusal_name(unsigned refusal);

/* The fault's name (the record's websocket.protocol_errors keys). */
const char *ws_fault_name(unsigned fault);

extern const struct protocol ws_protocol;

#endif
