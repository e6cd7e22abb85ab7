/* test_dataobjs.c: data objects as RAM candidates on a real fixture (tests/data/ramdata, built by
 * build.sh): a const table with its own input section moves, a writable table, consts sharing a
 * plain .rodata (no -fdata-sections) and every object without a map stay, each with its reason;
 * the literal-pool proxy credits the table with its reader's samples; a data plan round-trips. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ramplace/dataobjs.h"
#include "ramplace/place_data.h"
#include "ramplace/plan.h"

#define DIR TEST_DATA_DIR "/ramdata/"

typedef struct fixture {
	rp_image *img;
	rp_map *map;
	rp_dataobjs objs;
} fixture;

static void load(fixture *f, int with_map)
{
	rp_err err = RP_ERR_INIT;
	memset(f, 0, sizeof(*f));
	if (rp_image_load(&f->img, DIR "ramdata.elf", &err) ||
	    (with_map && rp_map_load(&f->map, DIR "ramdata.map", &err)) ||
	    rp_dataobjs_load(&f->objs, f->img, f->map, &err))
		fail_msg("%s", err.msg);
}

static void release(fixture *f)
{
	rp_dataobjs_release(&f->objs);
	rp_map_free(f->map);
	rp_image_free(f->img);
}

static const rp_dataobj *find(const fixture *f, const char *name)
{
	const rp_dataobj *o = rp_dataobjs_find(&f->objs, name, NULL);
	if (!o)
		fail_msg("no data object '%s'", name);
	return o;
}

static void test_candidates(void **state)
{
	(void)state;
	fixture f;
	load(&f, 1);
	const rp_dataobj *table = find(&f, "table");
	assert_string_equal(table->why, "");
	assert_string_equal(table->pattern, ":hot.o(.rodata.table)");   /* a plain object, not an archive member */
	assert_int_equal(table->size, 128);
	assert_int_equal(table->insec_size, 128);
	assert_string_equal(find(&f, "banner")->why, "");
	/* writable: not const, whatever the hot code does with it */
	assert_non_null(strstr(find(&f, "scratch")->why, "writable, not const"));
	/* without -fdata-sections both consts of plain.c sit in one .rodata: neither can move alone */
	assert_non_null(strstr(find(&f, "plain_table")->why, "shared (compile with -fdata-sections)"));
	assert_non_null(strstr(find(&f, "plain_other")->why, "shared"));
	assert_ptr_equal(rp_dataobjs_at(&f.objs, table->addr + 127), table);
	assert_ptr_not_equal(rp_dataobjs_at(&f.objs, table->addr + 128), table);
	release(&f);
}

static void test_no_map(void **state)
{
	(void)state;
	fixture f;
	load(&f, 0);
	assert_non_null(strstr(find(&f, "table")->why, "no --map"));
	assert_null(find(&f, "table")->pattern);
	release(&f);
}

/* lookup holds &table and &plain_table in its literal pool (and &scratch): each gets its samples
 * once; _start's banner[0] is folded to a constant by the compiler, so banner is never read. */
static void test_proxy(void **state)
{
	(void)state;
	fixture f;
	load(&f, 1);
	rp_func_total funcs[2] = { { "lookup", NULL, 900, 900.0, 0 }, { "_start", NULL, 7, 7.0, 0 } };
	rp_db_totals totals = { .funcs = funcs, .nfuncs = 2, .total = 907 };
	double *w = calloc(f.objs.n, sizeof(double));
	assert_non_null(w);
	size_t n = rp_data_proxy_weights(w, f.img, &f.objs, &totals);
	size_t t = (size_t)(find(&f, "table") - f.objs.objs), b = (size_t)(find(&f, "banner") - f.objs.objs);
	size_t p = (size_t)(find(&f, "plain_table") - f.objs.objs), o = (size_t)(find(&f, "plain_other") - f.objs.objs);
	assert_true(w[t] == 900.0);
	assert_true(w[p] == 900.0);
	assert_true(w[b] == 0.0);
	assert_true(w[o] == 0.0);
	assert_int_equal(n, 3);   /* table, plain_table, scratch */
	free(w);
	release(&f);
}

static void test_plan_kind_data(void **state)
{
	(void)state;
	static const char text[] = "ramplace-plan 1\nbuild-id ab\noutput-section .ramdata\nbudget 128\n"
				   "veneer-reserve 0\nused 128\nsamples 900 900\nkind data\n"
				   "unit table - 128 128 900\npattern */hot.o(.rodata.table)\nobject table -\nend\n";
	rp_plan *plan = NULL;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_plan_parse(&plan, text, sizeof(text) - 1, "p", &err), 0);
	assert_true(plan->is_data);
	assert_int_equal(plan->units[0].nfuncs, 1);
	assert_string_equal(plan->units[0].funcs[0].name, "table");
	rp_plan_free(plan);
	/* an object line in a code plan (no kind line) is refused, naming the line */
	static const char bad[] = "ramplace-plan 1\nbuild-id ab\noutput-section .ramtext\nbudget 128\n"
				  "veneer-reserve 0\nused 128\nsamples 900 900\nunit t - 1 1 1\nobject t -\nend\n";
	assert_int_equal(rp_plan_parse(&plan, bad, sizeof(bad) - 1, "p", &err), RP_EINPUT);
	assert_non_null(strstr(err.msg, "p:9: 'object' in a code plan"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_candidates),
		cmocka_unit_test(test_no_map),
		cmocka_unit_test(test_proxy),
		cmocka_unit_test(test_plan_kind_data),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
