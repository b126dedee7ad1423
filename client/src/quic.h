/* quic: one QUIC client connection (RFC 9000) over ngtcp2 with GnuTLS for
 * its TLS 1.3 handshake (ALPN h3). Every call into ngtcp2 and GnuTLS is in
 * quic.c; http3.c (the HTTP/3 session) drives a quic_conn and knows nothing
 * of either library. A quic_client (the credentials and the options) is
 * shared read-only by every thread; each connection has its own quic_conn,
 * owned by its session. Nothing here touches a socket: the session hands in
 * each datagram that arrived (quic_conn_read) and takes out one datagram at a
 * time to send (quic_conn_write); time is CLOCK_MONOTONIC microseconds, and
 * quic_conn_expiry_us says when quic_conn_on_expiry must run (loss recovery,
 * acknowledgements, the idle timeout). Not thread-safe: one thread per
 * connection. */
#ifndef BARRAGE_QUIC_H
#define BARRAGE_QUIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

struct quic_client;
struct quic_conn;

struct quic_options {
    const char *host;              /* from the URL: the name checked in the certificate */
    const char *sni;               /* NULL: the URL's host unless it is an IP address */
    const char *cacert;            /* an extra CA file (PEM), or NULL */
    bool insecure;                 /* skip verification */
    const char *cert, *key;        /* --cert/--key: a client certificate (PEM) for a server that asks, or NULL */
    uint64_t handshake_timeout_us; /* the handshake's deadline */
    uint64_t idle_timeout_us;      /* the transport parameter max_idle_timeout */
};

/* The shared client (system CAs unless insecure, plus cacert); NULL with
 * the reason in err (a cacert that cannot be loaded names the file). */
struct quic_client *quic_client_new(const struct quic_options *opt, char *err, size_t errlen);
void quic_client_free(struct quic_client *c);

/* ngtcp2's version at run time ("0.12.1", static). */
const char *quic_library_version(void);

/* Bytes to send on a stream, as nghttp3 hands them out. */
struct quic_vec {
    const uint8_t *base;
    size_t len;
};

/* What the connection reports to its owner (user); a negative return from any
 * of them fails the connection (QUIC_END_LOCAL). They run from within
 * quic_conn_read, quic_conn_write and quic_conn_on_expiry only. */
struct quic_events {
    /* The handshake completed (the certificate verified, ALPN h3). */
    int (*handshake_done)(void *user);
    /* Stream data in order; data valid during the call only. */
    int (*stream_data)(void *user, int64_t id, const uint8_t *data, size_t len, bool fin);
    /* The peer acknowledged len more bytes of a stream's data. */
    int (*acked)(void *user, int64_t id, uint64_t len);
    /* The peer reset the stream (RESET_STREAM) with this application error. */
    int (*stream_reset)(void *user, int64_t id, uint64_t app_error);
    /* The stream is closed both ways; app_error is UINT64_MAX when none was given. */
    int (*stream_close)(void *user, int64_t id, uint64_t app_error);
    /* A stream may take more data (flow control): unblock it. */
    int (*unblock)(void *user, int64_t id);
    /* What to send next: fills up to veccnt vectors (they must stay valid
     * until the next call) and sets *id (-1: nothing) and *fin; returns the
     * number of vectors or <0 on failure. */
    ssize_t (*pull)(void *user, int64_t *id, int *fin, struct quic_vec *vec, size_t veccnt);
    /* n bytes of what pull gave for stream id went into a packet. */
    int (*pushed)(void *user, int64_t id, size_t n);
    /* The stream cannot take more now (flow control), or never again (shut). */
    void (*blocked)(void *user, int64_t id, bool shut);
};

/* Why a connection is over. */
enum quic_end {
    QUIC_END_NONE,           /* still up */
    QUIC_END_HANDSHAKE,      /* the handshake failed (not TLS: a timeout, a protocol error) */
    QUIC_END_TLS,            /* the TLS handshake failed (certificate, ALPN) */
    QUIC_END_IDLE,           /* the idle timeout passed without a packet */
    QUIC_END_PEER_TRANSPORT, /* the peer closed with a transport error code */
    QUIC_END_PEER_APP,       /* the peer closed with an application (HTTP/3) error code */
    QUIC_END_LOCAL,          /* we closed it (an error here, or quic_conn_close) */
};

/* A connection on a connected UDP socket between local and remote (copied),
 * reporting to ev/user (which must outlive it); NULL when out of memory or
 * the TLS session could not be made. */
struct quic_conn *quic_conn_new(const struct quic_client *c, const struct sockaddr *local, socklen_t local_len,
                                const struct sockaddr *remote, socklen_t remote_len, const struct quic_events *ev,
                                void *user, uint64_t now_us);
void quic_conn_free(struct quic_conn *q);

/* One datagram arrived: 0, or -1 when the connection is over (quic_conn_ended). */
int quic_conn_read(struct quic_conn *q, const uint8_t *data, size_t len, uint64_t now_us);
/* The next datagram to send into buf (cap at least QUIC_DATAGRAM_MAX):
 * its length, 0 when there is nothing to send (or the connection is over). */
size_t quic_conn_write(struct quic_conn *q, uint8_t *buf, size_t cap, uint64_t now_us);
#define QUIC_DATAGRAM_MAX 1500
/* When quic_conn_on_expiry must run next (UINT64_MAX: no timer). */
uint64_t quic_conn_expiry_us(struct quic_conn *q);
/* The timer passed: 0, or -1 when the connection is over (idle, handshake timeout). */
int quic_conn_on_expiry(struct quic_conn *q, uint64_t now_us);

/* A new bidirectional stream's id in *id: 0, or -1 when the peer allows no more now. */
int quic_conn_open_bidi(struct quic_conn *q, int64_t *id);
/* A new unidirectional stream's id: 0 or -1. */
int quic_conn_open_uni(struct quic_conn *q, int64_t *id);
/* How many more bidirectional streams the peer allows now. */
uint64_t quic_conn_bidi_left(struct quic_conn *q);
/* The peer's initial_max_streams_bidi (0 before the handshake). */
uint64_t quic_conn_peer_max_bidi(struct quic_conn *q);
/* The application consumed n bytes of stream id: flow control credit back. */
void quic_conn_consumed(struct quic_conn *q, int64_t id, size_t n);
/* Resets both directions of a stream with an application error code. */
void quic_conn_shutdown_stream(struct quic_conn *q, int64_t id, uint64_t app_error);
/* ngtcp2 sends a PING whenever the connection has been silent every_us (0: never). */
void quic_conn_keep_alive(struct quic_conn *q, uint64_t every_us);
/* Closes the connection with an application error code: the next
 * quic_conn_write gives the CONNECTION_CLOSE packet, then nothing. */
void quic_conn_close(struct quic_conn *q, uint64_t app_error);

/* Why the connection is over (QUIC_END_NONE while up) and the peer's error
 * code for QUIC_END_PEER_*; a one-line reason for QUIC_END_TLS/HANDSHAKE. */
enum quic_end quic_conn_ended(const struct quic_conn *q, uint64_t *code, const char **reason);

#endif
