/* test_messages.c: what every error message is built from (issue 13 item 12): names from input
 * escaped one way (rp_escape_name: bytes that are not printable ASCII or valid UTF-8 as \xNN,
 * idempotent so that main can escape a whole message again), a directory named as one rather
 * than as a failed read, and the ELF whose machine field disagrees with the rest of it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "ramplace/image.h"
#include "ramplace/util.h"

static void test_escape(void **state)
{
	(void)state;
	char buf[64], again[64];
	assert_string_equal(rp_escape_name("main\xff\xfe.o", buf, sizeof(buf)), "main\\xff\\xfe.o");
	assert_string_equal(rp_escape_name("a\nb\x01", buf, sizeof(buf)), "a\\x0ab\\x01");
	/* valid UTF-8 stays as it is; an overlong or truncated sequence is bytes */
	assert_string_equal(rp_escape_name("f\xc3\xbc" "r", buf, sizeof(buf)), "f\xc3\xbc" "r");
	assert_string_equal(rp_escape_name("\xc0\xaf", buf, sizeof(buf)), "\\xc0\\xaf");
	assert_string_equal(rp_escape_name("\xe2\x82", buf, sizeof(buf)), "\\xe2\\x82");
	/* escaping twice changes nothing: main escapes messages whose names a stage escaped */
	const char *hostile = "sec\xff\\x01 \x7f";
	rp_escape_name(hostile, buf, sizeof(buf));
	assert_string_equal(buf, "sec\\xff\\x01 \\x7f");
	assert_string_equal(rp_escape_name(buf, again, sizeof(again)), buf);
	/* cut to the buffer with "...", never past it */
	char small[12];
	assert_string_equal(rp_escape_name("\xff\xff\xff\xff", small, sizeof(small)), "\\xff\\xff...");
}

static void test_directory(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_messages.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *text = NULL;
	size_t len = 0;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_read_file(&text, &len, dir, &err), RP_EINPUT);
	assert_null(text);
	char want[128];
	snprintf(want, sizeof(want), "%s: is a directory, not a file", dir);
	assert_string_equal(err.msg, want);
	rp_image *img = NULL;
	assert_int_equal(rp_image_load(&img, dir, &err), RP_EINPUT);
	assert_string_equal(err.msg, want);
	rmdir(dir);
}

/* The hostile ELFs of tests/data/hostile: a header patched to another machine is refused. */
static void expect_machine_refused(const char *file, const char *why)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/hostile/%s", TEST_DATA_DIR, file);
	rp_image *img = NULL;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_image_load(&img, path, &err), RP_EINPUT);
	assert_null(img);
	assert_non_null(strstr(err.msg, path));
	assert_non_null(strstr(err.msg, why));
}

static void test_machine(void **state)
{
	(void)state;
	expect_machine_refused("machine-riscv.elf", "says RISC-V (e_machine 243), but it has ARM's .ARM.attributes");
	expect_machine_refused("machine-riscv-noattr.elf", "its flags 0x5000200 set bits RISC-V does not define");
	expect_machine_refused("machine-arm.elf", "says ARM (e_machine 40), but it has RISC-V's .riscv.attributes");
	expect_machine_refused("machine-x86.elf", "says x86-64 (e_machine 62)");
	/* the unpatched files load */
	char path[512];
	rp_image *img = NULL;
	rp_err err = RP_ERR_INIT;
	snprintf(path, sizeof(path), "%s/hostile/nocalls.elf", TEST_DATA_DIR);
	assert_int_equal(rp_image_load(&img, path, &err), 0);
	rp_image_free(img);
	snprintf(path, sizeof(path), "%s/elf/riscv32.elf", TEST_DATA_DIR);
	assert_int_equal(rp_image_load(&img, path, &err), 0);
	rp_image_free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_directory),
		cmocka_unit_test(test_machine),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
