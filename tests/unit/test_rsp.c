/* test_rsp.c: unit tests of the RSP client's pure parsers (frames, checksums, escapes,
 * run-length encoding, stop replies, register values, target descriptions with includes and
 * explicit regnums) on valid and hostile input; test_rsp_session.c runs whole sessions. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "ramplace/rsp.h"
#include "ramplace/sampler.h"
#include "ramplace/samples.h"

#define EM_ARM 40

#include "../support/m_profile_tdesc.h"

/* ---------------------------------------------------------------- frames */

static void test_checksum(void **state)
{
	(void)state;
	assert_int_equal(rp_rsp_checksum("OK", 2), 0x9a);
	assert_int_equal(rp_rsp_checksum("", 0), 0);
	assert_int_equal(rp_rsp_checksum("qSupported", 10), 0x37);
}

static void test_frame_valid(void **state)
{
	(void)state;
	rp_rsp_frame fr;
	rp_err err = RP_ERR_INIT;
	const char *buf = "$OK#9a+";
	assert_int_equal(rp_rsp_frame_parse(&fr, buf, strlen(buf), 0, "t", &err), 1);
	assert_int_equal(fr.kind, RP_RSP_FRAME_PACKET);
	assert_int_equal(fr.payload_off, 1);
	assert_int_equal(fr.payload_len, 2);
	assert_int_equal(fr.consumed, 6);
	assert_int_equal(rp_rsp_frame_parse(&fr, buf + 6, 1, 6, "t", &err), 1);
	assert_int_equal(fr.kind, RP_RSP_FRAME_ACK);
	assert_int_equal(rp_rsp_frame_parse(&fr, "-", 1, 0, "t", &err), 1);
	assert_int_equal(fr.kind, RP_RSP_FRAME_NAK);
	assert_int_equal(rp_rsp_frame_parse(&fr, "%Stop:T05#99", 12, 0, "t", &err), 1);
	assert_int_equal(fr.kind, RP_RSP_FRAME_NOTIFY);
	assert_int_equal(rp_rsp_frame_parse(&fr, "$#00", 4, 0, "t", &err), 1);
	assert_int_equal(fr.payload_len, 0);
}

static void test_frame_truncated(void **state)
{
	(void)state;
	rp_rsp_frame fr;
	rp_err err = RP_ERR_INIT;
	const char *buf = "$OK#9a";
	for (size_t n = 0; n < strlen(buf); n++)
		assert_int_equal(rp_rsp_frame_parse(&fr, buf, n, 0, "t", &err), 0);
	assert_int_equal(err.code, 0);
}

static void test_frame_bad_checksum(void **state)
{
	(void)state;
	rp_rsp_frame fr;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_rsp_frame_parse(&fr, "$OK#00", 6, 17, "h:1", &err), RP_EINPUT);
	assert_non_null(strstr(err.msg, "h:1: bad checksum in packet at byte 17"));
	assert_int_equal(rp_rsp_frame_parse(&fr, "$OK#zz", 6, 0, "h:1", &err), RP_EINPUT);
}

static void test_frame_garbage_and_huge(void **state)
{
	(void)state;
	rp_rsp_frame fr;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_rsp_frame_parse(&fr, "xyz$OK#9a", 9, 5, "h:1", &err), RP_EINPUT);
	assert_non_null(strstr(err.msg, "garbage 'xyz' outside a packet at byte 5"));
	size_t n = RP_RSP_MAX_PACKET + 10;
	char *big = malloc(n);
	assert_non_null(big);
	memset(big, 'a', n);
	big[0] = '$';
	assert_int_equal(rp_rsp_frame_parse(&fr, big, RP_RSP_MAX_PACKET, 0, "h:1", &err), 0);
	assert_int_equal(rp_rsp_frame_parse(&fr, big, n, 0, "h:1", &err), RP_EINPUT);
	assert_non_null(strstr(err.msg, "longer than"));
	free(big);
}

/* ---------------------------------------------------------------- decoding */

static void test_decode_escape_rle(void **state)
{
	(void)state;
	char out[64];
	size_t len;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_rsp_decode(out, sizeof(out), &len, "a}\x03" "b", 4, "t", &err), 0);
	assert_int_equal(len, 3);
	assert_memory_equal(out, "a#b", 3);
	/* "0* " repeats '0' 3 more times (' ' is 32 = 29 + 3) */
	assert_int_equal(rp_rsp_decode(out, sizeof(out), &len, "0* 1", 4, "t", &err), 0);
	assert_string_equal(out, "00001");
	/* a repeat of an escaped character repeats the decoded byte */
	assert_int_equal(rp_rsp_decode(out, sizeof(out), &len, "}]*!", 4, "t", &err), 0);
	assert_string_equal(out, "}}}}}");
}

static void test_decode_hostile(void **state)
{
	(void)state;
	char out[8];
	size_t len;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_rsp_decode(out, sizeof(out), &len, "ab}", 3, "t", &err), RP_EINPUT);
	assert_int_equal(rp_rsp_decode(out, sizeof(out), &len, "*!", 2, "t", &err), RP_EINPUT);
	assert_int_equal(rp_rsp_decode(out, sizeof(out), &len, "a*", 2, "t", &err), RP_EINPUT);
	assert_int_equal(rp_rsp_decode(out, sizeof(out), &len, "a*\x05", 3, "t", &err), RP_EINPUT);
	/* expands past the output: refused, not overflowed */
	assert_int_equal(rp_rsp_decode(out, sizeof(out), &len, "a*~", 3, "t", &err), RP_EINPUT);
	assert_non_null(strstr(err.msg, "longer than 7 bytes"));
	assert_int_equal(rp_rsp_decode(out, sizeof(out), &len, "12345678", 8, "t", &err), RP_EINPUT);
	assert_int_equal(rp_rsp_decode(out, sizeof(out), &len, "1234567", 7, "t", &err), 0);
}

/* ---------------------------------------------------------------- stop replies */

static void test_stop_replies(void **state)
{
	(void)state;
	rp_rsp_stop st;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_rsp_parse_stop(&st, "S05", 3, "t", &err), 0);
	assert_int_equal(st.kind, RP_RSP_STOPPED);
	assert_int_equal(st.code, 5);
	const char *t = "T02thread:01;0f:78563412;0e:01020000;swbreak:;";
	assert_int_equal(rp_rsp_parse_stop(&st, t, strlen(t), "t", &err), 0);
	assert_int_equal(st.kind, RP_RSP_STOPPED);
	assert_int_equal(st.code, 2);
	assert_int_equal(st.nregs, 2);
	assert_int_equal(st.regs[0].regnum, 15);
	assert_string_equal(st.regs[0].hex, "78563412");
	assert_int_equal(rp_rsp_parse_stop(&st, "W00", 3, "t", &err), 0);
	assert_int_equal(st.kind, RP_RSP_EXITED);
	assert_int_equal(st.code, 0);
	assert_int_equal(rp_rsp_parse_stop(&st, "W2a;process:1", 13, "t", &err), 0);
	assert_int_equal(st.code, 42);
	assert_int_equal(rp_rsp_parse_stop(&st, "X09", 3, "t", &err), 0);
	assert_int_equal(st.kind, RP_RSP_KILLED);
	assert_int_equal(st.code, 9);
	assert_int_equal(rp_rsp_parse_stop(&st, "O48690a", 7, "t", &err), 0);
	assert_int_equal(st.kind, RP_RSP_OUTPUT);
}

static void test_stop_hostile(void **state)
{
	(void)state;
	rp_rsp_stop st;
	rp_err err = RP_ERR_INIT;
	const char *bad[] = { "", "T", "T0", "S5", "S05x", "W", "Wzz", "X0", "E01", "OK", "T05junk",
			      "W00garbage", "Ozz" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(rp_rsp_parse_stop(&st, bad[i], strlen(bad[i]), "h:1", &err), RP_EINPUT);
		assert_non_null(strstr(err.msg, "h:1: unexpected reply") ? err.msg : strstr(err.msg, "malformed"));
	}
	/* more expedited registers than kept, and oversized values: ignored, not overflowed */
	char t[512] = "T05";
	for (int r = 0; r < 20; r++)
		snprintf(t + strlen(t), sizeof(t) - strlen(t), "%x:00000000;", r);
	strcat(t, "30:");
	for (int k = 0; k < 40; k++)
		strcat(t, "ff");
	strcat(t, ";");
	assert_int_equal(rp_rsp_parse_stop(&st, t, strlen(t), "t", &err), 0);
	assert_int_equal(st.nregs, RP_RSP_MAX_EXPEDITED);
}

static void test_parse_reg(void **state)
{
	(void)state;
	uint64_t v;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_rsp_parse_reg(&v, "78563412", 8, 0, "t", &err), 0);
	assert_int_equal(v, 0x12345678);
	assert_int_equal(rp_rsp_parse_reg(&v, "12345678", 8, 1, "t", &err), 0);
	assert_int_equal(v, 0x12345678);
	assert_int_equal(rp_rsp_parse_reg(&v, "efcdab8967452301", 16, 0, "t", &err), 0);
	assert_true(v == 0x0123456789abcdefull);
	assert_int_equal(rp_rsp_parse_reg(&v, "xxxxxxxx", 8, 0, "t", &err), RP_EINPUT);
	assert_int_equal(rp_rsp_parse_reg(&v, "123", 3, 0, "t", &err), RP_EINPUT);
	assert_int_equal(rp_rsp_parse_reg(&v, "", 0, 0, "t", &err), RP_EINPUT);
	assert_int_equal(rp_rsp_parse_reg(&v, "001122334455667788", 18, 0, "t", &err), RP_EINPUT);
}

/* ---------------------------------------------------------------- target descriptions */

static const char *const docs[][2] = {
	{ "core.xml", M_PROFILE_CORE_XML },
	{ "sys.xml", "<feature name=\"sys\"><reg name=\"msp\" bitsize=\"32\"/></feature>" },
	{ "loop.xml", "<xi:include href=\"loop.xml\"/>" },
};

static int fetch_doc(void *ctx, const char *href, char **doc, size_t *len, rp_err *err)
{
	int *calls = ctx;
	(*calls)++;
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		if (strcmp(docs[i][0], href) == 0) {
			*doc = strdup(docs[i][1]);
			*len = strlen(docs[i][1]);
			return *doc ? 0 : rp_err_nomem(err, "test");
		}
	}
	return rp_err_set(err, RP_EINPUT, "no document '%s'", href);
}

static void test_tdesc_includes(void **state)
{
	(void)state;
	const char *top = "<?xml version=\"1.0\"?><target><architecture>arm</architecture>"
			  "<xi:include href=\"core.xml\"/><xi:include href=\"sys.xml\"/></target>";
	rp_rsp_tdesc td;
	rp_err err = RP_ERR_INIT;
	int calls = 0;
	rp_rsp_tdesc_init(&td);
	assert_int_equal(rp_rsp_tdesc_parse(&td, top, strlen(top), fetch_doc, &calls, "t", &err), 0);
	assert_int_equal(calls, 2);
	assert_string_equal(td.arch, "arm");
	assert_int_equal(td.nregs, 18);
	const rp_rsp_reg *pc = rp_rsp_tdesc_find(&td, "pc"), *lr = rp_rsp_tdesc_find(&td, "lr");
	assert_non_null(pc);
	assert_non_null(lr);
	assert_int_equal(pc->regnum, 15);
	assert_int_equal(lr->regnum, 14);
	assert_int_equal(rp_rsp_tdesc_find(&td, "xpsr")->regnum, 25);
	assert_int_equal(rp_rsp_tdesc_find(&td, "msp")->regnum, 26); /* continues after explicit */
	assert_null(rp_rsp_tdesc_find(&td, "fake"));
	assert_int_equal(rp_rsp_tdesc_g_offset(&td, 15), 60);
	assert_int_equal(rp_rsp_tdesc_g_offset(&td, 26), 68); /* gaps 16..24 have no size */
	rp_rsp_tdesc_release(&td);
}

static void test_tdesc_hostile(void **state)
{
	(void)state;
	const char *bad[] = {
		"<reg name=\"pc\"/>",                      /* no bitsize */
		"<reg bitsize=\"32\"/>",                   /* no name */
		"<reg name=\"pc\" bitsize=\"x\"/>",
		"<reg name=\"pc\" bitsize=\"32\" regnum=\"-1\"/>",
		"<reg name=\"pc\" bitsize=\"32",           /* unterminated */
		"<reg name=pc bitsize=\"32\"/>",           /* unquoted */
		"<!-- never closed",
		"<xi:include href=\"loop.xml\"/>",         /* recursion */
		"<xi:include href=\"missing.xml\"/>",
		"<xi:include/>",
		"<>",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rp_rsp_tdesc td;
		rp_err err = RP_ERR_INIT;
		int calls = 0;
		rp_rsp_tdesc_init(&td);
		assert_true(rp_rsp_tdesc_parse(&td, bad[i], strlen(bad[i]), fetch_doc, &calls, "t", &err) < 0);
		assert_true(err.msg[0] != '\0');
		rp_rsp_tdesc_release(&td);
	}
	/* a fan-out of includes is capped in total, not only in depth */
	{
		char wide[2048] = "";
		for (int k = 0; k < 70; k++)
			strcat(wide, "<xi:include href=\"sys.xml\"/>");
		rp_rsp_tdesc tw;
		rp_err werr = RP_ERR_INIT;
		int calls = 0;
		rp_rsp_tdesc_init(&tw);
		assert_int_equal(rp_rsp_tdesc_parse(&tw, wide, strlen(wide), fetch_doc, &calls, "t", &werr),
				 RP_EINPUT);
		assert_int_equal(calls, 64);
		assert_non_null(strstr(werr.msg, "more than 64 included documents"));
		rp_rsp_tdesc_release(&tw);
	}
	/* includes refused without a fetcher */
	rp_rsp_tdesc td;
	rp_err err = RP_ERR_INIT;
	rp_rsp_tdesc_init(&td);
	assert_int_equal(rp_rsp_tdesc_parse(&td, "<xi:include href=\"a.xml\"/>", 26, NULL, NULL, "t", &err),
			 RP_EINPUT);
	rp_rsp_tdesc_release(&td);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checksum),
		cmocka_unit_test(test_frame_valid),
		cmocka_unit_test(test_frame_truncated),
		cmocka_unit_test(test_frame_bad_checksum),
		cmocka_unit_test(test_frame_garbage_and_huge),
		cmocka_unit_test(test_decode_escape_rle),
		cmocka_unit_test(test_decode_hostile),
		cmocka_unit_test(test_stop_replies),
		cmocka_unit_test(test_stop_hostile),
		cmocka_unit_test(test_parse_reg),
		cmocka_unit_test(test_tdesc_includes),
		cmocka_unit_test(test_tdesc_hostile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
