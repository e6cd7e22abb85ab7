/* test_plan.c: the plan file: a write/read round trip (statics, globals, odd names that need
 * percent-encoding), and hostile files, each refused with its exact "FILE:LINE: what". */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "ramplace/plan.h"
#include "ramplace/util.h"

static const char header[] = "ramplace-plan 1\nbuild-id 0123abcd\noutput-section .ramtext\n"
			     "region RAM 536870912 65536\nbudget 1024\nveneer-reserve 64\nused 32\n"
			     "samples 100 80\n";

static void expect_error(const char *text, const char *message)
{
	rp_plan *plan = NULL;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_plan_parse(&plan, text, strlen(text), "p.plan", &err), RP_EINPUT);
	assert_null(plan);
	assert_string_equal(err.msg, message);
}

/* header + body, for hostile unit lines */
static void expect_body_error(const char *body, const char *message)
{
	char text[2048];
	snprintf(text, sizeof(text), "%s%s", header, body);
	expect_error(text, message);
}

static char *temp_path(void)
{
	char *path = strdup("/tmp/test_plan.XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	return path;
}

static void test_round_trip(void **state)
{
	(void)state;
	char *funcs_a_names[] = { "op add", "op%add.part.0" };
	rp_plan_func funcs_a[] = { { funcs_a_names[0], (char *)"my file.c" }, { funcs_a_names[1], (char *)"my file.c" } };
	char *patterns_a[] = { (char *)"*/interp.o(.text.op_add)", (char *)"*/interp.o(.text.op_add.part.0)" };
	rp_plan_func funcs_b[] = { { (char *)"memcpy", NULL } };
	char *patterns_b[] = { (char *)"*/libc_nano.a:libc_a-memcpy.o(.text)" };
	rp_plan_func funcs_c[] = { { (char *)"-", (char *)"tab\there.c" } };
	rp_plan_unit units[] = {
		{ (char *)"op add", (char *)"my file.c", 24, 24, 700, patterns_a, 2, funcs_a, 2 },
		{ (char *)"memcpy", NULL, 236, 236, 200, patterns_b, 1, funcs_b, 1 },
		{ (char *)"-", (char *)"tab\there.c", 0, 0, 0, NULL, 0, funcs_c, 1 },
	};
	rp_plan_func handlers[] = { { (char *)"TIMER0_Handler", NULL }, { (char *)"isr tick", (char *)"timers.c" } };
	rp_plan plan = { .build_id = (char *)"0123abcd", .outsec = (char *)".ramtext", .region = (char *)"RAM",
			 .region_origin = 0x20000000, .region_length = 0x10000, .budget = 1024,
			 .veneer_reserve = 64, .used = 260, .total_samples = UINT64_MAX, .moved_samples = 900, .link_reserve = 88, .allow_boot_path = 1,
			 .modeled_model = (char *)"cache:size=4096 ways", .modeled_before = 7577594264ull,
			 .modeled_after = 3717035372ull, .dialect = (char *)"zephyr", .linker_lld = 1, .sizes_estimated = 1, .handlers = handlers, .nhandlers = 2, .units = units, .nunits = 3 };
	char *path = temp_path();
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_plan_write(&plan, path, &err), 0);

	char *text = NULL;
	size_t len = 0;
	assert_int_equal(rp_read_file(&text, &len, path, &err), 0);
	assert_non_null(strstr(text, "unit op%20add my%20file.c 24 24 700\n"));
	assert_non_null(strstr(text, "func op%25add.part.0 my%20file.c\n"));
	assert_non_null(strstr(text, "unit memcpy - 236 236 200\n"));
	assert_non_null(strstr(text, "unit %2D tab%09here.c 0 0 0\n"));
	assert_non_null(strstr(text, "samples 18446744073709551615 900\n"));
	assert_non_null(strstr(text, "link-reserve 88\n"));
	assert_non_null(strstr(text, "boot-path allowed\n"));
	assert_non_null(strstr(text, "modeled cache:size=4096%20ways 7577594264 3717035372\n"));
	free(text);

	rp_plan *back = NULL;
	assert_int_equal(rp_plan_read(&back, path, &err), 0);
	assert_string_equal(back->build_id, "0123abcd");
	assert_string_equal(back->outsec, ".ramtext");
	assert_string_equal(back->region, "RAM");
	assert_int_equal(back->region_origin, 0x20000000);
	assert_int_equal(back->region_length, 0x10000);
	assert_int_equal(back->budget, 1024);
	assert_int_equal(back->veneer_reserve, 64);
	assert_int_equal(back->link_reserve, 88);
	assert_int_equal(back->allow_boot_path, 1);
	assert_int_equal(back->used, 260);
	assert_true(back->total_samples == UINT64_MAX);
	assert_int_equal(back->moved_samples, 900);
	assert_string_equal(back->modeled_model, "cache:size=4096 ways");
	assert_string_equal(back->dialect, "zephyr");
	assert_int_equal(back->linker_lld, 1);
	assert_int_equal(back->sizes_estimated, 1);
	assert_int_equal(back->nhandlers, 2);
	assert_string_equal(back->handlers[0].name, "TIMER0_Handler");
	assert_null(back->handlers[0].file);
	assert_string_equal(back->handlers[1].name, "isr tick");
	assert_string_equal(back->handlers[1].file, "timers.c");
	assert_true(back->modeled_before == 7577594264ull && back->modeled_after == 3717035372ull);
	assert_int_equal(back->nunits, 3);
	assert_string_equal(back->units[0].name, "op add");
	assert_string_equal(back->units[0].file, "my file.c");
	assert_int_equal(back->units[0].samples, 700);
	assert_int_equal(back->units[0].npatterns, 2);
	assert_string_equal(back->units[0].patterns[1], "*/interp.o(.text.op_add.part.0)");
	assert_int_equal(back->units[0].nfuncs, 2);
	assert_string_equal(back->units[0].funcs[1].name, "op%add.part.0");
	assert_null(back->units[1].file);
	assert_null(back->units[1].funcs[0].file);
	assert_string_equal(back->units[1].patterns[0], "*/libc_nano.a:libc_a-memcpy.o(.text)");
	assert_string_equal(back->units[2].name, "-"); /* "%2D" is a name, "-" is none */
	assert_string_equal(back->units[2].file, "tab\there.c");
	assert_string_equal(back->units[2].funcs[0].name, "-");
	rp_plan_free(back);
	unlink(path);
	free(path);
}

static void test_empty_plan(void **state)
{
	(void)state;
	rp_plan plan = { .build_id = (char *)"ff", .outsec = (char *)".ramtext", .budget = 4096 };
	char *path = temp_path();
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_plan_write(&plan, path, &err), 0);
	rp_plan *back = NULL;
	assert_int_equal(rp_plan_read(&back, path, &err), 0);
	assert_int_equal(back->nunits, 0);
	assert_null(back->region);
	assert_int_equal(back->region_length, 0);
	assert_int_equal(back->budget, 4096);
	rp_plan_free(back);
	unlink(path);
	free(path);
}

/* The first build's plan (place --allow-empty, no ELF yet): "build-id -", no unit; a unit
 * under "build-id -" is refused, since nothing could tell which ELF it was chosen from. */
static void test_first_build_plan(void **state)
{
	(void)state;
	rp_plan plan = { .outsec = (char *)".ramtext", .align = 4 };
	char *path = temp_path();
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_plan_write(&plan, path, &err), 0);
	char text[512];
	FILE *fp = fopen(path, "r");
	size_t n = fread(text, 1, sizeof(text) - 1, fp);
	fclose(fp);
	text[n] = '\0';
	assert_string_equal(text, "ramplace-plan 1\nbuild-id -\noutput-section .ramtext\nbudget 0\nveneer-reserve 0\n"
				  "used 0\nsamples 0 0\nalign 4\n");
	rp_plan *back = NULL;
	assert_int_equal(rp_plan_read(&back, path, &err), 0);
	assert_null(back->build_id);
	assert_int_equal(back->nunits, 0);
	rp_plan_free(back);
	unlink(path);
	free(path);
	expect_error("ramplace-plan 1\nbuild-id -\noutput-section .ramtext\nbudget 0\nveneer-reserve 0\nused 0\n"
		     "samples 0 0\nunit f - 4 4 1\nend\n",
		     "p.plan:8: a unit in a plan without a build-id (only an empty first-build plan has none)");
}

static void test_write_refuses(void **state)
{
	(void)state;
	rp_err err = RP_ERR_INIT;
	rp_plan_unit unit = { .name = (char *)"u" };
	rp_plan no_id = { .outsec = (char *)".ramtext", .units = &unit, .nunits = 1 };
	assert_int_equal(rp_plan_write(&no_id, "/tmp/never.plan", &err), RP_EINPUT);
	assert_string_equal(err.msg, "/tmp/never.plan: plan has no build-id");
	unit.name = (char *)"";
	rp_plan unnamed = { .build_id = (char *)"ab", .outsec = (char *)".ramtext", .units = &unit, .nunits = 1 };
	assert_int_equal(rp_plan_write(&unnamed, "/tmp/never.plan", &err), RP_EINPUT);
	assert_string_equal(err.msg, "/tmp/never.plan: plan unit 1: empty unit name");
	assert_int_equal(access("/tmp/never.plan", F_OK), -1);
	rp_plan ok = { .build_id = (char *)"ab", .outsec = (char *)".ramtext" };
	assert_int_equal(rp_plan_write(&ok, "/nonexistent-dir/x.plan", &err), RP_EIO);
}

static void test_comments_and_crlf(void **state)
{
	(void)state;
	const char text[] = "ramplace-plan 1\r\n# made by hand\r\nbuild-id ab\r\noutput-section .ramtext\r\n\r\n"
			    "budget 10\r\nveneer-reserve 0\r\nused 4\r\nsamples 1 1\r\nunit f - 4 4 1\r\n"
			    "func f -\r\nend\r\n";
	rp_plan *plan = NULL;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_plan_parse(&plan, text, sizeof(text) - 1, "p.plan", &err), 0);
	assert_int_equal(plan->nunits, 1);
	assert_string_equal(plan->units[0].funcs[0].name, "f");
	rp_plan_free(plan);
}

static void test_hostile(void **state)
{
	(void)state;
	expect_error("", "p.plan: empty plan file");
	expect_error("ramplace-plan 2\n", "p.plan:1: unsupported plan version '2' (this ramplace reads version 1)");
	expect_error("hello\n", "p.plan:1: not a ramplace plan (the first line must be 'ramplace-plan 1')");
	expect_error("ramplace-plan 1\nbuild-id ab\n",
		     "p.plan: incomplete plan header (needs build-id, output-section, budget, veneer-reserve, used, samples)");
	expect_error("ramplace-plan 1\nbuild-id ab\nbuild-id cd\n", "p.plan:3: 'build-id' given twice");
	expect_error("ramplace-plan 1\nlink-reserve 8\nlink-reserve 8\n", "p.plan:3: 'link-reserve' given twice");
	expect_error("ramplace-plan 1\nlink-reserve x\n", "p.plan:2: link-reserve 'x' is not a decimal number");
	expect_error("ramplace-plan 1\nboot-path maybe\n",
		     "p.plan:2: unknown boot-path 'maybe' (only 'allowed'; a plan made without --allow-boot-path has no boot-path line)");
	expect_error("ramplace-plan 1\nwhat 1\n", "p.plan:2: unknown key 'what'");
	expect_error("ramplace-plan 1\nbudget\n", "p.plan:2: missing fields: expected 'budget BYTES'");
	expect_error("ramplace-plan 1\nbudget 1 2\n", "p.plan:2: too many fields: expected 'budget BYTES'");
	expect_error("ramplace-plan 1\nbudget 18446744073709551616\n",
		     "p.plan:2: budget '18446744073709551616' is too large");
	expect_error("ramplace-plan 1\nbudget -1\n", "p.plan:2: budget '-1' is not a decimal number");
	expect_error("ramplace-plan 1\nbudget 0x10\n", "p.plan:2: budget '0x10' is not a decimal number");
	expect_error("ramplace-plan 1\nbudget 010\n", "p.plan:2: budget '010' is not a decimal number");
	expect_error("ramplace-plan 1\nbudget  1\n",
		     "p.plan:2: empty field (fields are separated by single spaces)");
	expect_error("ramplace-plan 1\nbudget 1 \n",
		     "p.plan:2: empty field (fields are separated by single spaces)");
	expect_error("ramplace-plan 1\nbuild-id a%zz\n", "p.plan:2: bad percent-encoding '%zz' (expected %XX, not %00)");
	expect_error("ramplace-plan 1\nbuild-id a%2\n", "p.plan:2: bad percent-encoding '%2' (expected %XX, not %00)");
	expect_error("ramplace-plan 1\nbuild-id a%00\n", "p.plan:2: bad percent-encoding '%00' (expected %XX, not %00)");
	expect_error("ramplace-plan 1\nbuild-id a\tb\n", "p.plan:2: unencoded control character in a field");
	expect_error("ramplace-plan 1\nbuild-id\n", "p.plan:2: missing fields: expected 'build-id HEX'");
	expect_error("ramplace-plan 1\nregion RAM 18446744073709551615 2\n",
		     "p.plan:2: region RAM (origin 0xffffffffffffffff, length 0x2) wraps around the address space");
	expect_error("ramplace-plan 1\nsamples 1 2\n", "p.plan:2: moved samples exceed the total");
	expect_error("ramplace-plan 1\nhandler - x.c\n", "p.plan:2: handler has no name");
	expect_error("ramplace-plan 1\nhandler h\n", "p.plan:2: missing fields: expected 'handler NAME FILE'");
	expect_error("ramplace-plan 1\nsizes exact\n", "p.plan:2: unknown sizes 'exact' (only 'estimated'; a plan made with the map has no sizes line)");
	expect_error("ramplace-plan 1\nsizes estimated\nsizes estimated\n", "p.plan:3: 'sizes' given twice");
	expect_error("ramplace-plan 1\nlinker gold\n", "p.plan:2: unknown linker 'gold' (only 'lld'; GNU ld's plans have no linker line)");
	expect_error("ramplace-plan 1\ndialect gcc\n", "p.plan:2: unknown dialect 'gcc' (zephyr, esp-idf or pico; GNU ld's plans have no dialect line)");
	expect_error("ramplace-plan 1\nmodeled ws:5 1\n", "p.plan:2: missing fields: expected 'modeled MODEL BEFORE AFTER'");
	expect_error("ramplace-plan 1\nmodeled ws:5 1 2\n", "p.plan:2: modeled cycles after the move exceed those before it");
	expect_error("ramplace-plan 1\nmodeled - 2 1\n", "p.plan:2: 'modeled' needs a model");
	expect_error("ramplace-plan 1\nmodeled ws:5 2 x\n", "p.plan:2: modeled cycles after 'x' is not a decimal number");
	expect_error("ramplace-plan 1\nmodeled ws:5 2 1\nmodeled ws:5 2 1\n", "p.plan:3: 'modeled' given twice");
	expect_error("ramplace-plan 1\nunit f - 1 1 1\n", "p.plan:2: 'unit' before the header is complete");
	expect_error("ramplace-plan 1\nend\n", "p.plan:2: 'end' outside a unit");
	const char nul[] = "ramplace-plan 1\nbuild-id a\0b\n";
	rp_plan *plan = NULL;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_plan_parse(&plan, nul, sizeof(nul) - 1, "p.plan", &err), RP_EINPUT);
	assert_string_equal(err.msg, "p.plan:2: NUL byte in the plan");

	expect_body_error("unit f - 1 1\n", "p.plan:9: missing fields: expected 'unit NAME FILE SIZE WEIGHT SAMPLES'");
	expect_body_error("unit - - 1 1 1\n", "p.plan:9: unit has no name");
	expect_body_error("unit f - 1 1 x\n", "p.plan:9: samples 'x' is not a decimal number");
	expect_body_error("unit f - 1 1 1\nfunc f\nend\n", "p.plan:10: missing fields: expected 'func NAME FILE'");
	expect_body_error("unit f - 1 1 1\nfunc - -\nend\n", "p.plan:10: function has no name");
	expect_body_error("unit f - 1 1 1\nwhat x\nend\n", "p.plan:10: unknown key 'what' inside a unit");
	expect_body_error("unit f - 1 1 1\nend now\n", "p.plan:10: too many fields: expected 'end'");
	expect_body_error("unit f - 1 1 1\nunit g - 1 1 1\n", "p.plan:10: 'unit' inside unit 'f' (missing 'end')");
	expect_body_error("unit f - 1 1 1\npattern *(.text.f)\n", "p.plan:9: unit 'f' has no 'end'");
	expect_body_error("unit f - 1 1 1\nend\nbudget 5\n", "p.plan:11: 'budget' must come before the first unit");
	expect_body_error("pattern *(.text.f)\n", "p.plan:9: 'pattern' outside a unit");
}

static void test_missing_file(void **state)
{
	(void)state;
	rp_plan *plan = NULL;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_plan_read(&plan, "/nonexistent/ramtext.ld.plan", &err), RP_EINPUT);
	assert_null(plan);
	assert_non_null(strstr(err.msg, "/nonexistent/ramtext.ld.plan"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),        cmocka_unit_test(test_empty_plan),
		cmocka_unit_test(test_write_refuses),     cmocka_unit_test(test_comments_and_crlf),
		cmocka_unit_test(test_first_build_plan),
		cmocka_unit_test(test_hostile),           cmocka_unit_test(test_missing_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
