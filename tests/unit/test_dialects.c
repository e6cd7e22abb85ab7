/* test_dialects.c: the pattern reader and the lld, ESP-IDF and Zephyr emitters on a small plan
 * (no DWARF): exact output text, the ":file" form rewritten for lld, clones and library members
 * handled per dialect, hostile patterns refused with the pattern quoted. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "ramplace/ldgen/dialects.h"
#include "ramplace/util.h"

static const char plan_text[] =
	"ramplace-plan 1\nbuild-id 00\noutput-section .ramtext\nbudget 1024\nveneer-reserve 0\n"
	"used 100\nsamples 10 10\n"
	"unit op_add interp.c 40 40 5\npattern :interp.o(.text.op_add)\n"
	"pattern :interp.o(.text.op_add.part.0)\nfunc op_add interp.c\nend\n"
	"unit vm_run - 20 20 3\npattern */interp.c.obj(.text.vm_run)\nfunc vm_run -\nend\n"
	"unit memcpy - 40 40 2\npattern */libg.a:lib_a-memcpy.o(.text)\nfunc memcpy -\nend\n";

/* as Zephyr links the application: members of app/libapp.a */
static const char app_plan_text[] =
	"ramplace-plan 1\nbuild-id ab\noutput-section .ramtext\nbudget 1024\nveneer-reserve 0\nused 60\n"
	"samples 10 10\n"
	"unit crc_run - 20 20 1\npattern */libapp.a:crc32.c.obj(.text.crc_run)\nfunc crc_run -\nend\n";

static rp_ldgen_zephyr_opts zopts = RP_LDGEN_ZEPHYR_OPTS_INIT;

static char *emit(int which, const char *text)
{
	rp_plan *plan = NULL;
	rp_err err = RP_ERR_INIT;
	char path[] = "/tmp/test_dialects.XXXXXX", *out = NULL;
	size_t len;
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(rp_plan_parse(&plan, text, strlen(text), "t.plan", &err), 0);
	int rc = which == 0 ? rp_ldgen_lld_write(plan, path, &err)
		: which == 1 ? rp_ldgen_espidf_write(plan, path, NULL, &err)
		: rp_ldgen_zephyr_write(plan, NULL, &zopts, path, &err);
	assert_int_equal(rc, 0);
	assert_int_equal(rp_read_file(&out, &len, path, &err), 0);
	unlink(path);
	rp_plan_free(plan);
	return out;
}

static void test_pattern_parse(void **state)
{
	(void)state;
	rp_ld_pattern p;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_ld_pattern_parse(&p, "*/libg.a:lib_a-memcpy.o(.text)", &err), 0);
	assert_true(p.any_dir && !p.no_archive);
	assert_string_equal(p.file, "libg.a");
	assert_string_equal(p.member, "lib_a-memcpy.o");
	assert_string_equal(p.section, ".text");
	assert_int_equal(rp_ld_pattern_parse(&p, ":main.o(.text.startup.main)", &err), 0);
	assert_true(p.no_archive);
	assert_string_equal(p.file, "main.o");
	assert_string_equal(p.member, "");
	assert_int_equal(rp_ld_pattern_parse(&p, "*/a.o(.text.x) *(.text)", &err), RP_EINPUT);
	assert_string_equal(err.msg, "'*/a.o(.text.x) *(.text)': not FILE(SECTION)");
	assert_int_equal(rp_ld_pattern_parse(&p, "*/a\"b.o(.text)", &err), RP_EINPUT);
	assert_string_equal(err.msg, "'*/a\"b.o(.text)': character '\"' in the file name");
	assert_int_equal(rp_ld_pattern_parse(&p, ":a.a:b.o(.text)", &err), RP_EINPUT);
	assert_int_equal(rp_ld_pattern_parse(&p, "*/a.o()", &err), RP_EINPUT);
	assert_string_equal(err.msg, "'*/a.o()': section name empty");
}

static void test_lld(void **state)
{
	(void)state;
	char *out = emit(0, plan_text);
	const char *body = strstr(out, "*/\n");
	assert_non_null(body);
	/* each file with and without a directory: lld matches the name the link gave (issue 37) */
	assert_string_equal(body + 3, "    */interp.o(.text.op_add)\n    interp.o(.text.op_add)\n"
				      "    */interp.o(.text.op_add.part.0)\n    interp.o(.text.op_add.part.0)\n"
				      "    */interp.c.obj(.text.vm_run)\n    interp.c.obj(.text.vm_run)\n"
				      "    */libg.a:lib_a-memcpy.o(.text)\n    libg.a:lib_a-memcpy.o(.text)\n");
	free(out);
}

static void test_espidf(void **state)
{
	(void)state;
	char *out = emit(1, plan_text);
	/* objects linked directly, a toolchain library's member, a clone: no entry ldgen accepts */
	assert_non_null(strstr(out, "# no ESP-IDF entry for :interp.o(.text.op_add): an object linked directly: "
				    "ESP-IDF maps the components' archives only\n"));
	assert_non_null(strstr(out, "# no ESP-IDF entry for */libg.a:lib_a-memcpy.o(.text): a member of an archive "
				    "the build did not compile (a toolchain library's)\n"));
	assert_null(strstr(out, "[mapping:"));
	free(out);
	/* a component archive, as ESP-IDF builds them: noflash_text entries; names outside ldgen's
	 * grammar (an object starting with a digit, a clone) are left out with the reason */
	static const char idf_plan[] =
		"ramplace-plan 1\nbuild-id ab\noutput-section .ramtext\nbudget 1024\nveneer-reserve 0\nused 60\n"
		"samples 10 10\n"
		"unit crc_run - 20 20 1\npattern */libmain.a:crc32.c.obj(.text.crc_run)\nfunc crc_run -\nend\n"
		"unit op_add - 20 20 1\npattern */libmain.a:interp.c.obj(.text.op_add)\n"
		"pattern */libmain.a:interp.c.obj(.text.op_add.part.0)\nfunc op_add -\nend\n"
		"unit des - 20 20 1\npattern */libmain.a:3des.c.obj(.text.des)\nfunc des -\nend\n";
	out = emit(1, idf_plan);
	assert_non_null(strstr(out, "[mapping:ramplace_libmain_a]\narchive: libmain.a\nentries:\n"
				    "    crc32:crc_run (noflash_text)\n    interp:op_add (noflash_text)\n"));
	assert_non_null(strstr(out, "# no ESP-IDF entry for */libmain.a:interp.c.obj(.text.op_add.part.0): a section "
				    "name outside ldgen's symbol grammar\n"));
	assert_non_null(strstr(out, "# no ESP-IDF entry for */libmain.a:3des.c.obj(.text.des): an object name outside "
				    "ldgen's grammar\n"));
	free(out);
}

static void test_zephyr(void **state)
{
	(void)state;
	char *out = emit(2, plan_text);
	assert_non_null(strstr(out, "# not relocatable by source file: */libg.a:lib_a-memcpy.o(.text)\n"));
	assert_non_null(strstr(out, "zephyr_code_relocate(FILES interp.c\n"
				    "  FILTER \"^([.]text[.]op_add|[.]text[.]op_add[.]part[.]0|[.]text[.]vm_run)$\"\n"
				    "  LOCATION RAM_TEXT)\n"));
	assert_non_null(strstr(out, "# Without --elf the files are the objects' names"));
	free(out);
	/* a member of a static library Zephyr builds (app/libapp.a) maps to its source */
	out = emit(2, app_plan_text);
	assert_non_null(strstr(out, "zephyr_code_relocate(FILES crc32.c\n  FILTER \"^([.]text[.]crc_run)$\"\n"
				    "  LOCATION RAM_TEXT)\n"));
	free(out);
	zopts.location = "ITCM_TEXT";
	zopts.phdr = "itcm";
	zopts.nokeep = 1;
	out = emit(2, plan_text);
	assert_non_null(strstr(out, "  LOCATION ITCM_TEXT PHDR itcm NOKEEP)\n"));
	free(out);
	zopts = (rp_ldgen_zephyr_opts)RP_LDGEN_ZEPHYR_OPTS_INIT;
}

static void test_zephyr_location_checked(void **state)
{
	(void)state;
	rp_plan *plan = NULL;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_plan_parse(&plan, plan_text, strlen(plan_text), "t.plan", &err), 0);
	rp_ldgen_zephyr_opts bad = { "SRAM) x(", NULL, 0, NULL };
	assert_int_equal(rp_ldgen_zephyr_write(plan, NULL, &bad, "/tmp/never-written", &err), RP_EUSAGE);
	bad = (rp_ldgen_zephyr_opts){ "RAM_TEXT", "a b", 0, NULL };
	assert_int_equal(rp_ldgen_zephyr_write(plan, NULL, &bad, "/tmp/never-written", &err), RP_EUSAGE);
	assert_int_equal(access("/tmp/never-written", F_OK), -1);
	rp_plan_free(plan);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pattern_parse),
		cmocka_unit_test(test_lld),
		cmocka_unit_test(test_espidf),
		cmocka_unit_test(test_zephyr),
		cmocka_unit_test(test_zephyr_location_checked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
