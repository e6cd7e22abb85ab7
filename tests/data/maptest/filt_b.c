/* filt_b.c: the twin of filt_a.c, with its own static `step`. */
#include "maptest.h"

static __attribute__((noinline, noclone)) int step(int x)
{
	return x * 5 + 2;
}

int filt_b_run(int n)
{
	int s = 1;
	for (int i = 0; i < n; i++)
		s = step(s);
	return s;
}
