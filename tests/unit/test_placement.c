/* test_placement.c: from a profile to a plan on the ARM fixture (tests/data/elf): clones go
 * with their parent, the reset path stays in flash, veneers are paid for, the budget holds,
 * missing functions are reported, and bad budgets are refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ramplace/placement.h"

static rp_func_total profile[] = {
	{ "a_entry", NULL, 500, 500, 0 }, { "helper", "a.c", 100, 100, 0 }, { "scale.constprop.0", "a.c", 50, 50, 0 },
	{ "cold_split", NULL, 40, 40, 0 }, { "b_entry", NULL, 30, 30, 0 }, { "scale", NULL, 10, 10, 0 },
	{ "gone_func", NULL, 7, 7, 0 }, { "helper", "b.c", 5, 5, 0 },
};

static rp_db_totals totals(void)
{
	rp_db_totals t = { .funcs = profile, .nfuncs = sizeof(profile) / sizeof(profile[0]), .nruns = 1, .nimages = 1 };
	for (size_t i = 0; i < t.nfuncs; i++)
		t.total += profile[i].count;
	return t;
}

static rp_image *load(const char *name)
{
	rp_image *img = NULL;
	rp_err err = RP_ERR_INIT;
	if (rp_image_load(&img, name, &err))
		fail_msg("%s", err.msg);
	return img;
}

static const rp_plan_unit *unit_named(const rp_plan *plan, const char *name, const char *file)
{
	for (size_t i = 0; i < plan->nunits; i++)
		if (strcmp(plan->units[i].name, name) == 0 &&
		    ((!file && !plan->units[i].file) || (file && plan->units[i].file && strcmp(plan->units[i].file, file) == 0)))
			return &plan->units[i];
	return NULL;
}

/* The unit holding function name (defined in file, NULL for a global), or NULL. */
static const rp_plan_unit *unit_with(const rp_plan *plan, const char *name, const char *file)
{
	for (size_t i = 0; i < plan->nunits; i++)
		for (size_t k = 0; k < plan->units[i].nfuncs; k++) {
			const rp_plan_func *f = &plan->units[i].funcs[k];
			if (strcmp(f->name, name) == 0 &&
			    ((!file && !f->file) || (file && f->file && strcmp(f->file, file) == 0)))
				return &plan->units[i];
		}
	return NULL;
}

static void test_plan_on_arm(void **state)
{
	(void)state;
	rp_image *img = load(TEST_DATA_DIR "/elf/arm-m3.elf");
	rp_db_totals t = totals();
	rp_place_opts opts = RP_PLACE_OPTS_INIT;
	rp_placement p;
	rp_err err = RP_ERR_INIT;
	opts.budget = 64;
	/* _start (the entry) calls a_entry; this image copies no code section and has no main, so
	 * everything _start reaches may run before a copy: all of it stays in flash (boot.h) */
	assert_int_equal(rp_place(img, NULL, &t, &opts, &p, &err), 0);
	assert_int_equal(p.plan->nunits, 0);
	int kept = 0;
	for (size_t i = 0; i < p.nkept; i++)
		kept |= strstr(p.kept[i], "a_entry: called by the reset handler") != NULL;
	assert_true(kept);
	rp_placement_release(&p);
	/* a_entry, the hottest, kept in flash by hand: the rest of the set is chosen */
	const char *exclude[] = { "a_entry" };
	opts.keep_boot_path = 0;
	opts.exclude = exclude;
	opts.nexclude = 1;
	assert_int_equal(rp_place(img, NULL, &t, &opts, &p, &err), 0);
	const rp_plan *plan = p.plan;
	assert_null(unit_named(plan, "a_entry", NULL));
	/* the best set needs b_entry's callee in RAM too, so no veneer is paid. Without a map the
	 * pattern *(.text.helper) moves the static helper of a.c and of b.c: one unit. Sizes are
	 * exact, each function at its own alignment: 8 + 4, 40, 10 */
	const rp_plan_unit *helper = unit_with(plan, "helper", "a.c");
	assert_non_null(helper);
	assert_ptr_equal(unit_with(plan, "helper", "b.c"), helper);
	assert_int_equal(helper->nfuncs, 2);
	assert_non_null(unit_named(plan, "cold_split", NULL));
	assert_non_null(unit_named(plan, "b_entry", NULL));
	assert_int_equal(plan->nunits, 3);
	assert_int_equal(plan->used, 62);
	assert_int_equal(plan->veneer_reserve, 0);
	assert_true(plan->used + plan->veneer_reserve <= plan->budget);
	assert_int_equal(plan->moved_samples, 175);
	assert_int_equal(plan->total_samples, 742);
	assert_string_equal(plan->units[0].name, "helper");   /* hottest first */
	assert_string_equal(plan->build_id, img->build_id);
	assert_int_equal(p.nmissing, 1);
	assert_string_equal(p.missing[0], "gone_func");
	assert_int_equal(p.missing_samples, 7);
	assert_true(p.guessed_patterns);
	/* one section per pattern: the forms GNU ld, ld.lld and every other dialect accept */
	const rp_plan_unit *cold = unit_named(plan, "cold_split", NULL);
	assert_int_equal(cold->npatterns, 2);
	assert_string_equal(cold->patterns[0], "*(.text.cold_split)");
	assert_string_equal(cold->patterns[1], "*(.text.*.cold_split)");
	rp_placement_release(&p);
	rp_image_free(img);
}

/* Without a map, a function whose literal pool lies past its .size (a naked function's
 * .ltorg) takes its pool to RAM: the plan counts 16 bytes for pooled_fn, not its 6 (the
 * FreeRTOS demo's register tests linked 4 bytes over such a plan, issue 22) */
static void test_trailing_pool_counted(void **state)
{
	(void)state;
	rp_image *img = load(TEST_DATA_DIR "/elf/arm-m3-pool.elf");
	rp_func_total pooled[] = { { "pooled_fn", NULL, 100, 100, 0 } };
	rp_db_totals t = { .funcs = pooled, .nfuncs = 1, .nruns = 1, .nimages = 1, .total = 100 };
	rp_place_opts opts = RP_PLACE_OPTS_INIT;
	opts.budget = 64;
	rp_placement p;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_place(img, NULL, &t, &opts, &p, &err), 0);
	const rp_plan_unit *u = unit_named(p.plan, "pooled_fn", NULL);
	assert_non_null(u);
	assert_int_equal(u->size, 16);
	assert_int_equal(p.plan->used, 16);
	rp_placement_release(&p);
	rp_image_free(img);
}

/* Globs that name the same functions more than once (twice on the command line, or a config's
 * list and the options') root each function once: roots never outgrow the functions (an ASan
 * overflow before), and the handlers are recorded once in the plan */
static void test_repeated_globs(void **state)
{
	(void)state;
	rp_image *img = load(TEST_DATA_DIR "/elf/arm-m3.elf");
	rp_db_totals t = totals();
	rp_place_opts opts = RP_PLACE_OPTS_INIT;
	const char *twice[] = { "*", "*", "a_*" };
	opts.budget = 4096;
	opts.keep_boot_path = 0;
	opts.closure = twice;
	opts.nclosure = 3;
	opts.handlers = twice;
	opts.nhandlers = 3;
	rp_placement p;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_place(img, NULL, &t, &opts, &p, &err), 0);
	size_t ncode = 0;
	for (size_t i = 0; i < img->nfuncs; i++)
		ncode += img->sections[img->funcs[i].section].is_exec;
	assert_int_equal(p.plan->nhandlers, ncode);
	for (size_t i = 0; i < p.plan->nhandlers; i++)
		for (size_t j = i + 1; j < p.plan->nhandlers; j++)
			assert_false(strcmp(p.plan->handlers[i].name, p.plan->handlers[j].name) == 0 &&
				     !p.plan->handlers[i].file == !p.plan->handlers[j].file &&
				     (!p.plan->handlers[i].file || strcmp(p.plan->handlers[i].file, p.plan->handlers[j].file) == 0));
	rp_placement_release(&p);
	rp_image_free(img);
}

static void test_clones_move_together_and_veneers_count(void **state)
{
	(void)state;
	rp_image *img = load(TEST_DATA_DIR "/elf/arm-m3.elf");
	rp_db_totals t = totals();
	rp_place_opts opts = RP_PLACE_OPTS_INIT;
	rp_placement p;
	rp_err err = RP_ERR_INIT;
	opts.budget = 4096;
	opts.keep_boot_path = 0;
	const char *exclude[] = { "cold_*", "_start" };
	opts.exclude = exclude;
	opts.nexclude = 2;
	assert_int_equal(rp_place(img, NULL, &t, &opts, &p, &err), 0);
	const rp_plan_unit *scale = unit_named(p.plan, "scale", NULL);
	assert_non_null(scale);
	assert_int_equal(scale->nfuncs, 2);          /* scale and scale.constprop.0 */
	assert_int_equal(scale->samples, 60);
	assert_int_equal(scale->size, 40 + 30);     /* scale's 38 bytes padded to its 4-byte alignment */
	assert_null(unit_named(p.plan, "cold_split", NULL));
	assert_non_null(unit_named(p.plan, "a_entry", NULL));
	/* a_entry calls cold_split, which stays in flash: one veneer of 8 bytes, in GNU ld's veneer
	 * block, which starts at the next multiple of 8 after the code */
	assert_int_equal(p.nveneers, 1);
	assert_int_equal(p.plan->veneer_reserve, 8 + (8 - p.plan->used % 8) % 8);
	rp_placement_release(&p);
	rp_image_free(img);
}

/* One region with shared veneers: the knapsack's answer goes through the ILP, which proves it
 * optimal; so a larger budget never moves fewer samples, and every plan fits with its veneers
 * and the padding before GNU ld's 8-aligned veneer block. Where that padding pushed the first
 * answer over, the budget is solved again rounded down to 8, proven optimal only when that
 * loses nothing; at multiples of 8 the padding never overflows, so the proof always holds. */
static void test_veneer_plans_proven_optimal(void **state)
{
	(void)state;
	rp_image *img = load(TEST_DATA_DIR "/elf/arm-m3.elf");
	rp_db_totals t = totals();
	uint64_t last = 0;
	for (uint64_t budget = 16; budget <= 512; budget += 4) {
		rp_place_opts opts = RP_PLACE_OPTS_INIT;
		rp_placement p;
		rp_err err = RP_ERR_INIT;
		opts.budget = budget;
		opts.keep_boot_path = 0;
		if (rp_place(img, NULL, &t, &opts, &p, &err))
			fail_msg("budget %llu: %s", (unsigned long long)budget, err.msg);
		uint64_t used = p.nveneers * 8, code = 0;
		for (size_t i = 0; i < p.plan->nunits; i++)
			code += p.plan->units[i].size;
		used += code + (p.nveneers ? (8 - code % 8) % 8 : 0);
		assert_true(used <= budget);
		assert_int_equal(p.plan->used + p.plan->veneer_reserve, used);
		assert_true(p.optimal || p.plan->nunits == 0 || budget % 8 != 0);
		assert_true(p.plan->moved_samples >= last);
		last = p.plan->moved_samples;
		rp_placement_release(&p);
	}
	assert_true(last > 0);
	rp_image_free(img);
}

static void test_same_plan_twice(void **state)
{
	(void)state;
	rp_image *img = load(TEST_DATA_DIR "/elf/riscv32.elf");
	rp_db_totals t = totals();
	rp_place_opts opts = RP_PLACE_OPTS_INIT;
	rp_placement p1, p2;
	rp_err err = RP_ERR_INIT;
	opts.budget = 100;
	opts.keep_boot_path = 0;   /* _start reaches every function of this image: none would move */
	/* a profile taken on the ARM build maps by name onto the RISC-V one */
	assert_int_equal(rp_place(img, NULL, &t, &opts, &p1, &err), 0);
	assert_int_equal(rp_place(img, NULL, &t, &opts, &p2, &err), 0);
	assert_true(p1.plan->nunits > 0);
	assert_int_equal(p1.plan->nunits, p2.plan->nunits);
	for (size_t i = 0; i < p1.plan->nunits; i++)
		assert_string_equal(p1.plan->units[i].name, p2.plan->units[i].name);
	assert_int_equal(p1.plan->veneer_reserve, 0);   /* no veneers on RISC-V */
	rp_placement_release(&p1);
	rp_placement_release(&p2);
	rp_image_free(img);
}

/* Two regions, a pin and a closure go to the ILP: each plan fits its region with its veneers,
 * the pinned and closure functions are in RAM, and the fast region gets the densest code. */
static void test_regions_pins_closures(void **state)
{
	(void)state;
	rp_image *img = load(TEST_DATA_DIR "/elf/arm-m3.elf");
	rp_db_totals t = totals();
	rp_place_opts opts = RP_PLACE_OPTS_INIT;
	rp_region_cfg regions[2];
	rp_region_cfg_defaults(&regions[0]);
	rp_region_cfg_defaults(&regions[1]);
	regions[0].name = (char *)"fast";
	regions[0].outsec = (char *)".ramtext";
	regions[0].budget = 32;
	regions[1].name = (char *)"slow";
	regions[1].outsec = (char *)".slowtext";
	regions[1].budget = 96;
	regions[1].speed = 0.5;
	const char *pin[] = { "cold_split" }, *closure[] = { "b_entry" };
	opts.regions = regions;
	opts.nregions = 2;
	opts.pin = pin;
	opts.npin = 1;
	opts.closure = closure;
	opts.nclosure = 1;
	opts.cost.flash_fetch_cycles = 3;
	opts.have_cost = 1;
	opts.keep_boot_path = 0;   /* _start reaches every function of this image: none would move */
	rp_placement p;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_place(img, NULL, &t, &opts, &p, &err), 0);
	assert_int_equal(p.nplans, 2);
	assert_string_equal(p.solver, "ILP (GLPK)");
	assert_true(p.optimal);
	assert_string_equal(p.plans[1]->outsec, ".slowtext");
	int cold = 0, bentry = 0, helper_b = 0;
	for (size_t r = 0; r < 2; r++) {
		const rp_plan *plan = p.plans[r];
		assert_true(plan->used + plan->veneer_reserve <= plan->budget);
		cold |= unit_named(plan, "cold_split", NULL) != NULL;
		bentry |= unit_named(plan, "b_entry", NULL) != NULL;
		helper_b |= unit_with(plan, "helper", "b.c") != NULL;
	}
	assert_true(cold && bentry && helper_b);
	assert_true(p.have_cycles && p.cycles_saved > 0);
	rp_placement_release(&p);

	/* a closure over the reset handler cannot be honoured: said so, with the function */
	closure[0] = "_start";
	opts.keep_boot_path = 1;
	assert_int_equal(rp_place(img, NULL, &t, &opts, &p, &err), RP_EINPUT);
	assert_non_null(strstr(err.msg, "must be in RAM (in the static call closure of a closure root) but cannot move: "));
	assert_non_null(strstr(err.msg, "the reset handler"));
	/* a closure larger than both regions: how many bytes over */
	closure[0] = "b_entry";
	pin[0] = "*";
	opts.keep_boot_path = 0;
	assert_int_equal(rp_place(img, NULL, &t, &opts, &p, &err), RP_EINPUT);
	assert_non_null(strstr(err.msg, "infeasible: pinned and closure functions need"));
	assert_non_null(strstr(err.msg, "over the 128-byte budget by"));
	rp_image_free(img);
}

static void test_bad_budget_and_empty_profile(void **state)
{
	(void)state;
	rp_image *img = load(TEST_DATA_DIR "/elf/arm-m3.elf");
	rp_place_opts opts = RP_PLACE_OPTS_INIT;
	rp_placement p;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_place(img, NULL, NULL, &opts, &p, &err), RP_EUSAGE);
	assert_non_null(strstr(err.msg, "--budget: 0 bytes"));
	opts.budget = 1024;
	assert_int_equal(rp_place(img, NULL, NULL, &opts, &p, &err), 0);
	assert_int_equal(p.plan->nunits, 0);
	rp_placement_release(&p);
	rp_image_free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_on_arm),
		cmocka_unit_test(test_trailing_pool_counted),
		cmocka_unit_test(test_repeated_globs),
		cmocka_unit_test(test_clones_move_together_and_veneers_count),
		cmocka_unit_test(test_veneer_plans_proven_optimal),
		cmocka_unit_test(test_same_plan_twice),
		cmocka_unit_test(test_regions_pins_closures),
		cmocka_unit_test(test_bad_budget_and_empty_profile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
