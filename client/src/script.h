/* script: wrk 4.2's Lua scripting API on LuaJIT, the only file that touches a
 * lua_State (SCRIPTING.md describes the API as scripts see it).
 *
 * One main state runs setup() and done(); each worker thread gets a state of
 * its own, made from the same file, that runs init(), request(), response()
 * and delay(). A thread state is used by its worker only; the main state and
 * thread:get/set reach into thread states only before the workers start
 * (setup) and after they ended (done).
 *
 * Errors: every function that runs Lua returns 0, or -1 with a message (the
 * callback's name, Lua's message and a traceback) in script_error() or
 * script_thread_error(). A script that does not load is a usage error (exit
 * 2); a runtime error in any callback stops the run with SCRIPT_EXIT_STATUS.
 * Lua running out of memory aborts (LuaJIT's panic).
 *
 * Hot path (script_request, script_response, script_delay): the functions are
 * kept on the state's stack after init(), so a call allocates nothing the
 * script did not ask for; the headers table given to response() is one table
 * per thread, emptied and refilled for each response. */
#ifndef BARRAGE_SCRIPT_H
#define BARRAGE_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "response.h"

#define SCRIPT_EXIT_STATUS 4  /* a runtime error in a script callback stopped the run */
#define SCRIPT_MAX_KINDS 64   /* distinct request kinds per thread */
#define SCRIPT_ERROR_MAX 4096 /* longer messages are cut */

struct hist;
struct script;        /* the main state (setup, done) and every thread state */
struct script_thread; /* one worker's state; owned by its struct script */

/* What the command line says, copied into the wrk table of every state. */
struct script_target {
    const char *url;              /* args[0] in init(args), as wrk */
    const char *scheme;           /* wrk.scheme: "http" or "https" */
    const char *host;             /* wrk.host, IPv6 without brackets */
    const char *port;             /* wrk.port: NULL when the URL names none (Host then has no port) */
    const char *path;             /* wrk.path, the query included */
    const char *method;           /* wrk.method; NULL: "GET" */
    const char *const *headers;   /* -H "Name: value" lines into wrk.headers */
    unsigned header_count;
    const char *body;             /* wrk.body; NULL: nil */
    size_t body_len;
    const struct sockaddr *addr;  /* the address every thread starts with (wrk.addrs[1], thread.addr) */
    socklen_t addr_len;
    uint64_t callback_limit_us;   /* how long the top level, setup, init and done may each run; 0: no limit */
};

/* The watchdog. Every state runs in LuaJIT's interpreter (the JIT compiler
 * is off: a compiled loop never sees a hook) with a count hook that stops
 * the script, with an error, when it must: that error is the callback's (its
 * name, the watchdog's reason, the traceback of where it was). os.exit()
 * raises such an error instead of ending the process; os.execute() waits
 * for its command only until the script must stop (the command's process
 * group is then killed). A callback that was blocked in C when it had to
 * stop (interrupted with EINTR by the caller) fails when it returns. */
enum script_halt {
    SCRIPT_HALT_NONE,
    SCRIPT_HALT_DEADLINE, /* the run went past its end: every state stops */
    SCRIPT_HALT_SIGNAL,   /* SIGINT or SIGTERM: every state stops */
    SCRIPT_HALT_LIMIT,    /* (internal) a main-thread callback ran over callback_limit_us */
};

/* Any thread: every state of s stops now (the first reason is kept; the
 * following calls of every callback fail too). */
void script_halt(struct script *s, enum script_halt why);

/* Async-signal-safe: the Lua running in the thread that made a script (the
 * top level, setup, init, done) stops; worker threads' states only stop
 * with script_halt. script_halt_signal(false) once the signal was handled. */
void script_halt_signal(bool on);

/* Loads file into the main state with the wrk table filled from target
 * (target->addr required). Returns NULL with the reason in err (a syntax error
 * as "file:line: message", a runtime error of the file's top level with a
 * traceback, a missing file), to be reported with exit status 2. The address
 * is copied; file and target's strings are read again by script_thread_new and
 * must stay valid until the last thread is made. Free with script_free. */
struct script *script_new(const char *file, const struct script_target *target, char *err, size_t errlen);

/* Closes every state, threads included. */
void script_free(struct script *s);

/* The last error of the main state or of script_thread_new (valid until the next call). */
const char *script_error(const struct script *s);

/* A worker's state, in wrk's order: loads the file into a new state, sets
 * wrk.thread, runs setup(thread) in the main state (thread.addr starts as
 * target->addr), then init(args) in the new state, with args[0] the URL and
 * args[1..argc] the script's arguments. The first thread's request() is then
 * called once more and its result dropped, as wrk does. Call from the main
 * thread before any worker starts. Returns NULL on an error (script_error);
 * the thread is owned by s and lives until script_free, so that done() can
 * still read its globals. */
struct script_thread *script_thread_new(struct script *s, int argc, const char *const *argv);

/* The i-th thread made (0: the first), or NULL. */
struct script_thread *script_thread_at(const struct script *s, unsigned i);

/* The last error of this thread's callbacks (valid until the next call). */
const char *script_thread_error(const struct script_thread *t);

/* thread:stop() was called (from the thread's own script or from setup): the
 * worker should stop as wrk stops that thread's loop. Check after callbacks. */
bool script_thread_stopped(const struct script_thread *t);

/* The address the thread connects to (setup may have set thread.addr); valid
 * while the thread lives. */
const struct sockaddr *script_thread_addr(const struct script_thread *t, socklen_t *len);

/* What the script defined after init(): no request() (the default request,
 * formatted once after init, is returned every time); response() (only then
 * should headers and body be collected and script_response called); delay(). */
bool script_is_static(const struct script_thread *t);
bool script_wants_response(const struct script_thread *t);
bool script_has_delay(const struct script_thread *t);

/* Per-connection state for request(conn), response(..., conn) and delay(conn).
 * Embedded by the caller; fields private. A table is made per connection only
 * when one of those functions takes that parameter (or is variadic). */
struct script_conn {
    int table_ref;  /* the conn table, or no reference */
    int string_ref; /* keeps the last request string alive */
};

/* Opens c for a new connection (one Lua reference or two; no allocation once
 * the registry has grown). Close it, once, when the connection ends. */
void script_conn_open(struct script_thread *t, struct script_conn *c);
void script_conn_close(struct script_thread *t, struct script_conn *c);

/* One call of request(conn). */
struct script_request {
    const char *data; /* the raw HTTP/1.1 text, one or several requests (not copied) */
    size_t len;       /* > 0 */
    unsigned kind;    /* 0, or the kind named by request()'s second value (script_kind_name) */
};

/* Calls request() (or the default request). data stays valid until the next
 * script_request with the same c, or script_conn_close(c); with c NULL until
 * the next script_request on this thread with c NULL. A second value that is
 * not a string or nil, a first value that is not a non-empty string, and more
 * than SCRIPT_MAX_KINDS kinds are errors. */
int script_request(struct script_thread *t, struct script_conn *c, struct script_request *out);

/* The name of kind (1..script_kind_count) on this thread; kinds are numbered
 * per thread in the order they first appear, so merge threads by name. */
const char *script_kind_name(const struct script_thread *t, unsigned kind);
unsigned script_kind_count(const struct script_thread *t);

/* Calls response(status, headers, body, conn) when the script defines it (else
 * returns 0 at once). Names and values are copied into the thread's one
 * headers table (emptied first, so scripts must not keep it beyond the call),
 * looked up without regard to case; of a repeated name the last value wins, as
 * wrk. body may be NULL (empty). Nothing here is kept after the call. */
int script_response(struct script_thread *t, struct script_conn *c, int status,
                     const struct response_header *headers, size_t header_count,
                     const char *body, size_t body_len);

/* Calls delay(conn): *delay_us = its number of milliseconds * 1000 (not a
 * number or below 0: 0, as wrk; fractions kept, wrk truncates to ms). */
int script_delay(struct script_thread *t, struct script_conn *c, uint64_t *delay_us);

/* The numbers of done()'s summary table, with wrk's meanings. */
struct script_summary {
    uint64_t duration_us; /* summary.duration */
    uint64_t requests;    /* completed requests */
    uint64_t bytes;       /* bytes received */
    struct {
        uint64_t connect, read, write, status, timeout; /* status: responses > 399 */
    } errors;
};

/* done is a function in the main state now. */
bool script_has_done(const struct script *s);

/* Calls done(summary, latency, requests) in the main state when defined (else
 * returns 0): latency and requests become wrk's stats objects (microseconds of
 * latency; requests/s per thread), read during the call only; thread:get
 * works on every thread. */
int script_done(struct script *s, const struct script_summary *summary,
                const struct hist *latency, const struct hist *requests);

#endif
