/* regexgen: a recursive-descent parser to a small tree, and a walk of the
 * tree per string. */
#include "regexgen.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "url.h"

#define FIRST_CHAR 0x21
#define LAST_CHAR 0x7e
#define SET_SIZE (LAST_CHAR - FIRST_CHAR + 1)

enum node_kind { NODE_SET, NODE_CAT, NODE_ALT, NODE_REPEAT };

struct node {
    enum node_kind kind;
    struct node **kids; /* CAT, ALT: owned */
    size_t nkids;
    struct node *kid;   /* REPEAT: owned */
    unsigned min, max;  /* REPEAT */
    char chars[SET_SIZE]; /* SET: its members */
    unsigned nchars;
    size_t max_len;
    size_t offset; /* where it starts in the pattern */
};

struct regexgen {
    struct node *root;
};

struct parser {
    const char *p, *start;
    unsigned depth;
    struct regexgen_opts opts;
    char *err;
    size_t errlen;
    bool failed;
};

static void node_free(struct node *n)
{
    if (!n) return;
    for (size_t i = 0; i < n->nkids; i++) node_free(n->kids[i]);
    free(n->kids);
    node_free(n->kid);
    free(n);
}

static struct node *fail(struct parser *ps, const char *why)
{
    if (!ps->failed) snprintf(ps->err, ps->errlen, "%s (at offset %zu)", why, (size_t)(ps->p - ps->start));
    ps->failed = true;
    return NULL;
}

static struct node *node_new(struct parser *ps, enum node_kind kind)
{
    struct node *n = calloc(1, sizeof *n);
    if (!n) return fail(ps, "out of memory");
    n->kind = kind;
    return n;
}

static bool add_kid(struct parser *ps, struct node *parent, struct node *kid)
{
    struct node **more = realloc(parent->kids, (parent->nkids + 1) * sizeof *more);
    if (!more) {
        node_free(kid);
        fail(ps, "out of memory");
        return false;
    }
    parent->kids = more;
    parent->kids[parent->nkids++] = kid;
    return true;
}

static bool visible(int c)
{
    return c >= FIRST_CHAR && c <= LAST_CHAR;
}

/* A set as a membership table over the visible characters. */
typedef bool member_t[SET_SIZE];

static void set_range(member_t m, int lo, int hi)
{
    for (int c = lo; c <= hi; c++)
        if (visible(c)) m[c - FIRST_CHAR] = true;
}

/* \d \w \D \W into m; false when c is not one of them. */
static bool class_escape(member_t m, char c)
{
    member_t tmp = {0};
    switch (c) {
    case 'd': case 'D': set_range(tmp, '0', '9'); break;
    case 'w': case 'W': set_range(tmp, '0', '9'), set_range(tmp, 'a', 'z'), set_range(tmp, 'A', 'Z'), set_range(tmp, '_', '_'); break;
    default: return false;
    }
    bool negate = c == 'D' || c == 'W';
    for (int i = 0; i < SET_SIZE; i++)
        if (tmp[i] != negate) m[i] = true;
    return true;
}

static int hex(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* One literal character at ps->p (escaped or not), past it; -1 on error. */
static int literal_char(struct parser *ps)
{
    int c = (unsigned char)*ps->p;
    if (c != '\\') {
        if (!visible(c)) return fail(ps, c ? "a character a URL target cannot hold" : "unexpected end"), -1;
        ps->p++;
        return c;
    }
    ps->p++;
    c = (unsigned char)*ps->p;
    if (c == 'x') {
        int hi = hex(ps->p[1]), lo = hi < 0 ? -1 : hex(ps->p[2]);
        if (lo < 0) return fail(ps, "bad \\x escape (\\xHH)"), -1;
        ps->p += 3;
        if (!visible(hi * 16 + lo)) return fail(ps, "a character a URL target cannot hold"), -1;
        return hi * 16 + lo;
    }
    if (!visible(c) || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        return fail(ps, c ? "unknown escape" : "a trailing backslash"), -1;
    ps->p++;
    return c;
}

/* target: '.', classes and escapes draw only what a request target holds
 * as itself (url_target_char): never '#', '%', '<', '"', '{' ... */
static struct node *set_node(struct parser *ps, const member_t m)
{
    struct node *n = node_new(ps, NODE_SET);
    if (!n) return NULL;
    for (int i = 0; i < SET_SIZE; i++)
        if (m[i] && (!ps->opts.target || url_target_char((unsigned char)(i + FIRST_CHAR))))
            n->chars[n->nchars++] = (char)(i + FIRST_CHAR);
    if (n->nchars == 0) {
        node_free(n);
        return fail(ps, "a class that matches nothing");
    }
    n->max_len = 1;
    return n;
}

/* [...] with ps->p past the '['. */
static struct node *parse_class(struct parser *ps)
{
    member_t m = {0};
    bool negate = *ps->p == '^';
    if (negate) ps->p++;
    bool first = true;
    while (*ps->p && (*ps->p != ']' || first)) {
        first = false;
        if (ps->p[0] == '\\' && class_escape(m, ps->p[1])) {
            ps->p += 2;
            continue;
        }
        int lo = literal_char(ps);
        if (lo < 0) return NULL;
        int hi = lo;
        if (ps->p[0] == '-' && ps->p[1] && ps->p[1] != ']') {
            ps->p++;
            if ((hi = literal_char(ps)) < 0) return NULL;
            if (hi < lo) return fail(ps, "a range out of order");
        }
        set_range(m, lo, hi);
    }
    if (*ps->p != ']') return fail(ps, "an unclosed [");
    ps->p++;
    if (negate)
        for (int i = 0; i < SET_SIZE; i++) m[i] = !m[i];
    return set_node(ps, m);
}

static struct node *parse_alt(struct parser *ps);

/* target: "%HH" (two hex digits as written) is one atom, the escape it is;
 * any other '%' is an error. */
static struct node *percent_escape(struct parser *ps)
{
    if (hex(ps->p[1]) < 0 || hex(ps->p[2]) < 0) return fail(ps, "a '%' not followed by two hex digits (write %25)");
    struct node *cat = node_new(ps, NODE_CAT);
    for (int i = 0; cat && i < 3; i++) {
        struct node *kid = node_new(ps, NODE_SET);
        if (!kid) break;
        kid->chars[kid->nchars++] = ps->p[i];
        kid->max_len = 1;
        kid->offset = (size_t)(ps->p - ps->start) + (size_t)i;
        if (!add_kid(ps, cat, kid)) break;
    }
    if (ps->failed) {
        node_free(cat);
        return NULL;
    }
    cat->max_len = 3;
    ps->p += 3;
    return cat;
}

static struct node *parse_atom_at(struct parser *ps);

/* An atom, its offset in the pattern noted. */
static struct node *parse_atom(struct parser *ps)
{
    size_t offset = (size_t)(ps->p - ps->start);
    struct node *n = parse_atom_at(ps);
    if (n) n->offset = offset;
    return n;
}

static struct node *parse_atom_at(struct parser *ps)
{
    char c = *ps->p;
    member_t m = {0};
    if (c == '(') {
        ps->p++;
        if (ps->p[0] == '?' && ps->p[1] == ':') ps->p += 2;
        struct node *n = parse_alt(ps);
        if (!n) return NULL;
        if (*ps->p != ')') {
            node_free(n);
            return fail(ps, "an unclosed (");
        }
        ps->p++;
        return n;
    }
    if (c == '[') {
        ps->p++;
        return parse_class(ps);
    }
    if (c == '.' && !ps->opts.literal_dot) {
        ps->p++;
        set_range(m, FIRST_CHAR, LAST_CHAR);
        return set_node(ps, m);
    }
    if (c == '\\' && class_escape(m, ps->p[1])) {
        ps->p += 2;
        return set_node(ps, m);
    }
    if (c == '*' || c == '+' || c == '?' || c == '{') return fail(ps, "nothing to repeat");
    if (c == ')') return fail(ps, "an unmatched )");
    if (ps->opts.target && c == '%') return percent_escape(ps);
    const char *at = ps->p;
    int lit = literal_char(ps);
    if (lit < 0) return NULL;
    if (ps->opts.target && !url_target_char((unsigned char)lit)) {
        ps->p = at;
        return fail(ps, "a character a request target cannot hold as itself (write it %HH)");
    }
    set_range(m, lit, lit);
    return set_node(ps, m);
}

/* A whole number of at most 4 digits at ps->p; -1 when none. */
static long parse_number(struct parser *ps)
{
    long v = 0;
    int digits = 0;
    while (*ps->p >= '0' && *ps->p <= '9' && digits < 5) v = v * 10 + (*ps->p++ - '0'), digits++;
    return digits == 0 || digits > 4 ? -1 : v;
}

/* A quantifier at ps->p into min/max; false when there is none (or on error: ps->failed). */
static bool parse_quantifier(struct parser *ps, unsigned *min, unsigned *max)
{
    char c = *ps->p;
    if (c == '?' || c == '*' || c == '+') {
        ps->p++;
        *min = c == '+';
        *max = c == '?' ? 1 : *min + ps->opts.max_repeat;
        return true;
    }
    if (c != '{') return false;
    ps->p++;
    long lo = parse_number(ps), hi = lo;
    if (lo < 0) return fail(ps, "bad {m,n}"), false;
    if (*ps->p == ',') {
        ps->p++;
        hi = *ps->p == '}' ? lo + (long)ps->opts.max_repeat : parse_number(ps);
    }
    if (hi < 0 || *ps->p != '}') return fail(ps, "bad {m,n}"), false;
    if (hi < lo) return fail(ps, "{m,n} with n below m"), false;
    ps->p++;
    *min = (unsigned)lo;
    *max = (unsigned)hi;
    return true;
}

static size_t saturate(size_t a)
{
    return a > REGEXGEN_MAX_LEN ? REGEXGEN_MAX_LEN + 1 : a;
}

static struct node *parse_repeat(struct parser *ps)
{
    if (++ps->depth > REGEXGEN_MAX_DEPTH) return fail(ps, "nested too deep");
    struct node *atom = parse_atom(ps);
    unsigned min, max;
    while (atom && parse_quantifier(ps, &min, &max)) {
        struct node *r = node_new(ps, NODE_REPEAT);
        if (!r) {
            node_free(atom);
            return NULL;
        }
        r->kid = atom;
        r->min = min;
        r->max = max;
        r->max_len = saturate(atom->max_len * max);
        atom = r;
        if (*ps->p == '?' || *ps->p == '*' || *ps->p == '+' || *ps->p == '{') {
            node_free(atom);
            return fail(ps, "a quantifier after a quantifier (lazy and possessive ones are not supported)");
        }
    }
    ps->depth--;
    if (ps->failed) {
        node_free(atom);
        return NULL;
    }
    return atom;
}

static struct node *parse_concat(struct parser *ps)
{
    struct node *cat = node_new(ps, NODE_CAT);
    while (cat && *ps->p && *ps->p != '|' && *ps->p != ')') {
        if (*ps->p == '^' || *ps->p == '$') { /* anchors: the whole string is drawn anyway */
            ps->p++;
            continue;
        }
        struct node *kid = parse_repeat(ps);
        if (!kid || !add_kid(ps, cat, kid)) {
            node_free(cat);
            return NULL;
        }
        cat->max_len = saturate(cat->max_len + kid->max_len);
    }
    return cat;
}

static struct node *parse_alt(struct parser *ps)
{
    if (++ps->depth > REGEXGEN_MAX_DEPTH) return fail(ps, "nested too deep");
    struct node *alt = node_new(ps, NODE_ALT);
    while (alt) {
        struct node *kid = parse_concat(ps);
        if (!kid || !add_kid(ps, alt, kid)) {
            node_free(alt);
            return NULL;
        }
        if (kid->max_len > alt->max_len) alt->max_len = kid->max_len;
        if (*ps->p != '|') break;
        ps->p++;
    }
    ps->depth--;
    return alt;
}

/* Whether n may draw a string that does not start with '/': the offset + 1
 * of the atom that may start it, else 0; *nullable: n may draw "". */
static size_t not_slash_first(const struct node *n, bool *nullable)
{
    bool kid_nullable;
    size_t bad;
    *nullable = false;
    switch (n->kind) {
    case NODE_SET:
        return n->nchars == 1 && n->chars[0] == '/' ? 0 : n->offset + 1;
    case NODE_CAT:
        for (size_t i = 0; i < n->nkids; i++) {
            if ((bad = not_slash_first(n->kids[i], &kid_nullable))) return bad;
            if (!kid_nullable) return 0;
        }
        *nullable = true;
        return 0;
    case NODE_ALT:
        for (size_t i = 0; i < n->nkids; i++) {
            if ((bad = not_slash_first(n->kids[i], &kid_nullable))) return bad;
            *nullable |= kid_nullable;
        }
        return 0;
    case NODE_REPEAT:
        if (n->max == 0) return *nullable = true, 0;
        bad = not_slash_first(n->kid, &kid_nullable);
        *nullable = n->min == 0 || kid_nullable;
        return bad;
    }
    return 0;
}

/* target: every string drawn starts with '/'; 0, or -1 with err. */
static int check_slash_first(const struct node *root, char *err, size_t errlen)
{
    bool nullable;
    size_t bad = not_slash_first(root, &nullable);
    if (bad) snprintf(err, errlen, "a drawn target may start here, not with / (at offset %zu)", bad - 1);
    else if (nullable) snprintf(err, errlen, "the pattern may draw an empty target, without its / (at offset 0)");
    return bad || nullable ? -1 : 0;
}

struct regexgen *regexgen_new(const char *pattern, char *err, size_t errlen)
{
    const struct regexgen_opts opts = {.max_repeat = REGEXGEN_REPEAT_CAP};
    return regexgen_new_opts(pattern, &opts, err, errlen);
}

struct regexgen *regexgen_new_opts(const char *pattern, const struct regexgen_opts *opts, char *err, size_t errlen)
{
    struct parser ps = {.p = pattern, .start = pattern, .err = err, .errlen = errlen, .opts = *opts};
    if (ps.opts.max_repeat > REGEXGEN_MAX_REPEAT) ps.opts.max_repeat = REGEXGEN_MAX_REPEAT;
    struct node *root = parse_alt(&ps);
    if (root && *ps.p) {
        node_free(root);
        root = fail(&ps, "an unmatched )");
    }
    if (root && ps.opts.target && check_slash_first(root, err, errlen)) {
        node_free(root);
        return NULL;
    }
    if (root && root->max_len > REGEXGEN_MAX_LEN) {
        node_free(root);
        snprintf(err, errlen, "the pattern draws strings longer than %d bytes", REGEXGEN_MAX_LEN);
        return NULL;
    }
    struct regexgen *g = root ? malloc(sizeof *g) : NULL;
    if (!g) {
        if (root) snprintf(err, errlen, "out of memory");
        node_free(root);
        return NULL;
    }
    g->root = root;
    return g;
}

void regexgen_free(struct regexgen *g)
{
    if (!g) return;
    node_free(g->root);
    free(g);
}

size_t regexgen_max_len(const struct regexgen *g)
{
    return g->root->max_len;
}

static size_t generate(const struct node *n, struct rng *r, char *out)
{
    size_t len = 0;
    switch (n->kind) {
    case NODE_SET:
        out[0] = n->chars[n->nchars == 1 ? 0 : rng_below(r, n->nchars)];
        return 1;
    case NODE_CAT:
        for (size_t i = 0; i < n->nkids; i++) len += generate(n->kids[i], r, out + len);
        return len;
    case NODE_ALT:
        return generate(n->kids[n->nkids == 1 ? 0 : rng_below(r, n->nkids)], r, out);
    case NODE_REPEAT: {
        uint64_t count = n->min + (n->max > n->min ? rng_below(r, n->max - n->min + 1) : 0);
        for (uint64_t i = 0; i < count; i++) len += generate(n->kid, r, out + len);
        return len;
    }
    }
    return 0;
}

size_t regexgen_generate(const struct regexgen *g, struct rng *r, char *out)
{
    return generate(g->root, r, out);
}
