/* layout_boot.c: what the reset path's copy of the RAM code costs per word, read from the
 * loop that copies it (boot.h finds where), for the layout's price of the boot copy. Owns
 * nothing. Workload: once per link model, one function of a few dozen instructions. */
#include <stdlib.h>

#include "layout_internal.h"
#include "ramplace/boot.h"
#include "ramplace/disasm.h"

/* The copier's instructions: their addresses, and each backward branch's target. */
typedef struct walk {
	uint64_t lo, hi;                         /* the copier */
	uint64_t addr[LT_COPIER_MAX_INSNS];
	uint64_t back_to[LT_COPIER_MAX_INSNS];   /* 0: not a backward branch within the copier */
	int call[LT_COPIER_MAX_INSNS];           /* a call, or a jump out of the copier (a tail call
						    to memcpy, whose loop is elsewhere) */
	size_t n;
} walk;

static int on_insn(void *ctx, const rp_insn *in)
{
	walk *w = ctx;
	if (w->n == LT_COPIER_MAX_INSNS)
		return 0;
	int inside = in->has_target && in->target >= w->lo && in->target < w->hi;
	w->addr[w->n] = in->addr;
	w->back_to[w->n] = inside && in->kind != RP_INSN_CALL && in->target <= in->addr ? in->target : 0;
	w->call[w->n] = in->kind == RP_INSN_CALL || (in->has_target && !inside);
	w->n++;
	return 0;
}

/* The first loop after the copy site: the instructions from a backward branch's target to the
 * branch, when no call comes first (memcpy: its loop is elsewhere, its cost unknown here). */
static unsigned loop_after(const walk *w, uint64_t site)
{
	for (size_t i = 0; i < w->n; i++) {
		if (w->addr[i] < site)
			continue;
		if (w->call[i])
			return 0;
		if (!w->back_to[i])
			continue;
		unsigned n = 0;
		for (size_t j = 0; j <= i; j++)
			n += w->addr[j] >= w->back_to[i];
		return n;
	}
	return 0;
}

unsigned lt_copy_insns_per_word(const rp_image *img, const rp_callgraph *cg, const char *ram_outsec)
{
	rp_boot boot;
	rp_err err = RP_ERR_INIT;
	const char *outsecs[1] = { ram_outsec };
	unsigned n = 0;
	if (!cg->disasm || rp_boot_analyze(&boot, img, cg, outsecs, 1, &err))
		return LT_COPY_INSNS_DEFAULT;
	if (boot.copy_found && boot.copier < img->nfuncs) {
		const rp_func *copier = &img->funcs[boot.copier];
		walk *w = calloc(1, sizeof(*w));
		if (w) {
			w->lo = copier->addr;
			w->hi = copier->addr + rp_image_func_extent(img, copier);
		}
		if (w && rp_disasm_func(cg->disasm, copier, on_insn, w, &err) == 0)
			n = loop_after(w, boot.copy_site);
		free(w);
	}
	rp_boot_release(&boot);
	/* taken as one word a turn: a load, a store, the counting and the branch, up to a dozen
	 * with a reload of the bounds (older STM32Cube startups: 9). A loop of ldm/stm or an
	 * unrolled one copies more a turn and is not told apart here; a longer one falls back */
	return n >= 3 && n <= 12 ? n : LT_COPY_INSNS_DEFAULT;
}
