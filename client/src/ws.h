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
 * (CONN_EVENT_WS_*): upgraded, refused (code: the status, 0 for a 101 whose
 * headers are wrong), closed by the server or the client (code: the close
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

/* The fault's name (the record's websocket.protocol_errors keys). */
const char *ws_fault_name(unsigned fault);

extern const struct protocol ws_protocol;

#endif
