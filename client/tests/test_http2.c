/* Unit tests of http2.c's request: pseudo-headers, :authority (port shown only
 * when not the scheme's default, IPv6 in brackets, -H Host), header names
 * lowercased, connection-specific headers dropped, content-length for bodies.
 * The worker functions the session calls are not used here: stubs. */
#include "../src/http2.c"

#include <stdio.h>
#include <string.h>

#include "tap.h"

bool worker_take_request(struct worker *w) { (void)w; return false; }
void worker_response(struct worker *w, uint64_t s, int st, uint64_t b, uint64_t n) { (void)w; (void)s; (void)st; (void)b; (void)n; }
void worker_error(struct worker *w, uint64_t s, enum req_error k, enum req_detail d, uint64_t n) { (void)w; (void)s; (void)k; (void)d; (void)n; }
void worker_aborted(struct worker *w, uint64_t s) { (void)w; (void)s; }
void worker_refused(struct worker *w, uint64_t s) { (void)w; (void)s; }
void worker_first_byte(struct worker *w, uint64_t s, uint64_t n) { (void)w; (void)s; (void)n; }
void worker_sample(struct worker *w, const uint8_t *d, size_t l) { (void)w; (void)d; (void)l; }
void worker_header_bytes(struct worker *w, uint64_t a, uint64_t b) { (void)w; (void)a; (void)b; }

/* The request's fields as "name: value\n" lines. */
static void render(const struct http2_shared *sh, char *out, size_t len)
{
    size_t o = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sh->nvlen && o < len; i++)
        o += (size_t)snprintf(out + o, len - o, "%.*s: %.*s\n", (int)sh->nva[i].namelen, sh->nva[i].name,
                              (int)sh->nva[i].valuelen, sh->nva[i].value);
}

static void base_config(struct config *cfg, const char *host, const char *port, bool tls)
{
    memset(cfg, 0, sizeof *cfg);
    snprintf(cfg->host, sizeof cfg->host, "%s", host);
    snprintf(cfg->port, sizeof cfg->port, "%s", port);
    cfg->tls = tls;
    cfg->method = "GET";
    cfg->path = "/p?q=1";
    cfg->pipeline = 4;
    cfg->keepalive = true;
    cfg->max_header_size = 65536;
    cfg->timeout_us = 1000000;
    cfg->window_bits = 16;
    cfg->connection_window_bits = 20;
}

static void check(const char *name, const struct config *cfg, const char *want)
{
    struct http2_shared sh;
    char got[2048];
    if (http2_shared_init(&sh, cfg)) {
        TAP_CHECK(0, "http2 request %s: out of memory", name);
        return;
    }
    render(&sh, got, sizeof got);
    TAP_CHECK(strcmp(got, want) == 0, "http2 request %s%s%s", name, strcmp(got, want) ? ": got\n" : "",
              strcmp(got, want) ? got : "");
    http2_shared_free(&sh);
}

int main(void)
{
    struct config cfg;

    base_config(&cfg, "127.0.0.1", "8081", false);
    check("h2c with a port", &cfg, ":method: GET\n:scheme: http\n:authority: 127.0.0.1:8081\n:path: /p?q=1\n");

    base_config(&cfg, "example.test", "443", true);
    check("https on the default port", &cfg, ":method: GET\n:scheme: https\n:authority: example.test\n:path: /p?q=1\n");

    base_config(&cfg, "::1", "80", false);
    check("IPv6 on the default port", &cfg, ":method: GET\n:scheme: http\n:authority: [::1]\n:path: /p?q=1\n");

    base_config(&cfg, "::1", "8443", true);
    check("IPv6 with a port", &cfg, ":method: GET\n:scheme: https\n:authority: [::1]:8443\n:path: /p?q=1\n");

    base_config(&cfg, "127.0.0.1", "8081", false);
    cfg.method = "POST";
    cfg.headers[cfg.header_count++] = "X-Mixed-Case:  value 1";
    cfg.headers[cfg.header_count++] = "Connection: keep-alive";
    cfg.headers[cfg.header_count++] = "Transfer-Encoding: chunked";
    cfg.headers[cfg.header_count++] = "Host: other.test:9";
    cfg.body = "hello";
    cfg.body_len = 5;
    check("headers and body", &cfg,
          ":method: POST\n:scheme: http\n:authority: other.test:9\n:path: /p?q=1\nx-mixed-case: value 1\n"
          "content-length: 5\n");

    base_config(&cfg, "127.0.0.1", "8081", false);
    cfg.headers[cfg.header_count++] = "Content-Length: 0";
    cfg.body = "abc";
    cfg.body_len = 3;
    check("a given content-length is kept, not doubled", &cfg,
          ":method: GET\n:scheme: http\n:authority: 127.0.0.1:8081\n:path: /p?q=1\ncontent-length: 0\n");

    base_config(&cfg, "127.0.0.1", "8081", false);
    struct http2_shared sh;
    TAP_CHECK(http2_shared_init(&sh, &cfg) == 0 && sh.stream_window == 65535 && sh.connection_window == 1048575 &&
                  sh.streams == 4,
              "http2 windows 2^bits-1 (16 -> 65535, 20 -> 1048575) and -m streams");
    http2_shared_free(&sh);
    TAP_EXIT();
}
