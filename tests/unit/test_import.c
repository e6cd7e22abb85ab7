/* test_import.c: the pclog (gdb `p $pc`) and pclist importers: real gdb output with chatter,
 * counts and comments, format detection, and hostile lines (file, line and byte in the
 * message; nothing added on failure). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ramplace/import.h"

static uint64_t count_at(const rp_samples *s, uint64_t pc)
{
	for (size_t i = 0; i < s->pcs_cap; i++)
		if (s->pcs[i].count && s->pcs[i].pc == pc)
			return s->pcs[i].count;
	return 0;
}

static const char gdb_log[] =
	"\n"
	"Program received signal SIGINT, Interrupt.\n"
	"0x2000f1c4 in run_repl () at ../../lib/utils/pyexec.c:412\n"
	"412\t        if (ret & PYEXEC_FORCED_EXIT) {\n"
	"$1 = (void (*)()) 0x2000f1c4 <run_repl+12>\n"
	"Continuing.\n"
	"$2 = (void (*)()) 0x2000f1c4 <run_repl+12>\r\n"
	"$3 = (void (*)(void)) 0x20001000 <mp_stream_rw>\n"
	"$10 = (void (*)()) 0x20402a6e\n";

static void test_pclog(void **state)
{
	(void)state;
	rp_samples s;
	rp_err err = RP_ERR_INIT;
	rp_samples_init(&s);
	assert_int_equal(rp_import_detect(gdb_log, strlen(gdb_log)), RP_IMPORT_PCLOG);
	assert_int_equal(rp_import_parse(&s, RP_IMPORT_AUTO, gdb_log, strlen(gdb_log), "profile.txt", &err), 0);
	assert_int_equal(s.total, 4);
	assert_int_equal(count_at(&s, 0x2000f1c4), 2);
	assert_int_equal(count_at(&s, 0x20001000), 1);
	assert_int_equal(count_at(&s, 0x20402a6e), 1);
	rp_samples_release(&s);
}

static void test_pclist(void **state)
{
	(void)state;
	const char text[] = "# pcs from a trace\n0x1000\n1000 41\n  0X10AC\t7  # comment\n\nabc\n";
	rp_samples s;
	rp_err err = RP_ERR_INIT;
	rp_samples_init(&s);
	assert_int_equal(rp_import_detect(text, strlen(text)), RP_IMPORT_PCLIST);
	assert_int_equal(rp_import_parse(&s, RP_IMPORT_AUTO, text, strlen(text), "pcs.txt", &err), 0);
	assert_int_equal(count_at(&s, 0x1000), 42);
	assert_int_equal(count_at(&s, 0x10ac), 7);
	assert_int_equal(count_at(&s, 0xabc), 1);
	assert_int_equal(s.total, 50);
	rp_samples_release(&s);
}

static void expect_error(rp_import_format fmt, const char *text, const char *want)
{
	rp_samples s;
	rp_err err = RP_ERR_INIT;
	rp_samples_init(&s);
	assert_int_equal(rp_samples_add(&s, 0x42, 3, &err), 0);
	assert_int_equal(rp_import_parse(&s, fmt, text, strlen(text), "in.txt", &err), RP_EINPUT);
	if (!strstr(err.msg, want) || strncmp(err.msg, "in.txt: ", 8) != 0)
		fail_msg("message '%s' lacks '%s'", err.msg, want);
	assert_int_equal(s.total, 3);       /* nothing added */
	assert_int_equal(s.pcs_used, 1);
	rp_samples_release(&s);
}

static void test_hostile(void **state)
{
	(void)state;
	expect_error(RP_IMPORT_PCLIST, "0x10\n0x20 x\n", "line 2 (byte 5): expected a decimal count");
	expect_error(RP_IMPORT_PCLIST, "0x10\nhello\n", "line 2 (byte 5): expected a hex address: 'hello'");
	expect_error(RP_IMPORT_PCLIST, "0x10 99999999999999999999999\n", "line 1 (byte 0)");
	expect_error(RP_IMPORT_PCLIST, "0x11112222333344445\n", "expected a hex address");
	expect_error(RP_IMPORT_PCLOG, "$1 = (void (*)()) 0x10 <a>\n$2 = (void (*)() 0x10\n", "line 2 (byte 27)");
	expect_error(RP_IMPORT_PCLOG, "$1 = (void (*)()) zz\n", "expected a `p $pc` value");
	expect_error(RP_IMPORT_PCLOG, "Continuing.\n", "no samples found");
	expect_error(RP_IMPORT_PCLIST, "", "no samples found");
	expect_error(RP_IMPORT_PCLIST, "# only a comment\n", "no samples found");
	char nul[] = "0x10\n0x2\0 0\n";
	rp_samples s;
	rp_err err = RP_ERR_INIT;
	rp_samples_init(&s);
	assert_int_equal(rp_import_parse(&s, RP_IMPORT_PCLIST, nul, sizeof(nul) - 1, "in.txt", &err), RP_EINPUT);
	assert_non_null(strstr(err.msg, "line 2 (byte 5): NUL byte"));
	char longline[1000];
	memset(longline, '1', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	assert_int_equal(rp_import_parse(&s, RP_IMPORT_PCLIST, longline, strlen(longline), "in.txt", &err), RP_EINPUT);
	assert_non_null(strstr(err.msg, "line 1 (byte 0): line longer than"));
	assert_int_equal(s.total, 0);
	rp_samples_release(&s);
}

static void test_format_names(void **state)
{
	(void)state;
	rp_import_format f;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_import_format_parse(&f, "pclist", &err), 0);
	assert_int_equal(f, RP_IMPORT_PCLIST);
	assert_int_equal(rp_import_format_parse(&f, "gmon", &err), 0);
	assert_int_equal(f, RP_IMPORT_GMON);
	assert_int_equal(rp_import_format_parse(&f, "nosuch", &err), RP_EUSAGE);
	assert_string_equal(rp_import_format_name(RP_IMPORT_PCLOG), "pclog");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pclog),
		cmocka_unit_test(test_pclist),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_format_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
