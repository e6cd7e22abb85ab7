/* test_image.c: the image model on real ELF fixtures (tests/data/elf, built by build.sh):
 * ARM Thumb little and big endian, RISC-V 32 and 64, build-id or content hash, statics with
 * their files, clones, decoded calls, the long-branch veneer's shape per architecture, and
 * hostile files (not ELF, truncated, stripped, empty). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <elf.h>

#include "ramplace/calls.h"
#include "ramplace/image.h"
#include "ramplace/util.h"

#define ELF_DIR TEST_DATA_DIR "/elf/"

static rp_image *load(const char *name)
{
	rp_image *img = NULL;
	rp_err err = RP_ERR_INIT;
	int rc = rp_image_load(&img, name, &err);
	if (rc)
		fail_msg("%s", err.msg);
	return img;
}

static void test_arm_thumb(void **state)
{
	(void)state;
	rp_image *img = load(ELF_DIR "arm-m3.elf");
	assert_int_equal(img->machine, EM_ARM);
	assert_int_equal(img->elfclass, 32);
	assert_false(img->big_endian);
	assert_string_equal(rp_image_arch(img), "arm");
	assert_string_equal(img->build_id, "cec5b0347f6b5aa9dc4f41a184673fe0faacbc32");
	assert_false(img->build_id_is_hash);
	const rp_func *a = rp_image_func_by_name(img, "helper", "a.c");
	const rp_func *b = rp_image_func_by_name(img, "helper", "b.c");
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(a->addr, 0x1000);     /* Thumb bit cleared */
	assert_true(a->is_thumb);
	assert_int_equal(a->size, 8);
	assert_int_equal(b->addr, 0x10ac);
	assert_true(a->is_local && b->is_local);
	assert_ptr_equal(rp_image_func_at(img, 0x10ad), b);
	assert_ptr_equal(rp_image_func_at(img, 0x1007), a);
	const rp_func *entry = rp_image_func_by_name(img, "a_entry", NULL);
	assert_non_null(entry);
	assert_null(entry->file);
	assert_string_equal(img->sections[entry->section].name, ".text");
	assert_non_null(rp_image_func_by_name(img, "scale.constprop.0", "a.c"));
	assert_null(rp_image_func_at(img, 0x0));
	rp_image_free(img);
}

typedef struct seen {
	uint64_t targets[16];
	size_t n;
} seen;

static int collect(void *ctx, uint64_t site, uint64_t target)
{
	seen *s = ctx;
	(void)site;
	if (s->n < 16)
		s->targets[s->n++] = target;
	return 0;
}

static void expect_calls_of_a_entry(const char *file)
{
	rp_image *img = load(file);
	rp_err err = RP_ERR_INIT;
	const rp_func *entry = rp_image_func_by_name(img, "a_entry", NULL);
	seen s = { { 0 }, 0 };
	assert_int_equal(rp_calls_scan(img, entry, collect, &s, &err), 0);
	const char *want[] = { "helper", "scale.constprop.0", "cold_split", "b_entry" };
	for (size_t k = 0; k < 4; k++) {
		int found = 0;
		for (size_t i = 0; i < s.n; i++) {
			const rp_func *f = rp_image_func_at(img, s.targets[i]);
			found |= f && f->addr == s.targets[i] && strcmp(f->name, want[k]) == 0;
		}
		if (!found)
			fail_msg("%s: a_entry's call to %s was not decoded", file, want[k]);
	}
	rp_image_free(img);
}

static void test_calls_decoded(void **state)
{
	(void)state;
	expect_calls_of_a_entry(ELF_DIR "arm-m3.elf");
	expect_calls_of_a_entry(ELF_DIR "arm-m3-be.elf");
	expect_calls_of_a_entry(ELF_DIR "riscv32.elf");
	expect_calls_of_a_entry(ELF_DIR "riscv64.elf");
}

/* libgcc's assembly helpers have no .size: their calls must still be seen (a missed call out of
 * RAM is a veneer the plan did not pay for) */
static void test_zero_size_function_extent(void **state)
{
	(void)state;
	rp_image *img = load(ELF_DIR "arm-m3-nosize.elf");
	rp_err err = RP_ERR_INIT;
	const rp_func *f = rp_image_func_by_name(img, "nosize_fn", NULL);
	assert_non_null(f);
	assert_int_equal(f->size, 0);
	assert_true(rp_image_func_extent(img, f) >= 12);
	assert_ptr_equal(rp_image_func_at(img, f->addr + 4), f);
	seen s = { { 0 }, 0 };
	assert_int_equal(rp_calls_scan(img, f, collect, &s, &err), 0);
	const rp_func *b = rp_image_func_by_name(img, "b_entry", NULL), *cold = rp_image_func_by_name(img, "cold_split", NULL);
	int saw_b = 0, saw_cold = 0;
	for (size_t i = 0; i < s.n; i++) {
		saw_b |= s.targets[i] == b->addr;
		saw_cold |= s.targets[i] == cold->addr;
	}
	assert_true(saw_b && saw_cold);
	/* a sized function's extent is its size */
	assert_int_equal(rp_image_func_extent(img, b), b->size);
	rp_image_free(img);
}

static void test_big_endian_and_riscv(void **state)
{
	(void)state;
	rp_image *be = load(ELF_DIR "arm-m3-be.elf");
	assert_true(be->big_endian);
	assert_false(be->code_big_endian);   /* BE8: instructions stay little-endian */
	assert_non_null(rp_image_func_by_name(be, "helper", "b.c"));
	rp_image_free(be);
	rp_image *rv = load(ELF_DIR "riscv32.elf");
	assert_int_equal(rv->machine, EM_RISCV);
	assert_string_equal(rp_image_arch(rv), "riscv32");
	assert_int_equal(rp_image_func_by_name(rv, "helper", "a.c")->addr, 0x20400000);
	rp_image_free(rv);
	rp_image *rv64 = load(ELF_DIR "riscv64.elf");
	assert_int_equal(rv64->elfclass, 64);
	assert_string_equal(rp_image_arch(rv64), "riscv64");
	rp_image_free(rv64);
}

static void test_content_hash_without_build_id(void **state)
{
	(void)state;
	rp_image *img = load(ELF_DIR "arm-m3-noid.elf");
	assert_true(img->build_id_is_hash);
	assert_int_equal(strlen(img->build_id), 32);
	char first[129];
	strcpy(first, img->build_id);
	rp_image_free(img);
	img = load(ELF_DIR "arm-m3-noid.elf");
	assert_string_equal(first, img->build_id);   /* stable */
	rp_image_free(img);
}

static void expect_load_error(const void *buf, size_t len, const char *want)
{
	rp_image *img = NULL;
	rp_err err = RP_ERR_INIT;
	int rc = rp_image_load_mem(&img, buf, len, "fw.elf", &err);
	assert_int_equal(rc, RP_EINPUT);
	assert_null(img);
	if (!strstr(err.msg, want) || strncmp(err.msg, "fw.elf: ", 8) != 0)
		fail_msg("message '%s' lacks '%s'", err.msg, want);
	assert_null(strchr(err.msg, '\n'));
}

static void test_hostile_files(void **state)
{
	(void)state;
	expect_load_error("hello, world\n", 13, "not an ELF file");
	expect_load_error("", 0, "empty file");
	char *buf;
	size_t len;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_read_file(&buf, &len, ELF_DIR "arm-m3.elf", &err), 0);
	for (size_t cut = 1; cut < len; cut += 97) {
		rp_image *img = NULL;
		int rc = rp_image_load_mem(&img, buf, cut, "fw.elf", &err);
		assert_true(rc == RP_EINPUT);   /* every truncation is refused, never crashes */
		assert_null(img);
	}
	/* a section header pointing past the end of the file */
	unsigned char *bad = malloc(len);
	memcpy(bad, buf, len);
	Elf32_Ehdr *eh = (Elf32_Ehdr *)bad;
	Elf32_Shdr *sh = (Elf32_Shdr *)(bad + eh->e_shoff);
	sh[1].sh_offset = 0x7fffff00;
	expect_load_error(bad, len, "past the end");
	free(bad);
	free(buf);
	assert_int_equal(rp_read_file(&buf, &len, ELF_DIR "arm-m3-stripped.elf", &err), 0);
	expect_load_error(buf, len, "no function symbols");
	free(buf);
	/* found by fuzz_elf: an allocated SHT_NULL section whose size runs past the file */
	rp_image *img = NULL;
	assert_int_equal(rp_image_load(&img, TEST_DATA_DIR "/../fuzz/corpus/elf/regress-null-section-size", &err), RP_EINPUT);
	assert_non_null(strstr(err.msg, "past the end"));
	assert_int_equal(rp_image_load(&img, ELF_DIR "no-such.elf", &err), RP_EINPUT);
	assert_non_null(strstr(err.msg, "No such file"));
}

static void test_read_and_offsets(void **state)
{
	(void)state;
	rp_image *img = load(ELF_DIR "arm-m3.elf");
	rp_err err = RP_ERR_INIT;
	unsigned char code[4];
	assert_int_equal(rp_image_read(img, 0x107c, code, 4, &err), 0);
	assert_int_equal(code[0], 0xff);   /* f7ff ffc0: bl helper, little-endian halfwords */
	assert_int_equal(code[1], 0xf7);
	assert_int_equal(rp_image_read(img, 0x90000000, code, 4, &err), RP_EINPUT);
	uint64_t addr;
	const rp_section *text = rp_image_section(img, ".text");
	assert_non_null(text);
	assert_int_equal(rp_image_offset_to_addr(img, text->file_offset + 8, &addr, &err), 0);
	assert_int_equal(addr, 0x1008);
	assert_int_equal(rp_image_offset_to_addr(img, 1u << 30, &addr, &err), RP_EINPUT);
	rp_image_free(img);
}

static void test_clone_parent(void **state)
{
	(void)state;
	char buf[64];
	assert_string_equal(rp_clone_parent("foo.part.0", buf, sizeof(buf)), "foo");
	assert_string_equal(rp_clone_parent("foo.cold", buf, sizeof(buf)), "foo");
	assert_string_equal(rp_clone_parent("foo.isra.0.cold", buf, sizeof(buf)), "foo");
	assert_string_equal(rp_clone_parent("foo.constprop.0.isra.0", buf, sizeof(buf)), "foo");
	assert_string_equal(rp_clone_parent("foo.lto_priv.0", buf, sizeof(buf)), "foo");
	assert_string_equal(rp_clone_parent("init.coldstart", buf, sizeof(buf)), "init.coldstart");
	assert_string_equal(rp_clone_parent("memcpy", buf, sizeof(buf)), "memcpy");
	assert_string_equal(rp_clone_parent(".part.0", buf, sizeof(buf)), ".part.0");
}

/* The veneer's shape is the architecture's (.ARM.attributes), unless the linker already wrote
 * veneers: then their symbols' size. */
static void test_veneer_shape(void **state)
{
	(void)state;
	static const struct {
		const char *file;
		int arch, profile;
		uint64_t veneer;
		int linked;
	} cases[] = {
		{ "arm-m3.elf", 10, 'M', 8, 0 },          /* v7: ldr.w pc, [pc, #-0] + word */
		{ "arm-m0.elf", 12, 'M', 16, 0 },         /* v6S-M: push/ldr/mov/pop/bx + word */
		{ "arm-m0-far.elf", 12, 'M', 16, 1 },
		{ "arm-m3-far-pic.elf", 10, 'M', 16, 1 }, /* --pic-veneer: ld's own size wins */
		{ "riscv32.elf", -1, 0, 0, 0 },           /* auipc+jalr reaches: no veneers */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char path[512];
		snprintf(path, sizeof(path), ELF_DIR "%s", cases[i].file);
		rp_image *img = load(path);
		assert_int_equal(img->arm_arch, cases[i].arch);
		assert_int_equal(img->arm_profile, cases[i].profile);
		assert_int_equal(img->veneer_size, cases[i].veneer);
		assert_int_equal(img->veneer_linked, cases[i].linked);
		rp_image_free(img);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arm_thumb),
		cmocka_unit_test(test_calls_decoded),
		cmocka_unit_test(test_big_endian_and_riscv),
		cmocka_unit_test(test_zero_size_function_extent),
		cmocka_unit_test(test_content_hash_without_build_id),
		cmocka_unit_test(test_hostile_files),
		cmocka_unit_test(test_read_and_offsets),
		cmocka_unit_test(test_clone_parent),
		cmocka_unit_test(test_veneer_shape),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
