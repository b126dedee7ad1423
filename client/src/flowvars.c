/* flowvars: templates written out, captures, the body check (contract in
 * flowvars.h). The JSON reader walks only as far as the pointer leads,
 * skipping what it passes; it never recurses deeper than FLOWVARS_DEPTH. */
#include "flowvars.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "url.h"

#define FLOWVARS_DEPTH 64

int flowvars_append(struct flowvars_buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1) cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) return -1;
        b->p = p;
        b->cap = cap;
    }
    if (n) memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
    return 0;
}

void flowvars_buf_free(struct flowvars_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

static int flowvars_uuid(struct rng *rng, struct flowvars_buf *out)
{
    uint8_t b[16];
    for (int i = 0; i < 16; i += 8) {
        uint64_t r = rng_next(rng);
        memcpy(b + i, &r, 8);
    }
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
    char s[37];
    snprintf(s, sizeof s, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3],
             b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    return flowvars_append(out, s, 36);
}

static int flowvars_number(int64_t v, struct flowvars_buf *out)
{
    char s[24];
    int n = snprintf(s, sizeof s, "%lld", (long long)v);
    return flowvars_append(out, s, (size_t)n);
}

static int flowvars_part(const struct flow_template *t, const struct flow_part *p, const struct flowvars_env *env,
                         struct flowvars_buf *out)
{
    switch (p->kind) {
    case FLOW_LITERAL: return flowvars_append(out, t->text + p->off, p->len);
    case FLOW_CAPTURED: return flowvars_append(out, env->values[p->index].p, env->values[p->index].len);
    case FLOW_USER: return flowvars_number(env->user, out);
    case FLOW_SEQ: return flowvars_number((int64_t)env->seq, out);
    case FLOW_RAND: return flowvars_number(p->lo + (int64_t)rng_below(env->rng, (uint64_t)(p->hi - p->lo) + 1), out);
    case FLOW_UUID: return flowvars_uuid(env->rng, out);
    case FLOW_CSV: {
        const struct flow_csv *c = &env->flow->csv[p->index];
        const char *v = c->rows ? env->flow->csv_files[c->file_index].text + c->at[(env->user - 1) % c->rows] : "";
        return flowvars_append(out, v, strlen(v));
    }
    }
    return 0;
}

int flowvars_expand(const struct flow_template *t, const struct flowvars_env *env, struct flowvars_buf *out)
{
    for (size_t i = 0; i < t->part_count; i++)
        if (flowvars_part(t, &t->parts[i], env, out)) return -1;
    return 0;
}

static bool flowvars_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int flowvars_target(const char *target, size_t len, struct flowvars_buf *out)
{
    const char *s = target, *end = target + len;
    if ((len > 7 && !strncasecmp(s, "http://", 7)) || (len > 8 && !strncasecmp(s, "https://", 8))) {
        s = memchr(s, ':', len) + 3;
        while (s < end && *s != '/' && *s != '?') s++;
    }
    if (s == end || *s != '/') {
        if (flowvars_append(out, "/", 1)) return -1;
        if (s < end && *s == '/') s++;
    }
    static const char hex[] = "0123456789ABCDEF";
    for (; s < end; s++) {
        unsigned char c = (unsigned char)*s;
        if (url_target_char(c) || (c == '%' && end - s > 2 && flowvars_hex(s[1]) && flowvars_hex(s[2]))) {
            if (flowvars_append(out, s, 1)) return -1;
        } else {
            char e[3] = {'%', hex[c >> 4], hex[c & 15]};
            if (flowvars_append(out, e, 3)) return -1;
        }
    }
    return 0;
}

/* ---- JSON ---- */

struct flowvars_json {
    const char *s, *end;
};

static void json_ws(struct flowvars_json *j)
{
    while (j->s < j->end && (*j->s == ' ' || *j->s == '\t' || *j->s == '\n' || *j->s == '\r')) j->s++;
}

static int json_hex4(const char *s, const char *end, unsigned *v)
{
    if (end - s < 4) return -1;
    *v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
                     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                            : 16;
        if (d == 16) return -1;
        *v = *v << 4 | d;
    }
    return 0;
}

static int json_utf8(unsigned cp, struct flowvars_buf *out)
{
    char b[4];
    size_t n;
    if (cp < 0x80) b[0] = (char)cp, n = 1;
    else if (cp < 0x800) b[0] = (char)(0xc0 | cp >> 6), b[1] = (char)(0x80 | (cp & 0x3f)), n = 2;
    else if (cp < 0x10000)
        b[0] = (char)(0xe0 | cp >> 12), b[1] = (char)(0x80 | (cp >> 6 & 0x3f)), b[2] = (char)(0x80 | (cp & 0x3f)), n = 3;
    else
        b[0] = (char)(0xf0 | cp >> 18), b[1] = (char)(0x80 | (cp >> 12 & 0x3f)), b[2] = (char)(0x80 | (cp >> 6 & 0x3f)),
        b[3] = (char)(0x80 | (cp & 0x3f)), n = 4;
    return flowvars_append(out, b, n);
}

/* A string at j->s ('"'), unescaped into out when out is not NULL; 0, or -1
 * when it is not a string (or memory ran out: out's len then says nothing). */
static int json_string(struct flowvars_json *j, struct flowvars_buf *out)
{
    if (j->s >= j->end || *j->s != '"') return -1;
    for (const char *s = j->s + 1; s < j->end; s++) {
        if (*s == '"') {
            j->s = s + 1;
            return 0;
        }
        if ((unsigned char)*s < 0x20) return -1;
        if (*s != '\\') {
            if (out && flowvars_append(out, s, 1)) return -1;
            continue;
        }
        if (++s == j->end) return -1;
        const char *simple = strchr("\"\\/bfnrt", *s);
        if (*s && simple) {
            static const char to[] = "\"\\/\b\f\n\r\t";
            if (out && flowvars_append(out, &to[simple - "\"\\/bfnrt"], 1)) return -1;
            continue;
        }
        unsigned cp, lo;
        if (*s != 'u' || json_hex4(s + 1, j->end, &cp)) return -1;
        s += 4;
        if (cp >= 0xd800 && cp < 0xdc00 && j->end - s > 6 && s[1] == '\\' && s[2] == 'u' && !json_hex4(s + 3, j->end, &lo) &&
            lo >= 0xdc00 && lo < 0xe000) {
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            s += 6;
        }
        if (out && json_utf8(cp, out)) return -1;
    }
    return -1;
}

/* Skips the value at j->s (after blanks); 0 or -1 (not JSON). */
static int json_skip(struct flowvars_json *j, int depth)
{
    json_ws(j);
    if (j->s >= j->end || depth > FLOWVARS_DEPTH) return -1;
    char c = *j->s;
    if (c == '"') return json_string(j, NULL);
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        j->s++;
        json_ws(j);
        if (j->s < j->end && *j->s == close) {
            j->s++;
            return 0;
        }
        for (;;) {
            if (c == '{') {
                json_ws(j);
                if (json_string(j, NULL)) return -1;
                json_ws(j);
                if (j->s >= j->end || *j->s++ != ':') return -1;
            }
            if (json_skip(j, depth + 1)) return -1;
            json_ws(j);
            if (j->s >= j->end) return -1;
            if (*j->s == close) {
                j->s++;
                return 0;
            }
            if (*j->s++ != ',') return -1;
        }
    }
    const char *start = j->s;
    while (j->s < j->end && (strchr("+-.eE", *j->s) || (*j->s >= '0' && *j->s <= '9') || (*j->s >= 'a' && *j->s <= 'z')))
        j->s++;
    return j->s > start ? 0 : -1;
}

/* The pointer's next token (from *p, after its '/') unescaped (~0 ~1) into
 * tok; its length, or cap when it does not fit (never cut: a cut token would
 * name another member). */
static size_t json_token(const char **p, char *tok, size_t cap)
{
    size_t n = 0;
    const char *s = *p;
    for (; *s && *s != '/'; s++) {
        char c = *s;
        if (c == '~' && (s[1] == '0' || s[1] == '1')) c = *++s == '0' ? '~' : '/';
        if (n + 1 >= cap) return cap;
        tok[n++] = c;
    }
    tok[n] = '\0';
    *p = s;
    return n;
}

/* In the object at j->s ('{'), moves to the value of member tok; 0, 1 (none), -1 (not JSON). */
static int json_member(struct flowvars_json *j, const char *tok, size_t tok_len, struct flowvars_buf *key)
{
    j->s++;
    json_ws(j);
    if (j->s < j->end && *j->s == '}') return 1;
    for (;;) {
        json_ws(j);
        key->len = 0;
        if (json_string(j, key)) return -1;
        json_ws(j);
        if (j->s >= j->end || *j->s++ != ':') return -1;
        json_ws(j);
        if (key->len == tok_len && !memcmp(key->p ? key->p : "", tok, tok_len)) return 0;
        if (json_skip(j, 1)) return -1;
        json_ws(j);
        if (j->s >= j->end) return -1;
        if (*j->s == '}') return 1;
        if (*j->s++ != ',') return -1;
    }
}

/* In the array at j->s ('['), moves to element tok (decimal); 0, 1, -1. */
static int json_element(struct flowvars_json *j, const char *tok, size_t tok_len)
{
    if (tok_len == 0 || tok_len > 9 || (tok[0] == '0' && tok_len > 1)) return 1;
    long index = 0;
    for (size_t i = 0; i < tok_len; i++) {
        if (tok[i] < '0' || tok[i] > '9') return 1;
        index = index * 10 + (tok[i] - '0');
    }
    j->s++;
    json_ws(j);
    if (j->s < j->end && *j->s == ']') return 1;
    for (long i = 0;; i++) {
        json_ws(j);
        if (i == index) return 0;
        if (json_skip(j, 1)) return -1;
        json_ws(j);
        if (j->s >= j->end) return -1;
        if (*j->s == ']') return 1;
        if (*j->s++ != ',') return -1;
    }
}

int flowvars_json_pointer(const char *json, size_t len, const char *pointer, struct flowvars_buf *out)
{
    if (!json) json = "", len = 0;
    struct flowvars_json j = {json, json + len};
    struct flowvars_buf key = {0};
    char tok[FLOW_TOKEN_MAX + 1];
    int rc = 0;
    json_ws(&j);
    while (rc == 0 && *pointer == '/') {
        pointer++;
        size_t n = json_token(&pointer, tok, sizeof tok);
        json_ws(&j);
        if (j.s >= j.end || n == sizeof tok) rc = 1;
        else if (*j.s == '{') rc = json_member(&j, tok, n, &key);
        else if (*j.s == '[') rc = json_element(&j, tok, n);
        else rc = 1;
    }
    flowvars_buf_free(&key);
    if (rc) return 0; /* not there, or not JSON */
    json_ws(&j);
    out->len = 0;
    if (j.s < j.end && *j.s == '"') {
        if (json_string(&j, out)) return 0;
        return flowvars_append(out, "", 0) ? -1 : 1;
    }
    const char *start = j.s;
    if (json_skip(&j, 1)) return 0;
    return flowvars_append(out, start, (size_t)(j.s - start)) ? -1 : 1;
}

/* ---- captures and checks ---- */

/* regexec reads a NUL-terminated string (REG_STARTEND bounds the match, not
 * every reader: ASan's interceptor takes its strlen), so the body is copied
 * into into, NUL-terminated; -1 when out of memory. */
static int flowvars_terminated(const uint8_t *body, size_t len, struct flowvars_buf *into)
{
    into->len = 0;
    return flowvars_append(into, body ? (const char *)body : "", body ? len : 0);
}

bool flowvars_matches(const regex_t *re, const uint8_t *body, size_t len, struct flowvars_buf *scratch)
{
    if (flowvars_terminated(body, len, scratch)) return false;
    regmatch_t m[1] = {{.rm_so = 0, .rm_eo = (regoff_t)scratch->len}};
    return regexec(re, scratch->p, 1, m, REG_STARTEND) == 0;
}

/* Appends value to pattern as literal text: ERE's special bytes escaped; -1
 * (memory) or 1 (a NUL: no pattern can hold it). */
static int flowvars_escape(const char *value, size_t n, struct flowvars_buf *pattern)
{
    for (size_t i = 0; i < n; i++) {
        if (!value[i]) return 1;
        if (strchr(".[]{}()*+?^$|\\", value[i]) && flowvars_append(pattern, "\\", 1)) return -1;
        if (flowvars_append(pattern, value + i, 1)) return -1;
    }
    return 0;
}

int flowvars_matches_pattern(const struct flow_template *t, const struct flowvars_env *env, const uint8_t *body,
                             size_t len, struct flowvars_buf *pattern, struct flowvars_buf *scratch)
{
    pattern->len = 0;
    for (size_t i = 0; i < t->part_count; i++) {
        const struct flow_part *p = &t->parts[i];
        if (p->kind == FLOW_LITERAL) {
            if (flowvars_append(pattern, t->text + p->off, p->len)) return -1;
            continue;
        }
        scratch->len = 0;
        if (flowvars_part(t, p, env, scratch)) return -1;
        int rc = flowvars_escape(scratch->p, scratch->len, pattern);
        if (rc) return rc < 0 ? -1 : 0;
    }
    if (flowvars_append(pattern, "", 1)) return -1; /* its NUL */
    regex_t re;
    if (regcomp(&re, pattern->p, REG_EXTENDED | REG_NOSUB)) return -1;
    bool match = flowvars_matches(&re, body, len, scratch);
    regfree(&re);
    return match;
}

/* The first group (the whole match without one) of re on r's body, into out. */
static int flowvars_regex(const regex_t *re, const struct response_data *r, struct flowvars_buf *out)
{
    if (flowvars_terminated(r->body, r->body_len, out)) return -1;
    regmatch_t m[2] = {{.rm_so = 0, .rm_eo = (regoff_t)out->len}, {.rm_so = -1, .rm_eo = -1}};
    if (regexec(re, out->p, 2, m, REG_STARTEND)) return 0;
    const regmatch_t *g = re->re_nsub >= 1 && m[1].rm_so >= 0 ? &m[1] : &m[0];
    size_t n = (size_t)(g->rm_eo - g->rm_so);
    memmove(out->p, out->p + g->rm_so, n);
    out->len = n;
    out->p[n] = '\0';
    return 1;
}

static int flowvars_take(const struct flow_capture *c, const struct response_data *r, struct flowvars_buf *out);

/* A value a request may carry: no control byte (but tab), which would add
 * header lines or a whole request once written into a header field. */
static int flowvars_clean(int rc, const struct flowvars_buf *v)
{
    return rc == 1 && url_field_value_span(v->p ? v->p : "", v->len) != v->len ? 0 : rc;
}

int flowvars_capture(const struct flow_capture *c, const struct response_data *r, struct flowvars_buf *out)
{
    return flowvars_clean(flowvars_take(c, r, out), out);
}

static int flowvars_take(const struct flow_capture *c, const struct response_data *r, struct flowvars_buf *out)
{
    if (!r) return 0;
    switch (c->from) {
    case FLOW_FROM_HEADER: {
        size_t n = strlen(c->arg);
        for (size_t i = 0; i < r->header_count; i++) {
            const struct response_header *h = &r->headers[i];
            if (h->name_len != n || strncasecmp(h->name, c->arg, n)) continue;
            out->len = 0;
            return flowvars_append(out, h->value, h->value_len) ? -1 : 1;
        }
        return 0;
    }
    case FLOW_FROM_JSON: return flowvars_json_pointer((const char *)r->body, r->body_len, c->arg, out);
    case FLOW_FROM_REGEX: return flowvars_regex(&c->re, r, out);
    }
    return 0;
}
