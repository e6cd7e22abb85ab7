/* test_staleness.c: how much of a profile maps onto an ELF (tests/data/elf/arm-m3.elf: statics
 * helper in a.c and b.c, scale with scale.constprop.0), which functions vanished, and the
 * rename guesses: another compiler clone of the same function, a static that changed files;
 * none across two different firmwares but for a static of the same file. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ramplace/staleness.h"

static rp_image *load(void)
{
	rp_image *img = NULL;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_image_load(&img, TEST_DATA_DIR "/elf/arm-m3.elf", &err), 0);
	return img;
}

static void test_maps_and_vanishes(void **state)
{
	(void)state;
	rp_image *img = load();
	rp_func_total funcs[] = {
		{ "scale", NULL, 600, 600, 0 },
		{ "helper", "b.c", 200, 200, 0 },
		{ "helper", "c.c", 100, 100, 0 },             /* c.c lost it, a.c and b.c have one: moved */
		{ "scale.isra.0", NULL, 50, 50, 0 },         /* another clone of scale */
		{ "gone_for_good", NULL, 40, 40, 0 },
		{ "<unknown>", NULL, 10, 10, 0 },
	};
	rp_db_totals totals = { .funcs = funcs, .nfuncs = 6, .total = 1000, .nruns = 2, .nimages = 2, .taken = 1000 };
	rp_db_image images[] = { { (char *)"ffff", (char *)"/nonexistent.elf", (char *)"arm", 1, 700 },
				 { img->build_id, img->path, (char *)"arm", 1, 300 } };
	rp_staleness st;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_staleness_assess(&st, img, images, 2, &totals, &err), 0);
	assert_int_equal(st.nimages, 2);
	assert_int_equal(st.nother, 1);
	assert_int_equal(st.other_samples, 700);
	assert_string_equal(st.other_build_id, "ffff");
	assert_int_equal(st.profiled, 990);
	assert_int_equal(st.mapped, 800);
	assert_int_equal(st.nvanished, 3);
	assert_string_equal(st.vanished[0].name, "helper");
	assert_string_equal(st.vanished[0].file, "c.c");
	assert_non_null(st.vanished[0].now); /* a static helper still exists elsewhere */
	assert_string_equal(st.vanished[1].name, "scale.isra.0");
	assert_string_equal(st.vanished[1].now, "scale");
	assert_string_equal(st.vanished[2].name, "gone_for_good");
	assert_null(st.vanished[2].now);
	assert_int_equal(st.nrenamed, 2);
	assert_true(rp_staleness_mapped_share(&st) > 0.80 && rp_staleness_mapped_share(&st) < 0.81);
	rp_staleness_release(&st);
	rp_image_free(img);
}

/* Another firmware (most of the profile maps nowhere): a name the ELF also has is no evidence,
 * as when two benchmarks both define a static benchmark_body; only a candidate in the vanished
 * static's own file is. */
static void test_no_rename_guess_across_firmwares(void **state)
{
	(void)state;
	rp_image *img = load();
	rp_func_total funcs[] = {
		{ "benchmark_body", NULL, 500, 500, 0 }, /* gone */
		{ "helper", "c.c", 300, 300, 0 },        /* the ELF's helpers are in a.c and b.c */
		{ "scale.isra.0", NULL, 100, 100, 0 },   /* a clone of the global scale, no file to agree */
		{ "scale.part.0", "a.c", 50, 50, 0 },    /* scale.constprop.0 is a static of a.c too */
		{ "a_entry", NULL, 50, 50, 0 },          /* maps: 50 of 1000 */
	};
	rp_db_totals totals = { .funcs = funcs, .nfuncs = 5, .total = 1000, .nruns = 1, .nimages = 1, .taken = 1000 };
	rp_db_image images[] = { { (char *)"eeee", (char *)"/nonexistent.elf", (char *)"arm", 1, 1000 } };
	rp_staleness st;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_staleness_assess(&st, img, images, 1, &totals, &err), 0);
	assert_int_equal(st.mapped, 50);
	assert_int_equal(st.nvanished, 4);
	assert_string_equal(st.vanished[1].name, "helper");
	assert_null(st.vanished[1].now);
	assert_string_equal(st.vanished[2].name, "scale.isra.0");
	assert_null(st.vanished[2].now);
	assert_string_equal(st.vanished[3].name, "scale.part.0");
	assert_string_equal(st.vanished[3].now, "scale.constprop.0 (a.c)");
	assert_int_equal(st.nrenamed, 1);
	rp_staleness_release(&st);
	rp_image_free(img);
}

static void test_empty_profile_maps_fully(void **state)
{
	(void)state;
	rp_image *img = load();
	rp_db_totals totals = { 0 };
	rp_staleness st;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_staleness_assess(&st, img, NULL, 0, &totals, &err), 0);
	assert_int_equal(st.nother, 0);
	assert_null(st.other_build_id);
	assert_true(rp_staleness_mapped_share(&st) == 1.0);
	rp_staleness_release(&st);
	rp_image_free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_maps_and_vanishes),
		cmocka_unit_test(test_no_rename_guess_across_firmwares),
		cmocka_unit_test(test_empty_profile_maps_fully),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
