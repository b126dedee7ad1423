/* pace: when a fixed-rate run sends (contract in pace.h). */
#include "pace.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "monotonic.h"
#include "stages.h"

#define SECOND_US 1000000u
#define WINDOW_SLEEP_MAX_US 10000u /* --pace-resolution: the longest sleep through a window */

/* now, as far as the schedule may go: requests due at or after cap_us are never sent. */
static uint64_t pace_now(const struct pace *p, uint64_t now)
{
    if (now >= p->cap_us) return p->cap_us - 1;
    /* --pace-resolution: only what was due by the last window's end, so a
     * wake-up for a response does not send the next window's requests early */
    if (p->resolution_us && now > p->t0_us) now = p->t0_us + (now - p->t0_us) / p->resolution_us * p->resolution_us;
    return now;
}

/* --pace-resolution: the end of the window (windows from the schedule's
 * start) in which `at` falls: the wake-up that sends every request due in it. */
static uint64_t window_end(const struct pace *p, uint64_t at)
{
    if (at <= p->t0_us) return at;
    uint64_t end = p->t0_us + ((at - p->t0_us + p->resolution_us - 1) / p->resolution_us) * p->resolution_us;
    return end < p->cap_us ? end : p->cap_us;
}

static uint64_t limit(const struct pace *p)
{
    return p->host.ops->limit(p->host.ctx);
}

/* Sets the pace timer to the pacer's next time while a connection has room;
 * disarmed when nothing can start. Called only before the loop sleeps, after
 * pace_dispatch: then no request waits while a connection has room. With
 * every connection busy the timer would only move due requests into the line,
 * which the next wake-up that frees a connection (a response, a delay's end,
 * a reconnection) does with their times kept: the loop then sleeps until
 * then, not once per scheduled request. A timer armed earlier than needed is
 * left alone (it fires, finds nothing due and is set then): setting a timer
 * that becomes the CPU's earliest costs a VM ~13 us, so this is done at most
 * once per wake-up. */
static void arm(struct pace *p)
{
    uint64_t at = PACER_PAUSED;
    if (p->host.ops->may_start(p->host.ctx) && p->ready_len > 0 && p->sched.len < limit(p)) {
        at = pacer_next(&p->sched.pacer);
        if (at >= p->cap_us) at = PACER_PAUSED;
        else if (p->resolution_us) at = window_end(p, at);
    }
    if (!p->timer_fired && p->armed_us <= at) return; /* PACER_PAUSED: disarmed */
    struct itimerspec its = {0};
    if (at != PACER_PAUSED) {
        its.it_value.tv_sec = (time_t)(at / SECOND_US);
        its.it_value.tv_nsec = (long)(at % SECOND_US) * 1000 + 1; /* never 0: that disarms */
    }
    /* setting it also clears an expiry not read yet */
    timerfd_settime(p->timer_fd, TFD_TIMER_ABSTIME, &its, NULL);
    p->armed_us = at;
    p->timer_fired = false;
}

static void *ready_take(struct pace *p)
{
    void *conn = p->ready[p->ready_head];
    p->ready_head = (p->ready_head + 1) % p->ready_cap;
    p->ready_len--;
    return conn;
}

void pace_ready(struct pace *p, void *conn)
{
    p->ready[(p->ready_head + p->ready_len++) % p->ready_cap] = conn;
}

bool pace_pop(struct pace *p, uint64_t now, uint64_t *due)
{
    return schedule_pop(&p->sched, pace_now(p, now), limit(p), due);
}

int pace_requeue(struct pace *p, uint64_t scheduled)
{
    return schedule_requeue(&p->sched, scheduled);
}

void pace_sent(struct pace *p, uint64_t now)
{
    uint64_t end = window_end(p, now);
    if (end != p->sent_window) {
        p->sent_window = end;
        p->sent_in_window = 0;
    }
    p->sent_in_window++;
}

void pace_dispatch(struct pace *p, uint64_t now)
{
    schedule_take_due(&p->sched, pace_now(p, now), limit(p));
    /* the line holds at most SCHEDULE_LINE_MAX: a longer backlog is taken from the pacer */
    while (schedule_next(&p->sched) <= pace_now(p, now) && p->ready_len > 0 && p->host.ops->may_start(p->host.ctx))
        p->host.ops->fill(p->host.ctx, ready_take(p), now);
    if (p->host.ops->measuring(p->host.ctx)) schedule_note_backlog(&p->sched, pace_now(p, now), limit(p));
}

/* The pace timer fired: prepare_cb sends what is due and sets it again
 * (which clears the expiry) before the loop sleeps. */
static void timer_cb(struct ev_loop *loop, ev_io *io, int revents)
{
    struct pace *p = io->data;
    (void)loop;
    (void)revents;
    p->timer_fired = true;
}

/* May the loop sleep to end, the end of this window (window_sleep)? While
 * reads come stamped, with answers on their way, not in the run's last window
 * (its answers must be read before the deadline sends what is left), and
 * only when the connections already free can carry as many requests as this
 * window sent: answers that arrive during the sleep are read after it, so
 * their connections are not free when the next window's requests go out. */
static bool may_sleep(const struct pace *p, uint64_t end)
{
    return p->window_sleep && p->stamps_flowing && p->host.ops->answers_pending(p->host.ctx) && end < p->cap_us &&
           p->ready_len >= p->sent_in_window;
}

/* Before the loop sleeps, whatever woke it (the timer, a response, a
 * connection, a command): every request due by now goes to a connection with
 * room, from this one place, and the timer is set once for the next. */
static void prepare_cb(struct ev_loop *loop, ev_prepare *w, int revents)
{
    struct pace *p = w->data;
    (void)loop;
    (void)revents;
    uint64_t now = monotonic_now_us();
    pace_dispatch(p, now);
    uint64_t end = p->window_sleep ? window_end(p, now + 1) : 0;
    if (may_sleep(p, end)) {
        /* Answers are on their way: sleep to the window's end rather than
         * waking for each (their stamps time them), then send what is due.
         * Never longer than WINDOW_SLEEP_MAX_US: the loop's timers and
         * commands (a stop, Ctrl-C) wait while it sleeps. */
        if (end > now + WINDOW_SLEEP_MAX_US) end = now + WINDOW_SLEEP_MAX_US;
        struct timespec ts = {.tv_sec = (time_t)(end / SECOND_US), .tv_nsec = (long)(end % SECOND_US) * 1000};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {}
        pace_dispatch(p, monotonic_now_us());
    }
    arm(p);
}

int pace_init(struct pace *p, struct ev_loop *loop, const struct config *cfg, unsigned thread, unsigned connections,
              uint64_t t0_us, uint64_t measure_start_us, bool window_sleep, struct pace_host host)
{
    *p = (struct pace){.host = host, .loop = loop, .t0_us = t0_us, .resolution_us = cfg->pace_resolution_us,
                       .cap_us = UINT64_MAX, .armed_us = PACER_PAUSED, .window_sleep = window_sleep,
                       .ready_cap = connections, .timer_fd = -1};
    p->ready = calloc(connections, sizeof *p->ready);
    p->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (!p->ready || p->timer_fd < 0) return -1;
    if (schedule_init(&p->sched, cfg->poisson ? PACER_POISSON : PACER_EVEN, cfg->rate, cfg->threads, thread, t0_us,
                      cfg->setup.seed, measure_start_us))
        return -1;
    if (stages_apply(&p->sched.pacer, cfg->stages_start_rate, cfg->stages, cfg->stage_count, measure_start_us))
        return -1;
    ev_io_init(&p->timer, timer_cb, p->timer_fd, EV_READ);
    p->timer.data = p;
    ev_io_start(loop, &p->timer);
    ev_prepare_init(&p->prepare, prepare_cb);
    p->prepare.data = p;
    ev_prepare_start(loop, &p->prepare);
    p->started = true;
    return 0;
}

void pace_free(struct pace *p)
{
    schedule_free(&p->sched);
    if (p->timer_fd >= 0) close(p->timer_fd);
    free(p->ready);
    p->timer_fd = -1;
    p->ready = NULL;
}

void pace_measure_from(struct pace *p, uint64_t at)
{
    if (p->sched.measure_start == at) return;
    p->sched.measure_start = at;
    p->sched.scheduled += schedule_unsent(&p->sched);
}

void pace_cap(struct pace *p, uint64_t at)
{
    if (at < p->cap_us) p->cap_us = at;
}

void pace_stop(struct pace *p)
{
    /* the requests due before the end, never sent, are counted as unsent */
    schedule_close(&p->sched, p->cap_us - 1, limit(p));
    if (!p->started) return;
    ev_io_stop(p->loop, &p->timer);
    ev_prepare_stop(p->loop, &p->prepare);
}

void pace_set_rate(struct pace *p, double rate, uint64_t at_us)
{
    schedule_set_rate(&p->sched, rate, at_us); /* armed before the loop sleeps */
}

void pace_stamped(struct pace *p, bool stamp)
{
    p->stamps_flowing = stamp;
}

void pace_no_window_sleep(struct pace *p)
{
    p->window_sleep = false;
}
