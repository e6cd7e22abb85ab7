/* rng.c: xorshift32 (Marsaglia 2003). Tiny and called from every stage, so it is one of the
 * small-but-hot functions a placement should consider. */
#include "rng.h"

uint32_t rng_next(uint32_t *state)
{
	uint32_t x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

uint32_t rng_below(uint32_t *state, uint32_t bound)
{
	/* The modulo bias is irrelevant here: we need determinism, not uniformity. */
	return rng_next(state) % bound;
}
