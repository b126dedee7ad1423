/* jwtpool: the bounded pool of tokens signed ahead (jwtpool.h). Each ring is
 * single-producer (the signer thread) single-consumer (its worker): head
 * and tail count tokens taken and added, ready = tail - head <= tokens. The
 * slot at head stays the worker's (held) until its next take. The signer
 * sleeps on a condition variable when every ring is full; a take that
 * leaves its ring half empty wakes it (only then: no system call per take). */
#include "jwtpool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "monotonic.h"

struct ring {
    _Alignas(64) _Atomic uint64_t tail; /* written by the signer */
    _Alignas(64) _Atomic uint64_t head; /* written by the worker */
    uint64_t held;                      /* the worker's: the slot at head is in use */
    char *slots;                        /* owned: tokens * token_cap */
    size_t *lens;                       /* owned */
    uint64_t *usable_until;             /* owned: monotonic us, the last moment each token may be taken */
    char *scratch;                      /* owned: the worker's own signature */
    uint64_t taken, waited, wait_us_max, stale; /* the worker's counts */
};

struct jwtpool {
    struct ring *rings; /* owned */
    unsigned ring_count;
    size_t tokens, token_cap;
    uint64_t max_age_us;
    jwtpool_sign_fn sign;
    void *ctx;
    _Atomic uint64_t seq;      /* the next sequence number */
    _Atomic uint64_t signed_count;
    _Atomic bool failed, stop, sleeping;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
    bool started;
};

static void ring_free(struct ring *r)
{
    free(r->slots);
    free(r->lens);
    free(r->usable_until);
    free(r->scratch);
}

struct jwtpool *jwtpool_new(unsigned rings, size_t tokens, size_t token_cap, uint64_t max_age_us,
                            jwtpool_sign_fn sign, void *ctx)
{
    struct jwtpool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    *p = (struct jwtpool){.ring_count = rings, .tokens = tokens, .token_cap = token_cap, .max_age_us = max_age_us,
                          .sign = sign, .ctx = ctx};
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    p->rings = aligned_alloc(64, ((rings * sizeof *p->rings + 63) / 64) * 64);
    if (!p->rings) {
        jwtpool_free(p);
        return NULL;
    }
    memset(p->rings, 0, rings * sizeof *p->rings);
    for (unsigned i = 0; i < rings; i++) {
        struct ring *r = &p->rings[i];
        r->slots = malloc(tokens * token_cap);
        r->lens = malloc(tokens * sizeof *r->lens);
        r->usable_until = malloc(tokens * sizeof *r->usable_until);
        r->scratch = malloc(token_cap);
        if (!r->slots || !r->lens || !r->usable_until || !r->scratch) {
            jwtpool_free(p);
            return NULL;
        }
    }
    return p;
}

/* ---- the signer ---- */

static size_t ready(struct ring *r)
{
    return (size_t)(atomic_load_explicit(&r->tail, memory_order_acquire) - atomic_load(&r->head));
}

/* One token into r when it has room; true when one was added (false: full, or signing failed). */
static bool fill_one(struct jwtpool *p, struct ring *r)
{
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    if (tail - atomic_load(&r->head) >= p->tokens) return false;
    size_t slot = (size_t)(tail % p->tokens);
    uint64_t life = UINT64_MAX, now;
    size_t n = p->sign(p->ctx, atomic_fetch_add(&p->seq, 1), r->slots + slot * p->token_cap, p->token_cap, &life);
    if (!n) {
        atomic_store(&p->failed, true);
        return false;
    }
    now = monotonic_now_us();
    if (life > p->max_age_us) life = p->max_age_us;
    r->lens[slot] = n;
    r->usable_until[slot] = life > UINT64_MAX - now ? UINT64_MAX : now + life;
    atomic_fetch_add_explicit(&p->signed_count, 1, memory_order_relaxed);
    atomic_store_explicit(&r->tail, tail + 1, memory_order_release);
    return true;
}

/* One token into each ring with room; whether any was added. */
static bool fill_round(struct jwtpool *p)
{
    bool any = false;
    for (unsigned i = 0; i < p->ring_count && !atomic_load(&p->failed); i++) any |= fill_one(p, &p->rings[i]);
    return any;
}

static bool all_full(struct jwtpool *p)
{
    for (unsigned i = 0; i < p->ring_count; i++)
        if (ready(&p->rings[i]) < p->tokens) return false;
    return true;
}

/* Sleeps until a take leaves a ring half empty (or stop); the lost-wake-up
 * guard: sleeping is set before fullness is checked again under the lock. */
static void signer_sleep(struct jwtpool *p)
{
    pthread_mutex_lock(&p->lock);
    atomic_store(&p->sleeping, true);
    while (!atomic_load(&p->stop) && all_full(p)) pthread_cond_wait(&p->wake, &p->lock);
    atomic_store(&p->sleeping, false);
    pthread_mutex_unlock(&p->lock);
}

static void *signer_main(void *arg)
{
    struct jwtpool *p = arg;
    while (!atomic_load(&p->stop) && !atomic_load(&p->failed))
        if (!fill_round(p) && !atomic_load(&p->failed)) signer_sleep(p);
    return NULL;
}

int jwtpool_start(struct jwtpool *p, uint64_t prefill_us, bool threaded)
{
    uint64_t until = monotonic_now_us() + prefill_us;
    while (monotonic_now_us() < until && fill_round(p)) {}
    if (atomic_load(&p->failed)) return -1;
    if (!threaded) return 0;
    if (pthread_create(&p->thread, NULL, signer_main, p)) return -1;
    p->started = true;
    return 0;
}

/* ---- the worker's side ---- */

/* Gives back the slot taken last; wakes the signer when the ring is half empty. */
static void release_held(struct jwtpool *p, struct ring *r)
{
    if (!r->held) return;
    r->held = 0;
    atomic_fetch_add(&r->head, 1);
    if (ready(r) * 2 <= p->tokens && atomic_load(&p->sleeping)) {
        pthread_mutex_lock(&p->lock);
        pthread_cond_signal(&p->wake);
        pthread_mutex_unlock(&p->lock);
    }
}

/* The ring was empty: the worker signs the token itself, timed. */
static const char *sign_here(struct jwtpool *p, struct ring *r, size_t *len)
{
    uint64_t t0 = monotonic_now_us();
    uint64_t life; /* more than 0: the token goes out now */
    size_t n = p->sign(p->ctx, atomic_fetch_add(&p->seq, 1), r->scratch, p->token_cap, &life);
    uint64_t took = monotonic_now_us() - t0;
    if (!n) {
        atomic_store(&p->failed, true);
        return NULL;
    }
    atomic_fetch_add_explicit(&p->signed_count, 1, memory_order_relaxed);
    r->waited++;
    if (took > r->wait_us_max) r->wait_us_max = took;
    r->taken++;
    *len = n;
    return r->scratch;
}

const char *jwtpool_take(struct jwtpool *p, unsigned ring, size_t *len)
{
    struct ring *r = &p->rings[ring];
    release_held(p, r);
    uint64_t now = monotonic_now_us();
    while (ready(r) > 0) {
        size_t slot = (size_t)(atomic_load(&r->head) % p->tokens);
        if (now <= r->usable_until[slot]) {
            r->held = 1;
            r->taken++;
            *len = r->lens[slot];
            return r->slots + slot * p->token_cap;
        }
        r->stale++;
        r->held = 1;
        release_held(p, r);
    }
    return sign_here(p, r, len);
}

size_t jwtpool_ready(struct jwtpool *p, unsigned ring)
{
    return ready(&p->rings[ring]);
}

struct jwtpool_stats jwtpool_stats(struct jwtpool *p)
{
    struct jwtpool_stats s = {.signed_count = atomic_load(&p->signed_count), .failed = atomic_load(&p->failed)};
    for (unsigned i = 0; i < p->ring_count; i++) {
        const struct ring *r = &p->rings[i];
        s.taken += r->taken;
        s.waited += r->waited;
        s.stale += r->stale;
        if (r->wait_us_max > s.wait_us_max) s.wait_us_max = r->wait_us_max;
    }
    return s;
}

void jwtpool_free(struct jwtpool *p)
{
    if (!p) return;
    if (p->started) {
        pthread_mutex_lock(&p->lock);
        atomic_store(&p->stop, true);
        pthread_cond_signal(&p->wake);
        pthread_mutex_unlock(&p->lock);
        pthread_join(p->thread, NULL);
    }
    for (unsigned i = 0; p->rings && i < p->ring_count; i++) ring_free(&p->rings[i]);
    free(p->rings);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->wake);
    free(p);
}
