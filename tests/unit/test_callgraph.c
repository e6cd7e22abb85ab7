/* test_callgraph.c: the libopcodes call graph on the fixture ELFs of tests/data/elf (built by
 * build.sh from a.c and b.c) for Thumb-2 little and big endian, RV32 and RV64, and Thumb-1
 * calls through ARMv6-M long-branch veneers: the exact edge list, the two statics named
 * 'helper' kept apart, each edge's sites, the closure from _start; a literal pool past a function's .size; and a
 * clear refusal for an architecture libopcodes is not set up for here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ramplace/callgraph.h"
#include "ramplace/image.h"

static const char *const fixtures[] = { "arm-m3.elf", "arm-m3-be.elf", "riscv32.elf", "riscv64.elf",
					"arm-m0-far.elf" /* calls through ARMv6-M veneers */ };

static size_t idx(const rp_image *img, const char *name, const char *file)
{
	const rp_func *f = rp_image_func_by_name(img, name, file);
	assert_non_null(f);
	return (size_t)(f - img->funcs);
}

static const rp_cg_edge *edge(const rp_callgraph *cg, size_t from, size_t to)
{
	for (size_t k = cg->first[from]; k < cg->first[from + 1]; k++)
		if (cg->edges[k].to == to)
			return &cg->edges[k];
	return NULL;
}

static void test_fixture_edges(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		char path[512];
		snprintf(path, sizeof(path), "%s/elf/%s", TEST_DATA_DIR, fixtures[i]);
		rp_image *img;
		rp_callgraph *cg;
		rp_err err = RP_ERR_INIT;
		assert_int_equal(rp_image_load(&img, path, &err), 0);
		assert_int_equal(rp_callgraph_build(&cg, img, &err), 0);
		size_t a = idx(img, "a_entry", NULL), b = idx(img, "b_entry", NULL), s = idx(img, "_start", NULL);
		size_t ha = idx(img, "helper", "a.c"), hb = idx(img, "helper", "b.c");
		size_t sc = idx(img, "scale.constprop.0", "a.c"), cs = idx(img, "cold_split", NULL);
		assert_non_null(edge(cg, a, ha));
		assert_null(edge(cg, a, hb));        /* the other file's static */
		assert_non_null(edge(cg, b, hb));
		assert_int_equal(edge(cg, a, sc)->ncalls, 2);
		assert_non_null(edge(cg, a, cs));
		assert_non_null(edge(cg, a, b));
		assert_non_null(edge(cg, s, a));
		assert_int_equal(cg->nedges, 6);
		/* each edge's sites: as many as its calls and branches, inside its caller, by address,
		 * of the lengths its counts say (RISC-V relaxation sizes them one by one) */
		size_t nsites = 0;
		for (size_t e = 0; e < cg->nedges; e++) {
			const rp_cg_edge *ed = &cg->edges[e];
			const rp_func *from = &img->funcs[ed->from];
			unsigned by_len[9] = { 0 };
			assert_int_equal(ed->site0, nsites);
			for (size_t k = ed->site0; k < ed->site0 + ed->ncalls + ed->nbranches; k++) {
				const rp_cg_site *site = &cg->sites[k];
				assert_true(site->addr >= (from->addr & ~1ull) && site->addr < (from->addr & ~1ull) + from->size);
				assert_true(k == ed->site0 || site->addr > cg->sites[k - 1].addr);
				assert_int_equal(site->addr == ed->first_site || k > ed->site0, 1);
				by_len[site->len <= 8 ? site->len : 0]++;
			}
			if (strncmp(fixtures[i], "riscv", 5) == 0) {
				assert_int_equal(by_len[2], ed->sites2);
				assert_int_equal(by_len[4], ed->sites4);
				assert_int_equal(by_len[8], ed->sites8);
			}
			nsites += ed->ncalls + ed->nbranches;
		}
		assert_int_equal(cg->nsites, nsites);
		unsigned char *mark = calloc(img->nfuncs, 1);
		assert_int_equal(rp_callgraph_reach(cg, &s, 1, mark, &err), 0);
		size_t n = 0;
		for (size_t f = 0; f < img->nfuncs; f++)
			n += mark[f];
		assert_int_equal(n, 7);               /* _start and the six it reaches */
		assert_true(mark[ha] && mark[hb] && mark[sc] && mark[cs]);
		free(mark);
		rp_callgraph_free(cg);
		rp_image_free(img);
	}
}

/* a function symbol without .size (libgcc's assembly helpers): its calls and tail branches are
 * edges, so a plan moving it pays for their veneers */
static void test_zero_size_function(void **state)
{
	(void)state;
	char path[512];
	snprintf(path, sizeof(path), "%s/elf/arm-m3-nosize.elf", TEST_DATA_DIR);
	rp_image *img;
	rp_callgraph *cg;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_image_load(&img, path, &err), 0);
	assert_int_equal(rp_callgraph_build(&cg, img, &err), 0);
	size_t f = idx(img, "nosize_fn", NULL);
	assert_int_equal(img->funcs[f].size, 0);
	assert_int_equal(edge(cg, f, idx(img, "b_entry", NULL))->ncalls, 1);
	assert_int_equal(edge(cg, f, idx(img, "cold_split", NULL))->nbranches, 1);
	rp_callgraph_free(cg);
	rp_image_free(img);
}

/* a literal pool the assembler put after a function's .size (a naked function's .ltorg) is
 * its input section's: 2 bytes of padding and 8 of pool past pooled_fn's 6, up to after_pool.
 * Functions GCC writes keep their pools inside .size: none of the others has any. */
static void test_trailing_pool(void **state)
{
	(void)state;
	char path[512];
	snprintf(path, sizeof(path), "%s/elf/arm-m3-pool.elf", TEST_DATA_DIR);
	rp_image *img;
	rp_callgraph *cg;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_image_load(&img, path, &err), 0);
	assert_int_equal(rp_callgraph_build(&cg, img, &err), 0);
	size_t f = idx(img, "pooled_fn", NULL), next = idx(img, "after_pool", NULL);
	assert_int_equal(img->funcs[f].size, 6);
	assert_int_equal(cg->trailing[f], 10);
	assert_int_equal(img->funcs[f].addr + img->funcs[f].size + cg->trailing[f], img->funcs[next].addr);
	for (size_t i = 0; i < img->nfuncs; i++)
		if (i != f)
			assert_int_equal(cg->trailing[i], 0);
	rp_callgraph_free(cg);
	rp_image_free(img);
}

static void test_not_code(void **state)
{
	(void)state;
	rp_image img;
	memset(&img, 0, sizeof(img));
	img.path = (char *)"x.elf";
	img.machine = 3;   /* EM_386 */
	rp_callgraph *cg;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_callgraph_build(&cg, &img, &err), RP_EINPUT);
	assert_non_null(strstr(err.msg, "x.elf: cannot disassemble"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_edges),
		cmocka_unit_test(test_zero_size_function),
		cmocka_unit_test(test_trailing_pool),
		cmocka_unit_test(test_not_code),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
