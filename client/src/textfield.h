/* textfield: a script's request text (reqtext.h) written again with one
 * header field of barrage's in each of its requests, for --jwt-key with -s:
 * `Name: PREFIXVALUE` right after each request line, a value of its own per
 * request (a fresh token), and every field of that name the script wrote
 * left out (the token replaces it). The rest of the text is kept byte for
 * byte: its other fields, bodies (chunked too), the blank lines between
 * requests, its line ends (the field's own line ends in CRLF). Pure: no
 * I/O, no Lua. */
#ifndef BARRAGE_TEXTFIELD_H
#define BARRAGE_TEXTFIELD_H

#include <stddef.h>

#include "reqtext.h"

/* The value of request i's field (i from 0, in the set's order): its bytes in
 * *len, valid until the next call; NULL to give up (the write fails). */
typedef const char *(*textfield_value_fn)(void *ctx, size_t i, size_t *len);

struct textfield {
    const char *name;   /* a token (cli.c checked it) */
    const char *prefix; /* before the value, e.g. "Bearer "; "" for none */
};

/* The text of set with field f in each request, values from value(ctx, i);
 * malloc'd (the caller frees it), its length in *len. NULL when out of memory
 * or value gave up. */
char *textfield_write(const struct reqtext_set *set, const struct textfield *f, textfield_value_fn value, void *ctx,
                      size_t *len);

#endif
