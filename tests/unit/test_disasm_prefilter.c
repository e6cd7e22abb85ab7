/* test_disasm_prefilter.c: the Thumb prefilter of disasm.c (instructions that cannot branch or
 * name an address skip libopcodes) changes nothing but speed: with it on and off, every
 * function of the ARM fixture ELFs, and 64 KiB of random halfwords (every Thumb encoding,
 * IT blocks included), decode to the same instructions: address, length, kind, target and
 * referenced words. And the prefilter is really taken: most random-free fixture code skips
 * libopcodes (an empty mnemonic), or the comparison would prove nothing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <cmocka.h>

#include "ramplace/disasm.h"
#include "ramplace/image.h"
#include "ramplace/util.h"

typedef struct trace {
	rp_insn *insns;
	size_t n, cap, fast;
} trace;

static int record(void *ctx, const rp_insn *in)
{
	trace *t = ctx;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_grow((void **)&t->insns, &t->cap, t->n + 1, sizeof(rp_insn), &err), 0);
	t->insns[t->n++] = *in;
	t->fast += in->mnemonic[0] == '\0';
	return 0;
}

/* mode: 0 libopcodes for all, 1 prefilter, 2 prefilter reporting branches and references only */
static void decode_all(const rp_image *img, int mode, trace *t)
{
	rp_disasm *d = NULL;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_disasm_new(&d, img, &err), 0);
	rp_disasm_set_prefilter(d, mode != 0);
	rp_disasm_set_branches_only(d, mode == 2);
	for (size_t i = 0; i < img->nfuncs; i++) {
		const rp_func *f = &img->funcs[i];
		if (f->section < img->nsections && img->sections[f->section].is_exec)
			rp_disasm_func(d, f, record, t, &err);
	}
	rp_disasm_free(d);
}

static int same_insn(const rp_insn *a, const rp_insn *b)
{
	return a->addr == b->addr && a->len == b->len && a->kind == b->kind && a->has_target == b->has_target &&
	       a->target == b->target && a->site_len == b->site_len && a->nrefs == b->nrefs &&
	       a->no_fallthrough == b->no_fallthrough &&
	       memcmp(a->refs, b->refs, a->nrefs * sizeof(a->refs[0])) == 0 &&
	       memcmp(a->ref_words, b->ref_words, a->nrefs * sizeof(a->ref_words[0])) == 0;
}

/* What a walk that only looks at flow and references needs from an instruction. */
static int speaks(const rp_insn *in)
{
	return in->kind != RP_INSN_OTHER || in->has_target || in->nrefs || in->no_fallthrough;
}

/* Same instructions (returns and other ends of flow included), mnemonics aside; and with
 * branches_only, every instruction that names a target, an address or ends the flow is still
 * reported, the same, in order. Returns how many the prefilter passed without libopcodes. */
static size_t compare(const rp_image *img)
{
	trace on = { 0 }, off = { 0 }, brief = { 0 };
	decode_all(img, 1, &on);
	decode_all(img, 0, &off);
	decode_all(img, 2, &brief);
	assert_int_equal(on.n, off.n);
	for (size_t i = 0; i < on.n; i++) {
		const rp_insn *a = &on.insns[i], *b = &off.insns[i];
		if (!same_insn(a, b))
			fail_msg("%s: instruction at 0x%llx differs: '%s' len %u kind %d (libopcodes: len %u kind %d)",
				 img->path, (unsigned long long)a->addr, b->mnemonic, a->len, a->kind, b->len, b->kind);
	}
	size_t k = 0;
	for (size_t i = 0; i < on.n; i++) {
		const rp_insn *a = &on.insns[i];
		if (k < brief.n && brief.insns[k].addr == a->addr) {
			if (!same_insn(&brief.insns[k], a))
				fail_msg("%s: branches-only walk differs at 0x%llx", img->path, (unsigned long long)a->addr);
			k++;
		} else if (speaks(a)) {
			fail_msg("%s: branches-only walk left out 0x%llx", img->path, (unsigned long long)a->addr);
		}
	}
	assert_int_equal(k, brief.n);
	assert_true(brief.n < on.n || on.n == 0);
	assert_int_equal(off.fast, 0);
	free(on.insns);
	free(off.insns);
	free(brief.insns);
	return on.fast;
}

static void test_fixtures_same(void **state)
{
	(void)state;
	static const char *const elfs[] = { "elf/arm-m3.elf", "elf/arm-m0.elf", "elf/arm-m0-far.elf",
					    "elf/arm-m3-far-pic.elf", "qemu-counts/fw.elf", "maptest/maptest.elf" };
	size_t fast = 0;
	for (size_t i = 0; i < sizeof(elfs) / sizeof(elfs[0]); i++) {
		char path[512];
		rp_image *img = NULL;
		rp_err err = RP_ERR_INIT;
		snprintf(path, sizeof(path), "%s/%s", TEST_DATA_DIR, elfs[i]);
		assert_int_equal(rp_image_load(&img, path, &err), 0);
		fast += compare(img);
		rp_image_free(img);
	}
	assert_true(fast > 100);
}

/* One function over random halfwords: every encoding, branches, literals and IT blocks. */
static void test_random_thumb_same(void **state)
{
	(void)state;
	enum { SIZE = 65536, BASE = 0x8000 };
	unsigned char *bytes = malloc(SIZE);
	assert_non_null(bytes);
	uint32_t x = 12345;
	for (size_t i = 0; i < SIZE; i++) {
		x = x * 1103515245u + 12345u;
		bytes[i] = (unsigned char)(x >> 16);
	}
	rp_section sec = { .name = ".text", .vma = BASE, .lma = BASE, .size = SIZE, .align = 2, .file_offset = 0,
			   .is_exec = 1, .is_alloc = 1 };
	rp_func fn = { .name = "random", .addr = BASE, .size = SIZE, .section = 0, .is_thumb = 1 };
	rp_image img = { .path = "random", .machine = EM_ARM, .elfclass = 32, .funcs = &fn, .nfuncs = 1,
			 .sections = &sec, .nsections = 1, .bytes = bytes, .nbytes = SIZE };
	assert_true(compare(&img) > 1000);
	free(bytes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures_same),
		cmocka_unit_test(test_random_thumb_same),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
