/* test_runtime.c: unit tests of the host side of the target-side sampling runtime (runtime.h):
 * the descriptor decoder on valid and hostile input in both byte orders, the histogram decoder,
 * the gmon.out writer against bytes laid out by hand from glibc's gmon_out.h, and the `m`
 * reply parser of rsp_mem.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ramplace/rsp.h"
#include "ramplace/runtime.h"

static void put32(unsigned char *p, uint32_t v, int be)
{
	for (int i = 0; i < 4; i++)
		p[be ? 3 - i : i] = (unsigned char)(v >> (8 * i));
}

/* A consistent descriptor: 8 bins of 4 bytes at 0x100, 2 arc slots. */
static void make_desc(unsigned char d[RP_RUNTIME_DESC_SIZE], int be)
{
	uint32_t w[16] = { RP_RUNTIME_MAGIC, 1, 0x100, 0x120, 8, 2, 1000, 0,
			   15, 2, 1, 0x20000000, 0x20000100, 2, 0, 12345 };
	for (int i = 0; i < 16; i++)
		put32(d + 4 * i, w[i], be);
}

static void test_desc_valid(void **state)
{
	(void)state;
	for (int be = 0; be < 2; be++) {
		unsigned char d[RP_RUNTIME_DESC_SIZE];
		rp_runtime_desc desc;
		rp_err err = RP_ERR_INIT;
		make_desc(d, be);
		assert_int_equal(rp_runtime_desc_parse(&desc, d, sizeof(d), be, "t", &err), 0);
		assert_int_equal(desc.low_pc, 0x100);
		assert_int_equal(desc.high_pc, 0x120);
		assert_int_equal(desc.nbins, 8);
		assert_int_equal(desc.shift, 2);
		assert_int_equal(desc.rate_hz, 1000);
		assert_int_equal(desc.ticks, 15);
		assert_int_equal(desc.bins_addr, 0x20000000);
		assert_int_equal(desc.narcs, 2);
	}
}

/* Patches word i of a valid descriptor and expects the message to contain `want`. */
static void expect_bad(int word, uint32_t value, const char *want)
{
	unsigned char d[RP_RUNTIME_DESC_SIZE];
	rp_runtime_desc desc;
	rp_err err = RP_ERR_INIT;
	make_desc(d, 0);
	put32(d + 4 * word, value, 0);
	assert_int_equal(rp_runtime_desc_parse(&desc, d, sizeof(d), 0, "fw.elf", &err), RP_EINPUT);
	if (!strstr(err.msg, want) || strncmp(err.msg, "fw.elf: ", 8) != 0)
		fail_msg("message \"%s\" lacks \"%s\"", err.msg, want);
}

static void test_desc_hostile(void **state)
{
	(void)state;
	expect_bad(0, 0, "no profile: magic 0x00000000");
	expect_bad(0, __builtin_bswap32(RP_RUNTIME_MAGIC), "other byte order");
	expect_bad(1, 2, "version 2");
	expect_bad(4, 0, "0 bins");
	expect_bad(4, RP_RUNTIME_MAX_BINS + 1, "bins (expected");
	expect_bad(5, 0, "bucket shift 0");
	expect_bad(5, 40, "bucket shift 40");
	expect_bad(3, 0x124, "high_pc 0x00000124 is not low_pc");
	expect_bad(11, 0, "bins at 0x00000000");
	expect_bad(11, 0xfffffff8, "do not fit");
	expect_bad(13, RP_RUNTIME_MAX_ARCS + 1, "arc slots");
	expect_bad(12, 0, "arc slots at 0x00000000");
	expect_bad(6, 0, "rate 0 Hz");

	unsigned char d[RP_RUNTIME_DESC_SIZE];
	rp_runtime_desc desc;
	rp_err err = RP_ERR_INIT;
	make_desc(d, 0);
	assert_int_equal(rp_runtime_desc_parse(&desc, d, 63, 0, "fw.elf", &err), RP_EINPUT);
	assert_string_equal(err.msg, "fw.elf: descriptor truncated at byte 63 of 64");
	/* read in the wrong byte order: caught by the magic */
	assert_int_equal(rp_runtime_desc_parse(&desc, d, sizeof(d), 1, "fw.elf", &err), RP_EINPUT);
}

static void decode(rp_runtime_profile *p, int be)
{
	unsigned char d[RP_RUNTIME_DESC_SIZE], bins[16], arcs[24];
	rp_err err = RP_ERR_INIT;
	make_desc(d, be);
	assert_int_equal(rp_runtime_desc_parse(&p->desc, d, sizeof(d), be, "t", &err), 0);
	for (int i = 0; i < 8; i++) {
		uint16_t v = i == 3 ? 0xffff : (uint16_t)(i * 0x101);
		bins[2 * i + (be ? 0 : 1)] = (unsigned char)(v >> 8);
		bins[2 * i + (be ? 1 : 0)] = (unsigned char)v;
	}
	memset(arcs, 0, sizeof(arcs));
	/* slot 0 free, slot 1 used */
	put32(arcs + 12, 0x105, be);
	put32(arcs + 16, 0x110, be);
	put32(arcs + 20, 7, be);
	assert_int_equal(rp_runtime_profile_decode(p, bins, sizeof(bins), arcs, sizeof(arcs), be, "t", &err), 0);
}

static void test_profile_decode(void **state)
{
	(void)state;
	for (int be = 0; be < 2; be++) {
		rp_runtime_profile p;
		rp_runtime_profile_init(&p);
		decode(&p, be);
		assert_int_equal(p.bins[1], 0x101);
		assert_int_equal(p.bins[3], 0xffff);
		assert_int_equal(p.samples, 0x101 * (1 + 2 + 4 + 5 + 6 + 7) + 0xffff);
		assert_int_equal(p.narcs, 1);
		assert_int_equal(p.arcs[0].from_pc, 0x105);
		assert_int_equal(p.arcs[0].self_pc, 0x110);
		assert_int_equal(p.arcs[0].count, 7);
		rp_runtime_profile_release(&p);
	}
	rp_runtime_profile p;
	rp_err err = RP_ERR_INIT;
	unsigned char d[RP_RUNTIME_DESC_SIZE], buf[64] = { 0 };
	rp_runtime_profile_init(&p);
	make_desc(d, 0);
	assert_int_equal(rp_runtime_desc_parse(&p.desc, d, sizeof(d), 0, "t", &err), 0);
	assert_int_equal(rp_runtime_profile_decode(&p, buf, 15, buf, 24, 0, "t", &err), RP_EINPUT);
	assert_string_equal(err.msg, "t: 15 bytes of bins and 24 of arcs for 8 bins and 2 arc slots");
	rp_runtime_profile_release(&p);
}

/* The file laid out by hand from glibc's gmon/sys/gmon_out.h, 32-bit addresses. */
static void test_gmon_bytes(void **state)
{
	(void)state;
	for (int be = 0; be < 2; be++) {
		rp_runtime_profile p;
		unsigned char *g;
		size_t len;
		rp_err err = RP_ERR_INIT;
		rp_runtime_profile_init(&p);
		decode(&p, be);
		assert_int_equal(rp_runtime_gmon(&g, &len, &p, be, &err), 0);
		assert_int_equal(len, 20 + 33 + 16 + 13);
		unsigned char want[20 + 33 + 16 + 13];
		memset(want, 0, sizeof(want));
		memcpy(want, "gmon", 4);
		put32(want + 4, 1, be);
		want[20] = 0; /* GMON_TAG_TIME_HIST */
		put32(want + 21, 0x100, be);
		put32(want + 25, 0x120, be);
		put32(want + 29, 8, be);
		put32(want + 33, 1000, be);
		memcpy(want + 37, "seconds", 7);
		want[52] = 's';
		for (int i = 0; i < 8; i++) {
			uint16_t v = i == 3 ? 0xffff : (uint16_t)(i * 0x101);
			want[53 + 2 * i + (be ? 0 : 1)] = (unsigned char)(v >> 8);
			want[53 + 2 * i + (be ? 1 : 0)] = (unsigned char)v;
		}
		want[69] = 1; /* GMON_TAG_CG_ARC */
		put32(want + 70, 0x105, be);
		put32(want + 74, 0x110, be);
		put32(want + 78, 7, be);
		assert_memory_equal(g, want, sizeof(want));
		free(g);
		rp_runtime_profile_release(&p);
	}
}

static void test_parse_mem(void **state)
{
	(void)state;
	unsigned char out[4];
	size_t n = 0;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_rsp_parse_mem(out, 4, &n, "0aFf10", 6, "reading", "h:1", &err), 0);
	assert_int_equal(n, 3); /* fewer than asked is allowed */
	assert_int_equal(out[0], 0x0a);
	assert_int_equal(out[1], 0xff);
	assert_int_equal(out[2], 0x10);
	assert_int_equal(rp_rsp_parse_mem(out, 4, &n, "E14", 3, "reading 4 bytes at 0x0", "h:1", &err), RP_EINPUT);
	assert_string_equal(err.msg, "h:1: reading 4 bytes at 0x0: the gdbserver refused with E14 (no memory there?)");
	assert_int_equal(rp_rsp_parse_mem(out, 4, &n, "", 0, "r", "h:1", &err), RP_EINPUT);
	assert_string_equal(err.msg, "h:1: r: empty reply (memory reads not supported?)");
	assert_int_equal(rp_rsp_parse_mem(out, 4, &n, "abc", 3, "r", "h:1", &err), RP_EINPUT);
	assert_string_equal(err.msg, "h:1: r: odd-length reply of 3 hex digits \"abc\"");
	assert_int_equal(rp_rsp_parse_mem(out, 4, &n, "00zz", 4, "r", "h:1", &err), RP_EINPUT);
	assert_string_equal(err.msg, "h:1: r: not a hex digit at offset 2 of the reply \"00zz\"");
	assert_int_equal(rp_rsp_parse_mem(out, 2, &n, "000000", 6, "r", "h:1", &err), RP_EINPUT);
	assert_string_equal(err.msg, "h:1: r: 3 bytes in the reply, more than the 2 asked for");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_desc_valid),
		cmocka_unit_test(test_desc_hostile),
		cmocka_unit_test(test_profile_decode),
		cmocka_unit_test(test_gmon_bytes),
		cmocka_unit_test(test_parse_mem),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
