/* stats: one thread's counters and histograms, recorded as the metrics record
 * (docs/metrics.md) defines them, then merged across threads.
 * No I/O. Every started request ends in exactly one bucket:
 *   started = requests + aborted, requests = succeeded + failed,
 *   failed = 4xx + 5xx + errored + unexpected, errored = timeout + read + write + protocol + reset.
 * unexpected: a final response that failed its checks (--expect-status, a
 * flow's `expect`), counted there only (in no status class or code). */
#ifndef BARRAGE_STATS_H
#define BARRAGE_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "hist.h"

enum req_error {
    REQ_ERR_TIMEOUT,
    REQ_ERR_READ,     /* connection closed or reset before the response was complete */
    REQ_ERR_WRITE,    /* the request could not be written */
    REQ_ERR_PROTOCOL, /* the response could not be parsed */
    REQ_ERR_RESET,    /* HTTP/2 RST_STREAM */
    REQ_ERR_KINDS
};

/* Finer causes reported beside the buckets (each also counts in one bucket above). */
enum req_detail {
    DETAIL_NONE,
    DETAIL_CLOSED_BEFORE_RESPONSE, /* read: kept-alive connection closed before any byte */
    DETAIL_CLOSED_MID_RESPONSE,    /* read: closed after part of the response */
    DETAIL_HEADER_TOO_LARGE,       /* protocol: headers over --max-header-size */
    DETAIL_BAD_STATUS_LINE,        /* protocol */
    DETAIL_BAD_HEADER,             /* protocol */
    DETAIL_BAD_CHUNK,              /* protocol */
    DETAIL_KINDS
};

/* HTTP/3: what happened to QUIC connections (conn_event in session.h). Stream
 * resets by HTTP/3 error code: 0x100..0x110 (H3_NO_ERROR..H3_VERSION_FALLBACK)
 * by index code - 0x100, any other code in the last slot. */
#define STATS_H3_CODES 17
struct stats_quic {
    uint64_t handshake_failures, idle_timeouts, closed_transport, closed_application, goaways;
    uint64_t stream_resets[STATS_H3_CODES + 1];
};

/* WebSocket (ws.h): what became of the connections, beside the messages'
 * own counts (a message is a request: sent = echoed + failed). Close codes
 * by slot: code - 1000 for 1000..1015, STATS_WS_CODES for any other
 * (3000-4999, the applications'). Protocol errors by ws_fault. */
#define STATS_WS_CODES 16
#define STATS_WS_FAULTS 16
struct stats_ws {
    uint64_t upgraded, refused, pings;
    uint64_t refused_status[600]; /* by status (100-599), or below 100 by ws_refusal (ws.h) */
    uint64_t closed_by_server, closed_by_client;
    uint64_t server_codes[STATS_WS_CODES + 1], client_codes[STATS_WS_CODES + 1];
    uint64_t faults[STATS_WS_FAULTS];
};

/* --idle-connections: the idle connections over the whole run (warm-up
 * included; stats_reset keeps them), never in the load's counts. */
struct stats_idle {
    uint64_t requested, established, connect_errors;
    uint64_t closed;      /* open ones that ended before the run did (the server closed them): reopened */
    uint64_t open, peak;  /* open now (a thread's), most at once (adds up over threads) */
    uint64_t open_at_end; /* open when the run ended */
    uint64_t pings;       /* HTTP/2 PINGs sent (HTTP/3: ngtcp2 sends its own, not counted) */
};

#define STATS_SAMPLES 3
#define STATS_SAMPLE_LEN 64
#define STATS_MAX_KINDS 64 /* request kinds (a script's request() names them) */

/* The requests of one kind: completed (final responses and errors), those
 * with a status below 400, the others, and the latency of final responses. */
struct stats_kind {
    char *name; /* owned */
    uint64_t requests, succeeded, failed, unexpected; /* unexpected: also in failed */
    struct hist latency;
};

/* A flow's iterations (source_flow.c), by how their last measured request
 * ended: the last step answered, a capture that found nothing, an error;
 * and its times (us; made on first use by stats_flow_time, counts NULL
 * before): iteration, a completed iteration's first step ready to its last
 * step answered (queueing and think times in it); wait, a request's user
 * ready to send it (its previous answer and think time past) to the request
 * handed to a connection: users queueing for a connection's free slot (or,
 * at -R, for the schedule). A user's first request has no wait. */
struct stats_flow {
    uint64_t completed, capture_failed, broken;
    struct hist iteration, wait;
};

/* The first few unexpected responses, for the report. */
struct stats_unexpected_example {
    int status;
    char step[STATS_SAMPLE_LEN];  /* the request's kind name, "" without one */
    char body[STATS_SAMPLE_LEN];  /* the start of the body, printable bytes only ("" when not collected) */
};

struct stats {
    uint64_t started, succeeded, aborted;
    uint64_t unexpected; /* final responses that failed a check */
    uint64_t unexpected_codes[600]; /* those by exact code (100..599), apart from codes */
    unsigned unexpected_examples;
    struct stats_unexpected_example unexpected_example[STATS_SAMPLES];
    struct stats_flow flow;
    uint64_t completed_in_grace; /* requests that ended after the deadline, within --grace */
    uint64_t errors[REQ_ERR_KINDS];
    uint64_t details[DETAIL_KINDS];
    uint64_t codes[600];          /* final responses by exact code (100..599) */
    uint64_t connect_attempts, connect_errors, established, peak, connects_abandoned;
    uint64_t bytes_received, bytes_sent, body_bytes;
    uint64_t tls_errors, refused_streams;           /* connection level (TLS handshakes, HTTP/2) */
    /* TLS (https://): established connections by handshake, full or resumed
     * (--tls-resume); handshakes_full + handshakes_resumed = established */
    uint64_t handshakes_full, handshakes_resumed;
    struct stats_idle idle;
    /* HTTP/2: the lowest SETTINGS_MAX_CONCURRENT_STREAMS a server connection
     * announced (UINT32_MAX: none announced); 0 when no SETTINGS arrived.
     * Kept by stats_reset (connections made in the warm-up count). */
    uint64_t server_max_streams;
    uint64_t header_bytes, header_bytes_decoded;    /* HTTP/2 response header blocks */
    struct stats_quic quic;                         /* HTTP/3 connections */
    struct stats_ws ws;                             /* WebSocket connections */
    /* microseconds: latency of final responses, error_latency of errored
     * requests (start to the moment they became errors), connect, ttfb */
    struct hist latency, error_latency, connect, ttfb;
    /* open loop (-R): latency of final responses from their send (latency runs from the
     * schedule), and the lag from scheduled to sent time; what the schedule delivered */
    struct hist latency_uncorrected, schedule_lag;
    uint64_t scheduled, unsent, backlog_max; /* schedule.h; backlog_max adds up over threads */
    /* the first protocol error samples, for --verbose: printable bytes only */
    unsigned samples;
    char sample[STATS_SAMPLES][STATS_SAMPLE_LEN];
    /* by the source's kind index, made on first use (stats_kind); after a
     * merge, in the order the names first appeared */
    struct stats_kind *kinds[STATS_MAX_KINDS];
};

/* Allocates the histograms; returns 0 or -1 (out of memory). */
int stats_init(struct stats *s);
void stats_free(struct stats *s);
/* Forgets everything recorded (end of warm-up). */
void stats_reset(struct stats *s);
/* A final response with this status code, latency in us from its start
 * (open loop: from its scheduled time) and from its send. A status outside
 * 100-599 is no HTTP status: a protocol error (bad_status_line) instead. */
void stats_response(struct stats *s, int status, uint64_t latency_us, uint64_t uncorrected_us);
/* A final response that failed its checks: in unexpected (not in the status
 * codes), its latency as a response's; step (may be NULL) and the body's
 * start (body may be NULL) kept for the first few. */
void stats_unexpected(struct stats *s, int status, uint64_t latency_us, uint64_t uncorrected_us, const char *step,
                      const uint8_t *body, size_t body_len);
/* A request error; latency in us from its start to the error, kept apart
 * from the latency of responses. */
void stats_error(struct stats *s, enum req_error kind, enum req_detail detail, uint64_t latency_us);
/* Keeps a printable copy of the first bytes of a bad response (first few only). */
void stats_sample(struct stats *s, const uint8_t *data, size_t len);
/* Adds src into dst; peaks add up (threads have disjoint connections);
 * kinds are matched by name (one that cannot be made for lack of memory is
 * left out). */
void stats_merge(struct stats *dst, const struct stats *src);
/* The stats of kind index (< STATS_MAX_KINDS), made named name (copied) on
 * first use; NULL when out of memory. */
struct stats_kind *stats_kind(struct stats *s, unsigned index, const char *name);
/* A final response of kind k (a status outside 100-599 fails, unrecorded),
 * or an error. */
void stats_kind_response(struct stats_kind *k, int status, uint64_t latency_us);
void stats_kind_error(struct stats_kind *k);
/* An unexpected final response of kind k. */
void stats_kind_unexpected(struct stats_kind *k, uint64_t latency_us);

/* A flow time (h: stats_flow's iteration or wait) of us; the histogram is
 * made on first use (the value left out when memory runs out). */
void stats_flow_time(struct hist *h, uint64_t us);

/* A WebSocket close code's slot in stats_ws's code tables, and back (STATS_WS_CODES: other). */
static inline unsigned stats_ws_code_slot(uint64_t code)
{
    return code >= 1000 && code < 1000 + STATS_WS_CODES ? (unsigned)(code - 1000) : STATS_WS_CODES;
}

/* Derived totals. */
uint64_t stats_errored(const struct stats *s);
uint64_t stats_requests(const struct stats *s);
uint64_t stats_status_class(const struct stats *s, int hundreds);
uint64_t stats_failed(const struct stats *s);

#endif
