/* source: where requests come from. The worker decides when a request starts
 * and asks its source what it is; the source gives the content and hears how
 * each request ended. One source per worker thread, used by that thread only;
 * what the threads' sources share is built once (source_type.shared_new).
 * source_static.c is today's -X/-H/-b request, encoded once. */
#ifndef BARRAGE_SOURCE_H
#define BARRAGE_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "request.h"

struct source;

struct source_ops {
    /* The next request for connection conn (0 .. the worker's connections - 1).
     * The struct is the source's, valid until the next call; the bytes it
     * points to stay valid until on_done of that request (or for the run). */
    const struct request *(*next)(struct source *s, unsigned conn);
    /* How a request of connection conn ended; ctx and o are valid during the
     * call only. NULL: the source does not care (no call per request). */
    void (*on_done)(struct source *s, unsigned conn, const struct req_ctx *ctx, const struct outcome *o);
    void (*free)(struct source *s);
};

struct source {
    const struct source_ops *ops;
    /* the source reads responses' headers and body (a script's response()):
     * sessions must keep them for on_done. No session does yet; false for
     * the static source. */
    bool wants_response;
};

/* A kind of source, chosen in main. */
struct source_type {
    const char *name;
    /* What every thread's source shares, read-only, from cfg (which must
     * outlive it); NULL with the reason in err. Freed with shared_free. */
    void *(*shared_new)(const struct config *cfg, char *err, size_t errlen);
    void (*shared_free)(void *shared);
    /* One thread's source; NULL when out of memory. shared must outlive it.
     * Free with s->ops->free. */
    struct source *(*source_new)(const void *shared);
};

/* The request of the command line (-X, -H, -b, the URL), encoded once for
 * HTTP/1.1 (repeated -m times, so pipelined requests leave in one write) and
 * HTTP/2 (header fields, body); every request is the same. */
extern const struct source_type source_static;

#endif
