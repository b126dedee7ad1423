/* buffer: a growable byte buffer that sessions reuse from response to
 * response (collecting headers and bodies for a script's response()), so it
 * allocates only when a response is larger than any before it. */
#ifndef BARRAGE_BUFFER_H
#define BARRAGE_BUFFER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct buffer {
    uint8_t *data; /* owned: free with buffer_free */
    size_t len, cap;
};

/* Room for len more bytes, doubling; false (unchanged) when out of memory. */
static inline bool buffer_reserve(struct buffer *b, size_t len)
{
    if (b->len + len <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 1024;
    while (cap < b->len + len) cap *= 2;
    uint8_t *bigger = realloc(b->data, cap);
    if (!bigger) return false;
    b->data = bigger;
    b->cap = cap;
    return true;
}

/* Appends len bytes; false (unchanged) when out of memory. */
static inline bool buffer_add(struct buffer *b, const void *data, size_t len)
{
    if (!buffer_reserve(b, len)) return false;
    if (len) memcpy(b->data + b->len, data, len);
    b->len += len;
    return true;
}

static inline void buffer_free(struct buffer *b)
{
    free(b->data);
    *b = (struct buffer){0};
}

/* A buffer kept from use to use only up to this size: a larger one (a big
 * response collected) is freed once used, not held for the run. */
#define BUFFER_KEEP ((size_t)1 << 20)

static inline void buffer_trim(struct buffer *b)
{
    if (b->cap > BUFFER_KEEP) buffer_free(b);
}

#endif
