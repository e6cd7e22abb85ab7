/* rng.h: xorshift32, the deterministic pseudo-random source behind every input the firmware
 * generates, so that each run (flash-only or relinked) computes exactly the same thing. */
#ifndef FW_RNG_H
#define FW_RNG_H

#include <stdint.h>

/* Advances *state (which must be non-zero) and returns the new value. */
uint32_t rng_next(uint32_t *state);

/* Returns a value in [0, bound); bound must be non-zero. */
uint32_t rng_below(uint32_t *state, uint32_t bound);

#endif
