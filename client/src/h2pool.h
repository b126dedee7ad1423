/* h2pool: the memory one HTTP/2 session's nghttp2 allocates, recycled. Every
 * request makes nghttp2 allocate and free about eleven small blocks (its
 * stream, the outbound item, the copy of the header list, a buffer for each
 * literal header field received); h2pool keeps freed blocks on a free list
 * per power-of-two size class (16 to 8,192 bytes) and hands them out again,
 * so that after the first requests these cost a few instructions each
 * instead of malloc's and free's. Larger blocks go to malloc and free.
 * Memory: the blocks a session's nghttp2 ever held at once, kept until
 * h2pool_free. Not thread-safe: one pool per session, used on its thread. */
#ifndef BARRAGE_H2POOL_H
#define BARRAGE_H2POOL_H

#include <nghttp2/nghttp2.h>
#include <stddef.h>

struct h2pool;

/* A new, empty pool; NULL when out of memory. */
struct h2pool *h2pool_new(void);

/* The allocator to give nghttp2_session_client_new3: it allocates from p,
 * which must outlive every nghttp2 session made with it. */
nghttp2_mem h2pool_mem(struct h2pool *p);

/* Blocks handed out and not yet given back; blocks the pool holds (handed
 * out or on its free lists, large ones not counted). For tests. */
size_t h2pool_in_use(const struct h2pool *p);
size_t h2pool_held(const struct h2pool *p);

/* Frees the pool and the blocks on its free lists; every block must have
 * been given back (the nghttp2 sessions made with it deleted). NULL: nothing. */
void h2pool_free(struct h2pool *p);

#endif
