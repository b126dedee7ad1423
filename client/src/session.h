/* session: one protocol speaking over one connection. HTTP/1 (http1.c) now;
 * HTTP/2 later, with many streams per connection, behind the same operations.
 * The engine owns the socket and the transport; the session decides what to
 * send, parses what arrives and accounts every request it started through
 * the worker_* functions of engine.h. A session lives as long as its
 * connection slot: on_connect and on_close are called once per connection. */
#ifndef BARRAGE_SESSION_H
#define BARRAGE_SESSION_H

#include <stddef.h>
#include <stdint.h>

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

struct session;

struct session_ops {
    /* A new connection is up (the handshake done). */
    void (*on_connect)(struct session *s, uint64_t now_us);
    /* Bytes arrived; data is only valid during the call. */
    enum session_verdict (*on_read)(struct session *s, const uint8_t *data, size_t len, uint64_t now_us);
    /* The next bytes to send: sets *data and returns their length, 0 for none.
     * Requests start here. *data stays valid until the next call. */
    size_t (*next_write)(struct session *s, const uint8_t **data, uint64_t now_us);
    /* Periodic check (timeouts). */
    enum session_verdict (*on_tick)(struct session *s, uint64_t now_us);
    /* The connection ended: the session accounts every request still in flight. */
    void (*on_close)(struct session *s, enum close_cause cause, uint64_t now_us);
    void (*free)(struct session *s);
};

struct session {
    const struct session_ops *ops;
};

#endif
