/* h2pool: nghttp2's blocks recycled per size class (contract in h2pool.h). */
#include "h2pool.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Classes every 16 bytes up to 512: a request's blocks are all small, the
 * larger ones are a connection's (its session, header tables), and rounding
 * to powers of two held 25% more memory at -c 1000. */
#define STEP 16
#define MAX_POOLED 512
#define CLASSES (MAX_POOLED / STEP) /* 16, 32, ... 512 bytes */

/* In front of every block handed out; keeps what follows it 16-byte aligned
 * (malloc's alignment). */
struct head {
    struct head *next; /* on a free list */
    size_t cap;        /* bytes after the head: a class's size, or above MAX_POOLED: a large block */
};

_Static_assert(sizeof(struct head) == 16, "a block's head keeps malloc's 16-byte alignment");

struct h2pool {
    struct head *free[CLASSES];
    size_t in_use, held;
    unsigned refs;
};

/* the pool of this thread's sessions, while one holds it */
static _Thread_local struct h2pool *thread_pool;

/* The class of a block of size bytes (at most MAX_POOLED), and its size. */
static unsigned class_of(size_t size)
{
    return size ? (unsigned)((size - 1) / STEP) : 0;
}

static size_t class_size(unsigned c)
{
    return (size_t)(c + 1) * STEP;
}

static void *pool_malloc(size_t size, void *user)
{
    struct h2pool *p = user;
    struct head *h;
    if (size > MAX_POOLED) {
        if (!(h = malloc(sizeof *h + size))) return NULL;
        h->cap = size;
    } else {
        unsigned c = class_of(size);
        if ((h = p->free[c])) {
            p->free[c] = h->next;
        } else {
            size_t cap = class_size(c);
            if (!(h = malloc(sizeof *h + cap))) return NULL;
            h->cap = cap;
            p->held++;
        }
    }
    p->in_use++;
    return h + 1;
}

static void pool_free(void *ptr, void *user)
{
    struct h2pool *p = user;
    if (!ptr) return;
    struct head *h = (struct head *)ptr - 1;
    p->in_use--;
    if (h->cap > MAX_POOLED) {
        free(h);
        return;
    }
    unsigned c = class_of(h->cap);
    h->next = p->free[c];
    p->free[c] = h;
}

static void *pool_calloc(size_t n, size_t size, void *user)
{
    if (size && n > SIZE_MAX / size) return NULL;
    void *ptr = pool_malloc(n * size, user);
    if (ptr) memset(ptr, 0, n * size);
    return ptr;
}

static void *pool_realloc(void *ptr, size_t size, void *user)
{
    if (!ptr) return pool_malloc(size, user);
    struct head *h = (struct head *)ptr - 1;
    if (size <= h->cap) return ptr;
    void *bigger = pool_malloc(size, user);
    if (!bigger) return NULL;
    memcpy(bigger, ptr, h->cap);
    pool_free(ptr, user);
    return bigger;
}

struct h2pool *h2pool_new(void)
{
    struct h2pool *p = calloc(1, sizeof *p);
    if (p) p->refs = 1;
    return p;
}

struct h2pool *h2pool_of_thread(void)
{
    if (thread_pool) {
        thread_pool->refs++;
        return thread_pool;
    }
    return thread_pool = h2pool_new();
}

nghttp2_mem h2pool_mem(struct h2pool *p)
{
    return (nghttp2_mem){.mem_user_data = p, .malloc = pool_malloc, .free = pool_free, .calloc = pool_calloc,
                         .realloc = pool_realloc};
}

size_t h2pool_in_use(const struct h2pool *p)
{
    return p->in_use;
}

size_t h2pool_held(const struct h2pool *p)
{
    return p->held;
}

void h2pool_release(struct h2pool *p)
{
    if (!p || --p->refs > 0) return;
    if (p == thread_pool) thread_pool = NULL;
    for (unsigned c = 0; c < CLASSES; c++) {
        while (p->free[c]) {
            struct head *h = p->free[c];
            p->free[c] = h->next;
            free(h);
        }
    }
    free(p);
}
