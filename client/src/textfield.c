/* textfield: a header field set in each request of a text (contract in textfield.h). */
#include "textfield.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A growing output; `failed` once an allocation failed. */
struct out {
    char *buf;
    size_t len, cap;
    bool failed;
};

static void out_put(struct out *o, const char *p, size_t n)
{
    if (o->failed || n == 0) return;
    if (o->len + n > o->cap) {
        size_t cap = o->cap ? o->cap : 256;
        while (cap < o->len + n) cap *= 2;
        char *b = realloc(o->buf, cap);
        if (!b) {
            o->failed = true;
            return;
        }
        o->buf = b;
        o->cap = cap;
    }
    memcpy(o->buf + o->len, p, n);
    o->len += n;
}

/* The end of the line at p (after its '\n'), within [p, end). */
static const char *line_end(const char *p, const char *end)
{
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    return nl ? nl + 1 : end;
}

/* One request: its line, the field, then the rest without the fields named f->name. */
static void request_write(struct out *o, const struct reqtext_request *r, const struct textfield *f, const char *value,
                          size_t value_len)
{
    const char *p = r->text.ptr, *end = r->text.ptr + r->text.len;
    const char *after_line = line_end(p, end);
    out_put(o, p, (size_t)(after_line - p));
    out_put(o, f->name, strlen(f->name));
    out_put(o, ": ", 2);
    out_put(o, f->prefix, strlen(f->prefix));
    out_put(o, value, value_len);
    out_put(o, "\r\n", 2);
    p = after_line;
    size_t name_len = strlen(f->name);
    for (size_t i = 0; i < r->field_count; i++) {
        const struct reqtext_field *fl = &r->fields[i];
        if (fl->name.len != name_len || strncasecmp(fl->name.ptr, f->name, name_len) != 0) continue;
        out_put(o, p, (size_t)(fl->name.ptr - p)); /* up to the field's line */
        p = line_end(fl->value.ptr + fl->value.len, end);
    }
    out_put(o, p, (size_t)(end - p));
}

char *textfield_write(const struct reqtext_set *set, const struct textfield *f, textfield_value_fn value, void *ctx,
                      size_t *len)
{
    struct out o = {0};
    const char *cursor = set->text, *end = set->text + set->len;
    for (size_t i = 0; i < set->count && !o.failed; i++) {
        const struct reqtext_request *r = &set->requests[i];
        size_t value_len;
        const char *v = value(ctx, i, &value_len);
        if (!v) {
            o.failed = true;
            break;
        }
        out_put(&o, cursor, (size_t)(r->text.ptr - cursor)); /* blank lines before it */
        request_write(&o, r, f, v, value_len);
        cursor = r->text.ptr + r->text.len;
    }
    out_put(&o, cursor, (size_t)(end - cursor));
    if (o.failed || !o.buf) {
        free(o.buf);
        return NULL;
    }
    *len = o.len;
    return o.buf;
}
