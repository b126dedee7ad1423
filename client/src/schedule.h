/* schedule: one worker thread's open-loop (fixed-rate) schedule: its pacer
 * (pacer.h: when each request is due) and the line of requests that are due
 * but not sent yet because no connection or stream had room (the backlog).
 * A due request waits in the line with its scheduled time; it is never
 * dropped and its time never moves. Pure arithmetic and memory, no clock, no
 * I/O: the caller passes `now` (microseconds of its monotonic clock).
 *
 * Counting: requests scheduled at or after `measure_start` are the measured
 * ones (the warm-up's are not): `scheduled` counts the measured requests taken
 * off the pacer (they became due; at schedule_close also those due and left
 * in it), schedule_unsent() the measured ones still waiting, and
 * `backlog_max` the longest the backlog has been when schedule_note_backlog
 * was called. Every measured request taken is either
 * handed out by schedule_pop or still waiting: scheduled = sent + unsent, as
 * long as the caller puts a request that was handed out but never processed
 * (HTTP/2 REFUSED_STREAM) back with schedule_requeue. */
#ifndef BARRAGE_SCHEDULE_H
#define BARRAGE_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pacer.h"

#define SCHEDULE_NO_LIMIT UINT64_MAX

/* The most due requests moved into the line: the rest of a backlog stays in
 * the pacer, due, its times kept, and is counted, not stored (pacer_count_due),
 * so the line costs bounded memory whatever the rate. Requeued ones may go
 * past it (they are bounded by the requests in flight). */
#define SCHEDULE_LINE_MAX 4096
/* How many of a Poisson backlog left in the pacer are counted draw by draw
 * (schedule_close; schedule_note_backlog: SCHEDULE_NOTE_EXACT), beyond that by
 * their expected number. */
#define SCHEDULE_CLOSE_EXACT (1u << 24)
#define SCHEDULE_NOTE_EXACT 64

struct schedule {
    struct pacer pacer;
    uint64_t *waiting;  /* owned ring: due times not sent yet, oldest first */
    size_t head, len, cap;
    uint64_t measure_start;
    uint64_t scheduled;   /* measured requests taken off the pacer (and, after schedule_close, those left in it) */
    uint64_t left;        /* schedule_close: measured requests due but left in the pacer */
    uint64_t backlog_max; /* the longest line noted */
};

/* Sets up thread `index` of `threads`: the pacer (pacer_init's arguments; the
 * schedule starts at t0_us) and an empty line. Returns 0, or -1 for bad
 * arguments or no memory (nothing to free then). */
int schedule_init(struct schedule *s, enum pacer_arrival arrival, double rate, unsigned threads, unsigned index,
                  uint64_t t0_us, uint64_t seed, uint64_t measure_start_us);
void schedule_free(struct schedule *s);
/* Moves the requests due by now_us off the pacer into the line, while fewer
 * than `limit` wait (SCHEDULE_NO_LIMIT: no limit; a run limited by -n passes
 * the requests it may still start) and fewer than SCHEDULE_LINE_MAX. The
 * rest (or all, when the line cannot grow: no memory) stay in the pacer,
 * still due, their times kept: schedule_pop takes them from there. */
void schedule_take_due(struct schedule *s, uint64_t now_us, uint64_t limit);
/* The end: the line as schedule_take_due leaves it at until_us, and the
 * measured requests due by then but still in the pacer counted (left), as
 * scheduled and unsent, at most limit less the line in all. */
void schedule_close(struct schedule *s, uint64_t until_us, uint64_t limit);
/* The request to send now, if any: the oldest waiting one, else the pacer's
 * next when it is due by now_us and fewer than `limit` wait. Sets *due_us to
 * its scheduled time and returns true, or returns false (nothing is due). */
bool schedule_pop(struct schedule *s, uint64_t now_us, uint64_t limit, uint64_t *due_us);
/* Puts a request handed out by schedule_pop back at the head of the line
 * with its time (it was never processed). Returns 0, or -1 when out of memory
 * (the request is then lost to the schedule: the caller counts it). */
int schedule_requeue(struct schedule *s, uint64_t due_us);
/* When something is next to send: the oldest waiting time (in the past), the
 * pacer's next time, or PACER_PAUSED when nothing is waiting and the rate is 0. */
uint64_t schedule_next(const struct schedule *s);
/* Records the backlog at now_us (the line and the requests due in the pacer,
 * at most limit) in backlog_max when it is the longest so far. */
void schedule_note_backlog(struct schedule *s, uint64_t now_us, uint64_t limit);
/* The measured requests waiting in the line (and, after schedule_close, those left in the pacer). */
uint64_t schedule_unsent(const struct schedule *s);
/* pacer_set_rate: the rate from now_us on; requests already due keep their
 * times. Returns 0, or -1 for a bad rate or no memory (unchanged). */
int schedule_set_rate(struct schedule *s, double rate, uint64_t now_us);

#endif
