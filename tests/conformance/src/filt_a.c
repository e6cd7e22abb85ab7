/* filt_a.c: a filter whose helper is a static step(); filt_b.c has another static step() with
 * another body, so a pattern like *(.text.step) would move both and a plan must tell them apart
 * by file. */
#include "work.h"

static __attribute__((noinline, noclone)) uint32_t step(uint32_t x)
{
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}

uint32_t filt_a_run(uint32_t seed)
{
	uint32_t s = seed | 1u;
	for (int i = 0; i < 600; i++)
		s = step(s) + (uint32_t)i;
	return s;
}
