/* prog.c: a host program for the gprof equality test (tests/integration/t_gprof_equal.sh).
 * Built with `gcc -O1 -pg -no-pie -fno-inline prog.c`, it runs for about half a second and
 * writes gmon.out: several small functions next to each other (so histogram bins straddle
 * function boundaries), a static, direct recursion, and calls from several sites. (No mutual
 * recursion: gprof collapses such cycles into "<cycle N>" entries, ramplace does not.) */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned sink;

static unsigned mix(unsigned x)
{
	return (x ^ (x >> 7)) * 2654435761u;
}

unsigned leaf_a(unsigned x)
{
	unsigned s = 0;
	for (unsigned i = 0; i < 300; i++)
		s += mix(x + i);
	return s;
}

unsigned leaf_b(unsigned x)
{
	unsigned s = x;
	for (unsigned i = 0; i < 900; i++)
		s = s * 31 + i;
	return s;
}

unsigned fact(unsigned n)
{
	return n < 2 ? 1 : n * fact(n - 1) + leaf_b(n);
}

unsigned middle(unsigned x)
{
	return leaf_a(x) + leaf_b(x) + mix(x);
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 200000, s = 0;
	for (unsigned i = 0; i < n; i++) {
		s += middle(i);
		if (i % 10 == 0)
			s += fact(8) + leaf_a(i);
	}
	sink = s;
	printf("%u\n", s);
	return 0;
}
