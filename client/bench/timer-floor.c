/* timer-floor: how late this machine wakes a thread that sleeps until a set time, at a given
 * rate: a bare timerfd loop, nothing else. It is the floor under barrage's schedule lag (a
 * fixed-rate run cannot send earlier than its thread is woken), printed by rate-vs-h2load.sh
 * beside barrage's lag. Not part of barrage.
 *
 *   timer-floor RATE SECONDS   prints "p50 P90 p99 p999 max" in microseconds
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Sleeps until each of n times gap_ns apart and stores how late it woke, in microseconds;
 * 0, or -1 when the timer cannot be used. */
static int measure(int fd, size_t n, uint64_t gap_ns, uint64_t *late_us)
{
    uint64_t start = now_ns() + 1000000, expirations;
    for (size_t i = 0; i < n; i++) {
        uint64_t at = start + i * gap_ns;
        struct itimerspec its = {.it_value = {.tv_sec = (time_t)(at / 1000000000u), .tv_nsec = (long)(at % 1000000000u)}};
        if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL) || read(fd, &expirations, sizeof expirations) < 0) return -1;
        late_us[i] = (now_ns() - at) / 1000;
    }
    return 0;
}

int main(int argc, char **argv)
{
    long rate = argc == 3 ? atol(argv[1]) : 0, seconds = argc == 3 ? atol(argv[2]) : 0;
    if (rate <= 0 || seconds <= 0) {
        fprintf(stderr, "usage: timer-floor RATE SECONDS\n");
        return 2;
    }
    size_t n = (size_t)rate * (size_t)seconds;
    uint64_t *late_us = malloc(n * sizeof *late_us);
    int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
    if (!late_us || fd < 0 || measure(fd, n, 1000000000u / (uint64_t)rate, late_us)) {
        perror("timer-floor");
        return 1;
    }
    qsort(late_us, n, sizeof *late_us, cmp_u64);
    printf("%lu %lu %lu %lu %lu\n", (unsigned long)late_us[n / 2], (unsigned long)late_us[n * 9 / 10],
           (unsigned long)late_us[n * 99 / 100], (unsigned long)late_us[n * 999 / 1000], (unsigned long)late_us[n - 1]);
    free(late_us);
    close(fd);
    return 0;
}
