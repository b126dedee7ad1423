/* reqtext: HTTP/1.1 request text -> requests -> HTTP/2 header blocks (see
 * reqtext.h). The same scanner runs twice on a parse: first only counting
 * (requests, fields, decoded body bytes) to size one allocation, then filling
 * it from the set's copy of the text. */
#include "reqtext.h"

#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NUMBER_CAP 24 /* a size_t in decimal, with room to spare */
#define H2_EXTRA_NV 5 /* four pseudo-headers and an added content-length */

static const char HINT_BODY[] = "the text after the previous request is not a request: a body without Content-Length?";

/* ---- spans and characters ---- */

static struct reqtext_span span(const char *ptr, size_t len)
{
    return (struct reqtext_span){ptr, len};
}

static bool span_is(struct reqtext_span s, const char *lit)
{
    return s.len == strlen(lit) && memcmp(s.ptr, lit, s.len) == 0;
}

static bool span_is_ci(struct reqtext_span s, const char *lit)
{
    return s.len == strlen(lit) && strncasecmp(s.ptr, lit, s.len) == 0;
}

static bool is_tchar(unsigned char c)
{
    return c > 0x20 && c < 0x7f && !strchr("\"(),/:;<=>?@[\\]{}", c);
}

static bool is_ows(char c)
{
    return c == ' ' || c == '\t';
}

/* field-vchar, obs-text, space or tab: what nghttp2 lets through too */
static bool is_value_char(unsigned char c)
{
    return c == '\t' || (c >= 0x20 && c != 0x7f);
}

static bool is_target_char(unsigned char c)
{
    return c > 0x20 && c != 0x7f;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static size_t token_len(const char *p, size_t n)
{
    size_t i = 0;
    while (i < n && is_tchar((unsigned char)p[i])) i++;
    return i;
}

/* ---- errors ---- */

static void error_at(struct reqtext_error *err, const char *text, size_t at, size_t request, const char *reason)
{
    if (!err) return;
    size_t line = 1, line_start = 0;
    for (size_t i = 0; i < at; i++)
        if (text[i] == '\n') {
            line++;
            line_start = i + 1;
        }
    *err = (struct reqtext_error){reason, NULL, at, line, at - line_start + 1, request};
}

int reqtext_error_format(const struct reqtext_error *e, char *buf, size_t cap)
{
    return snprintf(buf, cap, "request %zu, line %zu, column %zu (byte %zu): %s%s%s", e->request, e->line,
                    e->column, e->offset, e->reason, e->hint ? "; " : "", e->hint ? e->hint : "");
}

/* ---- the scanner ---- */

struct scan {
    const char *text;
    size_t len, pos;
    size_t requests, fields, decoded; /* totals so far */
    struct reqtext_request *req_out;  /* NULL while only counting */
    struct reqtext_field *field_out;
    uint8_t *decoded_out;
    struct reqtext_error *err;
};

/* framing of the request whose head is being read */
struct framing {
    bool has_length, chunked;
    uint64_t length;
};

static size_t offset_of(const struct scan *s, const char *p)
{
    return (size_t)(p - s->text);
}

static bool fail(struct scan *s, size_t at, const char *reason)
{
    error_at(s->err, s->text, at, s->requests + 1, reason);
    return false;
}

/* The line at s->pos without its CRLF or LF, and moves past it; a text that
 * ends first fails with the reason given, a CR inside the line fails too. */
static bool next_line(struct scan *s, struct reqtext_span *line, const char *unended)
{
    const char *start = s->text + s->pos;
    const char *lf = s->pos < s->len ? memchr(start, '\n', s->len - s->pos) : NULL;
    if (!lf) return fail(s, s->len, unended);
    size_t n = (size_t)(lf - start);
    if (n && start[n - 1] == '\r') n--;
    const char *cr = n ? memchr(start, '\r', n) : NULL;
    if (cr) return fail(s, offset_of(s, cr), "a CR not followed by LF");
    *line = span(start, n);
    s->pos = offset_of(s, lf) + 1;
    return true;
}

static void skip_empty_lines(struct scan *s)
{
    for (;;) {
        size_t left = s->len - s->pos;
        if (left >= 1 && s->text[s->pos] == '\n') s->pos++;
        else if (left >= 2 && s->text[s->pos] == '\r' && s->text[s->pos + 1] == '\n') s->pos += 2;
        else return;
    }
}

static bool parse_request_line(struct scan *s, struct reqtext_span line, struct reqtext_request *r)
{
    size_t at = offset_of(s, line.ptr), m = token_len(line.ptr, line.len);
    if (m == 0) return fail(s, at, "the request line does not start with a method (a token)");
    if (m == line.len) return fail(s, at + m, "nothing after the method");
    if (line.ptr[m] != ' ') return fail(s, at + m, "invalid character in the method");
    const char *t = line.ptr + m + 1;
    size_t rest = line.len - m - 1, n = 0;
    while (n < rest && is_target_char((unsigned char)t[n])) n++;
    if (n == 0) return fail(s, at + m + 1, "no request-target after the method");
    if (n == rest) return fail(s, at + m + 1 + n, "no HTTP version after the request-target");
    if (t[n] != ' ') return fail(s, at + m + 1 + n, "invalid character in the request-target");
    r->method = span(line.ptr, m);
    r->target = span(t, n);
    r->version = span(t + n + 1, rest - n - 1);
    if (span_is(r->version, "HTTP/1.1") || span_is(r->version, "HTTP/1.0")) return true;
    return fail(s, offset_of(s, r->version.ptr), "the HTTP version is not HTTP/1.1 or HTTP/1.0");
}

/* One "name: value" line. */
static bool parse_field(struct scan *s, struct reqtext_span line, struct reqtext_field *f)
{
    size_t at = offset_of(s, line.ptr), n = token_len(line.ptr, line.len);
    const char *colon = memchr(line.ptr, ':', line.len);
    if (is_ows(line.ptr[0])) return fail(s, at, "a line starting with whitespace (obs-fold) is not allowed");
    if (!colon) return fail(s, at, "a header field without a colon");
    if (line.ptr + n != colon)
        return fail(s, at + n, is_ows(line.ptr[n]) ? "whitespace between a header field name and its colon"
                                                  : "invalid character in a header field name");
    if (n == 0) return fail(s, at, "an empty header field name");
    size_t v = n + 1, end = line.len;
    while (v < end && is_ows(line.ptr[v])) v++;
    while (end > v && is_ows(line.ptr[end - 1])) end--;
    for (size_t i = v; i < end; i++)
        if (!is_value_char((unsigned char)line.ptr[i]))
            return fail(s, at + i, "a control character in a header field value");
    *f = (struct reqtext_field){span(line.ptr, n), span(line.ptr + v, end - v)};
    return true;
}

static bool note_length(struct scan *s, struct reqtext_span v, struct framing *fr)
{
    size_t at = offset_of(s, v.ptr);
    uint64_t n = 0;
    if (v.len == 0) return fail(s, at, "Content-Length is not a number");
    for (size_t i = 0; i < v.len; i++) {
        if (v.ptr[i] < '0' || v.ptr[i] > '9') return fail(s, at + i, "Content-Length is not a number");
        if (n > (UINT64_MAX - 9) / 10) return fail(s, at, "Content-Length is too large");
        n = n * 10 + (uint64_t)(v.ptr[i] - '0');
    }
    if (fr->has_length && fr->length != n) return fail(s, at, "Content-Length repeated with another value");
    fr->has_length = true;
    fr->length = n;
    return true;
}

/* Transfer-Encoding is a list (repeated lines continue it); only one chunked. */
static bool note_coding(struct scan *s, struct reqtext_span v, struct framing *fr)
{
    bool chunked = false;
    for (size_t i = 0; i <= v.len;) {
        size_t end = i;
        while (end < v.len && v.ptr[end] != ',') end++;
        struct reqtext_span item = span(v.ptr + i, end - i);
        while (item.len && is_ows(item.ptr[0])) item = span(item.ptr + 1, item.len - 1);
        while (item.len && is_ows(item.ptr[item.len - 1])) item.len--;
        if (item.len && !span_is_ci(item, "chunked"))
            return fail(s, offset_of(s, item.ptr), "a Transfer-Encoding other than chunked is not supported");
        if (item.len && (fr->chunked || chunked)) return fail(s, offset_of(s, item.ptr), "chunked applied twice");
        chunked = chunked || item.len;
        i = end + 1;
    }
    if (!chunked && !fr->chunked) return fail(s, offset_of(s, v.ptr), "a Transfer-Encoding without chunked");
    fr->chunked = true;
    return true;
}

static bool note_field(struct scan *s, const struct reqtext_field *f, struct framing *fr, struct reqtext_request *r)
{
    if (span_is_ci(f->name, "content-length")) return note_length(s, f->value, fr);
    if (span_is_ci(f->name, "transfer-encoding")) return note_coding(s, f->value, fr);
    if (!span_is_ci(f->name, "host")) return true;
    /* a script's headers table can hold "host" beside the "Host" wrk.format adds */
    bool same = r->host.ptr && r->host.len == f->value.len && strncasecmp(r->host.ptr, f->value.ptr, r->host.len) == 0;
    if (r->host.ptr && !same) return fail(s, offset_of(s, f->name.ptr), "Host repeated with another value");
    r->host = f->value;
    return true;
}

/* Marks a failure at the start of a request as a likely body without length. */
static bool not_a_request(struct scan *s)
{
    if (s->err && s->requests > 0) s->err->hint = HINT_BODY;
    return false;
}

static bool parse_head(struct scan *s, struct reqtext_request *r, struct framing *fr)
{
    struct reqtext_span line;
    if (!next_line(s, &line, "the text ends inside the request line") || !parse_request_line(s, line, r))
        return not_a_request(s);
    r->fields = s->field_out ? s->field_out + s->fields : NULL;
    for (;;) {
        if (!next_line(s, &line, "the text ends inside the head (it ends with an empty line)")) return false;
        if (line.len == 0) return true;
        struct reqtext_field f;
        if (!parse_field(s, line, &f) || !note_field(s, &f, fr, r)) return false;
        if (s->field_out) s->field_out[s->fields] = f;
        s->fields++;
        r->field_count++;
    }
}

static bool chunk_size(struct scan *s, uint64_t *size)
{
    struct reqtext_span line;
    if (!next_line(s, &line, "the text ends inside the chunked body")) return false;
    size_t at = offset_of(s, line.ptr), i = 0;
    uint64_t n = 0;
    for (; i < line.len && hex_value(line.ptr[i]) >= 0; i++) {
        if (n >> 60) return fail(s, at, "the chunk size is too large");
        n = n * 16 + (uint64_t)hex_value(line.ptr[i]);
    }
    if (i == 0) return fail(s, at, "the chunk size is not a hexadecimal number");
    while (i < line.len && is_ows(line.ptr[i])) i++;
    if (i < line.len && line.ptr[i] != ';') return fail(s, at + i, "invalid character after the chunk size");
    *size = n;
    return true;
}

/* The CRLF or LF after a chunk's data. */
static bool chunk_end(struct scan *s)
{
    size_t left = s->len - s->pos;
    const char *p = s->text + s->pos;
    size_t n = left >= 1 && p[0] == '\n' ? 1 : left >= 2 && p[0] == '\r' && p[1] == '\n' ? 2 : 0;
    s->pos += n;
    if (n) return true;
    bool ended = left == 0 || (left == 1 && p[0] == '\r');
    return fail(s, ended ? s->len : s->pos, ended ? "the text ends inside the chunked body"
                                                  : "the chunk data is not followed by a line end");
}

static bool parse_trailers(struct scan *s, struct reqtext_request *r)
{
    for (;;) {
        struct reqtext_span line;
        struct reqtext_field f;
        if (!next_line(s, &line, "the text ends inside the trailer section (it ends with an empty line)"))
            return false;
        if (line.len == 0) return true;
        if (!parse_field(s, line, &f)) return false;
        if (r->trailer_count++ == 0) r->trailer_offset = offset_of(s, line.ptr);
    }
}

static bool parse_chunked(struct scan *s, struct reqtext_request *r)
{
    r->body = s->decoded_out ? s->decoded_out + s->decoded : NULL;
    for (;;) {
        uint64_t size;
        if (!chunk_size(s, &size)) return false;
        if (size == 0) return parse_trailers(s, r);
        if (size > s->len - s->pos) return fail(s, s->len, "the text ends inside a chunk");
        if (s->decoded_out) memcpy(s->decoded_out + s->decoded, s->text + s->pos, size);
        s->decoded += size;
        r->body_len += size;
        s->pos += size;
        if (!chunk_end(s)) return false;
    }
}

static bool parse_body(struct scan *s, struct reqtext_request *r, const struct framing *fr)
{
    r->has_content_length = fr->has_length;
    r->chunked = fr->chunked;
    if (fr->chunked && fr->has_length)
        return fail(s, offset_of(s, r->method.ptr), "both Content-Length and Transfer-Encoding");
    if (fr->chunked) return parse_chunked(s, r);
    if (fr->length > s->len - s->pos) return fail(s, s->len, "the text ends inside the body (before its Content-Length)");
    r->body = (const uint8_t *)s->text + s->pos;
    r->body_len = (size_t)fr->length;
    s->pos += r->body_len;
    return true;
}

static bool parse_request(struct scan *s)
{
    struct reqtext_request r = {0};
    struct framing fr = {0};
    size_t start = s->pos;
    if (!parse_head(s, &r, &fr) || !parse_body(s, &r, &fr)) return false;
    r.text = span(s->text + start, s->pos - start);
    if (s->req_out) s->req_out[s->requests] = r;
    s->requests++;
    return true;
}

static bool scan_all(struct scan *s)
{
    for (skip_empty_lines(s); s->pos < s->len; skip_empty_lines(s))
        if (!parse_request(s)) return false;
    return s->requests > 0 || fail(s, s->len, "no request in the text");
}

size_t reqtext_count(const char *text, size_t len, struct reqtext_error *err)
{
    struct scan s = {.text = text, .len = len, .err = err};
    return scan_all(&s) ? s.requests : 0;
}

/* ---- HTTP/2 header blocks ---- */

struct h2_build {
    const struct reqtext_set *set;
    char *strings; /* lower-cased names, numbers, paths that need a "/" */
    size_t used;
    struct reqtext_span scheme, authority;
    struct reqtext_error *err;
};

static struct reqtext_span keep(struct h2_build *b, const char *p, size_t n, bool lower)
{
    char *at = b->strings + b->used;
    for (size_t i = 0; i < n; i++) at[i] = lower && p[i] >= 'A' && p[i] <= 'Z' ? (char)(p[i] - 'A' + 'a') : p[i];
    b->used += n;
    return span(at, n);
}

static bool h2_fail(struct h2_build *b, size_t at, size_t index, const char *reason)
{
    error_at(b->err, b->set->text, at, index + 1, reason);
    return false;
}

static void put_nv(nghttp2_nv *nv, struct reqtext_span name, struct reqtext_span value)
{
    nv->name = (uint8_t *)(uintptr_t)name.ptr;
    nv->namelen = name.len;
    nv->value = (uint8_t *)(uintptr_t)value.ptr;
    nv->valuelen = value.len;
    /* the set owns the strings and outlives the frames (reqtext.h: hold it) */
    nv->flags = NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE;
}

static struct reqtext_span literal(const char *s)
{
    return span(s, strlen(s));
}

static bool is_scheme_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' || c == '-' ||
           c == '.';
}

/* Length of "scheme:" when t starts with "scheme://" (RFC 3986 3.1), else 0. */
static size_t scheme_len(struct reqtext_span t)
{
    size_t i = 0;
    while (i < t.len && is_scheme_char(t.ptr[i])) i++;
    bool letter = i > 0 && ((t.ptr[0] | 0x20) >= 'a' && (t.ptr[0] | 0x20) <= 'z');
    return letter && t.len - i >= 3 && memcmp(t.ptr + i, "://", 3) == 0 ? i + 1 : 0;
}

/* The :authority and :path of an absolute-form target. */
static void h2_absolute(struct h2_build *b, const struct reqtext_request *r, size_t scheme, struct reqtext_span *authority,
                        struct reqtext_span *path)
{
    const char *a = r->target.ptr + scheme + 2, *end = r->target.ptr + r->target.len, *p = a;
    while (p < end && *p != '/' && *p != '?' && *p != '#') p++;
    const char *at = a;
    for (const char *q = a; q < p; q++)
        if (*q == '@') at = q + 1; /* userinfo is not part of :authority */
    *authority = span(at, (size_t)(p - at));
    if (p < end && *p == '/') *path = span(p, (size_t)(end - p));
    else if (p == end) *path = literal(span_is(r->method, "OPTIONS") ? "*" : "/");
    else {
        *path = keep(b, "/", 1, false);
        path->len += keep(b, p, (size_t)(end - p), false).len;
    }
}

/* The :authority (len 0: not in the target) and :path of r's target. */
static bool h2_target(struct h2_build *b, size_t index, struct reqtext_span *authority, struct reqtext_span *path)
{
    const struct reqtext_request *r = &b->set->requests[index];
    size_t at = (size_t)(r->target.ptr - b->set->text), scheme = scheme_len(r->target);
    *authority = span(r->target.ptr, 0);
    *path = r->target;
    if (span_is(r->method, "CONNECT")) return h2_fail(b, at, index, "CONNECT is not supported over HTTP/2");
    if (r->target.ptr[0] == '/') return true;
    if (span_is(r->target, "*"))
        return span_is(r->method, "OPTIONS") || h2_fail(b, at, index, "the request-target * is only for OPTIONS");
    if (!scheme) return h2_fail(b, at, index, "the request-target is not /path, an absolute URL or * (OPTIONS)");
    h2_absolute(b, r, scheme, authority, path);
    return true;
}

static bool h2_dropped(const struct reqtext_field *f)
{
    static const char *const names[] = {"connection", "keep-alive", "proxy-connection", "transfer-encoding",
                                        "upgrade", "host"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (span_is_ci(f->name, names[i])) return true;
    return span_is_ci(f->name, "te") && !span_is_ci(f->value, "trailers");
}

static struct reqtext_span h2_length(struct h2_build *b, size_t n)
{
    char digits[NUMBER_CAP];
    int len = snprintf(digits, sizeof digits, "%zu", n);
    return keep(b, digits, (size_t)len, false);
}

/* Fills nva with request index's header block; returns its length, or 0 on error. */
static size_t h2_request(struct h2_build *b, size_t index, nghttp2_nv *nva)
{
    const struct reqtext_request *r = &b->set->requests[index];
    struct reqtext_span authority, path;
    if (!h2_target(b, index, &authority, &path)) return 0;
    if (r->trailer_count) {
        h2_fail(b, r->trailer_offset, index, "trailer fields are not sent over HTTP/2");
        return 0;
    }
    if (!authority.len) authority = r->host.len ? r->host : b->authority;
    size_t n = 0;
    put_nv(&nva[n++], literal(":method"), r->method);
    put_nv(&nva[n++], literal(":scheme"), b->scheme);
    if (authority.len) put_nv(&nva[n++], literal(":authority"), authority);
    put_nv(&nva[n++], literal(":path"), path);
    bool length_sent = false;
    for (size_t i = 0; i < r->field_count; i++) {
        const struct reqtext_field *f = &r->fields[i];
        bool length = span_is_ci(f->name, "content-length");
        if (h2_dropped(f) || (length && length_sent)) continue;
        length_sent = length_sent || length;
        put_nv(&nva[n++], keep(b, f->name.ptr, f->name.len, true), length ? h2_length(b, r->body_len) : f->value);
    }
    if (!length_sent && r->body_len) put_nv(&nva[n++], literal("content-length"), h2_length(b, r->body_len));
    return n;
}

static bool h2_build_all(struct h2_build *b, struct reqtext_h2 *h2, nghttp2_nv *nva)
{
    for (size_t i = 0; i < b->set->count; i++) {
        h2[i].nva = nva;
        h2[i].nvlen = h2_request(b, i, nva);
        if (!h2[i].nvlen) return false;
        nva += h2[i].nvlen;
    }
    return true;
}

/* ---- the set ---- */

struct layout {
    size_t requests, fields, h2, nva, text, decoded, strings, total;
};

static size_t place(struct layout *l, size_t bytes)
{
    size_t align = alignof(max_align_t), at = (l->total + align - 1) / align * align;
    l->total = at + bytes;
    return at;
}

/* Where each part of a set goes in its one allocation; false when too large. */
static bool plan(struct layout *l, const struct scan *counted, const struct reqtext_h2_opts *h2)
{
    size_t len = counted->len, n = counted->requests;
    if (len > SIZE_MAX / 64) return false; /* every count below is at most len, times small sizes */
    size_t strings = h2 ? len + n * (NUMBER_CAP + 1) + strlen(h2->scheme) + (h2->authority ? strlen(h2->authority) : 0) : 0;
    *l = (struct layout){.total = sizeof(struct reqtext_set)};
    l->requests = place(l, n * sizeof(struct reqtext_request));
    l->fields = place(l, counted->fields * sizeof(struct reqtext_field));
    l->h2 = place(l, h2 ? n * sizeof(struct reqtext_h2) : 0);
    l->nva = place(l, h2 ? (counted->fields + n * H2_EXTRA_NV) * sizeof(nghttp2_nv) : 0);
    l->text = place(l, len);
    l->decoded = place(l, counted->decoded);
    l->strings = place(l, strings);
    return true;
}

static struct reqtext_set *set_fill(char *mem, const struct layout *l, const struct scan *counted,
                                    struct reqtext_error *err)
{
    struct reqtext_set *set = (struct reqtext_set *)(void *)mem;
    memcpy(mem + l->text, counted->text, counted->len);
    struct scan s = {.text = mem + l->text,
                     .len = counted->len,
                     .req_out = (struct reqtext_request *)(void *)(mem + l->requests),
                     .field_out = (struct reqtext_field *)(void *)(mem + l->fields),
                     .decoded_out = (uint8_t *)mem + l->decoded,
                     .err = err};
    (void)scan_all(&s); /* cannot fail: the same bytes passed the counting scan */
    *set = (struct reqtext_set){s.text, s.len, s.req_out, s.requests, NULL, 1};
    return set;
}

static bool set_h2(struct reqtext_set *set, char *mem, const struct layout *l, const struct reqtext_h2_opts *o,
                   struct reqtext_error *err)
{
    struct h2_build b = {.set = set, .strings = mem + l->strings, .err = err};
    b.scheme = keep(&b, o->scheme, strlen(o->scheme), false);
    b.authority = keep(&b, o->authority ? o->authority : "", o->authority ? strlen(o->authority) : 0, false);
    struct reqtext_h2 *h2 = (struct reqtext_h2 *)(void *)(mem + l->h2);
    set->h2 = h2;
    return h2_build_all(&b, h2, (nghttp2_nv *)(void *)(mem + l->nva));
}

struct reqtext_set *reqtext_parse(const char *text, size_t len, const struct reqtext_h2_opts *h2,
                                  struct reqtext_error *err)
{
    struct scan counted = {.text = text, .len = len, .err = err};
    struct layout l;
    if (!scan_all(&counted)) return NULL;
    char *mem = plan(&l, &counted, h2) ? malloc(l.total) : NULL;
    if (!mem) {
        error_at(err, text, 0, 1, "out of memory");
        return NULL;
    }
    struct reqtext_set *set = set_fill(mem, &l, &counted, err);
    if (h2 && !set_h2(set, mem, &l, h2, err)) {
        free(mem);
        return NULL;
    }
    return set;
}

void reqtext_hold(struct reqtext_set *s)
{
    s->refs++;
}

void reqtext_release(struct reqtext_set *s)
{
    if (s && --s->refs == 0) free(s);
}

/* ---- the cache ---- */

void reqtext_cache_init(struct reqtext_cache *c, const struct reqtext_h2_opts *h2)
{
    *c = (struct reqtext_cache){.with_h2 = h2 != NULL};
    if (h2) c->h2 = *h2;
}

struct reqtext_set *reqtext_cache_get(struct reqtext_cache *c, const char *text, size_t len,
                                      struct reqtext_error *err)
{
    struct reqtext_set *set = c->set;
    if (set && set->len == len && memcmp(set->text, text, len) == 0) return set;
    set = reqtext_parse(text, len, c->with_h2 ? &c->h2 : NULL, err);
    if (!set) return NULL;
    reqtext_release(c->set);
    c->set = set;
    return set;
}

void reqtext_cache_free(struct reqtext_cache *c)
{
    reqtext_release(c->set);
    c->set = NULL;
}
