/* http1: the HTTP/1.1 session (session.h) with keep-alive and pipelining. */
#ifndef BARRAGE_HTTP1_H
#define BARRAGE_HTTP1_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "session.h"

struct worker;

/* What every HTTP/1 session of a run shares, read-only. */
struct http1_shared {
    uint8_t *requests;   /* owned: the request repeated `pipeline` times */
    size_t request_len;  /* one request */
    unsigned pipeline;
    bool head;           /* HEAD requests: responses have no body */
    size_t max_header;
    uint64_t timeout_us;
    uint64_t per_connection; /* requests per connection, 0: unlimited */
};

/* Builds the request bytes from cfg; returns 0, or -1 (out of memory). */
int http1_shared_init(struct http1_shared *sh, const struct config *cfg);
void http1_shared_free(struct http1_shared *sh);
/* A session for one connection slot of worker w; NULL when out of memory.
 * sh must outlive it. Free with s->ops->free. */
struct session *http1_session_new(const struct http1_shared *sh, struct worker *w);

#endif
