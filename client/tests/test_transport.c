/* Unit tests of transport.c: a plain transport over a loopback TCP pair reads
 * what was sent; asked to stamp its reads, each read says when the kernel
 * received its bytes (realtime), which is how a reader that wakes late still
 * times them; unstamped, a read leaves the stamp alone. */
#include "../src/transport.c"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>

#include "tap.h"

static uint64_t realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

/* A connected loopback TCP pair: fds[0] the client's, fds[1] the server's; 0 or -1. */
static int tcp_pair(int fds[2])
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int l = socket(AF_INET, SOCK_STREAM, 0);
    if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 1) || getsockname(l, (struct sockaddr *)&a, &len))
        return -1;
    fds[0] = socket(AF_INET, SOCK_STREAM, 0);
    if (fds[0] < 0 || connect(fds[0], (struct sockaddr *)&a, sizeof a)) return -1;
    fds[1] = accept(l, NULL, NULL);
    close(l);
    return fds[1] < 0 ? -1 : 0;
}

/* Sends one byte from the server's side and reads it; the read's stamp (0: none). */
static uint64_t exchange(struct transport *t, int server, long wait_ms)
{
    uint8_t byte = 'x', got = 0;
    uint64_t stamp = 0;
    if (send(server, &byte, 1, 0) != 1) return 0;
    sleep_ms(wait_ms);
    return t->ops->read(t, &got, 1, &stamp) == 1 && got == 'x' ? stamp : 0;
}

int main(void)
{
    int fds[2];
    if (tcp_pair(fds)) {
        printf("not ok - a loopback TCP pair: %s\n", strerror(errno));
        return 1;
    }
    struct transport t;
    transport_plain_init(&t, fds[0]);

    uint64_t stamp = 7;
    uint8_t buf[8];
    TAP_CHECK(send(fds[1], "ab", 2, 0) == 2 && (sleep_ms(5), t.ops->read(&t, buf, sizeof buf, &stamp)) == 2 &&
                  memcmp(buf, "ab", 2) == 0 && stamp == 7,
              "unstamped: reads the bytes, leaves the stamp alone");

    TAP_CHECK(transport_stamp_reads(&t) == 0 && t.stamped, "a TCP socket can be stamped");
    /* the kernel turns stamping on shortly after the first socket asks: wait for the first stamp */
    uint64_t first = 0;
    for (int i = 0; i < 100 && !first; i++) first = exchange(&t, fds[1], 1);
    TAP_CHECK(first != 0, "stamped reads come with the kernel's receive time");

    uint64_t sent = realtime_ns();
    stamp = exchange(&t, fds[1], 30);
    uint64_t read_at = realtime_ns();
    TAP_CHECK(stamp >= sent && stamp + 25000000u <= read_at && read_at - stamp < 1000000000u,
              "read 30 ms after it arrived, the stamp says when it arrived (%.1f ms before the read)",
              (double)(read_at - stamp) / 1e6);

    t.ops->close(&t);
    close(fds[1]);
    TAP_EXIT();
}
