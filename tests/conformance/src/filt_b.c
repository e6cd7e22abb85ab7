/* filt_b.c: the other static step() (see filt_a.c); colder than filt_a's. */
#include "work.h"

static __attribute__((noinline, noclone)) uint32_t step(uint32_t x)
{
	return (x >> 3 | x << 29) * 2654435761u + 0x7f4a7c15u;
}

uint32_t filt_b_run(uint32_t seed)
{
	uint32_t s = seed;
	for (int i = 0; i < 150; i++)
		s = step(s ^ (uint32_t)i);
	return s;
}
