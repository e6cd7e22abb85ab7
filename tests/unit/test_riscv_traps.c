/* test_riscv_traps.c: a RISC-V image's trap handlers, found from its writes to mtvec
 * (riscv_traps.c) on tests/data/elf/riscv-mtvec.elf (mtvec.S, built by build.sh): the handler
 * written directly, and the targets of the vectored table's jumps, each once; nothing else. An
 * image that never writes mtvec has none, and rp_boot_vector_handlers says so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ramplace/boot.h"
#include "ramplace/image.h"

static int has(const rp_image *img, const size_t *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(img->funcs[v[i]].name, name) == 0)
			return 1;
	return 0;
}

static void test_mtvec_writes(void **state)
{
	(void)state;
	rp_image *img = NULL;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_image_load(&img, TEST_DATA_DIR "/elf/riscv-mtvec.elf", &err), 0);
	size_t *h = NULL, n = 0;
	assert_int_equal(rp_boot_vector_handlers(img, &h, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_true(has(img, h, n, "direct_handler"));
	assert_true(has(img, h, n, "vec_handler"));
	assert_true(has(img, h, n, "other_handler"));
	assert_false(has(img, h, n, "not_a_handler"));
	free(h);
	rp_image_free(img);
}

static void test_no_mtvec_write(void **state)
{
	(void)state;
	rp_image *img = NULL;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_image_load(&img, TEST_DATA_DIR "/elf/riscv32.elf", &err), 0);
	size_t *h = NULL, n = 0;
	assert_int_equal(rp_riscv_trap_handlers(img, &h, &n, &err), 0);
	assert_int_equal(n, 0);
	free(h);
	assert_int_equal(rp_boot_vector_handlers(img, &h, &n, &err), RP_EINPUT);
	assert_non_null(strstr(err.msg, "no trap handler found"));
	rp_image_free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mtvec_writes),
		cmocka_unit_test(test_no_mtvec_write),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
