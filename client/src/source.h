/* source: where requests come from. The worker decides when a request starts
 * and asks its source what it is; the source gives the content and hears how
 * each request ended. One source per worker thread, used by that thread only;
 * what the threads' sources share is built once (source_type.shared_new).
 * source_static.c is the -X/-H/-b request, encoded once; source_gen.c draws
 * from a list (--urls), a pattern (--rand-url) and signs tokens (--jwt-key);
 * source_script.c asks a wrk script (-s); source_flow.c runs a flow's users (--flow). A source may
 * stop its thread or fail the run: after each call the worker looks at source.state. */
#ifndef BARRAGE_SOURCE_H
#define BARRAGE_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "config.h"
#include "request.h"

struct source;

struct source_ops {
    /* The next request for connection conn (0 .. the worker's connections - 1).
     * The struct is the source's, valid until the next call; the bytes it
     * points to stay valid until on_done of that request (or for the run).
     * NULL when state is no longer SOURCE_RUNNING, or (state still running)
     * when the source has nothing for this connection now: the connection
     * waits for an outcome on it or for its delay(), then asks again. A
     * request with `more` is followed by the next() that must be submitted
     * with it (never NULL). */
    const struct request *(*next)(struct source *s, unsigned conn);
    /* How a request of connection conn ended; ctx and o are valid during the
     * call only. NULL: the source does not care (no call per request). */
    void (*on_done)(struct source *s, unsigned conn, const struct req_ctx *ctx, const struct outcome *o);
    /* Whether a final response (OUTCOME_RESPONSE) is what its request
     * expected (a flow step's `expect` lines), asked before the worker counts
     * it and before on_done: false makes it `unexpected` (stats.h). NULL:
     * --expect-status decides, else every response is expected. */
    bool (*expected)(struct source *s, unsigned conn, const struct req_ctx *ctx, const struct outcome *o);
    /* Microseconds connection conn waits before its next request (a script's
     * delay()), asked before each next() that starts a new request text; the
     * worker holds the connection that long. NULL: never waits. */
    uint64_t (*delay)(struct source *s, unsigned conn);
    /* Connection conn was established / has ended (after the session reported
     * every request in flight on it). NULL: not needed. */
    void (*conn_open)(struct source *s, unsigned conn);
    void (*conn_close)(struct source *s, unsigned conn);
    /* Where connection conn connects (a request list with several origins);
     * valid while the source lives. NULL: the source's addr, else the URL's. */
    const struct sockaddr *(*conn_addr)(struct source *s, unsigned conn, socklen_t *len);
    void (*free)(struct source *s);
};

enum source_state {
    SOURCE_RUNNING,
    SOURCE_STOP,   /* this thread stops as at the deadline (a script's thread:stop()) */
    SOURCE_FAILED, /* the whole run stops at once (a script error): error says why */
};

struct source {
    const struct source_ops *ops;
    /* the source reads responses' headers and body (a script's response()):
     * sessions keep them for on_done (ctx.collect). */
    bool wants_response;
    /* wants_response: the most bytes of a body it reads (the start, for a flow
     * whose steps check statuses only); 0: the whole body */
    size_t body_max;
    enum source_state state; /* looked at after every call */
    const char *error;       /* SOURCE_FAILED: the message, valid while the source lives */
    /* where this thread connects (a script's setup() may set thread.addr);
     * NULL: the URL's address. Valid while the source lives. */
    const struct sockaddr *addr;
    socklen_t addr_len;
    /* the worker's stats (set after source_new, reset with them at the end
     * of the warm-up), where a source counts its own figures of measured
     * requests (stats.flow); NULL: none to count in. */
    struct stats *stats;
};

/* A kind of source, chosen in main. */
struct source_type {
    const char *name;
    /* What every thread's source shares, read-only, from cfg (which must
     * outlive it); NULL with the reason in err (a usage error: main builds it
     * before the target is probed). Freed with shared_free. The protocol is
     * not known yet (cfg->h2 follows ALPN): read it in source_new. */
    void *(*shared_new)(const struct config *cfg, char *err, size_t errlen);
    void (*shared_free)(void *shared);
    /* The source of worker thread (0 .. -t - 1) with connections
     * connections; NULL when out of memory. shared must outlive it. Free
     * with s->ops->free. */
    struct source *(*source_new)(const void *shared, unsigned thread, unsigned connections);
    /* Main thread, while the workers run (thread-safe): whatever the sources
     * are running must end now (the engine's watchdog), because of a signal
     * (interrupted) or because the run went past its end. What runs then
     * fails (SOURCE_FAILED) as soon as it can. NULL: a source never runs long. */
    void (*halt)(void *shared, bool interrupted);
};

/* The request of the command line (-X, -H, -b, the URL), encoded once for
 * HTTP/1.1 (repeated -m times, so pipelined requests leave in one write) and
 * HTTP/2 (header fields, body); every request is the same. */
extern const struct source_type source_static;

/* A wrk script (-s; cfg->script holds its states, loaded by main): request()
 * per request text, split with reqtext (SCRIPTING.md). */
extern const struct source_type source_script;

/* Requests from the command line without a script (source_gen.c): a list
 * (--urls, several origins allowed), a target drawn from a pattern
 * (--rand-url). */
extern const struct source_type source_gen;

/* A flow's virtual users (--flow, cfg->flow_file; flow.h), each running the
 * chain of steps on its connection. */
extern const struct source_type source_flow;

#endif
