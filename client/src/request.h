/* request: what a request is (its content, as a source gives it), its
 * context while in flight (times, kind, the source's own datum) and how it
 * ended (its outcome). Shared by the engine, the sources and the sessions;
 * plain data, no I/O. */
#ifndef BARRAGE_REQUEST_H
#define BARRAGE_REQUEST_H

#include <nghttp2/nghttp2.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "response.h"
#include "stats.h"

/* One request, in both encodings. The source owns every byte it points to;
 * they stay valid until the request's outcome has been reported (the static
 * source's live for the whole run). */
struct request {
    const uint8_t *text;      /* HTTP/1.1: the request as sent, body included; text_len 0: its
                               * bytes went out in the text of the request before it (more) */
    size_t text_len;
    unsigned copies;          /* >= 1: text is followed by copies-1 identical copies, so a
                               * session may send that many of this request in one write */
    bool head;                /* a HEAD request: its response has no body */
    const nghttp2_nv *fields; /* HTTP/2: header fields, pseudo-headers first, flagged
                               * NO_COPY (nghttp2 reads them until the HEADERS frame is out) */
    size_t field_count;
    const uint8_t *body;      /* HTTP/2: the DATA to send */
    size_t body_len;
    int kind;                 /* the source's index of this kind of request; -1: none */
    const char *kind_name;    /* its name (kind >= 0), valid for the run */
    uintptr_t source_data;    /* the source's own, carried in the context to its on_done */
    unsigned user;            /* a flow's virtual user (from 1), 0: none (--log's user column) */
    uint64_t iteration;       /* that user's iteration, from 0 (--log's iteration column) */
    bool more;                /* HTTP/1.1: the source's next request was written in this one's text
                               * (pipelined in one string) and must be submitted to the same
                               * connection right after it, whatever capacity() says */
};

/* A request in flight, set by the worker when it hands the request to a
 * connection; a session keeps a copy (by value: no allocation) until it
 * reports the outcome. */
struct req_ctx {
    uint64_t scheduled_us;    /* when it was due; closed loop: when it was handed over */
    uint64_t sent_us;         /* when it was handed to the connection, whose flush writes it
                               * at once: latency, timeouts and ttfb run from here */
    uintptr_t source_data;    /* request.source_data */
    int kind;                 /* request.kind */
    bool measured;            /* started in the measured phase: its outcome is counted */
    bool collect;             /* the source reads the response: the session collects its
                               * headers and body for the outcome (struct response_data) */
    size_t body_max;          /* collect: the most body bytes kept (the rest counted, not kept):
                               * a status check's example needs only the start; 0: the whole body */
    uint32_t log_slot;        /* --log: its entry in the worker's log writer (reqlog.h); 0: not logged */
};

enum outcome_kind {
    OUTCOME_RESPONSE, /* a final response: status, body_bytes, at now_us */
    OUTCOME_ERROR,    /* error, detail, at now_us */
    OUTCOME_ABORTED,  /* still in flight when the run ended */
    OUTCOME_REFUSED,  /* HTTP/2: the server never processed it (REFUSED_STREAM, above a
                       * GOAWAY's last-stream-id, never sent): it may start again */
};

struct outcome {
    enum outcome_kind kind;
    int status;
    uint64_t body_bytes;
    enum req_error error;
    enum req_detail detail;
    uint64_t now_us;
    const struct response_data *response; /* OUTCOME_RESPONSE of a request with ctx.collect: what
                                           * arrived; NULL otherwise */
};

static inline struct outcome outcome_response(int status, uint64_t body_bytes, uint64_t now_us)
{
    return (struct outcome){.kind = OUTCOME_RESPONSE, .status = status, .body_bytes = body_bytes, .now_us = now_us};
}

static inline struct outcome outcome_error(enum req_error error, enum req_detail detail, uint64_t now_us)
{
    return (struct outcome){.kind = OUTCOME_ERROR, .error = error, .detail = detail, .now_us = now_us};
}

/* OUTCOME_ABORTED or OUTCOME_REFUSED: no status, no time. */
static inline struct outcome outcome_of(enum outcome_kind kind)
{
    return (struct outcome){.kind = kind};
}

#endif
