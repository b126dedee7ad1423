/* flow: a line at a time; a request line opens a step, indented lines add to
 * it (contract in flow.h). */
#include "flow.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileread.h"
#include "url.h"

#define FLOW_WHY_MAX 256

/* What a parse carries from line to line. */
struct flow_parser {
    struct flow *f;
    const char *name;
    unsigned lineno;
    size_t steps_cap;
    size_t var_step[FLOW_MAX_VARS]; /* the first step capturing each variable */
    char *err;
    size_t errlen;
};

/* s with every byte but printable ASCII written \xHH, into out (cut to cap):
 * a message quotes files (a binary body, a CSV) that a terminal must not run. */
static void flow_escape(const char *s, char *out, size_t cap)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = 0;
    for (; *s && n + 5 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c < 0x7f) {
            out[n++] = (char)c;
        } else {
            out[n++] = '\\', out[n++] = 'x', out[n++] = hex[c >> 4], out[n++] = hex[c & 15];
        }
    }
    out[n] = '\0';
}

static int flow_fail(struct flow_parser *p, const char *fmt, ...)
{
    char why[FLOW_WHY_MAX], safe[FLOW_WHY_MAX * 4], name[FLOW_WHY_MAX * 4];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    flow_escape(why, safe, sizeof safe);
    flow_escape(p->name, name, sizeof name);
    if (p->lineno) snprintf(p->err, p->errlen, "%s:%u: %s", name, p->lineno, safe);
    else snprintf(p->err, p->errlen, "%s: %s", name, safe);
    return -1;
}

static char *flow_dup(const char *s, size_t len)
{
    char *d = malloc(len + 1);
    if (!d) return NULL;
    memcpy(d, s, len);
    d[len] = '\0';
    return d;
}

static bool flow_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* s[0..len) without blanks around it. */
static void flow_trim(const char **s, size_t *len)
{
    while (*len && flow_blank(**s)) (*s)++, (*len)--;
    while (*len && flow_blank((*s)[*len - 1])) (*len)--;
}

/* Whether s[0..len) starts with word followed by a blank; moves past both. */
static bool flow_keyword(const char **s, size_t *len, const char *word)
{
    size_t n = strlen(word);
    if (*len <= n || memcmp(*s, word, n) != 0 || !flow_blank((*s)[n])) return false;
    *s += n, *len -= n;
    flow_trim(s, len);
    return true;
}

int flow_parse_duration(const char *s, uint64_t *us)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !(v >= 0) || v > 86400.0 * 1e6) return -1;
    double scale = !strcmp(end, "") || !strcmp(end, "s") ? 1e6
                   : !strcmp(end, "ms")                  ? 1e3
                   : !strcmp(end, "us")                  ? 1.0
                   : !strcmp(end, "m")                   ? 60e6
                                                         : -1.0;
    if (scale < 0 || v * scale > 86400e6) return -1;
    *us = (uint64_t)(v * scale + 0.5);
    return 0;
}

/* ---- templates: literal bytes and ${...} ---- */

static int flow_add_part(struct flow_parser *p, struct flow_template *t, struct flow_part part)
{
    struct flow_part *parts = realloc(t->parts, (t->part_count + 1) * sizeof *parts);
    if (!parts) return flow_fail(p, "out of memory");
    t->parts = parts;
    t->parts[t->part_count++] = part;
    return 0;
}

/* A variable captured by a step before step: its index, or -1. */
static long flow_var_before(const struct flow_parser *p, const char *name, size_t len, size_t step)
{
    for (size_t i = 0; i < p->f->var_count; i++)
        if (strlen(p->f->vars[i]) == len && !memcmp(p->f->vars[i], name, len)) return p->var_step[i] < step ? (long)i : -1;
    return -1;
}

/* ${csv:FILE:COLUMN}: the index of its column in f->csv (made on first use). */
static int flow_csv_ref(struct flow_parser *p, const char *s, size_t len, unsigned *index)
{
    const char *colon = NULL;
    for (size_t i = 0; i < len; i++)
        if (s[i] == ':') colon = s + i;
    if (!colon || colon == s || colon == s + len - 1)
        return flow_fail(p, "${csv:FILE:COLUMN} needs a file and a column");
    size_t file_len = (size_t)(colon - s), col_len = len - file_len - 1;
    struct flow *f = p->f;
    for (size_t i = 0; i < f->csv_count; i++)
        if (strlen(f->csv[i].file) == file_len && !memcmp(f->csv[i].file, s, file_len) &&
            strlen(f->csv[i].column) == col_len && !memcmp(f->csv[i].column, colon + 1, col_len)) {
            *index = (unsigned)i;
            return 0;
        }
    if (f->csv_count == FLOW_MAX_CSV) return flow_fail(p, "more than %d ${csv:...} columns", FLOW_MAX_CSV);
    struct flow_csv *c = &f->csv[f->csv_count];
    c->file = flow_dup(s, file_len);
    c->column = flow_dup(colon + 1, col_len);
    c->lineno = p->lineno;
    f->csv_count++; /* freed with the flow even when half made */
    if (!c->file || !c->column) return flow_fail(p, "out of memory");
    c->file_index = (unsigned)f->csv_file_count;
    for (size_t i = 0; i + 1 < f->csv_count; i++)
        if (!strcmp(f->csv[i].file, c->file)) c->file_index = f->csv[i].file_index;
    if (c->file_index == f->csv_file_count) f->csv_file_count++;
    *index = (unsigned)(f->csv_count - 1);
    return 0;
}

/* ${rand:A-B}: A and B decimal, A <= B. */
static int flow_rand_range(struct flow_parser *p, const char *s, size_t len, struct flow_part *part)
{
    char buf[64];
    if (len == 0 || len >= sizeof buf) return flow_fail(p, "${rand:A-B} needs two integers, A <= B");
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *dash = strchr(buf + 1, '-'), *end1, *end2;
    if (!dash) return flow_fail(p, "${rand:A-B} needs two integers, A <= B");
    *dash = '\0';
    errno = 0;
    long long lo = strtoll(buf, &end1, 10), hi = strtoll(dash + 1, &end2, 10);
    if (errno || end1 == buf || *end1 || end2 == dash + 1 || *end2 || lo > hi || hi - (unsigned long long)lo >= INT64_MAX)
        return flow_fail(p, "${rand:A-B} needs two integers, A <= B");
    part->lo = lo, part->hi = hi;
    return 0;
}

/* The variable named s[0..len) (between "${" and "}"), used in step. */
static int flow_variable(struct flow_parser *p, const char *s, size_t len, size_t step, struct flow_part *part)
{
    if (len == 4 && !memcmp(s, "user", 4)) part->kind = FLOW_USER;
    else if (len == 3 && !memcmp(s, "seq", 3)) part->kind = FLOW_SEQ;
    else if (len == 4 && !memcmp(s, "uuid", 4)) part->kind = FLOW_UUID;
    else if (len > 5 && !memcmp(s, "rand:", 5)) {
        part->kind = FLOW_RAND;
        return flow_rand_range(p, s + 5, len - 5, part);
    } else if (len > 4 && !memcmp(s, "csv:", 4)) {
        part->kind = FLOW_CSV;
        return flow_csv_ref(p, s + 4, len - 4, &part->index);
    } else {
        long v = flow_var_before(p, s, len, step);
        if (v < 0)
            return flow_fail(p, "${%.*s} is neither built in (user, seq, rand:A-B, uuid, csv:FILE:COLUMN) nor captured "
                                "by an earlier step", (int)(len > 60 ? 60 : len), s);
        part->kind = FLOW_CAPTURED;
        part->index = (unsigned)v;
    }
    return 0;
}

/* Parses s[0..len) into t, its variables those step may use. */
static int flow_template_parse(struct flow_parser *p, const char *s, size_t len, size_t step, struct flow_template *t)
{
    memset(t, 0, sizeof *t);
    if (!(t->text = flow_dup(s, len))) return flow_fail(p, "out of memory");
    t->len = len;
    size_t lit = 0;
    for (size_t i = 0; i + 1 < len; i++) {
        if (s[i] != '$' || s[i + 1] != '{') continue;
        const char *close = memchr(s + i + 2, '}', len - i - 2);
        if (!close) return flow_fail(p, "'${' without its '}'");
        if (i > lit && flow_add_part(p, t, (struct flow_part){.kind = FLOW_LITERAL, .off = lit, .len = i - lit}))
            return -1;
        struct flow_part part = {.kind = FLOW_LITERAL};
        if (flow_variable(p, s + i + 2, (size_t)(close - s) - i - 2, step, &part) || flow_add_part(p, t, part)) return -1;
        i = (size_t)(close - s);
        lit = i + 1;
    }
    if (len > lit) return flow_add_part(p, t, (struct flow_part){.kind = FLOW_LITERAL, .off = lit, .len = len - lit});
    return 0;
}

static void flow_template_free(struct flow_template *t)
{
    free(t->text);
    free(t->parts);
    memset(t, 0, sizeof *t);
}

/* ---- request lines ---- */

/* The target template: a path from '/' or a variable first; its literal parts
 * must make a target url_target accepts (each variable tried as "x"). */
static int flow_target(struct flow_parser *p, struct flow_step *st, const char *s, size_t len)
{
    if (!(len > 0 && s[0] == '/') && !(len > 1 && s[0] == '$' && s[1] == '{'))
        return flow_fail(p, "the target '%.*s' is neither a path (/...) on the URL's origin nor starts with ${NAME}",
                         (int)(len > 60 ? 60 : len), s);
    if (flow_template_parse(p, s, len, (size_t)(st - p->f->steps), &st->target)) return -1;
    char trial[8192], *normal = NULL, why[200];
    size_t at = 0;
    if (st->target.parts[0].kind != FLOW_LITERAL) trial[at++] = '/';
    for (size_t i = 0; i < st->target.part_count; i++) {
        const struct flow_part *pt = &st->target.parts[i];
        size_t n = pt->kind == FLOW_LITERAL ? pt->len : 1;
        if (at + n >= sizeof trial) return flow_fail(p, "the target is over %zu bytes", sizeof trial - 1);
        memcpy(trial + at, pt->kind == FLOW_LITERAL ? st->target.text + pt->off : "x", n);
        at += n;
    }
    trial[at] = '\0';
    if (url_target(trial, &normal, why, sizeof why)) return flow_fail(p, "bad target: %s", why);
    free(normal);
    return 0;
}

static int flow_new_step(struct flow_parser *p)
{
    struct flow *f = p->f;
    if (f->count == FLOW_MAX_STEPS) return flow_fail(p, "more than %d steps", FLOW_MAX_STEPS);
    if (f->count == p->steps_cap) {
        size_t cap = p->steps_cap ? p->steps_cap * 2 : 8;
        struct flow_step *steps = realloc(f->steps, cap * sizeof *steps);
        if (!steps) return flow_fail(p, "out of memory");
        f->steps = steps;
        p->steps_cap = cap;
    }
    memset(&f->steps[f->count++], 0, sizeof f->steps[0]);
    return 0;
}

/* `[METHOD] TARGET [@BODYFILE]` */
static int flow_request_line(struct flow_parser *p, const char *s, size_t len)
{
    const char *field[4];
    size_t flen[4], n = 0;
    for (size_t i = 0; i < len;) {
        while (i < len && flow_blank(s[i])) i++;
        if (i == len) break;
        if (n == 3) return flow_fail(p, "a request line is [METHOD] TARGET [@BODYFILE]: too many fields");
        field[n] = s + i;
        while (i < len && !flow_blank(s[i])) i++;
        flen[n] = (size_t)(s + i - field[n]);
        n++;
    }
    if (flow_new_step(p)) return -1;
    struct flow_step *st = &p->f->steps[p->f->count - 1];
    st->lineno = p->lineno;
    size_t t = field[0][0] == '/' || field[0][0] == '$' ? 0 : 1;
    if (t == 1 && url_token_span(field[0], flen[0]) != flen[0])
        return flow_fail(p, "'%.*s' is not a method (a token such as GET)", (int)(flen[0] > 40 ? 40 : flen[0]), field[0]);
    if (t >= n) return flow_fail(p, "a method without a target");
    /* the default name: METHOD TARGET as written */
    size_t name_cap = (t ? flen[0] : 3) + flen[t] + 2;
    st->method = t ? flow_dup(field[0], flen[0]) : flow_dup("GET", 3);
    st->name = malloc(name_cap);
    if (!st->method || !st->name) return flow_fail(p, "out of memory");
    snprintf(st->name, name_cap, "%s %.*s", st->method, (int)flen[t], field[t]);
    if (flow_target(p, st, field[t], flen[t])) return -1;
    if (t + 1 < n) {
        if (field[t + 1][0] != '@' || flen[t + 1] < 2)
            return flow_fail(p, "'%.*s' after the target: a body file is @FILE", (int)(flen[t + 1] > 40 ? 40 : flen[t + 1]),
                             field[t + 1]);
        st->body_raw = flen[t + 1] > 2 && field[t + 1][1] == '@';
        size_t skip = st->body_raw ? 2 : 1;
        if (!(st->body_file = flow_dup(field[t + 1] + skip, flen[t + 1] - skip))) return flow_fail(p, "out of memory");
        st->has_body = true;
    }
    return 0;
}

/* ---- a step's indented lines ---- */

static int flow_header_line(struct flow_parser *p, struct flow_step *st, const char *s, size_t len)
{
    const char *colon = memchr(s, ':', len);
    size_t name_len = colon ? (size_t)(colon - s) : 0;
    if (!colon || name_len == 0 || url_token_span(s, name_len) != name_len)
        return flow_fail(p, "'%.*s' is neither a header line (Name: value) nor one of expect, capture, think, step, body",
                         (int)(len > 60 ? 60 : len), s);
    const char *v = colon + 1;
    size_t vlen = len - name_len - 1;
    flow_trim(&v, &vlen);
    if (url_field_value_span(v, vlen) != vlen) return flow_fail(p, "a control byte in the value of header %.*s", (int)name_len, s);
    struct flow_header *h = realloc(st->headers, (st->header_count + 1) * sizeof *h);
    if (!h) return flow_fail(p, "out of memory");
    st->headers = h;
    h = &st->headers[st->header_count++];
    memset(h, 0, sizeof *h);
    if (!(h->name = flow_dup(s, name_len))) return flow_fail(p, "out of memory");
    return flow_template_parse(p, v, vlen, (size_t)(st - p->f->steps), &h->value);
}

/* The end of the bracket expression that starts at s[i] == '[' (its ']'), or len. */
static size_t flow_regex_bracket_end(const char *s, size_t len, size_t i)
{
    i++;
    if (i < len && s[i] == '^') i++;
    if (i < len && s[i] == ']') i++;
    for (; i < len && s[i] != ']'; i++) {
        if (s[i] != '[' || i + 1 >= len || !strchr(":.=", s[i + 1])) continue;
        char close = s[i + 1];
        for (i += 2; i + 1 < len && !(s[i] == close && s[i + 1] == ']'); i++) {}
        i++;
    }
    return i;
}

/* The count after a counted repetition {M}, {M,}, {,N} or {M,N} at s[*i] == '{',
 * plus one (glibc's regcomp copies the atom that often, one more for an open end),
 * with *i on its '}'; 0 if the brace starts no count (then it is a literal). */
static uint64_t flow_regex_count(const char *s, size_t len, size_t *i)
{
    uint64_t m = 0, n = 0;
    size_t j = *i + 1, digits = 0;
    for (; j < len && s[j] >= '0' && s[j] <= '9'; j++, digits++) m = m < 100000 ? m * 10 + (uint64_t)(s[j] - '0') : m;
    if (j < len && s[j] == ',')
        for (j++; j < len && s[j] >= '0' && s[j] <= '9'; j++, digits++) n = n < 100000 ? n * 10 + (uint64_t)(s[j] - '0') : n;
    if (j >= len || s[j] != '}' || !digits) return 0;
    *i = j;
    return (m > n ? m : n) + 1;
}

/* glibc's regcomp copies what a count repeats, and both it and regexec take
 * time and memory growing faster than the copies: ((a?){150}){150} took 4 GB
 * and 10 s to compile; 1,000 parts at most take 10 MB and 0.5 s to match 1 KB. */
#define FLOW_REGEX_MAX_PARTS 1000
#define FLOW_REGEX_MAX_DEPTH 32

/* What regcomp makes of an extended pattern, roughly: its atoms, each counted
 * repetition multiplying what it repeats. Returns that size, capped at
 * FLOW_REGEX_MAX_PARTS + 1 (also for groups nested deeper than
 * FLOW_REGEX_MAX_DEPTH), so that a pattern glibc would expand into gigabytes is
 * refused before regcomp sees it. */
static uint64_t flow_regex_parts(const char *s, size_t len)
{
    struct { uint64_t sum, last; } g[FLOW_REGEX_MAX_DEPTH + 1] = {{0, 0}};
    const uint64_t cap = FLOW_REGEX_MAX_PARTS + 1;
    size_t d = 0;
    for (size_t i = 0; i < len; i++) {
        uint64_t times = 0;
        switch (s[i]) {
        case '(':
            if (d == FLOW_REGEX_MAX_DEPTH) return cap;
            g[d].sum += g[d].last, g[d].last = 0;
            g[++d].sum = 0, g[d].last = 0;
            continue;
        case ')':
            if (!d) break;
            d--;
            g[d].last = g[d + 1].sum + g[d + 1].last + 1;
            continue;
        case '|': g[d].sum += g[d].last, g[d].last = 0; continue;
        case '*': case '+': case '?': times = 2; break;
        case '{': times = flow_regex_count(s, len, &i); break;
        case '[': i = flow_regex_bracket_end(s, len, i); break;
        case '\\': i++; break;
        default: break;
        }
        if (times) g[d].last = g[d].last * times;
        else g[d].sum += g[d].last, g[d].last = 1;
        if (g[d].sum > cap || g[d].last > cap) return cap;
    }
    uint64_t total = 0;
    for (size_t k = 0; k <= d; k++) total += g[k].sum + g[k].last;
    return total > cap ? cap : total;
}

/* What a regcomp error means, with what to do about it. */
static const char *flow_regex_why(int rc)
{
    switch (rc) {
    case REG_BADRPT: return "a repetition (*, +, ?, {N}) with nothing before it to repeat (a literal one: \\*, \\+, \\?, \\{)";
    case REG_EBRACE: return "a '{' without its '}' (a literal one: \\{)";
    case REG_BADBR: return "a bad count in {M,N} (numbers 0..255, M <= N)";
    case REG_EPAREN: return "unbalanced parentheses (a literal one: \\( or \\))";
    case REG_EBRACK: return "a '[' without its ']' (a literal one: \\[)";
    case REG_ERANGE: return "a bad range in [...] (its end before its start)";
    case REG_ECTYPE: return "an unknown class in [[:NAME:]] (alpha, digit, space...)";
    case REG_EESCAPE: return "a '\\' at the end";
    default: return NULL;
    }
}

/* Whether the pattern has a back-reference (\1 .. \9) outside brackets:
 * glibc matches those by backtracking, in time exponential in the body. */
static bool flow_regex_backref(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '[') i = flow_regex_bracket_end(s, len, i);
        else if (s[i] == '\\' && i + 1 < len && s[++i] >= '1' && s[i] <= '9') return true;
    }
    return false;
}

static int flow_regcomp(struct flow_parser *p, regex_t *re, const char *s, size_t len, int flags)
{
    if (flow_regex_backref(s, len))
        return flow_fail(p, "regular expression '%.*s': a back-reference (\\1..\\9) takes time exponential in the body "
                         "to match; not supported", (int)(len > 60 ? 60 : len), s);
    if (flow_regex_parts(s, len) > FLOW_REGEX_MAX_PARTS)
        return flow_fail(p, "regular expression '%.*s' too large: over %d parts once its repetitions ({M,N}) "
                         "are expanded, or groups nested deeper than %d", (int)(len > 60 ? 60 : len), s, FLOW_REGEX_MAX_PARTS, FLOW_REGEX_MAX_DEPTH);
    char *pattern = flow_dup(s, len);
    if (!pattern) return flow_fail(p, "out of memory");
    int rc = regcomp(re, pattern, REG_EXTENDED | flags);
    free(pattern);
    if (rc) {
        char why[128];
        regerror(rc, re, why, sizeof why);
        const char *plain = flow_regex_why(rc);
        return flow_fail(p, "bad regular expression '%.*s' (POSIX extended): %s", (int)(len > 60 ? 60 : len), s,
                         plain ? plain : why);
    }
    return 0;
}

/* `expect body ~` with ${...}: t parsed, its variables each written as "x"
 * into probe (to be compiled as the pattern's form); a variable must stand
 * outside groups, brackets and repeats (its value is matched as literal text,
 * which a repeat would copy as often as it counts). 0, or -1 (err set). */
static int flow_pattern_probe(struct flow_parser *p, const struct flow_template *t, char *probe, size_t cap, size_t *n)
{
    size_t at[FLOW_MAX_VARS * 4], vars = 0, len = 0;
    for (size_t i = 0; i < t->part_count; i++) {
        const struct flow_part *part = &t->parts[i];
        bool literal = part->kind == FLOW_LITERAL;
        size_t add = literal ? part->len : 1;
        if (len + add >= cap || (!literal && vars == sizeof at / sizeof at[0]))
            return flow_fail(p, "expect body ~ RE: the pattern is too long");
        if (!literal) at[vars++] = len;
        memcpy(probe + len, literal ? t->text + part->off : "x", add);
        len += add;
    }
    probe[len] = '\0';
    size_t depth = 0, v = 0;
    for (size_t i = 0; i < len && v < vars; i++) {
        size_t from = i;
        if (probe[i] == '\\') i++;
        else if (probe[i] == '[') i = flow_regex_bracket_end(probe, len, i);
        else if (probe[i] == '(') depth++;
        else if (probe[i] == ')' && depth) depth--;
        if (at[v] > from && at[v] <= i) return flow_fail(p, "expect body ~ RE: a variable inside [...] or after a '\\'");
        if (at[v] != from) continue;
        if (depth || (i + 1 < len && strchr("*+?{", probe[i + 1])))
            return flow_fail(p, "expect body ~ RE: a variable inside a group (...) or under a repeat (*, +, ?, {N}): "
                                "its value is matched as it is, outside groups and repeats");
        v++;
    }
    *n = len;
    return 0;
}

/* `expect body ~ RE` or `expect LIST` */
static int flow_expect_line(struct flow_parser *p, struct flow_step *st, const char *s, size_t len)
{
    if (flow_keyword(&s, &len, "body")) {
        if (len < 2 || s[0] != '~' || !flow_blank(s[1])) return flow_fail(p, "expect body ~ RE: '~', a blank, the pattern");
        if (st->expect_body) return flow_fail(p, "a second 'expect body' for this step");
        s += 2, len -= 2;
        flow_trim(&s, &len);
        if (!len) return flow_fail(p, "expect body ~ RE: the pattern is empty");
        if (memmem(s, len, "${", 2)) { /* variables: checked in the form they take, each as "x" */
            char probe[4096];
            size_t n = 0;
            if (flow_template_parse(p, s, len, (size_t)(st - p->f->steps), &st->body_pattern) ||
                flow_pattern_probe(p, &st->body_pattern, probe, sizeof probe, &n) ||
                flow_regcomp(p, &st->body_re, probe, n, REG_NOSUB))
                return -1;
        } else if (flow_regcomp(p, &st->body_re, s, len, REG_NOSUB)) {
            return -1;
        }
        st->expect_body = true;
        p->f->reads_body = true;
        return 0;
    }
    char why[128];
    if (st->expect_status) return flow_fail(p, "a second 'expect STATUS' for this step");
    if (expect_status_parse(&st->status, s, len, why, sizeof why)) return flow_fail(p, "expect: %s", why);
    st->expect_status = true;
    p->f->checks_status = true; /* an unexpected response's example shows the start of its body */
    return 0;
}

static bool flow_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The index of captured variable name (made on first use), captured by step. */
static int flow_var(struct flow_parser *p, const char *name, size_t len, size_t step, unsigned *index)
{
    struct flow *f = p->f;
    for (size_t i = 0; i < f->var_count; i++)
        if (strlen(f->vars[i]) == len && !memcmp(f->vars[i], name, len)) {
            *index = (unsigned)i;
            return 0;
        }
    if (f->var_count == FLOW_MAX_VARS) return flow_fail(p, "more than %d captured names", FLOW_MAX_VARS);
    if (!(f->vars[f->var_count] = flow_dup(name, len))) return flow_fail(p, "out of memory");
    p->var_step[f->var_count] = step;
    *index = (unsigned)f->var_count++;
    return 0;
}

/* `capture NAME = header:H | json:/POINTER | regex:RE` */
static int flow_capture_line(struct flow_parser *p, struct flow_step *st, const char *s, size_t len)
{
    size_t n = 0;
    while (n < len && flow_name_char(s[n])) n++;
    static const char *const builtins[] = {"user", "seq", "uuid", "rand", "csv"};
    if (n == 0 || (s[0] >= '0' && s[0] <= '9')) return flow_fail(p, "capture NAME = SOURCE: NAME is letters, digits, '_'");
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        if (strlen(builtins[i]) == n && !memcmp(builtins[i], s, n)) return flow_fail(p, "capture: '%s' is built in", builtins[i]);
    const char *rest = s + n;
    size_t rlen = len - n;
    flow_trim(&rest, &rlen);
    if (!rlen || rest[0] != '=') return flow_fail(p, "capture NAME = SOURCE: '=' missing");
    rest++, rlen--;
    flow_trim(&rest, &rlen);
    enum flow_from from;
    size_t skip;
    if (rlen > 7 && !memcmp(rest, "header:", 7)) from = FLOW_FROM_HEADER, skip = 7;
    else if (rlen > 5 && !memcmp(rest, "json:", 5)) from = FLOW_FROM_JSON, skip = 5;
    else if (rlen > 6 && !memcmp(rest, "regex:", 6)) from = FLOW_FROM_REGEX, skip = 6;
    else return flow_fail(p, "capture: the source is header:NAME, json:/POINTER or regex:RE");
    const char *arg = rest + skip;
    size_t alen = rlen - skip;
    if (from == FLOW_FROM_HEADER && url_token_span(arg, alen) != alen) return flow_fail(p, "capture: a header name is a token");
    if (from == FLOW_FROM_JSON && arg[0] != '/') return flow_fail(p, "capture: a JSON pointer starts with '/' (json:/id)");
    for (size_t i = 0, tok = 0; from == FLOW_FROM_JSON && i < alen; i++) {
        tok = arg[i] == '/' ? 0 : tok + 1;
        if (tok > FLOW_TOKEN_MAX) return flow_fail(p, "capture: a JSON pointer token over %d bytes", FLOW_TOKEN_MAX);
    }
    struct flow_capture *c = realloc(st->captures, (st->capture_count + 1) * sizeof *c);
    if (!c) return flow_fail(p, "out of memory");
    st->captures = c;
    c = &st->captures[st->capture_count];
    memset(c, 0, sizeof *c);
    c->from = from;
    c->lineno = p->lineno;
    if (!(c->arg = flow_dup(arg, alen))) return flow_fail(p, "out of memory");
    if (from == FLOW_FROM_REGEX && flow_regcomp(p, &c->re, arg, alen, 0)) {
        free(c->arg);
        return -1;
    }
    st->capture_count++;
    p->f->reads_body = true;
    return flow_var(p, s, n, (size_t)(st - p->f->steps), &c->var);
}

static int flow_step_line(struct flow_parser *p, const char *s, size_t len)
{
    if (!p->f->count) return flow_fail(p, "an indented line before the first request line");
    struct flow_step *st = &p->f->steps[p->f->count - 1];
    size_t step = p->f->count - 1;
    if (flow_keyword(&s, &len, "expect")) return flow_expect_line(p, st, s, len);
    if (flow_keyword(&s, &len, "capture")) return flow_capture_line(p, st, s, len);
    if (flow_keyword(&s, &len, "think")) {
        char d[32];
        if (len >= sizeof d) return flow_fail(p, "think: a duration such as 250ms, 1s, 500us");
        memcpy(d, s, len);
        d[len] = '\0';
        if (flow_parse_duration(d, &st->think_us)) return flow_fail(p, "think: '%s' is not a duration such as 250ms, 1s, 500us", d);
        return 0;
    }
    if (flow_keyword(&s, &len, "step")) {
        for (size_t i = 0; i < len; i++)
            if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f || s[i] == '"' || s[i] == '\\')
                return flow_fail(p, "step: a name of printable characters, no '\"' or '\\'");
        for (size_t i = 0; i < step; i++)
            if (strlen(p->f->steps[i].name) == len && !memcmp(p->f->steps[i].name, s, len))
                return flow_fail(p, "step: '%.*s' names an earlier step too", (int)(len > 60 ? 60 : len), s);
        free(st->name);
        if (!(st->name = flow_dup(s, len))) return flow_fail(p, "out of memory");
        return 0;
    }
    if (flow_keyword(&s, &len, "body")) {
        if (st->has_body) return flow_fail(p, "a second body for this step (a body line or @BODYFILE)");
        st->has_body = true;
        return flow_template_parse(p, s, len, step, &st->body);
    }
    return flow_header_line(p, st, s, len);
}

/* One line (no newline, CR dropped). */
static int flow_line(struct flow_parser *p, const char *s, size_t len)
{
    if (memchr(s, '\0', len)) return flow_fail(p, "a NUL byte");
    const char *t = s;
    size_t tlen = len;
    flow_trim(&t, &tlen);
    if (tlen == 0 || t[0] == '#') return 0;
    for (size_t i = 0; i < tlen; i++)
        if ((unsigned char)t[i] < 0x20 && t[i] != '\t') return flow_fail(p, "a control byte (0x%02x)", (unsigned char)t[i]);
    return flow_blank(s[0]) ? flow_step_line(p, t, tlen) : flow_request_line(p, t, tlen);
}

/* Default step names are unique (a duplicate gets " #N", N its step number). */
static int flow_unique_names(struct flow_parser *p)
{
    struct flow *f = p->f;
    for (size_t i = 1; i < f->count; i++)
        for (size_t j = 0; j < i; j++) {
            if (strcmp(f->steps[i].name, f->steps[j].name)) continue;
            size_t n = strlen(f->steps[i].name) + 16;
            char *name = malloc(n);
            if (!name) return flow_fail(p, "out of memory");
            snprintf(name, n, "%s #%zu", f->steps[i].name, i + 1);
            free(f->steps[i].name);
            f->steps[i].name = name;
            break;
        }
    return 0;
}

int flow_parse(struct flow *f, const char *text, size_t len, const char *name, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    struct flow_parser p = {.f = f, .name = name, .err = err, .errlen = errlen};
    int rc = 0;
    for (size_t at = 0; at < len && rc == 0;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - text) : len, line_len = end - at;
        p.lineno++;
        if (line_len && text[at + line_len - 1] == '\r') line_len--;
        rc = flow_line(&p, text + at, line_len);
        at = end + 1;
    }
    if (rc == 0 && f->count == 0) {
        p.lineno = 0;
        rc = flow_fail(&p, "no step (a request line such as GET /items)");
    }
    if (rc == 0) rc = flow_unique_names(&p);
    if (rc) flow_free(f);
    return rc;
}

/* ---- files: bodies and CSV columns ---- */

/* path's folder joined with file (file as is when absolute). */
static void flow_path(char *out, size_t cap, const char *path, const char *file)
{
    const char *slash = strrchr(path, '/');
    if (file[0] == '/' || !slash) snprintf(out, cap, "%s", file);
    else snprintf(out, cap, "%.*s%s", (int)(slash - path + 1), path, file);
}

/* One CSV field at *at (quoted "" or bare, up to ',' or end), unescaped in
 * place from its first byte and NUL-terminated (the unescaped field is never
 * longer than its text, and its end is a ',' or the line's end, both read
 * before they are written); *at moves past its ','. Returns the field. */
static char *flow_csv_field(char **at, char *end)
{
    char *s = *at, *field = s, *w = s;
    if (s < end && *s == '"') {
        for (s++; s < end; s++) {
            if (*s == '"' && s + 1 < end && s[1] == '"') s++;
            else if (*s == '"') {
                s++;
                break;
            }
            *w++ = *s;
        }
        while (s < end && *s != ',') s++;
    } else {
        for (; s < end && *s != ','; s++) *w++ = *s;
    }
    if (w > field && w[-1] == '\r') w--;
    *at = s < end ? s + 1 : s;
    *w = '\0';
    return field;
}

/* The index of every column of file index fi (a name of header line [line,
 * end), else a number from 1) into col[k], -1 for none; the line is unescaped
 * in place. */
static void flow_csv_columns(const struct flow *f, unsigned fi, char *line, char *end, long *col)
{
    long count = 0;
    for (size_t k = 0; k < f->csv_count; k++) col[k] = -1;
    char *at = line;
    do {
        const char *name = flow_csv_field(&at, end);
        for (size_t k = 0; k < f->csv_count; k++)
            if (f->csv[k].file_index == fi && col[k] < 0 && !strcmp(name, f->csv[k].column)) col[k] = count;
        count++;
    } while (at < end);
    for (size_t k = 0; k < f->csv_count; k++) {
        char *num_end;
        long number = strtol(f->csv[k].column, &num_end, 10);
        if (col[k] < 0 && *num_end == '\0' && number >= 1 && number <= count) col[k] = number - 1;
    }
}

/* The offsets of one data line's values into every column of file index fi
 * (a short line's missing fields read as ""); -1 after a control byte. */
static int flow_csv_row(struct flow_parser *p, struct flow_csv_file *cf, unsigned fi, const long *col, char *line, char *end,
                        size_t row, const char *full)
{
    long count = 0;
    char *at = line, *last = line; /* the NUL of the line's last field: a missing one's "" */
    uint32_t offsets[FLOW_MAX_CSV];
    for (size_t k = 0; k < p->f->csv_count; k++) offsets[k] = UINT32_MAX;
    do {
        char *field = flow_csv_field(&at, end);
        last = field + strlen(field);
        for (size_t k = 0; k < p->f->csv_count; k++) {
            if (p->f->csv[k].file_index != fi || col[k] != count) continue;
            size_t len = strlen(field);
            if (url_field_value_span(field, len) != len)
                return flow_fail(p, "CSV file %s, data row %zu, column '%s': a control byte (0x%02x): not sent in a request",
                                 full, row + 1, p->f->csv[k].column, (unsigned char)field[url_field_value_span(field, len)]);
            offsets[k] = (uint32_t)(field - cf->text);
        }
        count++;
    } while (at < end);
    for (size_t k = 0; k < p->f->csv_count; k++)
        if (p->f->csv[k].file_index == fi) p->f->csv[k].at[row] = offsets[k] != UINT32_MAX ? offsets[k] : (uint32_t)(last - cf->text);
    return 0;
}

/* Reads CSV file index fi once (c, its first column, names it) and fills the offsets of every column of it. */
static int flow_csv_load(struct flow_parser *p, unsigned fi, const struct flow_csv *c, const char *path)
{
    struct flow_csv_file *cf = &p->f->csv_files[fi];
    char full[4096], why[200];
    flow_path(full, sizeof full, path, c->file);
    p->lineno = c->lineno;
    if (fileread_path(full, FLOW_CSV_MAX, &cf->text, &cf->len, why, sizeof why))
        return flow_fail(p, "cannot read CSV file %s: %s", full, why);
    char *text = cf->text, *end = text + cf->len;
    if (cf->len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) text += 3; /* a UTF-8 byte-order mark */
    size_t rows = 0;
    for (char *at = text; at < end; at++) rows += *at == '\n';
    char *nl = memchr(text, '\n', (size_t)(end - text)), *line_end = nl ? nl : end;
    long col[FLOW_MAX_CSV];
    flow_csv_columns(p->f, fi, text, line_end, col);
    for (size_t k = 0; k < p->f->csv_count; k++) {
        struct flow_csv *ck = &p->f->csv[k];
        if (ck->file_index != fi) continue;
        p->lineno = ck->lineno;
        if (col[k] < 0)
            return flow_fail(p, "CSV file %s has no column '%s' (a name of its first line, or a number from 1)", full, ck->column);
        if (!(ck->at = malloc((rows + 1) * sizeof *ck->at))) return flow_fail(p, "out of memory");
    }
    p->lineno = c->lineno;
    size_t row = 0;
    for (char *line = nl ? nl + 1 : end; line < end; line = nl ? nl + 1 : end) {
        nl = memchr(line, '\n', (size_t)(end - line));
        line_end = nl ? nl : end;
        if (line_end == line || (line_end == line + 1 && *line == '\r')) continue;
        if (flow_csv_row(p, cf, fi, col, line, line_end, row, full)) return -1;
        row++;
    }
    if (row == 0) return flow_fail(p, "CSV file %s has no data row (its first line names the columns)", full);
    for (size_t k = 0; k < p->f->csv_count; k++)
        if (p->f->csv[k].file_index == fi) p->f->csv[k].rows = row;
    return 0;
}

static int flow_body_load(struct flow_parser *p, struct flow_step *st, const char *path)
{
    char full[4096], why[200], *text;
    size_t len;
    flow_path(full, sizeof full, path, st->body_file);
    p->lineno = st->lineno;
    if (fileread_path(full, FILEREAD_BODY_MAX, &text, &len, why, sizeof why))
        return flow_fail(p, "cannot read body file %s: %s", full, why);
    if (st->body_raw) { /* one literal part: the bytes as they are */
        st->body = (struct flow_template){.text = text, .len = len};
        return flow_add_part(p, &st->body, (struct flow_part){.kind = FLOW_LITERAL, .len = len});
    }
    int rc = flow_template_parse(p, text, len, (size_t)(st - p->f->steps), &st->body);
    free(text);
    return rc;
}

int flow_load(struct flow *f, const char *path, char *err, size_t errlen)
{
    char *text, why[200];
    size_t len;
    memset(f, 0, sizeof *f);
    if (fileread_path(path, FILEREAD_LIST_MAX, &text, &len, why, sizeof why)) {
        snprintf(err, errlen, "--flow %s: %s", path, why);
        return -1;
    }
    int rc = flow_parse(f, text, len, path, err, errlen);
    free(text);
    if (rc) return -1;
    struct flow_parser p = {.f = f, .name = path, .err = err, .errlen = errlen};
    for (size_t i = 0; i < f->count && rc == 0; i++)
        if (f->steps[i].body_file) {
            /* the body's variables: as the step's, checked against its captures */
            for (size_t v = 0; v < f->var_count; v++) p.var_step[v] = FLOW_MAX_STEPS;
            for (size_t s = 0; s < f->count; s++)
                for (size_t c = 0; c < f->steps[s].capture_count; c++)
                    if (p.var_step[f->steps[s].captures[c].var] > s) p.var_step[f->steps[s].captures[c].var] = s;
            rc = flow_body_load(&p, &f->steps[i], path);
        }
    for (size_t i = 0; i < f->csv_count && rc == 0; i++)
        if (!f->csv_files[f->csv[i].file_index].text) rc = flow_csv_load(&p, f->csv[i].file_index, &f->csv[i], path);
    if (rc) flow_free(f);
    return rc;
}

static void flow_step_free(struct flow_step *st)
{
    free(st->method);
    free(st->name);
    free(st->body_file);
    flow_template_free(&st->target);
    flow_template_free(&st->body);
    for (size_t i = 0; i < st->header_count; i++) {
        free(st->headers[i].name);
        flow_template_free(&st->headers[i].value);
    }
    free(st->headers);
    for (size_t i = 0; i < st->capture_count; i++) {
        free(st->captures[i].arg);
        if (st->captures[i].from == FLOW_FROM_REGEX) regfree(&st->captures[i].re);
    }
    free(st->captures);
    if (st->expect_body) regfree(&st->body_re);
    flow_template_free(&st->body_pattern);
}

void flow_free(struct flow *f)
{
    for (size_t i = 0; i < f->count; i++) flow_step_free(&f->steps[i]);
    free(f->steps);
    for (size_t i = 0; i < f->var_count; i++) free(f->vars[i]);
    for (size_t i = 0; i < f->csv_count; i++) {
        free(f->csv[i].file);
        free(f->csv[i].column);
        free(f->csv[i].at);
    }
    for (size_t i = 0; i < f->csv_file_count; i++) free(f->csv_files[i].text);
    memset(f, 0, sizeof *f);
}
