/* signals: SIGINT and SIGTERM end a run with its report; the process's
 * signal set-up, made once by main before any thread starts.
 *
 * The first SIGINT or SIGTERM is only noted (signals_caught), the caller's
 * on_first function runs (in the handler: it may only do async-signal-safe
 * things, such as storing an atomic), and wake_fd (an eventfd) is written, so
 * that the main thread's poll returns; a blocking call of the main thread
 * returns EINTR (no SA_RESTART). A second one ends the process at once with
 * 128 + the signal's number (130, 143), whatever it was doing.
 *
 * Worker threads block both (signals_block_in_thread, called by the thread
 * about to create them), so the handler runs in the main thread. SIGUSR1 is
 * the nudge (signals_nudge): its handler does nothing, but a worker blocked
 * in a system call (a script's io.read) gets EINTR. SIGPIPE is ignored, as wrk
 * and h2load do: a write to a peer that has gone (OpenSSL's socket writes, a
 * --log FIFO whose reader left, a closed standard output) fails with EPIPE
 * where it is made, instead of ending the process without its report. */
#ifndef BARRAGE_SIGNALS_H
#define BARRAGE_SIGNALS_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>

/* Installs the handlers (on_first may be NULL). 0, or -1 with errno. */
int signals_init(void (*on_first)(int sig));

/* The eventfd written on the first signal (-1: none); the caller owns it. */
void signals_set_wake(int fd);

/* The first SIGINT/SIGTERM received, or 0. */
int signals_caught(void);

/* Blocks SIGINT and SIGTERM in the calling thread and saves its mask in *old
 * (threads created meanwhile inherit the block); undo with signals_restore. */
void signals_block(sigset_t *old);
void signals_restore(const sigset_t *old);

/* Interrupts thread's blocking system call (EINTR); harmless otherwise. */
void signals_nudge(pthread_t thread);

#endif
