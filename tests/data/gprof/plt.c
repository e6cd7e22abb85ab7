/* plt.c: a host program for the gprof equality test (tests/integration/t_gprof_equal.sh) whose
 * histogram has samples in the PLT. Built with `gcc -O1 -pg -no-pie -fno-inline -fno-builtin
 * plt.c`, it calls two tiny libc functions in a loop for about half a second: the samples in
 * libc fall outside the histogram, and those on the PLT's jumps lie in .plt, where no function
 * symbol is; gprof credits them to the symbol below, _init (the end of .init). */
#include <stdlib.h>

static volatile long sink;

__attribute__((noinline)) long spin(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += labs(i - 5) + abs((int)i);
	return s;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000000;
	sink = spin(n);
	return 0;
}
