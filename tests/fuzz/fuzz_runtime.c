/* fuzz_runtime.c: libFuzzer target for what the host reads of the target-side sampling runtime
 * (runtime.h): the first byte picks the byte order, the next 64 are the descriptor, and when it
 * decodes, the rest is cut into bins and arc slots (as many as it holds, up to what the
 * descriptor claims) and turned into gmon.out. The whole input is also parsed as an `m` reply
 * (rsp_mem.c). Nothing may crash, leak or read out of bounds; errors are expected. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "ramplace/rsp.h"
#include "ramplace/runtime.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rp_err err = RP_ERR_INIT;
	unsigned char mem[RP_RSP_MEM_CHUNK];
	size_t n;
	rp_rsp_parse_mem(mem, sizeof(mem), &n, (const char *)data, size, "r", "fuzz", &err);
	if (size < 1 + RP_RUNTIME_DESC_SIZE)
		return 0;
	int be = data[0] & 1;
	rp_runtime_profile p;
	rp_runtime_profile_init(&p);
	if (rp_runtime_desc_parse(&p.desc, data + 1, RP_RUNTIME_DESC_SIZE, be, "fuzz", &err) == 0) {
		const uint8_t *rest = data + 1 + RP_RUNTIME_DESC_SIZE;
		size_t left = size - 1 - RP_RUNTIME_DESC_SIZE;
		/* cap what the descriptor claims at what the input holds */
		if (2ull * p.desc.nbins > left)
			p.desc.nbins = (uint32_t)(left / 2);
		left -= 2ull * p.desc.nbins;
		if ((uint64_t)RP_RUNTIME_ARC_SIZE * p.desc.narcs > left)
			p.desc.narcs = (uint32_t)(left / RP_RUNTIME_ARC_SIZE);
		unsigned char *g;
		size_t glen;
		if (p.desc.nbins &&
		    rp_runtime_profile_decode(&p, rest, 2ull * p.desc.nbins, rest + 2ull * p.desc.nbins,
					      (size_t)RP_RUNTIME_ARC_SIZE * p.desc.narcs, be, "fuzz", &err) == 0 &&
		    rp_runtime_gmon(&g, &glen, &p, be, &err) == 0)
			free(g);
	}
	rp_runtime_profile_release(&p);
	return 0;
}
