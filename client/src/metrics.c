/* metrics: the --metrics-listen thread and the published text (metrics.h). */
#include "metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "metrics_text.h"
#include "signals.h"

#define REQUEST_MAX 8192
#define CLIENT_TIMEOUT_S 2 /* a scraper that stalls holds the thread no longer */

struct metrics {
    int listen_fd, stop_fd;
    pthread_t thread;
    char address[INET6_ADDRSTRLEN + 16];
    struct metrics_totals totals; /* the main thread's */
    pthread_mutex_t mu;           /* guards text, len, final_served */
    pthread_cond_t served;        /* signalled when the final text was served */
    char *text;                   /* owned: the published exposition */
    size_t len;
    bool published_final; /* text holds the final figures */
    bool final_served;
};

/* "ADDR:PORT" into a numeric address; 0, or -1 with the reason in err. */
static int parse_address(const char *addr_port, struct sockaddr_storage *ss, socklen_t *sslen, char *err,
                         size_t errlen)
{
    char host[INET6_ADDRSTRLEN + 2];
    const char *colon = strrchr(addr_port, ':');
    const char *h = addr_port;
    size_t hlen = colon ? (size_t)(colon - addr_port) : 0;
    bool bracketed = hlen >= 2 && h[0] == '[' && h[hlen - 1] == ']';
    if (bracketed) h++, hlen -= 2;
    char *end;
    errno = 0;
    unsigned long port = colon ? strtoul(colon + 1, &end, 10) : 0;
    /* an IPv6 address's colons would make its port ambiguous: it takes brackets */
    if (!colon || hlen == 0 || hlen >= sizeof host || !colon[1] || *end || errno || port > 65535 ||
        colon[1] == '-' || colon[1] == '+' || (!bracketed && memchr(h, ':', hlen))) {
        snprintf(err, errlen, "bad --metrics-listen '%s': ADDR:PORT (127.0.0.1:9464, [::1]:9464)", addr_port);
        return -1;
    }
    memcpy(host, h, hlen);
    host[hlen] = '\0';
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE};
    struct addrinfo *res;
    if (getaddrinfo(host, colon + 1, &hints, &res) != 0) {
        snprintf(err, errlen, "bad --metrics-listen '%s': '%s' is not a numeric IP address", addr_port, host);
        return -1;
    }
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    *sslen = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

static int listen_on(const char *addr_port, char *address, size_t addrlen, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    socklen_t sslen;
    if (parse_address(addr_port, &ss, &sslen, err, errlen)) return -1;
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
        bind(fd, (struct sockaddr *)&ss, sslen) || listen(fd, 16)) {
        snprintf(err, errlen, "--metrics-listen %s: %s", addr_port, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    sslen = sizeof ss;
    char host[INET6_ADDRSTRLEN], port[8];
    if (getsockname(fd, (struct sockaddr *)&ss, &sslen) == 0 &&
        getnameinfo((struct sockaddr *)&ss, sslen, host, sizeof host, port, sizeof port,
                    NI_NUMERICHOST | NI_NUMERICSERV) == 0)
        snprintf(address, addrlen, ss.ss_family == AF_INET6 ? "[%s]:%s" : "%s:%s", host, port);
    else
        snprintf(address, addrlen, "%s", addr_port);
    return fd;
}

static void send_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        p += n;
        len -= (size_t)n;
    }
}

static void respond(int fd, const char *status, const char *type, const char *body, size_t len)
{
    char head[256];
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n", status,
                     type, len);
    send_all(fd, head, (size_t)n);
    send_all(fd, body, len);
}

/* Reads the request head (up to its blank line); its length, or 0 when none came whole. */
static size_t read_head(int fd, char *buf, size_t cap)
{
    size_t len = 0;
    while (len + 1 < cap) {
        ssize_t n = recv(fd, buf + len, cap - 1 - len, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return 0;
        len += (size_t)n;
        buf[len] = '\0';
        if (strstr(buf, "\r\n\r\n") || strstr(buf, "\n\n")) return len;
    }
    return 0;
}

static void serve_metrics(struct metrics *m, int fd)
{
    pthread_mutex_lock(&m->mu);
    char *copy = m->text ? malloc(m->len) : NULL;
    size_t len = m->len;
    bool final = m->published_final;
    if (copy) memcpy(copy, m->text, len);
    pthread_mutex_unlock(&m->mu);
    if (!copy) {
        respond(fd, "503 Service Unavailable", "text/plain", "out of memory\n", 14);
        return;
    }
    respond(fd, "200 OK", "text/plain; version=0.0.4; charset=utf-8", copy, len);
    free(copy);
    if (final) {
        pthread_mutex_lock(&m->mu);
        m->final_served = true;
        pthread_cond_signal(&m->served);
        pthread_mutex_unlock(&m->mu);
    }
}

/* One connection: GET /metrics (a query string allowed) gets the text; another
 * path a 404, another method a 405. */
static void serve(struct metrics *m, int fd)
{
    struct timeval tv = {.tv_sec = CLIENT_TIMEOUT_S};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    char buf[REQUEST_MAX];
    if (!read_head(fd, buf, sizeof buf)) return;
    bool get = strncmp(buf, "GET ", 4) == 0;
    const char *target = get ? buf + 4 : NULL;
    if (!get) respond(fd, "405 Method Not Allowed", "text/plain", "GET /metrics\n", 13);
    else if (strncmp(target, "/metrics ", 9) && strncmp(target, "/metrics?", 9))
        respond(fd, "404 Not Found", "text/plain", "GET /metrics\n", 13);
    else serve_metrics(m, fd);
}

static void *metrics_thread(void *arg)
{
    struct metrics *m = arg;
    struct pollfd fds[2] = {{.fd = m->listen_fd, .events = POLLIN}, {.fd = m->stop_fd, .events = POLLIN}};
    for (;;) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (fds[1].revents) break;
        int fd = accept4(m->listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) continue;
        serve(m, fd);
        close(fd);
    }
    return NULL;
}

/* Renders the totals and swaps the text in (the old one freed); keeps the
 * old text when out of memory. */
static void publish(struct metrics *m)
{
    size_t len;
    char *text = metrics_render(&m->totals, &len);
    if (!text) return;
    pthread_mutex_lock(&m->mu);
    char *old = m->text;
    m->text = text;
    m->len = len;
    m->published_final = m->totals.finished;
    pthread_mutex_unlock(&m->mu);
    free(old);
}

struct metrics *metrics_open(const char *addr_port, char *err, size_t errlen)
{
    struct metrics *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, errlen, "--metrics-listen: out of memory");
        return NULL;
    }
    m->stop_fd = -1;
    m->listen_fd = listen_on(addr_port, m->address, sizeof m->address, err, errlen);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&m->mu, NULL);
    pthread_cond_init(&m->served, &ca);
    pthread_condattr_destroy(&ca);
    if (m->listen_fd < 0) goto fail;
    publish(m);
    if (!m->text || (m->stop_fd = eventfd(0, EFD_CLOEXEC)) < 0) {
        snprintf(err, errlen, "--metrics-listen: out of memory or descriptors");
        goto fail;
    }
    /* SIGINT/SIGTERM stay the main thread's (signals.h): its blocking calls must see EINTR */
    sigset_t old;
    signals_block(&old); /* inherited by the thread */
    int rc = pthread_create(&m->thread, NULL, metrics_thread, m);
    signals_restore(&old);
    if (rc) {
        snprintf(err, errlen, "--metrics-listen: cannot start its thread");
        goto fail;
    }
    return m;
fail:
    if (m->stop_fd >= 0) close(m->stop_fd);
    if (m->listen_fd >= 0) close(m->listen_fd);
    pthread_mutex_destroy(&m->mu);
    pthread_cond_destroy(&m->served);
    free(m->text);
    free(m);
    return NULL;
}

const char *metrics_address(const struct metrics *m)
{
    return m->address;
}

void metrics_on_second(void *ctx, const struct interval *merged)
{
    struct metrics *m = ctx;
    metrics_totals_add(&m->totals, merged);
    publish(m);
}

void metrics_finish(struct metrics *m, uint64_t linger_us)
{
    if (m->totals.seconds == 0) linger_us = 0; /* no run (the target unreachable, a usage error): nothing to wait for */
    m->totals.finished = true;
    publish(m);
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += (time_t)(linger_us / 1000000);
    until.tv_nsec += (long)(linger_us % 1000000) * 1000;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&m->mu);
    while (linger_us && !m->final_served && m->published_final)
        if (pthread_cond_timedwait(&m->served, &m->mu, &until) == ETIMEDOUT) break;
    pthread_mutex_unlock(&m->mu);
}

void metrics_close(struct metrics *m)
{
    if (!m) return;
    uint64_t one = 1;
    if (write(m->stop_fd, &one, sizeof one) < 0) { /* the counter cannot be full: one write */ }
    pthread_join(m->thread, NULL);
    close(m->stop_fd);
    close(m->listen_fd);
    pthread_mutex_destroy(&m->mu);
    pthread_cond_destroy(&m->served);
    free(m->text);
    free(m);
}
