/* test_util_text.c: the helpers the readers share (util.h): the line cursor every text reader
 * walks (endings \n and \r\n, a last line with and without a newline, empty lines, the byte
 * offset and number of each line) and the binary search over tables sorted by a 4- or 8-byte
 * key (below, at or below; empty tables, equal keys, the ends). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ramplace/util.h"

static void expect_line(rp_lines *c, const char *want, size_t lineno, size_t offset, int ended)
{
	const char *p;
	size_t n;
	assert_int_equal(rp_lines_next(c, &p, &n), 1);
	assert_int_equal(n, strlen(want));
	assert_memory_equal(p, want, n);
	assert_int_equal(c->lineno, lineno);
	assert_int_equal(c->offset, offset);
	assert_int_equal(c->ended, ended);
}

static void test_lines_endings(void **state)
{
	(void)state;
	const char text[] = "one\r\n\ntwo\nlast";
	rp_lines c;
	rp_lines_init(&c, text, sizeof(text) - 1);
	expect_line(&c, "one", 1, 0, 1);
	expect_line(&c, "", 2, 5, 1);
	expect_line(&c, "two", 3, 6, 1);
	expect_line(&c, "last", 4, 10, 0);
	const char *p;
	size_t n;
	assert_int_equal(rp_lines_next(&c, &p, &n), 0);
	assert_int_equal(c.lineno, 4);   /* the last line's number stays for a message after the end */
}

static void test_lines_final_newline_and_empty(void **state)
{
	(void)state;
	const char text[] = "a\r\n";
	rp_lines c;
	rp_lines_init(&c, text, sizeof(text) - 1);
	expect_line(&c, "a", 1, 0, 1);
	const char *p;
	size_t n;
	assert_int_equal(rp_lines_next(&c, &p, &n), 0);   /* no empty line after the last newline */
	rp_lines_init(&c, NULL, 7);                        /* no text: no lines, whatever the length */
	assert_int_equal(rp_lines_next(&c, &p, &n), 0);
	rp_lines_init(&c, "\r", 1);                        /* a lone \r is a line's ending, not content */
	expect_line(&c, "", 1, 0, 0);
}

typedef struct rec64 {
	char pad[3];
	uint64_t addr;
} rec64;

typedef struct rec32 {
	uint32_t key;
	uint16_t other;
} rec32;

static void test_count_below(void **state)
{
	(void)state;
	const rec64 r[] = { { "", 0x10 }, { "", 0x20 }, { "", 0x20 }, { "", 0x30 } };
	assert_int_equal(RP_COUNT_BELOW(r, 4, addr, 0x20), 1);
	assert_int_equal(RP_COUNT_AT_OR_BELOW(r, 4, addr, 0x20), 3);
	assert_int_equal(RP_COUNT_BELOW(r, 4, addr, 0x0), 0);
	assert_int_equal(RP_COUNT_AT_OR_BELOW(r, 4, addr, 0xffffffffffffffffull), 4);
	assert_int_equal(RP_COUNT_BELOW(r, 0, addr, 0x20), 0);
	const rec32 k[] = { { 1, 9 }, { 5, 9 }, { 0xffffffffu, 9 } };
	assert_int_equal(RP_COUNT_BELOW(k, 3, key, 5), 1);
	assert_int_equal(RP_COUNT_AT_OR_BELOW(k, 3, key, 5), 2);
	assert_int_equal(RP_COUNT_AT_OR_BELOW(k, 3, key, 0xffffffffu), 3);
	assert_int_equal(RP_COUNT_BELOW(k, 3, key, 0x100000000ull), 3);   /* past every 32-bit key */
	const uint64_t plain[] = { 2, 4, 6 };
	assert_int_equal(rp_count_below(plain, 3, sizeof(*plain), 0, sizeof(*plain), 5, 0), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_endings),
		cmocka_unit_test(test_lines_final_newline_and_empty),
		cmocka_unit_test(test_count_below),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
