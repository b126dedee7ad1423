/* signals: the handlers of SIGINT, SIGTERM and SIGUSR1 (contract in signals.h). */
#include "signals.h"

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

static atomic_int caught;
static atomic_int wake_fd = -1;
static void (*first_hook)(int sig);

static void on_stop_signal(int sig)
{
    int none = 0;
    if (!atomic_compare_exchange_strong(&caught, &none, sig)) _exit(128 + sig); /* the second: at once */
    int saved = errno;
    if (first_hook) first_hook(sig);
    int fd = atomic_load(&wake_fd);
    uint64_t one = 1;
    if (fd >= 0 && write(fd, &one, sizeof one) < 0) { /* the counter is full: the main thread is awake */ }
    errno = saved;
}

static void on_nudge(int sig)
{
    (void)sig; /* only to interrupt a blocking call */
}

static int install(int sig, void (*handler)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: blocking calls return EINTR */
    return sigaction(sig, &sa, NULL);
}

int signals_init(void (*on_first)(int sig))
{
    first_hook = on_first;
    if (install(SIGINT, on_stop_signal) || install(SIGTERM, on_stop_signal) || install(SIGUSR1, on_nudge)
        || install(SIGPIPE, SIG_IGN))
        return -1;
    return 0;
}

void signals_set_wake(int fd)
{
    atomic_store(&wake_fd, fd);
}

int signals_caught(void)
{
    return atomic_load(&caught);
}

void signals_block(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, old);
}

void signals_restore(const sigset_t *old)
{
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

void signals_nudge(pthread_t thread)
{
    pthread_kill(thread, SIGUSR1);
}
