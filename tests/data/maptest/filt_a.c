/* filt_a.c: a filter whose helper is a static `step`; filt_b.c has another static `step`, so
 * a pattern like *(.text.step) would move both. */
#include "maptest.h"

static __attribute__((noinline, noclone)) int step(int x)
{
	return x * 3 + 1;
}

int filt_a_run(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s = step(s);
	return s;
}
