/* test_elfsyms.c: rp_elfsyms_load reads the symbol table from the image's own bytes (native
 * byte order) or a private copy (big-endian), names pointing into one copy of the string
 * table: every symbol libelf's elf_strptr names, in order, with its value, size, type and
 * SHN_ABS, for each ELF of tests/data/elf (ARM little- and big-endian, RISC-V 32 and 64); the
 * image's bytes are left as they were; rp_elfsyms_find gives the first symbol of a name. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <gelf.h>
#include <libelf.h>

#include "ramplace/elfsyms.h"
#include "ramplace/image.h"
#include "ramplace/util.h"

static const char *const elves[] = { "arm-m3.elf", "arm-m3-be.elf", "arm-m0.elf", "arm-m3-nosize.elf",
				     "arm-m3-far-pic.elf", "riscv32.elf", "riscv64.elf" };

/* The symbols as libelf names them, on a copy of the file (the reference: elf_strptr). */
static size_t reference(const rp_image *img, rp_elfsym *out, size_t cap, char **names)
{
	char *copy = malloc(img->nbytes);
	assert_non_null(copy);
	memcpy(copy, img->bytes, img->nbytes);
	elf_version(EV_CURRENT);
	Elf *elf = elf_memory(copy, img->nbytes);
	assert_non_null(elf);
	size_t n = 0;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 1; d && i < d->d_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			assert_non_null(gelf_getsym(d, (int)i, &sym));
			const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			assert_true(n < cap);
			names[n] = strdup(name);
			out[n] = (rp_elfsym){ names[n], sym.st_value, sym.st_size, GELF_ST_TYPE(sym.st_info),
					      sym.st_shndx == SHN_ABS };
			n++;
		}
	}
	elf_end(elf);
	free(copy);
	return n;
}

static void test_same_as_libelf(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(elves) / sizeof(elves[0]); k++) {
		char path[512];
		snprintf(path, sizeof(path), "%s/elf/%s", TEST_DATA_DIR, elves[k]);
		rp_image *img = NULL;
		rp_err err = RP_ERR_INIT;
		assert_int_equal(rp_image_load(&img, path, &err), 0);
		unsigned char *before = malloc(img->nbytes);
		assert_non_null(before);
		memcpy(before, img->bytes, img->nbytes);
		size_t cap = 100000, n;
		rp_elfsym *want = calloc(cap, sizeof(*want));
		char **names = calloc(cap, sizeof(char *));
		assert_non_null(want);
		assert_non_null(names);
		n = reference(img, want, cap, names);

		rp_elfsyms got;
		assert_int_equal(rp_elfsyms_load(&got, img, &err), 0);
		assert_int_equal(got.nsyms, n);
		for (size_t i = 0; i < n; i++) {
			assert_string_equal(got.syms[i].name, want[i].name);
			assert_int_equal(got.syms[i].value, want[i].value);
			assert_int_equal(got.syms[i].size, want[i].size);
			assert_int_equal(got.syms[i].type, want[i].type);
			assert_int_equal(got.syms[i].absolute, want[i].absolute);
			/* the first of its name, as a scan finds it */
			const rp_elfsym *f = rp_elfsyms_find(&got, want[i].name);
			size_t first = 0;
			while (strcmp(want[first].name, want[i].name) != 0)
				first++;
			assert_ptr_equal(f, &got.syms[first]);
		}
		assert_null(rp_elfsyms_find(&got, "no such symbol"));
		assert_true(n == 0 || rp_elfsyms_find(&got, "") == NULL);
		assert_memory_equal(img->bytes, before, img->nbytes);   /* read, never converted in place */
		assert_true(n > 10);
		rp_elfsyms_release(&got);
		assert_int_equal(got.nsyms, 0);
		for (size_t i = 0; i < n; i++)
			free(names[i]);
		free(names);
		free(want);
		free(before);
		rp_image_free(img);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_libelf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
