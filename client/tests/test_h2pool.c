/* Unit tests of h2pool.c, through the nghttp2_mem it gives nghttp2: a freed
 * block serves the next request of any size in its class (what saves
 * malloc), blocks are 16-byte aligned, calloc zeroes a reused block, realloc
 * keeps the content, large blocks go to malloc, and the pool counts what is
 * handed out and what it holds; a thread's sessions share its pool. */
#include "../src/h2pool.c"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "tap.h"

static void test_reuse(void)
{
    struct h2pool *p = h2pool_new();
    nghttp2_mem m = h2pool_mem(p);
    void *a = m.malloc(100, m.mem_user_data);
    m.free(a, m.mem_user_data);
    void *b = m.malloc(112, m.mem_user_data); /* the same class (97-112), another size */
    TAP_CHECK(a == b, "h2pool: a freed 100-byte block serves a 112-byte request");
    m.free(b, m.mem_user_data);
    void *c = m.malloc(113, m.mem_user_data); /* the next class: 16-byte steps, not powers of two */
    TAP_CHECK(c != b, "h2pool: a 113-byte request takes a block of the next class, not a free 112-byte one");
    void *b2 = m.malloc(112, m.mem_user_data);
    TAP_CHECK(h2pool_in_use(p) == 2 && h2pool_held(p) == 2, "h2pool: 2 in use, 2 held (got %zu, %zu)",
              h2pool_in_use(p), h2pool_held(p));
    m.free(b2, m.mem_user_data);
    m.free(c, m.mem_user_data);
    void *d = m.malloc(500, m.mem_user_data);
    m.free(d, m.mem_user_data);
    void *e = m.malloc(512, m.mem_user_data);
    TAP_CHECK(d == e, "h2pool: a freed 500-byte block serves a 512-byte request");
    m.free(e, m.mem_user_data);
    for (int round = 0; round < 100; round++) {
        void *x = m.malloc(110, m.mem_user_data), *y = m.malloc(120, m.mem_user_data);
        m.free(y, m.mem_user_data);
        m.free(x, m.mem_user_data);
    }
    TAP_CHECK(h2pool_in_use(p) == 0 && h2pool_held(p) == 3,
              "h2pool: 100 rounds of the same sizes take no new block (in use %zu, held %zu)", h2pool_in_use(p),
              h2pool_held(p));
    m.free(NULL, m.mem_user_data);
    TAP_CHECK(h2pool_in_use(p) == 0, "h2pool: free(NULL) does nothing");
    h2pool_release(p);
}

static void test_alignment(void)
{
    struct h2pool *p = h2pool_new();
    nghttp2_mem m = h2pool_mem(p);
    bool aligned = true;
    void *blocks[200];
    size_t n = 0;
    for (size_t size = 0; size <= 20000; size += size < 64 ? 1 : 97) {
        void *b = m.malloc(size, m.mem_user_data);
        aligned = aligned && b && ((uintptr_t)b % 16) == 0;
        if (n < 200) blocks[n++] = b;
        else m.free(b, m.mem_user_data);
    }
    TAP_CHECK(aligned, "h2pool: blocks of 0..20000 bytes are 16-byte aligned");
    for (size_t i = 0; i < n; i++) m.free(blocks[i], m.mem_user_data);
    TAP_CHECK(h2pool_in_use(p) == 0, "h2pool: all given back");
    h2pool_release(p);
}

static void test_calloc_realloc(void)
{
    struct h2pool *p = h2pool_new();
    nghttp2_mem m = h2pool_mem(p);
    unsigned char *a = m.malloc(64, m.mem_user_data);
    memset(a, 0xab, 64);
    m.free(a, m.mem_user_data);
    unsigned char *z = m.calloc(8, 8, m.mem_user_data);
    bool zero = z == a;
    for (int i = 0; i < 64; i++) zero = zero && z[i] == 0;
    TAP_CHECK(zero, "h2pool: calloc zeroes a reused block");
    TAP_CHECK(m.calloc(SIZE_MAX / 2, 4, m.mem_user_data) == NULL, "h2pool: calloc refuses an overflowing size");

    for (int i = 0; i < 64; i++) z[i] = (unsigned char)i;
    unsigned char *same = m.realloc(z, 60, m.mem_user_data);
    TAP_CHECK(same == z, "h2pool: realloc within the block's class keeps it");
    unsigned char *grown = m.realloc(same, 300, m.mem_user_data);
    bool kept = grown != NULL;
    for (int i = 0; kept && i < 64; i++) kept = grown[i] == i;
    TAP_CHECK(kept, "h2pool: realloc to a larger class keeps the content");
    grown[299] = 7;
    unsigned char *large = m.realloc(grown, 100000, m.mem_user_data);
    kept = large != NULL && large[299] == 7;
    for (int i = 0; kept && i < 64; i++) kept = large[i] == i;
    large[99999] = 1;
    TAP_CHECK(kept, "h2pool: realloc to a large block keeps the content");
    size_t held = h2pool_held(p);
    m.free(large, m.mem_user_data);
    void *again = m.malloc(100000, m.mem_user_data);
    TAP_CHECK(h2pool_held(p) == held && h2pool_in_use(p) == 1, "h2pool: large blocks are not held");
    m.free(again, m.mem_user_data);
    unsigned char *fresh = m.realloc(NULL, 10, m.mem_user_data);
    TAP_CHECK(fresh != NULL && h2pool_in_use(p) == 1, "h2pool: realloc(NULL) allocates");
    m.free(fresh, m.mem_user_data);
    TAP_CHECK(h2pool_in_use(p) == 0, "h2pool: all given back after calloc and realloc");
    h2pool_release(p);
    h2pool_release(NULL);
}

static void *other_thread(void *arg)
{
    struct h2pool **out = arg;
    *out = h2pool_of_thread();
    return NULL;
}

/* Sessions of a thread share its pool; the last reference frees it. */
static void test_thread_pool(void)
{
    struct h2pool *a = h2pool_of_thread(), *b = h2pool_of_thread(), *other = NULL;
    pthread_t t;
    pthread_create(&t, NULL, other_thread, &other);
    pthread_join(t, NULL);
    TAP_CHECK(a && a == b && other && other != a, "h2pool: a thread's sessions share its pool, another thread has its own");
    nghttp2_mem m = h2pool_mem(a);
    void *x = m.malloc(40, m.mem_user_data);
    h2pool_release(b);
    m.free(x, m.mem_user_data); /* still a's */
    TAP_CHECK(h2pool_in_use(a) == 0 && h2pool_held(a) == 1, "h2pool: one reference given back, the pool lives on");
    h2pool_release(a);
    struct h2pool *c = h2pool_of_thread();
    TAP_CHECK(c && h2pool_held(c) == 0, "h2pool: the last reference freed it; the thread's next pool is new");
    h2pool_release(c);
    h2pool_release(other); /* its thread has ended */
}

int main(void)
{
    test_reuse();
    test_alignment();
    test_calloc_realloc();
    test_thread_pool();
    TAP_EXIT();
}
