/* pace: when a fixed-rate run (-R, --rate-stages) sends, for one worker
 * thread (used by that thread only). It owns the schedule (schedule.h: the
 * pacer's due times and the line of requests due and not sent yet), the pace
 * timer (a timerfd in the worker's loop: libev's timers wake up to 1 ms
 * late), the ready line (the connections with room, oldest first) and
 * --pace-resolution's window sleeps. Before the loop sleeps, whatever woke it,
 * it hands every due request to a connection with room, from that one place,
 * and sets the timer once for the next.
 *
 * The worker is its host (struct pace_host, as a connection is a session's):
 * the pace asks it whether requests may start and how many may still wait,
 * and gives it back a ready connection to fill; filling, the worker takes due
 * times with pace_pop. A connection is an opaque pointer here; the worker
 * keeps whether one is in the ready line (pace_ready is called once until
 * the host's fill takes it out). The pace includes nothing of the worker's. */
#ifndef BARRAGE_PACE_H
#define BARRAGE_PACE_H

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "schedule.h"

struct pace_host_ops {
    /* requests may still start: not stopping, the -n budget not spent */
    bool (*may_start)(void *host);
    /* how many may wait in the schedule's line: a run limited by -n takes
     * no more than it may still start (SCHEDULE_NO_LIMIT: no limit) */
    uint64_t (*limit)(void *host);
    /* the measured phase has begun (the backlog is noted from then on) */
    bool (*measuring)(void *host);
    /* answers are on their way and the run is not stopping: a window's
     * sleep may wait for them */
    bool (*answers_pending)(void *host);
    /* a connection of the ready line has its turn: it is out of the line
     * now; fill it with what is due (pace_pop) if it can send */
    void (*fill)(void *host, void *conn, uint64_t now);
};

struct pace_host {
    const struct pace_host_ops *ops;
    void *ctx;
};

struct pace {
    struct pace_host host;
    struct ev_loop *loop;
    struct schedule sched;
    uint64_t t0_us;         /* the schedule's start (the run's) */
    uint64_t resolution_us; /* --pace-resolution; 0: a wake-up per request's time */
    uint64_t cap_us;        /* requests scheduled from here on are never sent (deadline, stop) */
    int timer_fd;
    ev_io timer;
    ev_prepare prepare;     /* before the loop sleeps: sends what is due, sets the timer */
    uint64_t armed_us;      /* what timer_fd is set to; PACER_PAUSED: disarmed */
    bool timer_fired;       /* armed_us has passed: set it again even if unchanged */
    /* --pace-resolution over TCP (TLS too): the kernel stamps what each
     * connection receives, so the loop sleeps through each window once
     * instead of waking for every response, and times each response by its
     * stamp */
    bool window_sleep;
    bool stamps_flowing;    /* the last stamped read had its stamp (pace_stamped) */
    uint64_t sent_window, sent_in_window; /* requests sent in the window ending at sent_window */
    void **ready;
    unsigned ready_head, ready_len, ready_cap;
    bool started;           /* pace_init got as far as the loop's watchers */
};

/* Sets up the schedule from cfg (rate, arrival, stages, seed) for thread
 * `thread`, starting at t0_us with the measured phase from measure_start_us,
 * a ready line for `connections`, the timer in loop; window_sleep when
 * --pace-resolution may sleep through windows (TCP only). 0, or -1 (out of
 * memory, no timerfd): pace_free frees what was made either way. */
int pace_init(struct pace *p, struct ev_loop *loop, const struct config *cfg, unsigned thread, unsigned connections,
              uint64_t t0_us, uint64_t measure_start_us, bool window_sleep, struct pace_host host);
void pace_free(struct pace *p);

/* The next due request's scheduled time in *due, if one is due by now (as far
 * as the cap and the current window let the schedule go). */
bool pace_pop(struct pace *p, uint64_t now, uint64_t *due);
/* A request handed out was refused: back to the head of the line, its time
 * kept. 0, or -1 when out of memory (the caller counts it aborted). */
int pace_requeue(struct pace *p, uint64_t scheduled);
/* conn has room and nothing is due for it: it waits in the ready line. */
void pace_ready(struct pace *p, void *conn);
/* A request went out now: counts the window's requests, which window sleeps
 * need (the caller calls it only while p->window_sleep: a call per request). */
void pace_sent(struct pace *p, uint64_t now);
/* What is due goes to connections with room, in the order they got room;
 * the rest waits in the line (the backlog). */
void pace_dispatch(struct pace *p, uint64_t now);

/* The measured phase starts at `at` (--warmup auto: known late): what waits
 * in the line from then on counts as scheduled. */
void pace_measure_from(struct pace *p, uint64_t at);
/* Nothing scheduled at or after `at` is sent. */
void pace_cap(struct pace *p, uint64_t at);
/* The run's fixed-rate part is over: what was due before the cap and never
 * sent is counted unsent; the timer stops. */
void pace_stop(struct pace *p);
/* --control's rate from at_us on. */
void pace_set_rate(struct pace *p, double rate, uint64_t at_us);

/* A stamped read: whether it had its stamp (window sleeps need them). */
void pace_stamped(struct pace *p, bool stamp);
/* A connection cannot stamp its reads (a Unix socket, or the kernel said no):
 * no window sleeps from now on. */
void pace_no_window_sleep(struct pace *p);

#endif
