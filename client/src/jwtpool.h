/* jwtpool: tokens signed ahead of the requests that carry them, in bounded
 * memory. One ring of `tokens` fixed-size slots per worker thread (single
 * producer, single consumer); one signer thread keeps every ring full,
 * one token at a time round the rings, and sleeps when all are full. A
 * worker takes the oldest token of its ring; when its ring is empty (the
 * signer fell behind) it signs one itself: that take waited, and the pool
 * counts it and how long it took. A token older than max_age_us, or past
 * the life its signature gave it (jwtpool_sign_fn's life_us: the time to its
 * exp less a margin), is dropped at take (stale): no token is sent past either.
 * Memory: rings * tokens * token_cap bytes, fixed at jwtpool_new, whatever
 * the number of requests.
 *
 * Every token has its own sequence number (0, 1, 2, ... over the whole pool,
 * the workers' own signatures included), which sign turns into the token.
 *
 * Threads: jwtpool_take(pool, ring) from ring's worker thread only;
 * jwtpool_new, jwtpool_start, jwtpool_stats and jwtpool_free from one
 * thread (main), stats once the workers are done. */
#ifndef BARRAGE_JWTPOOL_H
#define BARRAGE_JWTPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Writes the token of seq into out (cap bytes, '\0'-terminated); its
 * length, 0 when signing failed. *life_us: for how long from now the token
 * may be sent (more than 0; UINT64_MAX: no limit of its own, as without exp).
 * Called from several threads at once. */
typedef size_t (*jwtpool_sign_fn)(void *ctx, uint64_t seq, char *out, size_t cap, uint64_t *life_us);

struct jwtpool_stats {
    uint64_t signed_count; /* tokens signed, by the signer and by the workers */
    uint64_t taken;        /* tokens handed to requests */
    uint64_t waited;       /* takes that found their ring empty and signed themselves */
    uint64_t wait_us_max;  /* the longest of those signatures */
    uint64_t stale;        /* tokens dropped for age */
    bool failed;           /* a signature failed */
};

struct jwtpool;

/* rings rings of tokens slots of token_cap bytes (the longest token + 1);
 * NULL when out of memory. Nothing is signed until jwtpool_start. */
struct jwtpool *jwtpool_new(unsigned rings, size_t tokens, size_t token_cap, uint64_t max_age_us,
                            jwtpool_sign_fn sign, void *ctx);
/* Fills the rings in this thread for at most prefill_us (or until full),
 * then starts the signer thread (threaded false: none, for the unit test);
 * 0, or -1 when the thread could not start or a signature failed. */
int jwtpool_start(struct jwtpool *p, uint64_t prefill_us, bool threaded);
/* The next token for ring's worker, its length in *len; valid until the
 * next take on the same ring. NULL when signing failed. */
const char *jwtpool_take(struct jwtpool *p, unsigned ring, size_t *len);
/* The tokens ready in ring now (for the unit test). */
size_t jwtpool_ready(struct jwtpool *p, unsigned ring);
struct jwtpool_stats jwtpool_stats(struct jwtpool *p);
/* Stops and joins the signer thread, frees everything. NULL: nothing. */
void jwtpool_free(struct jwtpool *p);

#endif
