/* regexgen: strings drawn from a regular expression's language, for
 * --rand-url. The syntax: literals, '.', classes [a-z0-9_] and [^...],
 * escapes (\d \w \D \W, \xHH, \ before any punctuation), groups (...) and
 * (?:...), alternation |, and the quantifiers ? * + {m} {m,} {m,n}; ^ and $
 * match the empty string. Every character drawn is visible ASCII (0x21 to
 * 0x7e: what a request target may hold): '.' and negated classes draw from
 * those, and a literal outside them is an error. An unbounded repeat (*, +,
 * {m,}) draws at most REGEXGEN_REPEAT_CAP (or max_repeat) more than its minimum. Alternatives
 * are drawn with equal odds, counts uniformly, class members uniformly.
 * Same pattern and same generator state: the same string. Errors name the
 * pattern's offset: "why (at offset N)".
 * Ownership: regexgen_new's result is the caller's (regexgen_free). */
#ifndef BARRAGE_REGEXGEN_H
#define BARRAGE_REGEXGEN_H

#include <stdbool.h>
#include <stddef.h>

#include "rng.h"

#define REGEXGEN_REPEAT_CAP 8   /* the default of regexgen_opts.max_repeat */
#define REGEXGEN_MAX_REPEAT 100 /* its highest */
#define REGEXGEN_MAX_LEN 8192 /* the longest string a pattern may produce */
#define REGEXGEN_MAX_DEPTH 64 /* nested groups and quantifiers */

struct regexgen;

/* The compiled pattern, or NULL with "why (at offset N)" in err. */
struct regexgen *regexgen_new(const char *pattern, char *err, size_t errlen);
struct regexgen_opts {
    unsigned max_repeat; /* an unbounded repeat draws at most this many more than its minimum
                            (REGEXGEN_REPEAT_CAP in regexgen_new; at most REGEXGEN_MAX_REPEAT) */
    bool literal_dot;    /* a bare '.' is a dot, as in oha's --rand-regex-url ('\.' too) */
    bool target;         /* strings are request targets (--rand-url): every one starts with '/'; '.',
                            classes and escapes draw only what a target holds as itself (url.h's
                            url_target_char: no '#', '%', '<', '"', '{' ...); a literal outside those
                            is an error but "%HH" (two hex digits as written), one atom */
};
/* regexgen_new with other options. */
struct regexgen *regexgen_new_opts(const char *pattern, const struct regexgen_opts *opts, char *err, size_t errlen);
void regexgen_free(struct regexgen *g);
/* The longest string the pattern produces (<= REGEXGEN_MAX_LEN). */
size_t regexgen_max_len(const struct regexgen *g);
/* Draws one string into out (regexgen_max_len bytes at least; no NUL added);
 * returns its length. */
size_t regexgen_generate(const struct regexgen *g, struct rng *r, char *out);

#endif
