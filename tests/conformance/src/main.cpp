// main.cpp: the C++ conformance firmware: C++ phases (templates, virtual calls, a static
// constructor) next to C phases of the C firmware, printed like main.c does.
#include <stdio.h>

#include "cxx.hpp"
#include "work.h"

#ifndef ROUNDS
#define ROUNDS 24
#endif

Mixer::Mixer(uint32_t seed)
{
	for (unsigned i = 0; i < 256; i++) {
		seed = seed * 1103515245u + 12345u;
		table_[i] = rotl(seed, i);
	}
}

const Mixer g_mixer(0x12345678u); // static constructor
RingBuffer<uint32_t, 64> g_ring;

namespace {

template <unsigned K> uint32_t ring_phase(uint32_t seed)
{
	RingBuffer<uint32_t, 64> local;
	for (unsigned i = 0; i < 64 + K; i++)
		local.push(g_mixer(seed + i * K));
	uint32_t words[8];
	for (unsigned i = 0; i < 8; i++)
		words[i] = seed ^ i;
	return local.digest(mix_block(words, 8, seed));
}

struct Phase {
	const char *name;
	uint32_t (*run)(uint32_t);
};

const Phase phases[] = {
	{ "ring3", ring_phase<3> }, { "ring5", ring_phase<5> }, { "pipe", pipeline_run },
	{ "crc", crc_run },         { "filt_a", filt_a_run },   { "filt_b", filt_b_run },
	{ "mem", mem_run },
};

} // namespace

int main()
{
	const unsigned n = sizeof phases / sizeof phases[0];
	uint32_t total[n] = {};

	console_init();
	printf("conformance C++ firmware: %d rounds of %u phases\n", ROUNDS, n);
	for (uint32_t round = 0; round < ROUNDS; round++)
		for (unsigned p = 0; p < n; p++)
			total[p] = total[p] * 31u + phases[p].run(total[p] ^ (round * 0x9e3779b9u));
	for (unsigned p = 0; p < n; p++)
		printf("%-7s %08lx\n", phases[p].name, static_cast<unsigned long>(total[p]));
	printf("ring    %u\n", g_ring.size());
	printf("done\n");
	return 0;
}
