/* source_static: the command line's request, encoded once at start-up and
 * handed out unchanged: the HTTP/1.1 bytes (repeated -m times) and the HTTP/2
 * header fields and body. next() returns the one prebuilt struct request. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "source.h"
#include "url.h"

struct static_shared {
    struct request request;
    uint8_t *text;     /* owned: the HTTP/1.1 request repeated -m times */
    nghttp2_nv *nva;   /* owned: the HTTP/2 header fields */
    char *strings;     /* owned: the bytes nva points into */
};

struct static_source {
    struct source base;
    const struct static_shared *sh;
};

/* ---- HTTP/1.1 ---- */

/* The request once, malloc'd; NULL when out of memory. */
static char *http1_text(const struct config *cfg, size_t *len_out)
{
    size_t cap = strlen(cfg->method) + strlen(cfg->path) + strlen(cfg->host) + cfg->body_len + 256;
    for (unsigned i = 0; i < cfg->header_count; i++) cap += strlen(cfg->headers[i]) + 2;
    char *req = malloc(cap);
    if (!req) return NULL;
    size_t len = (size_t)snprintf(req, cap, "%s %s HTTP/1.1\r\n", cfg->method, cfg->path);
    char authority[300];
    url_authority(cfg->host, cfg->port, cfg->tls, authority, sizeof authority);
    if (!config_header(cfg, "host")) len += (size_t)snprintf(req + len, cap - len, "Host: %s\r\n", authority);
    for (unsigned i = 0; i < cfg->header_count; i++)
        len += (size_t)snprintf(req + len, cap - len, "%s\r\n", cfg->headers[i]);
    if (cfg->body_len > 0 && !config_header(cfg, "content-length"))
        len += (size_t)snprintf(req + len, cap - len, "Content-Length: %zu\r\n", cfg->body_len);
    if (!cfg->keepalive && !config_header(cfg, "connection"))
        len += (size_t)snprintf(req + len, cap - len, "Connection: close\r\n");
    len += (size_t)snprintf(req + len, cap - len, "\r\n");
    if (cfg->body_len) memcpy(req + len, cfg->body, cfg->body_len);
    *len_out = len + cfg->body_len;
    return req;
}

/* sh->text: the request -m times; 0, or -1 when out of memory. */
static int encode_http1(struct static_shared *sh, const struct config *cfg)
{
    size_t len;
    char *req = http1_text(cfg, &len);
    if (!req) return -1;
    sh->text = malloc(len * cfg->pipeline);
    if (sh->text)
        for (unsigned i = 0; i < cfg->pipeline; i++) memcpy(sh->text + i * len, req, len);
    free(req);
    if (!sh->text) return -1;
    sh->request.text = sh->text;
    sh->request.text_len = len;
    sh->request.copies = cfg->pipeline;
    sh->request.head = strcmp(cfg->method, "HEAD") == 0;
    return 0;
}

/* ---- HTTP/2 ---- */

static size_t add_string(char *pool, size_t *used, const char *s, size_t len, bool lower)
{
    size_t at = *used;
    for (size_t i = 0; i < len; i++) pool[at + i] = lower ? (char)tolower((unsigned char)s[i]) : s[i];
    pool[at + len] = '\0';
    *used += len + 1;
    return at;
}

/* Header fields that HTTP/2 forbids (RFC 9113 8.2.2) or carries as pseudo-headers. */
static bool dropped_header(const char *name, size_t len)
{
    static const char *const names[] = {"connection", "keep-alive", "proxy-connection", "transfer-encoding",
                                        "upgrade", "host"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i]) == len && strncasecmp(names[i], name, len) == 0) return true;
    return false;
}

/* Appends the field name: value to sh's pool and fields. */
static void add_field(struct static_shared *sh, size_t *used, const char *name, size_t name_len, const char *value,
                      size_t value_len)
{
    size_t n = add_string(sh->strings, used, name, name_len, true);
    size_t v = add_string(sh->strings, used, value, value_len, false);
    nghttp2_nv *nv = &sh->nva[sh->request.field_count++];
    nv->name = (uint8_t *)(sh->strings + n);
    nv->namelen = name_len;
    nv->value = (uint8_t *)(sh->strings + v);
    nv->valuelen = value_len;
    /* the strings live as long as the run: nghttp2 need not copy them for every request */
    nv->flags = NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE;
}

/* sh->nva: pseudo-headers, the -H fields HTTP/2 allows, content-length; 0 or -1 (out of memory). */
static int encode_http2(struct static_shared *sh, const struct config *cfg)
{
    char from_url[300];
    url_authority(cfg->host, cfg->port, cfg->tls, from_url, sizeof from_url);
    /* -H 'Host: ...' becomes :authority, as HTTP/1.1's Host header would be */
    const char *host = config_header(cfg, "host"), *authority = host ? host : from_url;
    size_t cap = strlen(cfg->method) + strlen(cfg->path) + strlen(authority) + 128;
    for (unsigned i = 0; i < cfg->header_count; i++) cap += strlen(cfg->headers[i]) + 2;
    sh->strings = malloc(cap);
    sh->nva = calloc(cfg->header_count + 6, sizeof *sh->nva);
    if (!sh->strings || !sh->nva) return -1;
    size_t used = 0;
    const char *pseudo[][2] = {{":method", cfg->method},
                               {":scheme", cfg->tls ? "https" : "http"},
                               {":authority", authority},
                               {":path", cfg->path}};
    for (size_t i = 0; i < 4; i++)
        add_field(sh, &used, pseudo[i][0], strlen(pseudo[i][0]), pseudo[i][1], strlen(pseudo[i][1]));
    for (unsigned i = 0; i < cfg->header_count; i++) {
        const char *h = cfg->headers[i], *colon = strchr(h, ':'), *v = colon + 1;
        if (dropped_header(h, (size_t)(colon - h))) continue;
        while (*v == ' ' || *v == '\t') v++;
        add_field(sh, &used, h, (size_t)(colon - h), v, strlen(v));
    }
    if (cfg->body_len > 0 && !config_header(cfg, "content-length")) {
        char len[32];
        snprintf(len, sizeof len, "%zu", cfg->body_len);
        add_field(sh, &used, "content-length", 14, len, strlen(len));
    }
    sh->request.fields = sh->nva;
    sh->request.body = (const uint8_t *)cfg->body;
    sh->request.body_len = cfg->body_len;
    return 0;
}

/* ---- the source ---- */

static void static_shared_free(void *shared)
{
    struct static_shared *sh = shared;
    if (!sh) return;
    free(sh->text);
    free(sh->nva);
    free(sh->strings);
    free(sh);
}

static void *static_shared_new(const struct config *cfg, char *err, size_t errlen)
{
    struct static_shared *sh = calloc(1, sizeof *sh);
    if (!sh || encode_http1(sh, cfg) || encode_http2(sh, cfg)) {
        snprintf(err, errlen, "out of memory");
        static_shared_free(sh);
        return NULL;
    }
    sh->request.kind = -1;
    return sh;
}

static const struct request *static_next(struct source *s, unsigned conn)
{
    (void)conn;
    return &((struct static_source *)s)->sh->request;
}

static void static_free(struct source *s)
{
    free(s);
}

static const struct source_ops static_ops = {.next = static_next, .free = static_free};

static struct source *static_source_new(const void *shared, unsigned thread, unsigned connections)
{
    (void)thread;
    (void)connections;
    struct static_source *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->base.ops = &static_ops;
    s->sh = shared;
    return &s->base;
}

const struct source_type source_static = {
    .name = "static",
    .shared_new = static_shared_new,
    .shared_free = static_shared_free,
    .source_new = static_source_new,
};
