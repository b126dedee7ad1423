/* pacer: the fixed-rate schedule. Progress x counts global requests in
 * millionths; a segment maps progress to time linearly at its rate, in integer
 * arithmetic (128-bit products), so times are exact and never drift. */
#include "pacer.h"

#include <math.h>
#include <stdlib.h>

#define X_PER_REQUEST 1000000ULL

typedef unsigned __int128 u128;

static int rate_to_milli(double rate, uint64_t *milli)
{
    if (!(rate >= 0 && rate <= PACER_MAX_RATE)) return -1; /* NaN fails too */
    *milli = (uint64_t)llround(rate * 1000.0);
    return rate > 0 && *milli == 0 ? -1 : 0;
}

/* Progress (requests) of ramp s over its first dt microseconds, rates in requests/us. */
static double ramp_progress(const struct pacer_segment *s, double dt)
{
    double r0 = (double)s->rate_milli / 1e9, r1 = (double)s->end_milli / 1e9, span = (double)s->span_us;
    if (dt <= span) return r0 * dt + (r1 - r0) * dt * dt / (2 * span);
    return (r0 + r1) / 2 * span + r1 * (dt - span);
}

/* When ramp s has made dx requests of progress, in microseconds from its origin; PACER_PAUSED: never. */
static uint64_t ramp_time(const struct pacer_segment *s, double dx)
{
    double r0 = (double)s->rate_milli / 1e9, r1 = (double)s->end_milli / 1e9, span = (double)s->span_us;
    double in_ramp = (r0 + r1) / 2 * span;
    if (dx > in_ramp) return r1 > 0 ? s->span_us + (uint64_t)llround((dx - in_ramp) / r1) : PACER_PAUSED;
    double a = (r1 - r0) / span, disc = r0 * r0 + 2 * a * dx;
    if (dx <= 0) return 0;
    /* the stable root of a/2 t^2 + r0 t = dx */
    double t = 2 * dx / (r0 + sqrt(disc > 0 ? disc : 0));
    return (uint64_t)ceil(t - 1e-6);
}

/* The time at which progress x is reached in s (x >= s->start_x). */
static uint64_t segment_time(const struct pacer_segment *s, uint64_t x)
{
    if (s->span_us) {
        uint64_t dt = ramp_time(s, (double)(x - s->start_x) / (double)X_PER_REQUEST);
        return dt == PACER_PAUSED ? dt : s->origin_us + dt;
    }
    if (s->rate_milli == 0) return PACER_PAUSED;
    return s->origin_us + (uint64_t)((u128)(x - s->start_x) * 1000u / s->rate_milli);
}

/* The progress reached at now_us in s (now_us >= s->origin_us): floor, so
 * every x up to it has segment_time(x) <= now_us. */
static uint64_t segment_progress(const struct pacer_segment *s, uint64_t now_us)
{
    if (s->span_us)
        return s->start_x + (uint64_t)floor(ramp_progress(s, (double)(now_us - s->origin_us)) * (double)X_PER_REQUEST);
    return s->start_x + (uint64_t)((u128)(now_us - s->origin_us) * s->rate_milli / 1000u);
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* xoshiro256** (Blackman and Vigna): fast, 2^256 period, so the streams of
 * different seeds and threads do not overlap in practice. */
static uint64_t rng_next(uint64_t s[4])
{
    uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* A gap of this thread's Poisson process, in progress: exponential with a
 * mean of T requests (one thread's share of the global progress). */
static uint64_t poisson_gap(struct pacer *p)
{
    double u = (double)(rng_next(p->rng) >> 11) * 0x1p-53; /* [0, 1) */
    return (uint64_t)llround(-log1p(-u) * (double)(p->threads * X_PER_REQUEST));
}

/* Keeps segments[0] the one holding next_x: the last whose start is below it
 * (a request exactly at a change's progress was due before the change). */
static void drop_passed(struct pacer *p)
{
    size_t passed = 0;
    while (passed + 1 < p->nsegments && p->segments[passed + 1].start_x < p->next_x) passed++;
    if (passed == 0) return;
    p->nsegments -= passed;
    for (size_t i = 0; i < p->nsegments; i++) p->segments[i] = p->segments[i + passed];
}

int pacer_init(struct pacer *p, enum pacer_arrival arrival, double rate, unsigned threads, unsigned index,
               uint64_t t0_us, uint64_t seed)
{
    uint64_t milli;
    if (threads == 0 || index >= threads || rate_to_milli(rate, &milli)) return -1;
    *p = (struct pacer){.arrival = arrival, .threads = threads, .cap = 4};
    p->segments = malloc(p->cap * sizeof *p->segments);
    if (!p->segments) return -1;
    p->segments[0] = (struct pacer_segment){.start_x = 0, .origin_us = t0_us, .rate_milli = milli, .end_milli = milli};
    p->nsegments = 1;
    uint64_t state = seed ^ ((uint64_t)index * 0xd1b54a32d192ed03ULL);
    for (int i = 0; i < 4; i++) p->rng[i] = splitmix64(&state);
    p->next_x = arrival == PACER_EVEN ? index * X_PER_REQUEST : poisson_gap(p);
    return 0;
}

void pacer_free(struct pacer *p)
{
    free(p->segments);
    p->segments = NULL;
    p->nsegments = p->cap = 0;
}

uint64_t pacer_next(const struct pacer *p)
{
    return segment_time(&p->segments[0], p->next_x);
}

uint64_t pacer_take(struct pacer *p)
{
    uint64_t t = pacer_next(p);
    if (t == PACER_PAUSED) return t;
    p->next_x += p->arrival == PACER_EVEN ? p->threads * X_PER_REQUEST : poisson_gap(p);
    drop_passed(p);
    return t;
}

/* The segment holding progress x: the last whose start is below it (or the first). */
static const struct pacer_segment *segment_of(const struct pacer *p, uint64_t x)
{
    size_t i = 0;
    while (i + 1 < p->nsegments && p->segments[i + 1].start_x < x) i++;
    return &p->segments[i];
}

static uint64_t time_of(const struct pacer *p, uint64_t x)
{
    return segment_time(segment_of(p, x), x);
}

/* The progress reached at t: at most the next segment's start while t is before its origin. */
static uint64_t progress_at(const struct pacer *p, uint64_t t)
{
    size_t i = 0;
    while (i + 1 < p->nsegments && p->segments[i + 1].origin_us <= t) i++;
    const struct pacer_segment *s = &p->segments[i];
    return t < s->origin_us ? s->start_x : segment_progress(s, t);
}

/* Even spacing: how many of this thread's requests from next_x on are due by t. */
static uint64_t even_due_by(const struct pacer *p, uint64_t t)
{
    uint64_t step = p->threads * X_PER_REQUEST, x = p->next_x;
    if (t == UINT64_MAX || time_of(p, x) > t) return 0;
    uint64_t reached = progress_at(p, t), k = reached > x ? (reached - x) / step : 0;
    /* the progress is floored and a ramp's times are rounded: settle on the exact count */
    while (k > 0 && time_of(p, x + k * step) > t) k--;
    while (time_of(p, x + (k + 1) * step) <= t) k++;
    return k + 1;
}

uint64_t pacer_count_due(const struct pacer *p, uint64_t from_us, uint64_t until_us, uint64_t exact_max)
{
    if (until_us < from_us) return 0;
    if (p->arrival == PACER_EVEN)
        return even_due_by(p, until_us) - (from_us ? even_due_by(p, from_us - 1) : 0);
    uint64_t x = p->next_x, n = 0, drawn = 0, t;
    struct pacer copy = *p; /* the draws on a copy of the generator (poisson_gap uses only it) */
    while (drawn < exact_max && (t = time_of(p, x)) <= until_us) {
        n += t >= from_us;
        x += poisson_gap(&copy);
        drawn++;
    }
    if (drawn == exact_max && time_of(p, x) <= until_us) {
        /* the rest by its expected number: progress left over the mean gap */
        uint64_t from_x = x, reached = progress_at(p, until_us);
        if (from_us > time_of(p, x)) from_x = progress_at(p, from_us);
        if (reached > from_x) n += (reached - from_x) / (p->threads * X_PER_REQUEST) + 1;
    }
    return n;
}

/* Appends next (its start_x and origin set from the last segment at now_us). */
static int append(struct pacer *p, struct pacer_segment next)
{
    struct pacer_segment *last = &p->segments[p->nsegments - 1];
    if (next.origin_us < last->origin_us) next.origin_us = last->origin_us;
    next.start_x = segment_progress(last, next.origin_us);
    if (next.start_x == last->start_x) { /* the last segment covers no progress: replace it */
        *last = next;
        return 0;
    }
    if (p->nsegments == p->cap) {
        struct pacer_segment *grown = realloc(p->segments, 2 * p->cap * sizeof *grown);
        if (!grown) return -1;
        p->segments = grown;
        p->cap *= 2;
    }
    p->segments[p->nsegments++] = next;
    drop_passed(p);
    return 0;
}

int pacer_set_rate(struct pacer *p, double rate, uint64_t now_us)
{
    uint64_t milli;
    if (rate_to_milli(rate, &milli)) return -1;
    return append(p, (struct pacer_segment){.origin_us = now_us, .rate_milli = milli, .end_milli = milli});
}

int pacer_ramp(struct pacer *p, double from, double to, uint64_t now_us, uint64_t span_us)
{
    uint64_t m0, m1;
    if (span_us == 0 || rate_to_milli(from, &m0) || rate_to_milli(to, &m1)) return -1;
    if (m0 == m1) return append(p, (struct pacer_segment){.origin_us = now_us, .rate_milli = m0, .end_milli = m0});
    return append(p, (struct pacer_segment){.origin_us = now_us, .rate_milli = m0, .end_milli = m1, .span_us = span_us});
}
