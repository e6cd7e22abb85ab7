/* main.c: the conformance firmware (tests/conformance): runs every phase of the workload for a
 * number of rounds and prints their hashes, so the output is the same on every build of the
 * same sources and differs when any moved function misbehaves. */
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

#ifndef ROUNDS
#define ROUNDS 24
#endif

struct phase {
	const char *name;
	uint32_t (*run)(uint32_t seed);
};

static const struct phase phases[] = {
	{ "crc", crc_run },   { "filt_a", filt_a_run }, { "filt_b", filt_b_run }, { "sort", sort_run },
	{ "vm", vm_run },     { "mem", mem_run },       { "math", math_run },
};

int main(void)
{
	uint32_t total[sizeof phases / sizeof phases[0]] = { 0 };

	console_init();
	printf("conformance firmware: %d rounds of %u phases\n", ROUNDS, (unsigned)(sizeof phases / sizeof phases[0]));
	for (uint32_t round = 0; round < ROUNDS; round++)
		for (size_t p = 0; p < sizeof phases / sizeof phases[0]; p++)
			total[p] = total[p] * 31u + phases[p].run(total[p] ^ (round * 0x9e3779b9u));
	for (size_t p = 0; p < sizeof phases / sizeof phases[0]; p++)
		printf("%-7s %08lx\n", phases[p].name, (unsigned long)total[p]);
	printf("done\n");
	return 0;
}
