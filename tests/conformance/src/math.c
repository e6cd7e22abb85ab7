/* math.c: integer division and single-precision float: libgcc helpers (__aeabi_uidiv on
 * Cortex-M0, __aeabi_fmul/__aeabi_fadd without an FPU, __mulsf3 on RISC-V without F) or the FPU. */
#include "work.h"

uint32_t math_run(uint32_t seed)
{
	uint32_t acc = 0;
	float f = 1.0f;
	for (uint32_t i = 1; i <= 64; i++) {
		seed = seed * 1664525u + 1013904223u;
		acc += seed / (i * 7u + 3u);
		acc ^= seed % 1000u;
		f = f * 1.0001f + (float)(seed & 0xffu) * 0.5f;
	}
	return acc ^ (uint32_t)f;
}
