/* monotonic: the one clock every time in a run is read from (CLOCK_MONOTONIC,
 * microseconds): latency, schedules, deadlines, the timeline's seconds. Both
 * the worker threads and the main thread read it; no state. */
#ifndef BARRAGE_MONOTONIC_H
#define BARRAGE_MONOTONIC_H

#include <stdint.h>
#include <time.h>

/* A timespec in nanoseconds (a clock's reading, a socket's receive stamp). */
static inline uint64_t timespec_ns(const struct timespec *ts)
{
    return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

static inline uint64_t monotonic_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

#endif
