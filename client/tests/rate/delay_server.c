/* delay_server: a keep-alive HTTP/1.1 server on 127.0.0.1 (a free port,
 * printed on stdout) that answers each GET exactly DELAY_US microseconds
 * after its last byte arrived, for tests/rate/run.py: a thread per
 * connection sleeps to that moment with clock_nanosleep (absolute, the
 * timer slack at 1 ns), so the answer's lateness is the machine's wake-up
 * latency, not an interpreter's. Runs until killed.
 *   delay_server DELAY_US */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static const char response[] = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
static long delay_ns;

static void *serve(void *arg)
{
    int fd = (int)(intptr_t)arg;
    char buf[8192];
    size_t len = 0;
    prctl(PR_SET_TIMERSLACK, 1UL);
    for (;;) {
        char *end;
        while (!(end = memmem(buf, len, "\r\n\r\n", 4))) {
            ssize_t n = len < sizeof buf ? read(fd, buf + len, sizeof buf - len) : -1;
            if (n <= 0) {
                close(fd);
                return NULL;
            }
            len += (size_t)n;
        }
        struct timespec at;
        clock_gettime(CLOCK_MONOTONIC, &at);
        at.tv_nsec += delay_ns;
        at.tv_sec += at.tv_nsec / 1000000000L;
        at.tv_nsec %= 1000000000L;
        size_t used = (size_t)(end + 4 - buf); /* GET requests: no body */
        memmove(buf, buf + used, len - used);
        len -= used;
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL)) continue;
        if (write(fd, response, sizeof response - 1) != (ssize_t)(sizeof response - 1)) {
            close(fd);
            return NULL;
        }
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: delay_server DELAY_US\n");
        return 2;
    }
    delay_ns = atol(argv[1]) * 1000L;
    int listener = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof addr;
    if (listener < 0 || bind(listener, (struct sockaddr *)&addr, sizeof addr) || listen(listener, 128) ||
        getsockname(listener, (struct sockaddr *)&addr, &alen)) {
        perror("delay_server");
        return 1;
    }
    printf("%d\n", ntohs(addr.sin_port));
    fflush(stdout);
    for (;;) {
        int fd = accept(listener, NULL, NULL);
        if (fd < 0) continue;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        pthread_t t;
        if (pthread_create(&t, NULL, serve, (void *)(intptr_t)fd)) close(fd);
        else pthread_detach(t);
    }
}
