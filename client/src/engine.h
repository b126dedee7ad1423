/* engine: worker threads, one libev loop each, driving connections. Each
 * worker owns its connections, sessions and stats; nothing is shared between
 * threads until the end, when the caller merges the stats. */
#ifndef BARRAGE_ENGINE_H
#define BARRAGE_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "stats.h"

struct worker;

/* The result of a run: merged stats and the measured window. */
struct run_result {
    struct stats stats;   /* owned by the caller: stats_free */
    uint64_t duration_us; /* warm-up end to the deadline (or to the last answer of a
                           * run without one); the grace is not in it */
};

/* Runs the whole load test; returns 0, or -1 when setting up failed (out of
 * memory, no threads: the reason in errbuf). */
int engine_run(const struct config *cfg, struct run_result *out, char *errbuf, size_t errlen);

/* Monotonic clock, microseconds. */
uint64_t engine_now_us(void);

/* For sessions. start_us is the request's start time: outcomes of requests
 * started before the measured phase (warm-up) are dropped. */
/* May one more request start now? Counts it as started when so. */
bool worker_take_request(struct worker *w);
void worker_response(struct worker *w, uint64_t start_us, int status, uint64_t body_bytes, uint64_t now_us);
void worker_error(struct worker *w, uint64_t start_us, enum req_error kind, enum req_detail detail,
                  uint64_t now_us);
void worker_aborted(struct worker *w, uint64_t start_us);
/* HTTP/2: a stream the server never processed (REFUSED_STREAM, above a
 * GOAWAY's last-stream-id): counted in refused_streams and started again, or
 * aborted when the run is stopping. */
void worker_refused(struct worker *w, uint64_t start_us);
/* HTTP/2 header block bytes: as received (wire) and decoded, for the
 * header compression savings. */
void worker_header_bytes(struct worker *w, uint64_t wire, uint64_t decoded);
void worker_first_byte(struct worker *w, uint64_t start_us, uint64_t now_us);
/* A protocol error sample for --verbose. */
void worker_sample(struct worker *w, const uint8_t *data, size_t len);

#endif
