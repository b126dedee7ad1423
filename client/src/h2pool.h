/* h2pool: the memory one HTTP/2 session's nghttp2 allocates, recycled. Every
 * request makes nghttp2 allocate and free about eleven small blocks (its
 * stream, the outbound item, the copy of the header list, a buffer for each
 * literal header field received); h2pool keeps freed blocks on a free list
 * per size class (every 16 bytes up to 512) and hands them out again, so
 * that after the first requests these cost a few instructions each instead
 * of malloc's and free's. Larger blocks (a connection's) go to malloc and
 * free. One pool per thread, shared by the thread's sessions (as
 * malloc shares freed memory between them): its memory is the most the
 * thread's nghttp2 sessions ever held at once, kept until the last
 * reference goes. Not thread-safe: used on its thread only (or once that
 * thread has ended). */
#ifndef BARRAGE_H2POOL_H
#define BARRAGE_H2POOL_H

#include <nghttp2/nghttp2.h>
#include <stddef.h>

struct h2pool;

/* A new, empty pool with one reference; NULL when out of memory. */
struct h2pool *h2pool_new(void);

/* The calling thread's pool (made on its first call), with one more
 * reference; NULL when out of memory. */
struct h2pool *h2pool_of_thread(void);

/* The allocator to give nghttp2_session_client_new3: it allocates from p,
 * which must outlive every nghttp2 session made with it. */
nghttp2_mem h2pool_mem(struct h2pool *p);

/* Blocks handed out and not yet given back; blocks the pool holds (handed
 * out or on its free lists, large ones not counted). For tests. */
size_t h2pool_in_use(const struct h2pool *p);
size_t h2pool_held(const struct h2pool *p);

/* Gives a reference back; the last frees the pool and the blocks on its
 * free lists: every block must have been given back by then (the nghttp2
 * sessions made with it deleted). Any thread, once the pool's thread no
 * longer uses it. NULL: nothing. */
void h2pool_release(struct h2pool *p);

#endif
