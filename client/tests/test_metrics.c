/* Unit tests of metrics.c: ADDR:PORT forms accepted (IPv4, IPv6 in brackets,
 * port 0) and refused (no port, a host name, a port over 65535 or signed, an
 * empty host, IPv6 without brackets' port), a port in use refused with the
 * system's reason, and a listener opened on port 0 answering GET /metrics
 * with the zeroes before the first second, 404 elsewhere, then stopped. */
#include "../src/hist.c"
#include "../src/interval.c"
#include "../src/metrics_text.c"
#include "../src/signals.c"
#include "../src/metrics.c"

#include "tap.h"

static bool parses(const char *text)
{
    struct sockaddr_storage ss;
    socklen_t len;
    char err[256];
    return parse_address(text, &ss, &len, err, sizeof err) == 0;
}

static void test_forms(void)
{
    TAP_CHECK(parses("127.0.0.1:9464") && parses("[::1]:9464") && parses("0.0.0.0:0") && parses("[::]:65535"),
              "IPv4, IPv6 in brackets, port 0 and 65535 accepted");
    const char *bad[] = {"127.0.0.1", "localhost:9464", "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:+1",
                         ":9464", "127.0.0.1:", "127.0.0.1:12ab", "::1:9464", "[::1]", "[]:9464", ""};
    bool all = true;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (parses(bad[i])) {
            printf("# accepted: '%s'\n", bad[i]);
            all = false;
        }
    }
    TAP_CHECK(all, "no port, a host name, ports out of range or signed, no host, IPv6 without brackets refused");
}

/* GET path from 127.0.0.1:port; the response's first line in line. */
static void get(int port, const char *path, char *line, size_t cap)
{
    line[0] = '\0';
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    char req[128], buf[65536];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path);
    size_t got = 0;
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0 && send(fd, req, (size_t)n, 0) == n) {
        ssize_t r;
        while (got + 1 < sizeof buf && (r = recv(fd, buf + got, sizeof buf - 1 - got, 0)) > 0) got += (size_t)r;
    }
    buf[got] = '\0';
    if (fd >= 0) close(fd);
    snprintf(line, cap, "%.*s", (int)strcspn(buf, "\r"), buf);
    if (strstr(buf, "barrage_requests_total{outcome=\"success\"} 0\n")) strncat(line, " zeroes", cap - strlen(line) - 1);
}

static void test_listener(void)
{
    char err[256], line[128];
    struct metrics *m = metrics_open("127.0.0.1:0", err, sizeof err);
    TAP_CHECK(m != NULL, "listens on 127.0.0.1:0 (%s)", m ? metrics_address(m) : err);
    if (!m) return;
    int port = atoi(strrchr(metrics_address(m), ':') + 1);
    char taken[64];
    snprintf(taken, sizeof taken, "127.0.0.1:%d", port);
    struct metrics *again = metrics_open(taken, err, sizeof err);
    TAP_CHECK(!again && strstr(err, "--metrics-listen") && strstr(err, "in use"), "the same port again: %s", err);
    metrics_close(again);
    get(port, "/metrics", line, sizeof line);
    TAP_CHECK(strcmp(line, "HTTP/1.1 200 OK zeroes") == 0, "GET /metrics before any second: zeroes (%s)", line);
    get(port, "/", line, sizeof line);
    TAP_CHECK(strcmp(line, "HTTP/1.1 404 Not Found") == 0, "GET /: 404 (%s)", line);
    metrics_finish(m, 0);
    metrics_close(m);
    TAP_CHECK(true, "finished without a linger and closed");
}

int main(void)
{
    test_forms();
    test_listener();
    TAP_EXIT();
}
