/* xorshift64.h: the one pseudo-random generator of the unit tests and benchmarks (Marsaglia's
 * xorshift64, shifts 13/7/17). Deterministic from its seed, so a failing random instance is the
 * same on every run and machine; each test owns its state. Not for anything but test data. */
#ifndef RAMPLACE_TESTS_XORSHIFT64_H
#define RAMPLACE_TESTS_XORSHIFT64_H
#include <stdint.h>

/* The next value of the sequence in *state (never 0 when the seed is not 0). */
static inline uint64_t xorshift64(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}
#endif
