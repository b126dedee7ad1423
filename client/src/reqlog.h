/* reqlog: --log FILE, one CSV line per request (h2load's --log-file, oha's
 * per-request output), a share of them with --log-sample R. The file's
 * first line names the columns, units in their names:
 *   start_unix_us,thread,connection,step,status,error,latency_us,body_bytes,user,iteration
 * start_unix_us  when the request was due (closed loop: sent), microseconds
 *                since the epoch; latency_us runs from it (as the record's)
 * thread, connection  the worker thread and its connection's index in it
 * step           the request line ("GET /a?b=1"), or the request's kind name
 *                when its source names one (a script's kind); CSV-quoted when
 *                it holds a comma or a quote; "-" for a script's pipelined
 *                requests after the first of its text
 * status, error  the final response's status and an empty error, or an
 *                empty status and the error (timeout, read, write, protocol, reset),
 *                or the status and "unexpected" for a response that failed a
 *                check (--expect-status, a flow's expect)
 * body_bytes     the response body's bytes (0 for an error)
 * user, iteration  a flow's virtual user (from 1) and its iteration (from 0,
 *                ${seq}); both empty for other requests
 * Only measured requests that completed (the record's `requests`) are
 * logged: the warm-up's, aborted and refused ones are not. Each request is
 * drawn with probability R from a per-thread stream seeded from the run's
 * seed, at its start.
 *
 * Writing never holds the load up on a lock: each worker thread owns a
 * writer with a buffer of its own (REQLOG_BUFFER bytes) that it fills with
 * whole lines and writes with one write(2) when it is full, once a second
 * (reqlog_writer_tick) and at the thread's end. The file is opened
 * O_APPEND | O_NONBLOCK: the threads' writes land whole, between lines; a
 * FIFO whose reader does not keep up, a full disk, fail the log (counted,
 * said at the end: the run goes on, its file stops). Memory: the buffer and
 * one entry per sampled request in flight. */
#ifndef BARRAGE_REQLOG_H
#define BARRAGE_REQLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "request.h"

#define REQLOG_BUFFER (256 * 1024)
#define REQLOG_STEP_MAX 200 /* a longer step is cut there, ending in "..." */
#define REQLOG_HEADER "start_unix_us,thread,connection,step,status,error,latency_us,body_bytes,user,iteration\n"

/* The file and what every thread's writer shares (read-only while they run,
 * but for the failure flag). */
struct reqlog;
/* One worker thread's writer: used by that thread only. */
struct reqlog_writer;

/* Opens path (created or truncated; a FIFO must have its reader) and writes
 * the header line; sample in (0, 1], seed for the draws. NULL with err set. */
struct reqlog *reqlog_open(const char *path, double sample, uint64_t seed, char *err, size_t errlen);

/* Closes the file, after every writer was freed. 0, or -1 when some lines
 * could not be written (err says why and how many lines were lost). */
int reqlog_close(struct reqlog *log, char *err, size_t errlen);

/* Thread `thread`'s writer; NULL when out of memory (then nothing of that
 * thread is logged, and the log's close fails). */
struct reqlog_writer *reqlog_writer_new(struct reqlog *log, unsigned thread);

/* Writes what is buffered and frees the writer (NULL is fine). */
void reqlog_writer_free(struct reqlog_writer *w);

/* A measured request starts: drawn (sample), and if it is to be logged its
 * step kept. Returns its entry for the request's context (req_ctx.log_slot),
 * 0 when it is not logged. */
uint32_t reqlog_begin(struct reqlog_writer *w, const struct request *req);

/* The request of entry slot (not 0) ended on connection conn: its line for a
 * response (expected: it passed its checks, else its error is "unexpected")
 * or an error, nothing for an aborted or refused one; the entry is free again. */
void reqlog_end(struct reqlog_writer *w, uint32_t slot, unsigned conn, const struct req_ctx *ctx,
                const struct outcome *o, bool expected);

/* Once a second: writes what is buffered (a long run's file grows as it goes). */
void reqlog_writer_tick(struct reqlog_writer *w);

#endif
