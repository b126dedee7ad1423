/* reqbuild: one kind of request (a method, a target, a body, the -H headers)
 * encoded for HTTP/1.1 and HTTP/2 once, from which a request for any target
 * path, with one extra header field (a signed token), is written per request
 * with a few copies. The sources that vary the target or a header per
 * request (source_gen.c) use it; nothing in it is per thread.
 *
 * Ownership: reqbuild_init allocates everything a reqbuild holds; the
 * request of reqbuild_fill points into the caller's block (reqbuild_size
 * bytes, any alignment of malloc) and into the reqbuild, both of which must
 * outlive the request's outcome. */
#ifndef BARRAGE_REQBUILD_H
#define BARRAGE_REQBUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "request.h"

struct reqbuild_spec {
    const char *method;
    const char *path;      /* the fixed request's target (reqbuild.fixed) */
    const char *authority; /* host[:port] as Host and :authority (a -H Host wins) */
    bool tls;              /* :scheme https */
    const char *body;      /* NULL: none */
    size_t body_len;
};

struct reqbuild {
    char *head;      /* owned: "METHOD " */
    size_t head_len;
    char *mid;       /* owned: " HTTP/1.1\r\n" and the header lines, each with its CRLF */
    size_t mid_len;
    char *tail;      /* owned: "\r\n" and the body */
    size_t tail_len;
    nghttp2_nv *nva; /* owned: pseudo-headers (:path at PATH_FIELD) and fields, NO_COPY */
    size_t field_count;
    char *strings;   /* owned: what nva points to */
    const char *body;
    size_t body_len;
    bool head_method;
    struct request fixed; /* the request for spec.path with no extra field (its text owned) */
};

/* Encodes spec with cfg's -H headers, keep-alive and content length; 0, or
 * -1 when out of memory (free with reqbuild_free either way). */
int reqbuild_init(struct reqbuild *b, const struct config *cfg, const struct reqbuild_spec *spec);
void reqbuild_free(struct reqbuild *b);

/* One extra header field; name NULL: none. The value is prefix + token. */
struct reqbuild_extra {
    const char *name, *prefix, *token;
    size_t name_len, prefix_len, token_len;
};

/* The bytes reqbuild_fill needs for a path of path_len and extra. */
size_t reqbuild_size(const struct reqbuild *b, size_t path_len, const struct reqbuild_extra *extra);
/* Writes the request for path (path_len bytes) with extra (may be NULL) into
 * block (reqbuild_size bytes) and sets *req (kind -1, copies 1). */
void reqbuild_fill(const struct reqbuild *b, void *block, const char *path, size_t path_len,
                   const struct reqbuild_extra *extra, struct request *req);

#endif
