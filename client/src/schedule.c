/* schedule: the pacer and the line of due requests, as a ring that doubles
 * when full, up to SCHEDULE_LINE_MAX (past it a backlog stays in the pacer). */
#include "schedule.h"

#include <stdlib.h>

#define INITIAL_CAP 64

int schedule_init(struct schedule *s, enum pacer_arrival arrival, double rate, unsigned threads, unsigned index,
                  uint64_t t0_us, uint64_t seed, uint64_t measure_start_us)
{
    *s = (struct schedule){.measure_start = measure_start_us, .cap = INITIAL_CAP};
    s->waiting = malloc(s->cap * sizeof *s->waiting);
    if (!s->waiting) return -1;
    if (pacer_init(&s->pacer, arrival, rate, threads, index, t0_us, seed)) {
        free(s->waiting);
        s->waiting = NULL;
        return -1;
    }
    return 0;
}

void schedule_free(struct schedule *s)
{
    pacer_free(&s->pacer);
    free(s->waiting);
    s->waiting = NULL;
    s->len = s->cap = 0;
}

static uint64_t *slot(struct schedule *s, size_t i)
{
    return &s->waiting[(s->head + i) % s->cap];
}

/* Doubles the ring, keeping the order; 0, or -1 when out of memory. */
static int grow(struct schedule *s)
{
    uint64_t *bigger = malloc(2 * s->cap * sizeof *bigger);
    if (!bigger) return -1;
    for (size_t i = 0; i < s->len; i++) bigger[i] = *slot(s, i);
    free(s->waiting);
    s->waiting = bigger;
    s->head = 0;
    s->cap *= 2;
    return 0;
}

/* Takes the pacer's next request (due by now, within limit) into *due_us. */
static bool take(struct schedule *s, uint64_t now_us, uint64_t limit, uint64_t *due_us)
{
    uint64_t next = pacer_next(&s->pacer);
    if (next == PACER_PAUSED || next > now_us || s->len >= limit) return false;
    *due_us = pacer_take(&s->pacer);
    if (*due_us >= s->measure_start) s->scheduled++;
    return true;
}

void schedule_take_due(struct schedule *s, uint64_t now_us, uint64_t limit)
{
    uint64_t due;
    if (limit > SCHEDULE_LINE_MAX) limit = SCHEDULE_LINE_MAX;
    while (s->len < limit && (s->len < s->cap || grow(s) == 0) && take(s, now_us, limit, &due)) *slot(s, s->len++) = due;
}

/* The measured requests due by until_us still in the pacer (exact_max: pacer_count_due's), at most limit - len. */
static uint64_t pacer_backlog(const struct schedule *s, uint64_t until_us, uint64_t limit, uint64_t exact_max)
{
    uint64_t room = limit > s->len ? limit - s->len : 0;
    uint64_t n = room ? pacer_count_due(&s->pacer, s->measure_start, until_us, exact_max) : 0;
    return n < room ? n : room;
}

void schedule_close(struct schedule *s, uint64_t until_us, uint64_t limit)
{
    schedule_take_due(s, until_us, limit);
    s->left = pacer_backlog(s, until_us, limit, SCHEDULE_CLOSE_EXACT);
    s->scheduled += s->left;
}

bool schedule_pop(struct schedule *s, uint64_t now_us, uint64_t limit, uint64_t *due_us)
{
    if (s->len == 0) return take(s, now_us, limit, due_us);
    *due_us = s->waiting[s->head];
    s->head = (s->head + 1) % s->cap;
    s->len--;
    return true;
}

int schedule_requeue(struct schedule *s, uint64_t due_us)
{
    if (s->len == s->cap && grow(s)) return -1;
    s->head = (s->head + s->cap - 1) % s->cap;
    s->waiting[s->head] = due_us;
    s->len++;
    return 0;
}

uint64_t schedule_next(const struct schedule *s)
{
    return s->len ? s->waiting[s->head] : pacer_next(&s->pacer);
}

void schedule_note_backlog(struct schedule *s, uint64_t now_us, uint64_t limit)
{
    uint64_t backlog = s->len;
    if (pacer_next(&s->pacer) <= now_us) backlog += pacer_backlog(s, now_us, limit, SCHEDULE_NOTE_EXACT);
    if (backlog > s->backlog_max) s->backlog_max = backlog;
}

uint64_t schedule_unsent(const struct schedule *s)
{
    uint64_t n = s->left;
    for (size_t i = 0; i < s->len; i++) n += s->waiting[(s->head + i) % s->cap] >= s->measure_start;
    return n;
}

int schedule_set_rate(struct schedule *s, double rate, uint64_t now_us)
{
    return pacer_set_rate(&s->pacer, rate, now_us);
}
