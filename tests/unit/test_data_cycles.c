/* test_data_cycles.c: read-only data in the currency of the code (issue 14 item 4 follow-up):
 * rp_data_cycle_weights turns reads into stall cycles under each kind of model (or takes the
 * plugin's measured stall cycles per object), less the copy at boot, worked by hand; the code
 * plan's `data-plan` key that lets check find the data plan; ramplace.yaml's `data` and
 * `pin-data` keys. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "ramplace/config.h"
#include "ramplace/place_data.h"
#include "ramplace/plan.h"

static rp_dataobj objs[2] = {
	{ .name = "table", .addr = 0x1000, .size = 64, .insec_size = 64, .insec_align = 4 },
	{ .name = "small", .addr = 0x1040, .size = 8, .insec_size = 8, .insec_align = 4 },
};
static const rp_dataobjs d = { objs, 2 };

static void model(rp_cycles *cy, const char *spec)
{
	char why[100];
	memset(cy, 0, sizeof(*cy));
	assert_int_equal(rp_fm_parse(&cy->model, spec, why, sizeof(why)), 0);
}

/* ws:5: a demand read is 5 cycles; the copy of 64 bytes is 16.75 words x (2 + 5/2) = 75.375 */
static void test_estimated_ws(void **state)
{
	(void)state;
	rp_cycles cy;
	model(&cy, "ws:5");
	double w[2] = { 1000, 2 }, stall;
	assert_int_equal(rp_data_cycle_weights(w, &stall, &cy, &d, NULL), 1);
	assert_true(w[0] > 5000 - 75.375 - 1e-9 && w[0] < 5000 - 75.375 + 1e-9);
	assert_true(w[1] == 0);   /* 10 stall cycles do not pay for the copy of 8 bytes (12.375) ... */
	assert_true(stall == 5010);
	double w2[2] = { 0, 3 };  /* ... 15 do: 15 - 2.75 x 4.5 */
	assert_int_equal(rp_data_cycle_weights(w2, &stall, &cy, &d, NULL), 1);
	assert_true(w2[1] > 15 - 12.375 - 1e-9 && w2[1] < 15 - 12.375 + 1e-9);
}

/* fe310: loads from the XIP window bypass the cache, each costs the 168-cycle line fill; rp2040
 * caches data: a fill of an 8-byte line (56) every 2 word reads */
static void test_estimated_cache(void **state)
{
	(void)state;
	rp_cycles cy;
	double stall;
	model(&cy, "cache:fe310");
	assert_true(rp_data_read_estimate(&cy.model) == 168);
	double w[2] = { 10, 0 };
	rp_data_cycle_weights(w, &stall, &cy, &d, NULL);
	assert_true(stall == 1680);
	model(&cy, "cache:rp2040");
	assert_true(rp_data_read_estimate(&cy.model) == 28);
}

/* measured: the plugin's stall cycles per object, the reads passed in ignored */
static void test_measured(void **state)
{
	(void)state;
	rp_cycles cy;
	model(&cy, "ws:5");
	cy.measured = 1;
	rp_cost_total rows[2] = { { .name = "table", .stall = 900, .reads = 400 }, { .name = "gone", .stall = 7, .reads = 7 } };
	rp_db_costs costs = { .data = rows, .ndata = 2 };
	double w[2] = { 123456, 99 }, stall;
	assert_int_equal(rp_data_cycle_weights(w, &stall, &cy, &d, &costs), 1);
	assert_true(w[0] > 900 - 75.375 - 1e-9 && w[0] < 900 - 75.375 + 1e-9);
	assert_true(w[1] == 0 && stall == 900);
}

static const char code_plan[] = "ramplace-plan 1\nbuild-id ab\noutput-section .ramtext\nbudget 64\n"
				"veneer-reserve 0\nused 0\nsamples 0 0\n";

static void plan_refused(const char *tail, const char *msg)
{
	char text[512];
	snprintf(text, sizeof(text), "%s%s", code_plan, tail);
	rp_plan *p = NULL;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_plan_parse(&p, text, strlen(text), "x.plan", &err), RP_EINPUT);
	if (strcmp(err.msg, msg) != 0)
		fail_msg("expected '%s'\n     got '%s'", msg, err.msg);
}

static void test_plan_names_data_plan(void **state)
{
	(void)state;
	char text[512];
	snprintf(text, sizeof(text), "%sdata-plan ramdata.ld.plan\n", code_plan);
	rp_plan *p = NULL;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_plan_parse(&p, text, strlen(text), "x.plan", &err), 0);
	assert_string_equal(p->data_plan, "ramdata.ld.plan");
	rp_plan_free(p);
	plan_refused("data-plan ../elsewhere.plan\n",
		     "x.plan:8: data-plan must be a file name beside the plan, not '../elsewhere.plan'");
	plan_refused("kind data\ndata-plan d.plan\n", "x.plan:9: 'data-plan' in a data plan");
	plan_refused("data-plan d.plan\nkind data\n", "x.plan:9: 'data-plan' in a data plan");
	plan_refused("data-plan a\ndata-plan b\n", "x.plan:9: 'data-plan' given twice");
}

static void test_config_keys(void **state)
{
	(void)state;
#define REGION "regions: [{name: sram, budget: 1K}]\n"
	const char *on = REGION "data: on\npin-data: [handlers, \"tab_*\"]\n";
	rp_config *cfg = NULL;
	rp_err err = RP_ERR_INIT;
	if (rp_config_parse(&cfg, on, strlen(on), "t.yaml", &err))
		fail_msg("%s", err.msg);
	assert_int_equal(cfg->data, 1);
	assert_int_equal(cfg->npin_data, 2);
	assert_string_equal(cfg->pin_data[1], "tab_*");
	rp_config_free(cfg);
	const char *off = REGION "data: off\n", *none = REGION "pin: [f]\n", *bad = REGION "data: yes\n";
	assert_int_equal(rp_config_parse(&cfg, off, strlen(off), "t.yaml", &err), 0);
	assert_int_equal(cfg->data, 0);
	rp_config_free(cfg);
	assert_int_equal(rp_config_parse(&cfg, none, strlen(none), "t.yaml", &err), 0);
	assert_int_equal(cfg->data, -1);   /* not given */
	rp_config_free(cfg);
	cfg = NULL;
	assert_int_equal(rp_config_parse(&cfg, bad, strlen(bad), "t.yaml", &err), RP_EINPUT);
	assert_null(cfg);
	assert_string_equal(err.msg, "t.yaml:2:7: 'data' must be 'on' or 'off', not 'yes'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_estimated_ws),
		cmocka_unit_test(test_estimated_cache),
		cmocka_unit_test(test_measured),
		cmocka_unit_test(test_plan_names_data_plan),
		cmocka_unit_test(test_config_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
