/* test_flashmap.c: several flash models by address range (flashmap.h): routing an address to
 * its range, the name the plugin writes and place compares (and its parse back), and the
 * refusals: overlapping ranges, an everywhere-model beside others, too many ranges. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ramplace/flashmap.h"

static rp_fm_cfg model(const char *spec)
{
	rp_fm_cfg c;
	char why[200];
	if (rp_fm_parse(&c, spec, why, sizeof(why)))
		fail_msg("%s", why);
	return c;
}

static void test_route_and_name(void **state)
{
	(void)state;
	rp_fm_map m = { 0 }, back;
	char why[200], name[128];
	rp_fm_cfg ws = model("ws:5"), rp = model("cache:rp2040");
	assert_int_equal(rp_fm_map_add(&m, &ws, 0x8000000, 0x8100000, why, sizeof(why)), 0);
	assert_int_equal(rp_fm_map_add(&m, &rp, 0x90000000, 0x90800000, why, sizeof(why)), 0);
	assert_int_equal(rp_fm_map_find(&m, 0x8000000), 0);
	assert_int_equal(rp_fm_map_find(&m, 0x80fffff), 0);
	assert_int_equal(rp_fm_map_find(&m, 0x8100000), -1);   /* end exclusive */
	assert_int_equal(rp_fm_map_find(&m, 0x90000010), 1);
	assert_int_equal(rp_fm_map_find(&m, 0x20000000), -1);  /* RAM: no model, no stall */
	assert_int_equal(rp_fm_map_name(&m, name, sizeof(name)), 0);
	assert_string_equal(name, "ws:5@8000000-8100000;cache:rp2040@90000000-90800000");
	assert_int_equal(rp_fm_map_name(&m, name, 20), -1);
	assert_int_equal(rp_fm_map_parse(&back, "ws:5@8000000-8100000;cache:rp2040@90000000-90800000", why, sizeof(why)), 0);
	assert_int_equal(back.n, 2);
	assert_true(back.r[1].lo == 0x90000000u && back.r[1].hi == 0x90800000u);
	assert_int_equal(back.r[1].cfg.size, 16384);
	/* one model without a range: everywhere, named as the model alone (profiles before ranges) */
	assert_int_equal(rp_fm_map_parse(&back, "ws:5", why, sizeof(why)), 0);
	assert_int_equal(rp_fm_map_find(&back, 0x20000000), 0);
	assert_int_equal(rp_fm_map_name(&back, name, sizeof(name)), 0);
	assert_string_equal(name, "ws:5");
}

static void test_refusals(void **state)
{
	(void)state;
	rp_fm_map m = { 0 };
	char why[200];
	rp_fm_cfg ws = model("ws:5");
	assert_int_equal(rp_fm_map_add(&m, &ws, 0, 0x8000, why, sizeof(why)), 0);
	assert_int_equal(rp_fm_map_add(&m, &ws, 0x7000, 0x9000, why, sizeof(why)), -1);
	assert_string_equal(why, "flash range 0x7000-0x9000 overlaps an earlier one");
	assert_int_equal(rp_fm_map_add(&m, &ws, 0x9000, 0x9000, why, sizeof(why)), -1);
	assert_string_equal(why, "flash range 0x9000-0x9000: the start must be below the end");
	assert_int_equal(rp_fm_map_add(&m, &ws, 0, 0, why, sizeof(why)), -1);
	assert_string_equal(why, "a model without a range applies everywhere: it cannot share the flash with others");
	for (uint64_t i = 1; i < RP_FM_MAX_RANGES; i++)
		assert_int_equal(rp_fm_map_add(&m, &ws, i * 0x10000, i * 0x10000 + 0x100, why, sizeof(why)), 0);
	assert_int_equal(rp_fm_map_add(&m, &ws, 0x100000, 0x100100, why, sizeof(why)), -1);
	assert_string_equal(why, "more than 8 flash ranges");
	assert_int_equal(rp_fm_map_parse(&m, "ws:5@0-8000;ws:1@4000-9000", why, sizeof(why)), -1);
	assert_string_equal(why, "flash range 0x4000-0x9000 overlaps an earlier one");
	assert_int_equal(rp_fm_map_parse(&m, "ws:5@zz", why, sizeof(why)), -1);
	assert_int_equal(rp_fm_map_parse(&m, "ws:5;ws:1@0-10", why, sizeof(why)), -1);
	assert_int_equal(rp_fm_map_parse(&m, "cache:pico@0-10", why, sizeof(why)), -1);
	assert_string_equal(why, "flash model 'cache:pico': unknown cache preset (rp2040, fe310, esp32) or missing '='");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_route_and_name),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
