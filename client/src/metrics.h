/* metrics: --metrics-listen ADDR:PORT, barrage's figures for Prometheus while
 * it runs. A thread of its own accepts one connection at a time and answers
 * GET /metrics with the last published text (metrics_text.h); the main thread
 * adds each merged second of the measured phase (timeline.c's on_second) and
 * publishes the new text, once a second. The workers never see it: nothing
 * on their path takes its lock. */
#ifndef BARRAGE_METRICS_H
#define BARRAGE_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "interval.h"

struct metrics;

/* Binds and listens on ADDR:PORT (a numeric IPv4 address, or an IPv6 one in
 * brackets; port 0 takes a free one) and starts the thread, which serves
 * zeroes until the first second. NULL with the reason in err (a bad
 * address, a port in use, no thread). Free with metrics_close. */
struct metrics *metrics_open(const char *addr_port, char *err, size_t errlen);
/* The bound address as "ADDR:PORT" (for the log). */
const char *metrics_address(const struct metrics *m);
/* The timeline's on_second (main thread): adds the merged second and
 * publishes the figures. ctx is the struct metrics. */
void metrics_on_second(void *ctx, const struct interval *merged);
/* The run is over: publishes the figures as final, then waits until they
 * were served once or linger_us passed, whichever comes first (no wait when
 * no second of a measured phase was added: no run took place). */
void metrics_finish(struct metrics *m, uint64_t linger_us);
/* Stops the thread, closes the socket, frees m (NULL: nothing). */
void metrics_close(struct metrics *m);

#endif
