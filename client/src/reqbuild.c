/* reqbuild: a request in three HTTP/1.1 pieces around its target and its
 * extra field, and its HTTP/2 fields with :path fourth; a block holds the
 * HTTP/2 fields (copied: :path and the extra one differ per request), then
 * the path and the HTTP/1.1 text. */
#include "reqbuild.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PATH_FIELD 3

static bool forbidden_h2(const char *name, size_t len)
{
    static const char *const names[] = {"connection", "keep-alive", "proxy-connection", "transfer-encoding",
                                        "upgrade", "host"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i]) == len && strncasecmp(names[i], name, len) == 0) return true;
    return false;
}

/* " HTTP/1.1\r\n" and every header line; NULL when out of memory. */
static char *h1_mid(const struct config *cfg, const struct reqbuild_spec *spec, size_t *len)
{
    size_t cap = strlen(spec->authority) + 128;
    for (unsigned i = 0; i < cfg->header_count; i++) cap += strlen(cfg->headers[i]) + 2;
    char *m = malloc(cap);
    if (!m) return NULL;
    size_t n = (size_t)snprintf(m, cap, " HTTP/1.1\r\n");
    if (!config_header(cfg, "host")) n += (size_t)snprintf(m + n, cap - n, "Host: %s\r\n", spec->authority);
    for (unsigned i = 0; i < cfg->header_count; i++) n += (size_t)snprintf(m + n, cap - n, "%s\r\n", cfg->headers[i]);
    if (spec->body_len > 0 && !config_header(cfg, "content-length"))
        n += (size_t)snprintf(m + n, cap - n, "Content-Length: %zu\r\n", spec->body_len);
    if (!cfg->keepalive && !config_header(cfg, "connection")) n += (size_t)snprintf(m + n, cap - n, "Connection: close\r\n");
    *len = n;
    return m;
}

static void add_field(struct reqbuild *b, size_t *used, const char *name, size_t nlen, const char *value, size_t vlen)
{
    char *n = b->strings + *used, *v = n + nlen + 1;
    for (size_t i = 0; i < nlen; i++) n[i] = (char)tolower((unsigned char)name[i]);
    n[nlen] = '\0';
    memcpy(v, value, vlen);
    v[vlen] = '\0';
    *used += nlen + vlen + 2;
    b->nva[b->field_count++] = (nghttp2_nv){.name = (uint8_t *)n, .namelen = nlen, .value = (uint8_t *)v,
                                            .valuelen = vlen,
                                            .flags = NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE};
}

static int h2_fields(struct reqbuild *b, const struct config *cfg, const struct reqbuild_spec *spec)
{
    const char *host = config_header(cfg, "host"), *authority = host ? host : spec->authority;
    size_t cap = strlen(spec->method) + strlen(spec->path) + strlen(authority) + 128;
    for (unsigned i = 0; i < cfg->header_count; i++) cap += strlen(cfg->headers[i]) + 2;
    b->strings = malloc(cap);
    b->nva = calloc(cfg->header_count + 6, sizeof *b->nva);
    if (!b->strings || !b->nva) return -1;
    size_t used = 0;
    const char *pseudo[][2] = {{":method", spec->method}, {":scheme", spec->tls ? "https" : "http"},
                               {":authority", authority}, {":path", spec->path}};
    for (size_t i = 0; i < 4; i++) add_field(b, &used, pseudo[i][0], strlen(pseudo[i][0]), pseudo[i][1], strlen(pseudo[i][1]));
    for (unsigned i = 0; i < cfg->header_count; i++) {
        const char *h = cfg->headers[i], *colon = strchr(h, ':'), *v = colon + 1;
        if (forbidden_h2(h, (size_t)(colon - h))) continue;
        while (*v == ' ' || *v == '\t') v++;
        add_field(b, &used, h, (size_t)(colon - h), v, strlen(v));
    }
    if (spec->body_len > 0 && !config_header(cfg, "content-length")) {
        char len[32];
        snprintf(len, sizeof len, "%zu", spec->body_len);
        add_field(b, &used, "content-length", 14, len, strlen(len));
    }
    return 0;
}

int reqbuild_init(struct reqbuild *b, const struct config *cfg, const struct reqbuild_spec *spec)
{
    memset(b, 0, sizeof *b);
    size_t mlen = strlen(spec->method);
    b->head = malloc(mlen + 2);
    if (!b->head) return -1;
    memcpy(b->head, spec->method, mlen);
    b->head[mlen] = ' ';
    b->head_len = mlen + 1;
    b->head_method = strcmp(spec->method, "HEAD") == 0;
    b->body = spec->body;
    b->body_len = spec->body_len;
    b->mid = h1_mid(cfg, spec, &b->mid_len);
    b->tail = malloc(2 + spec->body_len);
    if (!b->mid || !b->tail || h2_fields(b, cfg, spec)) return -1;
    memcpy(b->tail, "\r\n", 2);
    if (spec->body_len) memcpy(b->tail + 2, spec->body, spec->body_len);
    b->tail_len = 2 + spec->body_len;
    /* the fixed request: its own text, the shared fields */
    size_t plen = strlen(spec->path), tlen = b->head_len + plen + b->mid_len + b->tail_len;
    uint8_t *text = malloc(tlen);
    if (!text) return -1;
    size_t at = 0;
    memcpy(text, b->head, b->head_len), at += b->head_len;
    memcpy(text + at, spec->path, plen), at += plen;
    memcpy(text + at, b->mid, b->mid_len), at += b->mid_len;
    memcpy(text + at, b->tail, b->tail_len);
    b->fixed = (struct request){.text = text, .text_len = tlen, .copies = 1, .head = b->head_method,
                                .fields = b->nva, .field_count = b->field_count,
                                .body = (const uint8_t *)b->body, .body_len = b->body_len, .kind = -1};
    return 0;
}

void reqbuild_free(struct reqbuild *b)
{
    free(b->head);
    free(b->mid);
    free(b->tail);
    free(b->nva);
    free(b->strings);
    free((void *)b->fixed.text);
    memset(b, 0, sizeof *b);
}

static size_t extra_h1_len(const struct reqbuild_extra *x)
{
    return x && x->name ? x->name_len + 2 + x->prefix_len + x->token_len + 2 : 0;
}

size_t reqbuild_size(const struct reqbuild *b, size_t path_len, const struct reqbuild_extra *extra)
{
    size_t fields = (b->field_count + 1) * sizeof(nghttp2_nv);
    size_t h2_strings = extra && extra->name ? extra->name_len + 1 + extra->prefix_len + extra->token_len + 1 : 0;
    return fields + path_len + 1 + h2_strings + b->head_len + path_len + b->mid_len + extra_h1_len(extra) + b->tail_len;
}

void reqbuild_fill(const struct reqbuild *b, void *block, const char *path, size_t path_len,
                   const struct reqbuild_extra *extra, struct request *req)
{
    nghttp2_nv *nva = block;
    memcpy(nva, b->nva, b->field_count * sizeof *nva);
    size_t count = b->field_count;
    char *p = (char *)(nva + count + 1);
    memcpy(p, path, path_len);
    p[path_len] = '\0';
    nva[PATH_FIELD].value = (uint8_t *)p;
    nva[PATH_FIELD].valuelen = path_len;
    p += path_len + 1;
    bool has_extra = extra && extra->name;
    if (has_extra) {
        char *n = p;
        for (size_t i = 0; i < extra->name_len; i++) n[i] = (char)tolower((unsigned char)extra->name[i]);
        n[extra->name_len] = '\0';
        char *v = n + extra->name_len + 1;
        memcpy(v, extra->prefix, extra->prefix_len);
        memcpy(v + extra->prefix_len, extra->token, extra->token_len);
        v[extra->prefix_len + extra->token_len] = '\0';
        nva[count++] = (nghttp2_nv){.name = (uint8_t *)n, .namelen = extra->name_len, .value = (uint8_t *)v,
                                    .valuelen = extra->prefix_len + extra->token_len,
                                    .flags = NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE};
        p = v + extra->prefix_len + extra->token_len + 1;
    }
    uint8_t *text = (uint8_t *)p, *t = text;
    memcpy(t, b->head, b->head_len), t += b->head_len;
    memcpy(t, path, path_len), t += path_len;
    memcpy(t, b->mid, b->mid_len), t += b->mid_len;
    if (has_extra) {
        memcpy(t, extra->name, extra->name_len), t += extra->name_len;
        memcpy(t, ": ", 2), t += 2;
        memcpy(t, extra->prefix, extra->prefix_len), t += extra->prefix_len;
        memcpy(t, extra->token, extra->token_len), t += extra->token_len;
        memcpy(t, "\r\n", 2), t += 2;
    }
    memcpy(t, b->tail, b->tail_len), t += b->tail_len;
    *req = (struct request){.text = text, .text_len = (size_t)(t - text), .copies = 1, .head = b->head_method,
                            .fields = nva, .field_count = count, .body = (const uint8_t *)b->body,
                            .body_len = b->body_len, .kind = -1};
}
