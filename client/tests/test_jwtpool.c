/* Unit tests of jwtpool.c with a counting signer (no OpenSSL): the pool
 * signs no more than its rings hold, ahead of the takes, whatever the number
 * of takes (memory bounded); tokens come out in order, each once; an empty
 * ring makes the taker sign itself (waited); tokens past their age are
 * dropped; the signer thread refills what is taken and then sleeps. */
#include "../src/jwtpool.c"

#include <stdio.h>
#include <unistd.h>

#include "tap.h"

static _Atomic uint64_t calls;

/* ctx non-NULL: the uint64_t life of even sequence numbers' tokens (odd ones: no limit) */
static size_t fake_sign(void *ctx, uint64_t seq, char *out, size_t cap, uint64_t *life_us)
{
    *life_us = ctx && seq % 2 == 0 ? *(const uint64_t *)ctx : UINT64_MAX;
    atomic_fetch_add(&calls, 1);
    return (size_t)snprintf(out, cap, "tok-%llu", (unsigned long long)seq);
}

static void test_bounded_prefill(void)
{
    atomic_store(&calls, 0);
    struct jwtpool *p = jwtpool_new(2, 8, 32, UINT64_MAX, fake_sign, NULL);
    jwtpool_start(p, 1000000, false);
    TAP_CHECK(atomic_load(&calls) == 16 && jwtpool_ready(p, 0) == 8 && jwtpool_ready(p, 1) == 8,
              "prefill stops when the rings are full (16 signed for 2 x 8), long before its time is up");
    bool in_order = true;
    size_t len;
    for (unsigned i = 0; i < 8; i++) {
        const char *t = jwtpool_take(p, 0, &len);
        char want[32];
        snprintf(want, sizeof want, "tok-%u", 2 * i); /* round the rings: ring 0 has the even ones */
        in_order &= len == strlen(want) && memcmp(t, want, len) == 0;
    }
    TAP_CHECK(in_order, "a ring's tokens come out in the order signed");
    const char *t = jwtpool_take(p, 0, &len);
    struct jwtpool_stats st = jwtpool_stats(p);
    TAP_CHECK(t && len == 6 && memcmp(t, "tok-16", 6) == 0 && st.waited == 1 && st.taken == 9 && st.signed_count == 17,
              "an empty ring: the taker signs the next sequence number itself, counted as waited (%.*s)", (int)len, t);
    TAP_CHECK(jwtpool_ready(p, 1) == 8, "the other ring untouched");
    jwtpool_free(p);
}

static void test_stale(void)
{
    struct jwtpool *p = jwtpool_new(1, 4, 32, 2000, fake_sign, NULL);
    jwtpool_start(p, 1000000, false);
    usleep(10000);
    size_t len;
    const char *t = jwtpool_take(p, 0, &len);
    struct jwtpool_stats st = jwtpool_stats(p);
    TAP_CHECK(t && st.stale == 4 && st.waited == 1 && memcmp(t, "tok-4", 5) == 0,
              "tokens older than max_age are dropped at take (stale %llu)", (unsigned long long)st.stale);
    jwtpool_free(p);
}

/* A token's own life (its exp, less the margin: jwt_sign_seq) ends it before
 * max_age does: tokens past it are dropped at take, the others still taken. */
static void test_token_life(void)
{
    uint64_t life = 2000;
    struct jwtpool *p = jwtpool_new(1, 4, 32, UINT64_MAX, fake_sign, &life);
    jwtpool_start(p, 1000000, false);
    usleep(10000);
    size_t len;
    const char *t1 = jwtpool_take(p, 0, &len);
    bool first = t1 && len == 5 && memcmp(t1, "tok-1", 5) == 0;
    const char *t2 = jwtpool_take(p, 0, &len);
    bool second = t2 && len == 5 && memcmp(t2, "tok-3", 5) == 0;
    struct jwtpool_stats st = jwtpool_stats(p);
    TAP_CHECK(first && second && st.stale == 2 && st.waited == 0,
              "tokens past their own life are dropped at take, the others taken (stale %llu)", (unsigned long long)st.stale);
    jwtpool_free(p);
}

/* The signer thread: refills what is taken, never holds more than the ring,
 * and with nothing taken stops signing. */
static void test_signer_thread(void)
{
    atomic_store(&calls, 0);
    struct jwtpool *p = jwtpool_new(1, 64, 32, UINT64_MAX, fake_sign, NULL);
    jwtpool_start(p, 0, true);
    /* Waits bounded at 10 s, ended as soon as the ring is full: on a loaded machine the
     * signer thread may not run for hundreds of milliseconds. */
    for (int i = 0; i < 10000 && jwtpool_ready(p, 0) < 64; i++) usleep(1000);
    usleep(20000);
    uint64_t full = atomic_load(&calls);
    TAP_CHECK(full == 64 && jwtpool_ready(p, 0) == 64, "the signer fills the ring and stops there (%llu signed)",
              (unsigned long long)full);
    bool distinct = true, bounded = true;
    char last[32] = "";
    size_t len;
    for (int i = 0; i < 100000; i++) {
        const char *t = jwtpool_take(p, 0, &len);
        distinct &= t && (len != strlen(last) || memcmp(t, last, len) != 0);
        snprintf(last, sizeof last, "%.*s", (int)len, t);
        struct jwtpool_stats st = jwtpool_stats(p);
        bounded &= st.signed_count <= st.taken + 64;
        if (i % 1000 == 0) usleep(100);
    }
    /* The signer sleeps once the ring is full and is woken when a take leaves it half empty:
     * after the takes the ring holds more than half (33..64, the held token included),
     * whichever takes came after its last sleep. */
    for (int i = 0; i < 10000 && jwtpool_ready(p, 0) <= 32; i++) usleep(1000);
    struct jwtpool_stats st = jwtpool_stats(p);
    TAP_CHECK(distinct && bounded, "100000 takes: each token new, never more signed than taken + the ring (%llu signed, "
              "%llu waited)", (unsigned long long)st.signed_count, (unsigned long long)st.waited);
    size_t left = jwtpool_ready(p, 0);
    TAP_CHECK(st.signed_count <= 100000 + 64 && left > 32 && left <= 64,
              "refilled after the takes to more than half the ring, no more (%zu ready)", left);
    jwtpool_free(p);
}

int main(void)
{
    test_bounded_prefill();
    test_stale();
    test_token_life();
    test_signer_thread();
    TAP_EXIT();
}
