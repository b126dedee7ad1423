/* collect: a response's header fields and body gathered for a source that
 * reads responses (a script's response(), ctx.collect), in buffers a session
 * keeps per stream slot and reuses from response to response. Header-only,
 * no I/O; used by http2.c and http3.c. */
#ifndef BARRAGE_COLLECT_H
#define BARRAGE_COLLECT_H

#include <stdbool.h>
#include <stddef.h>

#include "buffer.h"
#include "response.h"

/* A collected field: offsets into collect.strings (which may move as it grows). */
struct collect_at {
    size_t name, name_len, value, value_len;
};

struct collect {
    struct buffer strings, at, fields, body; /* at: struct collect_at[]; fields: struct response_header[] */
    bool failed;                             /* out of memory: reported without its data */
};

/* Empties it for the next response, keeping the memory. */
static inline void collect_reset(struct collect *c)
{
    c->strings.len = c->at.len = c->fields.len = c->body.len = 0;
    c->failed = false;
}

/* Drops the fields gathered so far (a 1xx response's are not the final ones). */
static inline void collect_reset_fields(struct collect *c)
{
    c->strings.len = c->at.len = 0;
}

static inline void collect_field(struct collect *c, const uint8_t *name, size_t name_len, const uint8_t *value,
                                 size_t value_len)
{
    struct collect_at f = {c->strings.len, name_len, c->strings.len + name_len, value_len};
    if (!buffer_add(&c->strings, name, name_len) || !buffer_add(&c->strings, value, value_len) ||
        !buffer_add(&c->at, &f, sizeof f))
        c->failed = true;
}

/* Adds what of data fits in max bytes of body (the rest is not kept; 0: no limit). */
static inline void collect_body(struct collect *c, const uint8_t *data, size_t len, size_t max)
{
    size_t room = !max ? len : c->body.len < max ? max - c->body.len : 0;
    if (!buffer_add(&c->body, data, len < room ? len : room)) c->failed = true;
}

/* The response gathered, pointing into c (valid until c changes); false
 * when out of memory. */
static inline bool collect_result(struct collect *c, struct response_data *out)
{
    size_t n = c->at.len / sizeof(struct collect_at);
    c->fields.len = 0;
    if (c->failed || !buffer_reserve(&c->fields, n * sizeof(struct response_header))) return false;
    const struct collect_at *at = (const struct collect_at *)(void *)c->at.data;
    struct response_header *fields = (struct response_header *)(void *)c->fields.data;
    const char *strings = (const char *)c->strings.data;
    for (size_t i = 0; i < n; i++)
        fields[i] = (struct response_header){strings + at[i].name, strings + at[i].value, at[i].name_len,
                                             at[i].value_len};
    *out = (struct response_data){fields, n, c->body.data, c->body.len};
    return true;
}

/* Once its response is reported: buffers over BUFFER_KEEP freed. */
static inline void collect_trim(struct collect *c)
{
    buffer_trim(&c->strings);
    buffer_trim(&c->at);
    buffer_trim(&c->fields);
    buffer_trim(&c->body);
}

static inline void collect_free(struct collect *c)
{
    buffer_free(&c->strings);
    buffer_free(&c->at);
    buffer_free(&c->fields);
    buffer_free(&c->body);
}

#endif
