/* test_import.c: the pclog (gdb `p $pc`) and pclist importers: real gdb output with chatter,
 * counts and comments, format detection, and hostile lines (file, line and byte in the
 * message; nothing added on failure). Then whether a profile belongs to its ELF
 * (import_check.c), on tests/data/elf/arm-m3.elf and riscv32.elf: PCs on and between
 * instructions and outside functions (PC lists, gdb logs, .prof files); QEMU plugin files of
 * both versions and -d in_asm logs by their instruction bytes; another architecture; a
 * gmon.out histogram beside the code. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
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

/* ---- does the profile belong to the ELF ---- */

/* Each test below gets its fixture ELF as *state (cmocka setup and teardown). */
static int setup_elf(void **state, const char *name)
{
	rp_image *img = NULL;
	rp_err err = RP_ERR_INIT;
	char path[256];
	snprintf(path, sizeof(path), TEST_DATA_DIR "/elf/%s", name);
	if (rp_image_load(&img, path, &err) != 0) {
		print_error("%s\n", err.msg);
		return -1;
	}
	*state = img;
	return 0;
}

static int setup_arm(void **state)
{
	return setup_elf(state, "arm-m3.elf");
}

static int setup_riscv(void **state)
{
	return setup_elf(state, "riscv32.elf");
}

static int teardown_elf(void **state)
{
	rp_image_free(*state);
	return 0;
}

/* Imports text against img and returns the check; want: the return code. */
static rp_import_check import_checked(const rp_image *img, rp_import_format fmt, const char *text, size_t len,
				      int want, rp_import_meta *meta_out)
{
	rp_samples s;
	rp_import_meta meta;
	rp_err err = RP_ERR_INIT;
	rp_samples_init(&s);
	int rc = rp_import_file(&s, &meta, fmt, img, text, len, "in.txt", &err);
	if (rc != want)
		fail_msg("rc %d, want %d: %s", rc, want, err.msg);
	rp_samples_release(&s);
	if (meta_out)
		*meta_out = meta;
	return meta.check;
}

static void expect_details(const rp_import_check *c, const rp_image *img, const char *want)
{
	char buf[640];
	rp_import_check_details(buf, sizeof(buf), c, img);
	if (!strstr(buf, want))
		fail_msg("details '%s' lack '%s'", buf, want);
}

/* arm-m3.elf: helper 0x1000 (add.w at 0x1000, adds 0x1004, bx 0x1006), cold_split's literal
 * pool word at 0x1074, a_entry 0x1078 (bl at 0x107c); no function beyond 0x10cc. */
static void test_pcs_on_instructions(void **state)
{
	const rp_image *img = *state;
	const char good[] = "0x1000 40\n0x1004 30\n0x107c 20\n0x1078 10\n";
	rp_import_check c = import_checked(img, RP_IMPORT_PCLIST, good, strlen(good), 0, NULL);
	assert_int_equal(c.checked, 100);
	assert_int_equal(c.verified, 100);
	assert_true(rp_import_check_share(&c) == 1.0);

	/* inside add.w, odd (a return address, not a PC), the literal pool, past every function */
	const char bad[] = "0x1000 10\n0x1002 5\n0x1005 3\n0x1074 2\n0x9000 80\n";
	c = import_checked(img, RP_IMPORT_PCLIST, bad, strlen(bad), 0, NULL);
	assert_int_equal(c.checked, 100);
	assert_int_equal(c.verified, 10);
	assert_int_equal(c.not_insn, 10);
	assert_int_equal(c.outside, 80);
	assert_true(rp_import_check_share(&c) < RP_IMPORT_MIN_VERIFIED);
	expect_details(&c, img, "80 outside its functions, 10 not on an instruction start; e.g. 0x9000 is in no function");

	/* the heaviest between-instruction sample is named with its function and offset */
	const char mid[] = "0x1002 7\n0x1074 2\n";
	c = import_checked(img, RP_IMPORT_PCLIST, mid, strlen(mid), 0, NULL);
	expect_details(&c, img, "e.g. 0x1002 is helper+0x2, between instructions");

	/* a gdb log is checked the same way */
	const char log[] = "$1 = (void (*)()) 0x1002 <helper+2>\n$2 = (void (*)()) 0x1004 <helper+4>\n";
	c = import_checked(img, RP_IMPORT_PCLOG, log, strlen(log), 0, NULL);
	assert_int_equal(c.verified, 1);
	assert_int_equal(c.not_insn, 1);

	/* and an "offset count" file, its offsets mapped through the program headers first */
	const char prof[] = "image /bin/fw\n1078 6\n107e 4\n";
	c = import_checked(img, RP_IMPORT_PROF, prof, strlen(prof), 0, NULL);
	assert_int_equal(c.verified, 6);
	assert_int_equal(c.not_insn, 4);
}

/* RISC-V: compressed and full instructions decoded; an odd PC is no instruction start. */
static void test_pcs_riscv(void **state)
{
	const rp_image *img = *state;
	const rp_func *f = rp_image_func_by_name(img, "a_entry", NULL);
	assert_non_null(f);
	char text[128];
	snprintf(text, sizeof(text), "%llx 9\n%llx 1\n", (unsigned long long)f->addr, (unsigned long long)f->addr + 1);
	rp_import_check c = import_checked(img, RP_IMPORT_PCLIST, text, strlen(text), 0, NULL);
	assert_int_equal(c.verified, 9);
	assert_int_equal(c.not_insn, 1);
}

/* Plugin files: version 2 by bytes, version 1 by address, the target named in the header. */
static void test_qemu_plugin_bytes(void **state)
{
	const rp_image *img = *state;
	rp_import_meta meta;
	/* helper's add.w (halfwords eb00 0040: bytes 00 eb 40 00), adds r0,#1 (3001), bx lr (4770) */
	const char v2[] = "# ramplace-qemu 2\n# target arm\n# insns-executed 60\n"
			  "1000 10 00eb4000\n1004 20 0130\n1006 30 7047\n# end\n";
	rp_import_check c = import_checked(img, RP_IMPORT_AUTO, v2, strlen(v2), 0, &meta);
	assert_int_equal(meta.plugin_version, 2);
	assert_int_equal(c.checked, 60);
	assert_int_equal(c.verified, 60);
	assert_true(c.by_bytes);

	/* counts that are not this ELF's: what did not match, and the example */
	static const struct {
		const char *text;
		uint64_t verified, differ, outside, other_target;
		const char *details;
	} foreign[] = {
		{ "# ramplace-qemu 2\n# target arm\n1000 10 00eb4000\n1004 90 0a24\n# end\n", 10, 90, 0, 0,
		  "90 on instruction bytes other than the ELF's; e.g. at 0x1004 QEMU ran the bytes 0a 24, the ELF has 01 30" },
		{ "# ramplace-qemu 2\n9000 5 0130\n# end\n", 0, 0, 5, 0,
		  "5 outside its code; e.g. 0x9000 is in no section of the ELF" },
		{ "# ramplace-qemu 2\n# target riscv32\n1000 10 00eb4000\n# end\n", 0, 0, 0, 10,
		  "recorded by QEMU for riscv32, but the ELF is arm" },
	};
	for (size_t i = 0; i < sizeof(foreign) / sizeof(foreign[0]); i++) {
		c = import_checked(img, RP_IMPORT_QEMU, foreign[i].text, strlen(foreign[i].text), 0, NULL);
		assert_int_equal(c.verified, foreign[i].verified);
		assert_int_equal(c.differ, foreign[i].differ);
		assert_int_equal(c.outside, foreign[i].outside);
		assert_int_equal(c.other_target, foreign[i].other_target);
		expect_details(&c, img, foreign[i].details);
	}

	/* version 1: no bytes, checked by address */
	const char v1[] = "# ramplace-qemu 1\n# insns-executed 30\n1000 10\n1002 20\n# end\n";
	c = import_checked(img, RP_IMPORT_QEMU, v1, strlen(v1), 0, &meta);
	assert_int_equal(meta.plugin_version, 1);
	assert_false(c.by_bytes);
	assert_int_equal(c.verified, 10);
	assert_int_equal(c.not_insn, 20);

	/* a version 2 line without bytes, and a version this ramplace does not know */
	const char nobytes[] = "# ramplace-qemu 2\n1000 10\n# end\n";
	rp_samples s;
	rp_err err = RP_ERR_INIT;
	rp_samples_init(&s);
	assert_int_equal(rp_import_file(&s, &meta, RP_IMPORT_QEMU, img, nobytes, strlen(nobytes), "in.txt", &err), RP_EINPUT);
	assert_non_null(strstr(err.msg, "in.txt: line 2 (byte 18): expected 'hex-address decimal-count hex-bytes'"));
	const char v3[] = "# ramplace-qemu 3\n1000 10 0024\n# end\n";   /* version 3 lines end in stall cycles */
	assert_int_equal(rp_import_file(&s, &meta, RP_IMPORT_QEMU, img, v3, strlen(v3), "in.txt", &err), RP_EINPUT);
	assert_non_null(strstr(err.msg, "in.txt: line 2 (byte 18): expected 'hex-address decimal-count hex-bytes decimal-stall-cycles'"));
	const char v6[] = "# ramplace-qemu 6\n1000 10\n# end\n";
	assert_int_equal(rp_import_file(&s, &meta, RP_IMPORT_QEMU, img, v6, strlen(v6), "in.txt", &err), RP_EINPUT);
	assert_non_null(strstr(err.msg, "in.txt: line 1 (byte 0): not a version this ramplace reads (1 to 5)"));
	assert_int_equal(s.total, 0);
	rp_samples_release(&s);
}

/* -d exec,nochain,in_asm logs: the listing's hex units (Thumb halfwords) against the ELF. */
static void test_qemu_log_bytes(void **state)
{
	const rp_image *img = *state;
	const char good[] = "IN: helper\n"
			    "0x00001000:  eb00 0040  add.w    r0, r0, r0, lsl #1\n"
			    "0x00001004:  3001       adds     r0, #1\n"
			    "0x00001006:  4770       bx       lr\n"
			    "\n"
			    "Trace 0: 0x7f00 [00000000/00001000/00000110/ff000200] helper\n"
			    "Trace 0: 0x7f00 [00000000/00001000/00000110/ff000200] helper\n";
	rp_import_check c = import_checked(img, RP_IMPORT_AUTO, good, strlen(good), 0, NULL);
	assert_int_equal(c.checked, 6);
	assert_int_equal(c.verified, 6);
	assert_true(c.by_bytes);
	const char other[] = "IN: helper\n"
			     "0x00001000:  240a       movs     r4, #0xa\n"
			     "0x00001002:  f000 f80d  bl       #0x28\n"
			     "\n"
			     "Trace 0: 0x7f00 [00000000/00001000/00000110/ff000200] helper\n";
	c = import_checked(img, RP_IMPORT_QEMU_LOG, other, strlen(other), 0, NULL);
	assert_int_equal(c.verified, 0);
	assert_int_equal(c.differ, 2);
	expect_details(&c, img, "QEMU ran the bytes 0a 24, the ELF has 00 eb");
	/* a listing without the bytes column: by address */
	const char plain[] = "IN: helper\n0x00001000:  add.w r0, r0, r0, lsl #1\n0x00001002:  adds r0, #1\n\n"
			     "Trace 0: 0x7f00 [00000000/00001000/00000110/ff000200] helper\n";
	c = import_checked(img, RP_IMPORT_QEMU_LOG, plain, strlen(plain), 0, NULL);
	assert_false(c.by_bytes);
	assert_int_equal(c.verified, 1);
	assert_int_equal(c.not_insn, 1);
}

/* A gmon.out histogram over another program's addresses covers none of the ELF's code. */
static void test_gmon_apart(void **state)
{
	const rp_image *img = *state;
	unsigned char g[20 + 1 + 4 + 4 + 4 + 4 + 16 + 8 * 2] = "gmon\x01";
	size_t o = 20;
	uint32_t f[4];
	g[o++] = 0;   /* histogram record */
	for (int apart = 1; apart >= 0; apart--) {
		f[0] = apart ? 0x20000000 : 0x1000;
		f[1] = f[0] + 0x40;
		f[2] = 8;
		f[3] = 100;
		memcpy(g + o, f, sizeof(f));   /* little-endian host, like the ELF */
		memcpy(g + o + 16, "seconds\0\0\0\0\0\0\0\0s", 16);
		for (int i = 0; i < 8; i++)
			g[o + 32 + 2 * i] = 5;
		rp_import_check c = import_checked(img, RP_IMPORT_GMON, (const char *)g, sizeof(g), 0, NULL);
		if (apart) {
			assert_true(c.hist_apart);
			assert_int_equal(c.verified, 0);
			expect_details(&c, img, "the histogram covers [0x20000000, 0x20000040), none of the ELF's code; 40 outside its functions");
		} else {
			assert_false(c.hist_apart);
			assert_true(rp_import_check_share(&c) == 1.0);
			assert_int_equal(rp_import_check_samples(&c, c.checked), 40);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pclog),
		cmocka_unit_test(test_pclist),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_format_names),
		cmocka_unit_test_setup_teardown(test_pcs_on_instructions, setup_arm, teardown_elf),
		cmocka_unit_test_setup_teardown(test_pcs_riscv, setup_riscv, teardown_elf),
		cmocka_unit_test_setup_teardown(test_qemu_plugin_bytes, setup_arm, teardown_elf),
		cmocka_unit_test_setup_teardown(test_qemu_log_bytes, setup_arm, teardown_elf),
		cmocka_unit_test_setup_teardown(test_gmon_apart, setup_arm, teardown_elf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
