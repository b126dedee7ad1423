/* transport: how bytes move on one connection's socket, so that the worker
 * (worker.c) drives plain and TLS connections alike (sessions never see the
 * transport: they get bytes from the worker and hand it bytes). Two
 * implementations: plain TCP and unix sockets (transport.c) and TLS over
 * OpenSSL (tls.c, tls.h). The worker opens the non-blocking socket, hands it
 * to an init function (the transport owns the fd from then on), drives the
 * handshake from its event loop and closes through close(). Reads and writes
 * never block. */
#ifndef BARRAGE_TRANSPORT_H
#define BARRAGE_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct transport;

struct transport_ops {
    /* Drives the handshake: 0 done, 1 waiting to read, 2 waiting to write,
     * -1 failed (errno set; EPROTO: the TLS handshake itself failed). */
    int (*handshake)(struct transport *t);
    /* >0 bytes read, 0 the peer closed, -1 error (errno; EAGAIN: nothing yet).
     * When the transport stamps its reads (transport_stamp_reads), a read
     * that returns bytes sets *received_ns to when the kernel received the
     * last of them (CLOCK_REALTIME, nanoseconds); otherwise it leaves it alone. */
    ssize_t (*read)(struct transport *t, uint8_t *buf, size_t len, uint64_t *received_ns);
    /* >=0 bytes written, -1 error (errno; EAGAIN: try when writable). */
    ssize_t (*write)(struct transport *t, const uint8_t *buf, size_t len);
    /* Closes the socket; the transport may be initialised again. */
    void (*close)(struct transport *t);
    /* Turns on stamped reads (transport_stamp_reads): 0, or -1. */
    int (*stamp_reads)(struct transport *t);
};

struct transport {
    const struct transport_ops *ops;
    int fd;
    void *state;  /* the implementation's own (TLS: the SSL connection) */
    bool stamped; /* reads report the kernel's receive time */
};

/* Wraps a connected, non-blocking socket fd; the transport owns it from now on. */
void transport_plain_init(struct transport *t, int fd);

/* Asks the kernel to stamp what the transport's socket receives
 * (SO_TIMESTAMPNS), so that each read says when its bytes arrived: a reader
 * that wakes late still times them right. Call it before the first read.
 * 0, or -1 when it cannot, and then reads are not stamped. */
int transport_stamp_reads(struct transport *t);

/* For the implementations: SO_TIMESTAMPNS on fd (0 or -1), and a recv() that
 * also sets *received_ns from the stamp of the last segment it took, when
 * there is one (TCP's SCM_TIMESTAMPNS). */
int transport_socket_stamp(int fd);
ssize_t transport_recv_stamped(int fd, void *buf, size_t len, uint64_t *received_ns);

#endif
