/* Unit tests of schedule.c: due requests wait in order with their times
 * (never dropped, never moved), the -n limit, requeue at the head, growth
 * across the ring's wrap, measured counting (scheduled = sent + unsent), the
 * backlog's maximum, rate changes with requests waiting. */
#include "../src/pacer.c"
#include "../src/schedule.c"

#include <math.h>
#include <stdlib.h>

#include "tap.h"

#define T0 5000000ULL

static void test_due_in_order(void)
{
    struct schedule s;
    if (schedule_init(&s, PACER_EVEN, 1000, 1, 0, T0, 1, T0)) abort();
    uint64_t due;
    TAP_CHECK(!schedule_pop(&s, T0 - 1, SCHEDULE_NO_LIMIT, &due), "nothing is due before the start");
    schedule_take_due(&s, T0 + 10000, SCHEDULE_NO_LIMIT);
    TAP_CHECK(s.len == 11 && s.scheduled == 11, "10 ms at 1000/s: 11 due and waiting (%zu, %llu)", s.len,
              (unsigned long long)s.scheduled);
    TAP_CHECK(schedule_next(&s) == T0, "the oldest waiting one is next");
    bool exact = true;
    for (uint64_t k = 0; k < 11; k++) exact &= schedule_pop(&s, T0 + 20000, 0, &due) && due == T0 + k * 1000;
    TAP_CHECK(exact, "waiting requests leave in order with their own times, whatever the limit");
    TAP_CHECK(schedule_pop(&s, T0 + 11000, SCHEDULE_NO_LIMIT, &due) && due == T0 + 11000,
              "with nothing waiting, the pacer's due request comes straight out");
    TAP_CHECK(!schedule_pop(&s, T0 + 11999, SCHEDULE_NO_LIMIT, &due) && schedule_next(&s) == T0 + 12000,
              "the next is not due yet: schedule_next says when");
    TAP_CHECK(s.scheduled == 12 && schedule_unsent(&s) == 0, "scheduled 12, none unsent");
    schedule_free(&s);
}

static void test_limit(void)
{
    struct schedule s;
    if (schedule_init(&s, PACER_EVEN, 1000, 1, 0, T0, 1, T0)) abort();
    uint64_t due;
    schedule_take_due(&s, T0 + 100000, 5);
    TAP_CHECK(s.len == 5 && s.scheduled == 5, "a limit of 5: 5 wait (%zu)", s.len);
    bool waiting = true;
    for (uint64_t k = 0; k < 5; k++) waiting &= schedule_pop(&s, T0 + 100000, 0, &due) && due == T0 + k * 1000;
    TAP_CHECK(waiting, "waiting ones leave whatever the limit");
    TAP_CHECK(!schedule_pop(&s, T0 + 100000, 0, &due), "a limit of 0 takes nothing off the pacer");
    TAP_CHECK(schedule_pop(&s, T0 + 100000, 1, &due) && due == T0 + 5000, "the pacer's next keeps its time");
    schedule_free(&s);
}

static void test_requeue_and_growth(void)
{
    struct schedule s;
    if (schedule_init(&s, PACER_EVEN, 1e6, 1, 0, T0, 1, T0)) abort();
    uint64_t due, popped[40];
    schedule_take_due(&s, T0 + 49, SCHEDULE_NO_LIMIT); /* 50 waiting in a ring of 64 */
    for (int i = 0; i < 40; i++) schedule_pop(&s, T0 + 49, SCHEDULE_NO_LIMIT, &popped[i]);
    schedule_take_due(&s, T0 + 999, SCHEDULE_NO_LIMIT); /* wraps, then grows */
    for (int i = 39; i >= 30; i--) schedule_requeue(&s, popped[i]);
    TAP_CHECK(s.len == 970 && s.cap >= 970, "requeued and grown across the wrap: %zu waiting", s.len);
    bool ordered = true;
    for (uint64_t k = 30; k < 1000; k++) ordered &= schedule_pop(&s, T0 + 999, SCHEDULE_NO_LIMIT, &due) && due == T0 + k;
    TAP_CHECK(ordered && s.len == 0, "every time kept, in order, requeued ones first");
    TAP_CHECK(s.scheduled == 1000, "requeued requests are not scheduled twice");
    schedule_free(&s);
}

static void test_measured_and_backlog(void)
{
    struct schedule s;
    /* the warm-up is the first 10 ms: those requests are not counted */
    if (schedule_init(&s, PACER_EVEN, 1000, 1, 0, T0, 1, T0 + 10000)) abort();
    uint64_t due;
    schedule_take_due(&s, T0 + 14000, SCHEDULE_NO_LIMIT);
    schedule_note_backlog(&s, T0 + 14000, SCHEDULE_NO_LIMIT);
    TAP_CHECK(s.len == 15 && s.scheduled == 5 && schedule_unsent(&s) == 5,
              "15 waiting, 5 of them measured (scheduled %llu, unsent %llu)", (unsigned long long)s.scheduled,
              (unsigned long long)schedule_unsent(&s));
    for (int i = 0; i < 12; i++) schedule_pop(&s, T0 + 14000, SCHEDULE_NO_LIMIT, &due);
    schedule_note_backlog(&s, T0 + 14000, SCHEDULE_NO_LIMIT);
    TAP_CHECK(s.backlog_max == 15 && schedule_unsent(&s) == 3, "backlog max 15 kept; 3 measured left unsent");
    schedule_free(&s);
}

static void test_rate_change_keeps_waiting(void)
{
    struct schedule s;
    if (schedule_init(&s, PACER_EVEN, 1000, 1, 0, T0, 1, T0)) abort();
    uint64_t due;
    schedule_take_due(&s, T0 + 4500, SCHEDULE_NO_LIMIT); /* 0..4 ms waiting */
    schedule_set_rate(&s, 100, T0 + 4500);
    bool kept = true;
    for (uint64_t k = 0; k < 5; k++) kept &= schedule_pop(&s, T0 + 4500, SCHEDULE_NO_LIMIT, &due) && due == T0 + k * 1000;
    TAP_CHECK(kept, "requests waiting at a rate change keep their times");
    /* progress at 4.5 ms: 4.5 requests; the next (the 6th, progress 5) comes 0.5 requests later at 100/s */
    TAP_CHECK(schedule_next(&s) == T0 + 4500 + 5000, "the next follows the new rate from the change (%llu)",
              (unsigned long long)(schedule_next(&s) - T0));
    schedule_set_rate(&s, 0, T0 + 5000);
    TAP_CHECK(schedule_next(&s) == PACER_PAUSED && !schedule_pop(&s, UINT64_MAX - 1, SCHEDULE_NO_LIMIT, &due),
              "rate 0 pauses: nothing is due");
    schedule_free(&s);
}

/* Random pops, requeues and takes: every measured request taken is sent or unsent. */
static void test_accounting_random(void)
{
    struct schedule s;
    if (schedule_init(&s, PACER_POISSON, 5000, 2, 1, T0, 42, T0 + 20000)) abort();
    uint64_t sent = 0, now = T0, due, held[8];
    unsigned nheld = 0;
    srand(7);
    for (int step = 0; step < 100000; step++) {
        now += (uint64_t)(rand() % 300);
        int op = rand() % 4;
        if (op == 0) schedule_take_due(&s, now, SCHEDULE_NO_LIMIT);
        else if (op == 1 && nheld < 8 && schedule_pop(&s, now, SCHEDULE_NO_LIMIT, &due)) held[nheld++] = due;
        else if (op == 2 && nheld > 0) schedule_requeue(&s, held[--nheld]); /* refused */
        else if (op == 3 && nheld > 0) sent += held[--nheld] >= s.measure_start;  /* answered */
    }
    while (nheld > 0) sent += held[--nheld] >= s.measure_start;
    TAP_CHECK(s.scheduled == sent + schedule_unsent(&s), "scheduled %llu = sent %llu + unsent %llu",
              (unsigned long long)s.scheduled, (unsigned long long)sent, (unsigned long long)schedule_unsent(&s));
    schedule_free(&s);
}

/* A rate far above what is sent: the line stops at SCHEDULE_LINE_MAX (its
 * memory bounded: 2e8 due in 2 s took 2.1 GB, one entry each), the rest is
 * taken from the pacer, times kept, and counted at the end: scheduled = sent
 * + unsent, for even spacing exactly the 1e8 + 50 due by T0 + 2 s for
 * thread 0 of 2 (global request k at T0 + k/100 us, thread 0's k even). */
static void test_bounded_line(void)
{
    for (int poisson = 0; poisson < 2; poisson++) {
        struct schedule s;
        if (schedule_init(&s, poisson ? PACER_POISSON : PACER_EVEN, 1e8, 2, 0, T0, 3, T0)) abort();
        uint64_t due, last = 0, sent = 0;
        bool in_order = true;
        for (uint64_t now = T0; now < T0 + 2000000; now += 1000) {
            schedule_take_due(&s, now, SCHEDULE_NO_LIMIT);
            for (int i = 0; i < 5 && schedule_pop(&s, now, SCHEDULE_NO_LIMIT, &due); i++, sent++) {
                in_order &= due >= last;
                last = due;
            }
            schedule_note_backlog(&s, now, SCHEDULE_NO_LIMIT);
        }
        schedule_close(&s, T0 + 2000000, SCHEDULE_NO_LIMIT);
        uint64_t unsent = schedule_unsent(&s), want = 100000050;
        TAP_CHECK(s.cap <= SCHEDULE_LINE_MAX && in_order && s.scheduled == sent + unsent &&
                      (poisson ? fabs((double)s.scheduled - 1e8) < 1e5 : s.scheduled == want) &&
                      s.backlog_max + sent >= s.scheduled - 100000,
                  "%s at 1e8/s: line of %zu at most, sent %llu in order, scheduled %llu = sent + unsent %llu, "
                  "largest backlog %llu", poisson ? "poisson" : "even", s.cap, (unsigned long long)sent,
                  (unsigned long long)s.scheduled, (unsigned long long)unsent, (unsigned long long)s.backlog_max);
        schedule_free(&s);
    }
}

int main(void)
{
    test_due_in_order();
    test_limit();
    test_requeue_and_growth();
    test_measured_and_backlog();
    test_rate_change_keeps_waiting();
    test_accounting_random();
    test_bounded_line();
    TAP_EXIT();
}
