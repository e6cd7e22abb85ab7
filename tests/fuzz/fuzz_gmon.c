/* fuzz_gmon.c: libFuzzer target for the gmon.out reader (both byte orders, both address sizes,
 * OpenOCD's bins) and the crediting of bins to the functions of a small synthetic image. */
#include <elf.h>
#include <stddef.h>
#include <stdint.h>

#include "ramplace/gmon.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rp_func funcs[] = {
		{ .name = "a", .addr = 0x1000, .size = 8, .is_thumb = 1 },
		{ .name = "b", .addr = 0x1008, .size = 0x20, .is_thumb = 1 },
		{ .name = "c", .file = "c.c", .addr = 0x1040, .is_local = 1, .is_thumb = 1 },
		{ .name = "d", .addr = 0x1100, .size = 0x100, .is_thumb = 1 },
	};
	rp_image img = { 0 };
	img.machine = EM_ARM;
	img.funcs = funcs;
	img.nfuncs = sizeof(funcs) / sizeof(funcs[0]);
	for (int v = 0; v < 8; v++) {
		rp_gmon g;
		rp_gmon_opts o = { v & 1 ? 8 : 4, (v >> 1) & 1, (v >> 2) & 1 };
		rp_err err = RP_ERR_INIT;
		if (rp_gmon_parse(&g, data, size, &o, "fuzz", &err) == 0) {
			rp_samples s;
			rp_samples_init(&s);
			rp_gmon_to_samples(&s, &g, &img, "fuzz", &err);
			rp_samples_release(&s);
			rp_gmon_release(&g);
		}
	}
	return 0;
}
