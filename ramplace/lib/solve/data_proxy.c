/* data_proxy.c: a stand-in for per-object flash reads when the profile has none (place_data.h):
 * the samples of the functions that load an object's address from their literal pool.
 *
 * Why this proxy: on ARM, code reaches a const object through its address in the function's
 * literal pool, so "hot function F holds &table" is a cheap static fact, and F's samples bound
 * the reads it can make (at most one per instruction). It over-counts (not every instruction
 * of F reads the table) and misses objects reached through pointers passed in; the report
 * says which weights it used. Owns nothing. Workload: the profiled functions (hundreds to a few
 * thousand), each scanned once word by word. */
#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/place_data.h"

static uint32_t word_at(const unsigned char *b, int big_endian)
{
	return big_endian ? (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]
			  : (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
}

/* Credits samples to every object f's aligned words point into, once per object per function;
 * last[i] remembers the function (k + 1) that last credited object i. */
static void scan_function(double *weights, size_t *last, size_t k, const rp_image *img, const rp_dataobjs *d,
			  const rp_func *f, double samples)
{
	uint64_t extent = rp_image_func_extent(img, f);
	uint64_t start = (f->addr + 3) & ~(uint64_t)3;
	unsigned char w[4];
	for (uint64_t a = start; a + 4 <= f->addr + extent && a >= start; a += 4) {
		rp_err ignored = RP_ERR_INIT;
		if (rp_image_read(img, a, w, 4, &ignored))
			return;
		const rp_dataobj *o = rp_dataobjs_at(d, word_at(w, img->big_endian));
		if (!o)
			continue;
		size_t i = (size_t)(o - d->objs);
		if (last[i] == k + 1)
			continue;
		last[i] = k + 1;
		weights[i] += samples;
	}
}

size_t rp_data_proxy_weights(double *weights, const rp_image *img, const rp_dataobjs *d,
			     const rp_db_totals *totals)
{
	for (size_t i = 0; i < d->n; i++)
		weights[i] = 0;
	if (!totals || img->machine != EM_ARM || img->elfclass != 32 || d->n == 0)
		return 0;
	size_t *last = calloc(d->n, sizeof(size_t));
	if (!last)
		return 0;   /* no proxy without memory: nothing is weighted, nothing moves */
	for (size_t k = 0; k < totals->nfuncs; k++) {
		const rp_func_total *t = &totals->funcs[k];
		const rp_func *f = t->count ? rp_image_func_by_name(img, t->func, t->file) : NULL;
		if (f)
			scan_function(weights, last, k, img, d, f, (double)t->count);
	}
	free(last);
	size_t n = 0;
	for (size_t i = 0; i < d->n; i++)
		n += weights[i] > 0;
	return n;
}
