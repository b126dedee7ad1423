/* reqtext_check: what must hold for any text given to reqtext.c, shared by
 * tests/test_reqtext.c and fuzz/fuzz_reqtext.c (both #include reqtext.c
 * first). Never crashes on any input; says what broke. */
#ifndef BARRAGE_REQTEXT_CHECK_H
#define BARRAGE_REQTEXT_CHECK_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Writes why the check failed; returns false. */
static bool check_fail(char *why, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
    return false;
}

static bool check_only_empty_lines(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\r' && i + 1 < n && p[i + 1] == '\n') i++;
        else if (p[i] != '\n') return false;
    }
    return true;
}

/* An error must point inside the text and agree with its line and column. */
static bool check_error(const char *text, size_t len, const struct reqtext_error *e, char *why, size_t cap)
{
    size_t line = 1, column = 1;
    for (size_t i = 0; i < e->offset && i < len; i++) {
        column = text[i] == '\n' ? 1 : column + 1;
        line += text[i] == '\n';
    }
    if (e->reason && e->offset <= len && e->line == line && e->column == column && e->request >= 1) return true;
    return check_fail(why, cap, "bad error: offset %zu of %zu, line %zu/%zu, column %zu/%zu", e->offset, len,
                      e->line, line, e->column, column);
}

/* Requests lie in order inside the set's text with only empty lines around
 * them; each one parses alone to the same request. */
static bool check_requests(const struct reqtext_set *set, char *why, size_t cap)
{
    const char *at = set->text, *end = set->text + set->len;
    for (size_t i = 0; i < set->count; i++) {
        const struct reqtext_request *r = &set->requests[i];
        struct reqtext_error e;
        if (r->text.ptr < at || r->text.ptr + r->text.len > end || !check_only_empty_lines(at, (size_t)(r->text.ptr - at)))
            return check_fail(why, cap, "request %zu out of place", i + 1);
        struct reqtext_set *alone = reqtext_parse(r->text.ptr, r->text.len, NULL, &e);
        bool same = alone && alone->count == 1 && alone->requests[0].field_count == r->field_count &&
                    alone->requests[0].body_len == r->body_len && alone->requests[0].text.len == r->text.len &&
                    (!r->body_len || memcmp(alone->requests[0].body, r->body, r->body_len) == 0);
        reqtext_release(alone);
        if (!same) return check_fail(why, cap, "request %zu differs when parsed alone", i + 1);
        at = r->text.ptr + r->text.len;
    }
    if (check_only_empty_lines(at, (size_t)(end - at))) return true;
    return check_fail(why, cap, "text after the last request");
}

/* Pseudo-headers first, lower-case names, no connection-specific field. */
static bool check_h2_block(const struct reqtext_h2 *h, char *why, size_t cap)
{
    static const char *const banned[] = {"connection", "keep-alive", "proxy-connection", "transfer-encoding",
                                         "upgrade", "host"};
    bool regular = false;
    for (size_t i = 0; i < h->nvlen; i++) {
        const nghttp2_nv *nv = &h->nva[i];
        bool pseudo = nv->namelen && nv->name[0] == ':';
        if (nv->namelen == 0 || (pseudo && regular)) return check_fail(why, cap, "field %zu misplaced", i);
        regular = !pseudo;
        for (size_t k = 0; k < nv->namelen; k++)
            if (nv->name[k] >= 'A' && nv->name[k] <= 'Z') return check_fail(why, cap, "upper case in field %zu", i);
        for (size_t k = 0; k < sizeof banned / sizeof banned[0]; k++)
            if (nv->namelen == strlen(banned[k]) && memcmp(nv->name, banned[k], nv->namelen) == 0)
                return check_fail(why, cap, "%s sent over HTTP/2", banned[k]);
    }
    if (h->nvlen >= 3 && h->nva[0].namelen == 7 && memcmp(h->nva[0].name, ":method", 7) == 0) return true;
    return check_fail(why, cap, "header block does not start with :method");
}

/* The whole contract on one text: count and parse agree, errors point at
 * their place, an HTTP/2 translation error is the only way a text that
 * counts can fail to parse with opts. */
static bool reqtext_check(const char *text, size_t len, const struct reqtext_h2_opts *opts, char *why, size_t cap)
{
    why[0] = '\0';
    struct reqtext_error ce, pe;
    size_t count = reqtext_count(text, len, &ce);
    struct reqtext_set *plain = reqtext_parse(text, len, NULL, &pe);
    bool ok = count ? plain && plain->count == count && check_requests(plain, why, cap)
                    : !plain && check_error(text, len, &ce, why, cap) && pe.offset == ce.offset && pe.reason == ce.reason;
    reqtext_release(plain);
    if (!ok && !why[0]) check_fail(why, cap, "count %zu and parse disagree", count);
    if (!ok || !count) return ok;
    struct reqtext_set *h2 = reqtext_parse(text, len, opts, &pe);
    if (!h2) return check_error(text, len, &pe, why, cap);
    for (size_t i = 0; ok && i < h2->count; i++) ok = check_h2_block(&h2->h2[i], why, cap);
    reqtext_release(h2);
    return ok;
}

#endif
