/* pacer: one thread's share of a fixed-rate schedule, as pure arithmetic (no
 * I/O, no clock: the caller passes times in, microseconds of its own clock).
 *
 * A total rate R (requests/s) is shared by T threads; thread i (0 <= i < T)
 * gets every T-th request of one global schedule:
 *  - PACER_EVEN: global request k at t0 + k/R; thread i sends k = n*T + i,
 *    so the union of the threads is evenly spaced. Times are computed from
 *    k, never accumulated, so there is no drift however long the run.
 *  - PACER_POISSON: each thread is a Poisson process of rate R/T (exponential
 *    gaps from a seeded generator, reproducible for a seed and thread index),
 *    so the union is a Poisson process of rate R.
 * Internally the schedule is a "progress" count of requests (global, in
 * millionths of a request) that grows at the rate in force: a rate change at
 * `now` keeps the progress reached at `now` and continues from there at the new
 * rate, so there is neither a burst nor a gap (for Poisson this is exact too:
 * exponential gaps are memoryless). Requests already due at the change (a
 * backlog the caller has not sent yet) keep their times: a late request's time
 * is never moved. Rate 0 pauses the schedule until the next change; paused time
 * owes no requests. The rate is kept to 0.001 requests/s; progress wraps after
 * 1.8e13 requests in all (three weeks at 10^7/s).
 * Not the pacer's job: a request budget (-n), closed loop (start at once),
 * waiting for a free connection. */
#ifndef BARRAGE_PACER_H
#define BARRAGE_PACER_H

#include <stddef.h>
#include <stdint.h>

#define PACER_PAUSED UINT64_MAX /* pacer_next while the rate is 0 */
#define PACER_MAX_RATE 1e9      /* requests/s */

enum pacer_arrival { PACER_EVEN, PACER_POISSON };

/* A stretch of constant rate, or a linear ramp (span_us > 0: the rate goes
 * from rate_milli to end_milli over span_us, then stays at end_milli):
 * progress `start_x` was reached at `origin_us`. */
struct pacer_segment {
    uint64_t start_x;    /* millionths of a request */
    uint64_t origin_us;
    uint64_t rate_milli; /* requests per 1000 s; 0: paused */
    uint64_t end_milli;  /* a ramp's rate at its end (= rate_milli for a constant one) */
    uint64_t span_us;    /* 0: constant */
};

struct pacer {
    enum pacer_arrival arrival;
    uint64_t threads;
    uint64_t next_x;                /* progress at which this thread's next request is due */
    uint64_t rng[4];                /* xoshiro256**, PACER_POISSON only */
    struct pacer_segment *segments; /* owned; [0] holds next_x, the rest follow in time */
    size_t nsegments, cap;
};

/* Sets up thread `index` of `threads` (index < threads) with a schedule that
 * starts at t0_us at `rate` requests/s in total (0: paused; else 0.001 to
 * PACER_MAX_RATE). `seed` (with the index) picks the Poisson draws; even
 * spacing ignores it. Returns 0, or -1 for bad arguments or no memory (then
 * nothing needs freeing). */
int pacer_init(struct pacer *p, enum pacer_arrival arrival, double rate, unsigned threads, unsigned index,
               uint64_t t0_us, uint64_t seed);
/* Frees what pacer_init allocated. */
void pacer_free(struct pacer *p);
/* The scheduled time of this thread's next request (it may lie in the past:
 * the request is late), or PACER_PAUSED. */
uint64_t pacer_next(const struct pacer *p);
/* Takes the next request off the schedule and returns its scheduled time (what
 * pacer_next returned); when paused, returns PACER_PAUSED and takes nothing. */
uint64_t pacer_take(struct pacer *p);
/* How many of this thread's requests not taken yet are due in [from_us,
 * until_us], without taking them (the caller's backlog left in the pacer,
 * counted in bounded memory and time). Even spacing: exact, from the
 * schedule's arithmetic. Poisson: the first `exact_max` of them drawn as
 * pacer_take would draw them (on a copy: the pacer is unchanged), the rest
 * counted by their expected number (the progress left over the mean gap). */
uint64_t pacer_count_due(const struct pacer *p, uint64_t from_us, uint64_t until_us, uint64_t exact_max);
/* From now_us on the total rate is `rate` (0 pauses). Every thread's pacer
 * must be given the same rate and now_us for the union to stay as described;
 * now_us earlier than a previous change counts as that change's time.
 * Returns 0, or -1 for a bad rate or no memory (the schedule is unchanged). */
int pacer_set_rate(struct pacer *p, double rate, uint64_t now_us);

/* From now_us on the total rate ramps linearly from `from` to `to` over
 * span_us (> 0), then stays at `to` (--rate-stages; every thread is given the
 * same ramps). Times within a ramp solve the quadratic of its progress in
 * double precision (within a microsecond); progress stays integral. Returns
 * 0, or -1 for a bad rate or no memory (the schedule is unchanged). */
int pacer_ramp(struct pacer *p, double from, double to, uint64_t now_us, uint64_t span_us);

#endif
