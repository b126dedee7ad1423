/* session: one protocol speaking over one connection (http1.c, http2.c, http3.c), and
 * the protocol table a worker (worker.c) creates sessions from. The worker owns
 * the socket and the transport and decides which request starts when; the
 * session encodes the requests it is given, parses what arrives, tracks what
 * is in flight and reports every outcome to its host (the connection), never
 * to the worker itself. A session lives as long as its connection slot:
 * on_connect and on_close are called once per connection. */
#ifndef BARRAGE_SESSION_H
#define BARRAGE_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <sys/socket.h>

#include "config.h"
#include "request.h"

enum session_verdict {
    SESSION_KEEP,  /* the connection stays open */
    SESSION_CLOSE, /* close it now (done with it, or a fatal error already accounted) */
};

enum close_cause {
    CLOSE_EOF,         /* the peer closed cleanly */
    CLOSE_READ_ERROR,  /* reading failed (reset) */
    CLOSE_WRITE_ERROR, /* writing failed */
    CLOSE_LOCAL,       /* the session asked for it */
    CLOSE_ABORT,       /* the run ended */
};

/* What happened to a connection, in QUIC terms (HTTP/3 only): counted by
 * the host beside the requests' outcomes. */
enum conn_event {
    CONN_EVENT_HANDSHAKE_FAILED, /* the QUIC handshake failed, not in TLS (a timeout, a protocol error) */
    CONN_EVENT_TLS_FAILED,       /* the TLS handshake failed (certificate, ALPN, an alert) */
    CONN_EVENT_IDLE_TIMEOUT,     /* no packet for the idle timeout */
    CONN_EVENT_CLOSED_TRANSPORT, /* the peer closed it with a transport error code (code) */
    CONN_EVENT_CLOSED_APPLICATION, /* the peer closed it with an HTTP/3 error code (code) */
    CONN_EVENT_GOAWAY,           /* the peer sent GOAWAY */
    CONN_EVENT_STREAM_RESET,     /* the peer reset a request's stream with this HTTP/3 error code */
    /* WebSocket (ws.h), over TCP: */
    CONN_EVENT_WS_UPGRADED,        /* the upgrade succeeded */
    CONN_EVENT_WS_REFUSED,         /* the upgrade failed; code: the status, 0 when none or a bad 101 */
    CONN_EVENT_WS_CLOSED_BY_SERVER, /* code: its close code (1005 none, 1006 no close frame) */
    CONN_EVENT_WS_CLOSED_BY_CLIENT, /* code: the close code sent */
    CONN_EVENT_WS_PROTOCOL_ERROR,  /* code: the ws_fault */
    CONN_EVENT_WS_PING,            /* a ping answered */
};

/* What a session reports to, one per connection. The host must not call
 * back into the session from these. */
struct session_host;

struct session_host_ops {
    /* A submitted request ended: every one is reported exactly once, possibly
     * from within submit (refused). ctx and o are valid during the call only. */
    void (*done)(struct session_host *h, const struct req_ctx *ctx, const struct outcome *o);
    /* The first byte of the request's response arrived (HTTP/2: its headers). */
    void (*first_byte)(struct session_host *h, const struct req_ctx *ctx, uint64_t now_us);
    /* HTTP/2 header block bytes: as received (wire) and decoded. */
    void (*header_bytes)(struct session_host *h, uint64_t wire, uint64_t decoded);
    /* HTTP/2: the server's SETTINGS arrived; max_streams is its
     * SETTINGS_MAX_CONCURRENT_STREAMS (UINT32_MAX when it announced none). */
    void (*peer_settings)(struct session_host *h, uint32_t max_streams);
    /* Bytes that could not be understood, for --verbose; valid during the call. */
    void (*sample)(struct session_host *h, const uint8_t *data, size_t len);
    /* Datagram protocols (protocol.datagram) only: the session's own
     * handshake completed; the connection counts as established from now. */
    void (*connected)(struct session_host *h, uint64_t now_us);
    /* Datagram protocols and WebSocket: a connection-level event (code: the error
     * code, for CLOSED_* and STREAM_RESET; 0 otherwise). A handshake that
     * fails is reported here and then the session asks to close. */
    void (*event)(struct session_host *h, enum conn_event ev, uint64_t code);
};

struct session_host {
    const struct session_host_ops *ops;
};

struct session;

struct session_ops {
    /* A new connection is up (the handshake done). */
    void (*on_connect)(struct session *s, uint64_t now_us);
    /* How many more requests submit takes now: 1 or 0 (HTTP/1.1 without
     * pipelining), the pipeline depth left, or the free streams within the
     * server's SETTINGS_MAX_CONCURRENT_STREAMS; 0 once the connection takes
     * no more (closing, GOAWAY, broken). */
    unsigned (*capacity)(struct session *s);
    /* Takes one request while capacity() > 0 and returns the capacity left.
     * *req and *ctx are copied; the bytes req points to must stay valid until
     * the request's outcome is reported. */
    unsigned (*submit)(struct session *s, const struct request *req, const struct req_ctx *ctx);
    /* Bytes arrived; data is only valid during the call. */
    enum session_verdict (*on_read)(struct session *s, const uint8_t *data, size_t len, uint64_t now_us);
    /* The next bytes to send: sets *data and returns their length, 0 for none.
     * *data stays valid until the next call. */
    size_t (*next_write)(struct session *s, const uint8_t **data, uint64_t now_us);
    /* Periodic check (timeouts). */
    enum session_verdict (*on_tick)(struct session *s, uint64_t now_us);
    /* The connection ended: the session reports every request still in flight. */
    void (*on_close)(struct session *s, enum close_cause cause, uint64_t now_us);
    void (*free)(struct session *s);
    /* Datagram protocols only (NULL otherwise). The socket is a connected
     * UDP socket between local and remote (copied); called before on_connect,
     * which then starts the session's own handshake: capacity() stays 0
     * until it calls host->connected. Every next_write gives one datagram. */
    void (*set_path)(struct session *s, const struct sockaddr *local, socklen_t local_len,
                     const struct sockaddr *remote, socklen_t remote_len);
    /* Datagram protocols only: when on_tick must run next (CLOCK_MONOTONIC
     * microseconds; UINT64_MAX: no timer), asked after every write. */
    uint64_t (*next_timer)(struct session *s);
    /* --idle-connections: this connection carries no request; keep it open
     * as a browser would, pinging every every_us. Called when it is
     * established (datagram protocols: on_connect) and then every every_us.
     * HTTP/2 queues a PING frame at each call; HTTP/3 has the QUIC stack
     * send a PING whenever the connection has been silent every_us (later
     * calls change nothing). NULL: the protocol has no ping (HTTP/1.1). */
    void (*keep_alive)(struct session *s, uint64_t every_us);
};

struct session {
    const struct session_ops *ops;
};

/* A protocol, chosen in main (after ALPN for https://). */
struct protocol {
    const char *name;
    bool datagram; /* UDP (QUIC): the worker opens a connected UDP socket, the session does the rest */
    /* What every session of the run shares, read-only, from cfg (which must
     * outlive it); NULL when out of memory. Freed with shared_free. */
    void *(*shared_new)(const struct config *cfg);
    void (*shared_free)(void *shared);
    /* A session for one connection slot, reporting to host; NULL when out of
     * memory. shared and host must outlive it. Free with s->ops->free. */
    struct session *(*session_new)(const void *shared, struct session_host *host);
};

#endif
