/* Unit tests of h2pool.c, through the nghttp2_mem it gives nghttp2: a freed
 * block serves the next request of any size in its class (what saves
 * malloc), blocks are 16-byte aligned, calloc zeroes a reused block, realloc
 * keeps the content, large blocks go to malloc, and the pool counts what is
 * handed out and what it holds. */
#include "../src/h2pool.c"

#include <stdbool.h>
#include <stdint.h>

#include "tap.h"

static void test_reuse(void)
{
    struct h2pool *p = h2pool_new();
    nghttp2_mem m = h2pool_mem(p);
    void *a = m.malloc(100, m.mem_user_data);
    m.free(a, m.mem_user_data);
    void *b = m.malloc(128, m.mem_user_data); /* the same class (128), another size */
    TAP_CHECK(a == b, "h2pool: a freed 100-byte block serves a 128-byte request");
    void *c = m.malloc(129, m.mem_user_data); /* the next class */
    TAP_CHECK(c != b, "h2pool: a 129-byte request takes a block of the next class");
    TAP_CHECK(h2pool_in_use(p) == 2 && h2pool_held(p) == 2, "h2pool: 2 in use, 2 held (got %zu, %zu)",
              h2pool_in_use(p), h2pool_held(p));
    m.free(b, m.mem_user_data);
    m.free(c, m.mem_user_data);
    for (int round = 0; round < 100; round++) {
        void *x = m.malloc(120, m.mem_user_data), *y = m.malloc(200, m.mem_user_data);
        m.free(y, m.mem_user_data);
        m.free(x, m.mem_user_data);
    }
    TAP_CHECK(h2pool_in_use(p) == 0 && h2pool_held(p) == 2,
              "h2pool: 100 rounds of the same sizes take no new block (in use %zu, held %zu)", h2pool_in_use(p),
              h2pool_held(p));
    m.free(NULL, m.mem_user_data);
    TAP_CHECK(h2pool_in_use(p) == 0, "h2pool: free(NULL) does nothing");
    h2pool_free(p);
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
    h2pool_free(p);
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
    unsigned char *grown = m.realloc(same, 1000, m.mem_user_data);
    bool kept = grown != NULL;
    for (int i = 0; kept && i < 64; i++) kept = grown[i] == i;
    TAP_CHECK(kept, "h2pool: realloc to a larger class keeps the content");
    grown[999] = 7;
    unsigned char *large = m.realloc(grown, 100000, m.mem_user_data);
    kept = large != NULL && large[999] == 7;
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
    h2pool_free(p);
    h2pool_free(NULL);
}

int main(void)
{
    test_reuse();
    test_alignment();
    test_calloc_realloc();
    TAP_EXIT();
}
