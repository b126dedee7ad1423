/* Unit tests of interval.c and timeline.c: a second closes only when every
 * thread has reported it or finished, entries add up to what the threads
 * recorded, bad statuses are protocol errors, the target rate is the mean
 * over the part of the second before the window's end (changes included),
 * seconds a thread skipped (no memory) still close, and the HDR log gets the
 * untagged, uncorrected and errors lines of each second. */
#include "../src/hist.c"
#include "../src/hist_codec.c"
#include "../src/hdrlog.c"
#include "../src/interval.c"
#include "../src/timeline.c"
#include "../src/pacer.c"
#include "../src/stages.c"

#include <stdlib.h>
#include <string.h>

#include "tap.h"

#define START 10000000ULL

static struct interval *make(uint64_t index, unsigned responses, unsigned errors, uint64_t end, bool last)
{
    struct interval *iv = interval_new();
    if (!iv) abort();
    iv->index = index;
    iv->end_us = end;
    iv->last = last;
    iv->open_connections = 3;
    iv->new_connections = index + 2;
    for (unsigned i = 0; i < responses; i++) {
        iv->sent++;
        interval_response(iv, i % 10 == 9 ? 503 : 200, 1000 + i, 500 + i);
    }
    for (unsigned i = 0; i < errors; i++) interval_error(iv, REQ_ERR_TIMEOUT, 2000000);
    return iv;
}

static void test_interval_buckets(void)
{
    struct interval *iv = interval_new();
    interval_response(iv, 200, 10, 5);
    interval_response(iv, 404, 20, 6);
    interval_response(iv, 999, 30, 7); /* no HTTP status */
    interval_error(iv, REQ_ERR_RESET, 40);
    TAP_CHECK(iv->requests == 4 && iv->succeeded == 1 && iv->status_4xx == 1 && iv->errors[REQ_ERR_PROTOCOL] == 1 &&
                  iv->errors[REQ_ERR_RESET] == 1 && interval_failed(iv) == 3,
              "interval buckets: 200 ok, 404 failed, 999 a protocol error, reset an error");
    TAP_CHECK(iv->latency.total == 2 && iv->uncorrected.total == 2 && iv->error_latency.total == 2,
              "responses in latency and uncorrected, errors apart");
    interval_reset(iv);
    TAP_CHECK(iv->requests == 0 && iv->latency.total == 0 && iv->latency.counts, "reset keeps the memory, forgets counts");
    interval_free(iv);
}

static void test_close_order_and_totals(void)
{
    struct timeline tl;
    char *log = NULL;
    size_t loglen = 0;
    FILE *f = open_memstream(&log, &loglen);
    if (timeline_init(&tl, 2, START, 1000, f, HDRLOG_US)) abort();
    timeline_window_end(&tl, START + 2500000);
    timeline_add(&tl, 0, make(0, 100, 0, START + 1000100, false));
    TAP_CHECK(timeline_close(&tl) == 0, "second 0 waits for thread 1");
    timeline_add(&tl, 1, make(0, 50, 2, START + 1000200, false));
    TAP_CHECK(timeline_close(&tl) == 1 && tl.entries[0].requests == 152, "both threads in: second 0 closes (152)");
    timeline_add(&tl, 1, make(1, 40, 0, START + 2000000, false));
    timeline_add(&tl, 1, make(2, 30, 0, START + 2700000, true)); /* thread 1 ends at 2.7 s */
    TAP_CHECK(timeline_close(&tl) == 0, "second 1 waits for thread 0");
    timeline_add(&tl, 0, make(1, 60, 1, START + 2000000, false));
    timeline_add(&tl, 0, make(2, 20, 0, START + 3000000, false));
    timeline_add(&tl, 0, make(3, 5, 0, START + 3100000, true)); /* the grace */
    TAP_CHECK(timeline_close(&tl) == 3 && timeline_complete(&tl), "the rest closes once both finished");
    uint64_t requests = 0, succeeded = 0, timeouts = 0, sent = 0;
    for (size_t i = 0; i < tl.len; i++) {
        requests += tl.entries[i].requests;
        succeeded += tl.entries[i].succeeded;
        timeouts += tl.entries[i].errors[REQ_ERR_TIMEOUT];
        sent += tl.entries[i].sent;
    }
    TAP_CHECK(requests == 308 && sent == 305 && timeouts == 3 && succeeded == 305 - 30,
              "the entries add up to what the threads recorded (requests %llu, ok %llu)", (unsigned long long)requests,
              (unsigned long long)succeeded);
    const struct timeline_entry *e = tl.entries;
    TAP_CHECK(e[0].start_us == 0 && e[0].length_us == 1000000 && e[3].start_us == 3000000 && e[3].length_us == 100000,
              "entries start at whole seconds; the last is as long as the run went on");
    TAP_CHECK(!e[2].in_grace && e[3].in_grace && e[0].target_rate == 1000 && e[2].target_rate == 1000 &&
                  e[3].target_rate < 0,
              "in_grace after the window's end; the target over the window's part, none in the grace");
    TAP_CHECK(e[0].open_connections == 6 && e[0].latency.present && e[0].latency.max == 1099 &&
                  e[0].uncorrected.max == 599,
              "open connections add up; percentiles of the merged second");
    TAP_CHECK(e[0].new_connections == 4 && e[2].new_connections == 8,
              "new connections add up over the threads (connections per second)");
    fclose(f);
    unsigned untagged = 0, uncorrected = 0, errors = 0;
    for (char *line = strtok(log, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] >= '0' && line[0] <= '9') untagged++;
        uncorrected += strncmp(line, "Tag=uncorrected,", 16) == 0;
        errors += strncmp(line, "Tag=errors,", 11) == 0;
    }
    TAP_CHECK(untagged == 4 && uncorrected == 4 && errors == 2,
              "HDR log: an untagged and an uncorrected line per second, errors where there were some (%u %u %u)",
              untagged, uncorrected, errors);
    free(log);
    timeline_free(&tl);
}

static void test_target_rate_changes(void)
{
    struct timeline tl;
    if (timeline_init(&tl, 1, START, 1000, NULL, HDRLOG_US)) abort();
    timeline_rate_change(&tl, START - 5, 2000); /* in the warm-up: replaces the initial rate */
    timeline_rate_change(&tl, START + 1250000, 4000);
    timeline_rate_change(&tl, START + 1750000, 0);
    timeline_add(&tl, 0, make(0, 1, 0, START + 1000000, false));
    timeline_add(&tl, 0, make(1, 1, 0, START + 2000000, false));
    timeline_add(&tl, 0, make(2, 1, 0, START + 2200000, true));
    timeline_close(&tl);
    TAP_CHECK(tl.nchanges == 3 && tl.entries[0].target_rate == 2000, "a change in the warm-up replaces the start rate");
    TAP_CHECK(tl.entries[1].target_rate == 2000 * 0.25 + 4000 * 0.5, "mean over a second with two changes: %.1f",
              tl.entries[1].target_rate);
    TAP_CHECK(tl.entries[2].target_rate == 0, "paused: target 0");
    timeline_free(&tl);
}

static void test_skipped_second(void)
{
    struct timeline tl;
    if (timeline_init(&tl, 2, START, -1, NULL, HDRLOG_US)) abort();
    timeline_add(&tl, 0, make(0, 10, 0, START + 1000000, false));
    timeline_add(&tl, 0, make(1, 10, 0, START + 2000000, true));
    timeline_add(&tl, 1, make(0, 10, 0, START + 2000000, true)); /* no memory at 1 s: it spans both seconds */
    TAP_CHECK(timeline_close(&tl) == 2 && tl.entries[0].requests == 20 && tl.entries[1].requests == 10,
              "a thread that skipped a second does not hold the timeline up");
    TAP_CHECK(tl.entries[0].target_rate < 0, "closed loop: no target rate");
    timeline_free(&tl);
    if (timeline_init(&tl, 1, START, -1, NULL, HDRLOG_US)) abort();
    timeline_add(&tl, 0, make(0, 1, 0, START + 1000000, false));
    timeline_add(&tl, 0, make(0, 2, 0, START + 1000001, false)); /* an index repeated: must not stay behind */
    timeline_add(&tl, 0, make(1, 4, 0, START + 1500000, true));
    TAP_CHECK(timeline_close(&tl) == 2 && timeline_complete(&tl) && tl.entries[0].requests == 3,
              "a repeated index merges into its second; the timeline completes");
    timeline_free(&tl);
}

int main(void)
{
    test_interval_buckets();
    test_close_order_and_totals();
    test_target_rate_changes();
    test_skipped_second();
    TAP_EXIT();
}
