/* stages: --rate-stages RATE:TIME[,RATE:TIME...], the target rate as a line
 * through points (k6's ramping-arrival-rate): the measured phase starts at
 * the start rate (-R, else the first stage's rate) and each stage ramps
 * linearly from the rate before it to its RATE over its TIME; after the last
 * stage the last rate holds. The ramps handed to a pacer and to
 * the timeline; no clock, no I/O. */
#ifndef BARRAGE_STAGES_H
#define BARRAGE_STAGES_H

#include <stddef.h>
#include <stdint.h>

#include "pacer.h"

#define STAGES_MAX 64

struct rate_stage {
    double rate;          /* requests/s at the stage's end, 0 to PACER_MAX_RATE */
    uint64_t duration_us; /* > 0 */
};

/* The stages' total time. */
uint64_t stages_duration(const struct rate_stage *st, size_t n);
/* Adds the ramps to p from start_us, the rate before the first being
 * start_rate. 0, or -1 when out of memory. */
int stages_apply(struct pacer *p, double start_rate, const struct rate_stage *st, size_t n, uint64_t start_us);
/* The target at at_us (>= start_us): what the pacer follows. */
double stages_rate_at(double start_rate, const struct rate_stage *st, size_t n, uint64_t start_us, uint64_t at_us);
/* The mean target over [a, b) (start_us <= a < b). */
double stages_mean(double start_rate, const struct rate_stage *st, size_t n, uint64_t start_us, uint64_t a,
                   uint64_t b);

#endif
