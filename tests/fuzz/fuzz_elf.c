/* fuzz_elf.c: libFuzzer target for the image model: load any bytes as an ELF, then exercise
 * every lookup and the call decoder on each function found, the interrupt handlers (a Cortex-M
 * vector table, RISC-V's mtvec writes), and the libopcodes call graph and reset-path analysis on
 * the whole image. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "ramplace/boot.h"
#include "ramplace/callgraph.h"
#include "ramplace/calls.h"
#include "ramplace/image.h"

static int ignore(void *ctx, uint64_t site, uint64_t target)
{
	(void)ctx;
	(void)site;
	(void)target;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rp_image *img = NULL;
	rp_err err = RP_ERR_INIT;
	if (rp_image_load_mem(&img, data, size, "fuzz.elf", &err))
		return 0;
	uint64_t addr;
	for (size_t i = 0; i < img->nfuncs && i < 64; i++) {
		const rp_func *f = &img->funcs[i];
		rp_image_func_at(img, f->addr + f->size / 2);
		rp_image_func_by_name(img, f->name, f->file);
		if (f->size < 65536)
			rp_calls_scan(img, f, ignore, NULL, &err);
		rp_image_offset_to_addr(img, f->addr, &addr, &err);
	}
	size_t *handlers = NULL, nhandlers = 0;   /* the vector table, or (RISC-V) the mtvec writes */
	if (img->nfuncs < 4096 && rp_boot_vector_handlers(img, &handlers, &nhandlers, &err) == 0)
		free(handlers);
	rp_callgraph *cg = NULL;
	if (img->nfuncs < 4096 && rp_callgraph_build(&cg, img, &err) == 0) {
		const char *outsecs[] = { ".ramtext" };
		rp_boot boot;
		if (rp_boot_analyze(&boot, img, cg, outsecs, 1, &err) == 0)
			rp_boot_release(&boot);
		rp_callgraph_free(cg);
	}
	rp_image_free(img);
	return 0;
}
