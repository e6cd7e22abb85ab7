/* test_config.c: the ramplace.yaml reader: a full config, defaults, and every kind of refusal
 * (unknown key, wrong type, duplicates, impossible combinations, broken YAML, several
 * documents) with its file:line:column message. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "ramplace/config.h"

static rp_config *parse_ok(const char *text)
{
	rp_config *cfg = NULL;
	rp_err err = RP_ERR_INIT;
	if (rp_config_parse(&cfg, text, strlen(text), "t.yaml", &err))
		fail_msg("%s", err.msg);
	return cfg;
}

static void refused(const char *text, const char *msg)
{
	rp_config *cfg = NULL;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_config_parse(&cfg, text, strlen(text), "t.yaml", &err), RP_EINPUT);
	assert_null(cfg);
	if (strcmp(err.msg, msg) != 0)
		fail_msg("expected '%s'\n     got '%s'", msg, err.msg);
}

static void test_full(void **state)
{
	(void)state;
	rp_config *cfg = parse_ok("regions:\n"
				  "  - name: sram\n    memory: RAM\n    budget: auto\n    reserve: 2K\n"
				  "  - name: itcm\n    budget: 16K\n    output-section: .itcm_text\n    speed: 0.5\n    align: 8\n"
				  "pin: [crc32_update, \"op_*\"]\nexclude: printf\nclosure: [flash_write]\n"
				  "cost:\n  flash-wait-states: 2\n  veneer-bytes: 8\n  veneer-cycles: 3\n"
				  "runs: {weighting: equal}\nsolver: {time-limit: 2.5}\nallow-boot-path: yes\n");
	assert_int_equal(cfg->nregions, 2);
	assert_int_equal(cfg->allow_boot_path, 1);
	assert_string_equal(cfg->regions[0].name, "sram");
	assert_string_equal(cfg->regions[0].memory, "RAM");
	assert_true(cfg->regions[0].budget_auto);
	assert_int_equal(cfg->regions[0].reserve, 2048);
	assert_string_equal(cfg->regions[0].outsec, ".ramtext");   /* the first region's default */
	assert_int_equal(cfg->regions[0].align, 4);
	assert_int_equal(cfg->regions[1].budget, 16384);
	assert_string_equal(cfg->regions[1].outsec, ".itcm_text");
	assert_true(cfg->regions[1].speed == 0.5);
	assert_int_equal(cfg->regions[1].align, 8);
	assert_int_equal(cfg->npin, 2);
	assert_string_equal(cfg->pin[1], "op_*");
	assert_int_equal(cfg->nexclude, 1);
	assert_string_equal(cfg->closure[0], "flash_write");
	assert_true(cfg->cost.flash_fetch_cycles == 3.0);
	assert_int_equal(cfg->cost.veneer_bytes, 8);
	assert_true(cfg->cost.veneer_cycles == 3.0);
	assert_int_equal(cfg->weighting, RP_WEIGHT_EQUAL);
	assert_true(cfg->time_limit_s == 2.5);
	rp_config_free(cfg);
	cfg = parse_ok("regions:\n  - {name: r, budget: 96K}\nram-handlers: [TIMER0_Handler, \"UART*\"]\n");
	assert_int_equal(cfg->regions[0].budget, 96 * 1024);
	assert_int_equal(cfg->nhandlers, 2);
	assert_string_equal(cfg->handlers[1], "UART*");
	assert_int_equal(cfg->all_handlers, 0);
	rp_config_free(cfg);
	cfg = parse_ok("regions:\n  - {name: r, budget: 96K}\nram-handlers: all\n");
	assert_int_equal(cfg->all_handlers, 1);
	assert_int_equal(cfg->nhandlers, 0);
	assert_true(cfg->time_limit_s == 10.0);
	assert_true(cfg->cost.flash_fetch_cycles == 1.0);
	assert_int_equal(cfg->cost.veneer_bytes, -1);
	rp_config_free(cfg);
}

static void test_refusals(void **state)
{
	(void)state;
	refused("regions:\n  - name: a\n    budgett: 4K\n",
		"t.yaml:3:5: unknown key 'budgett' in a region (expected one of: name, memory, budget, reserve, align, output-section, fragment, speed)");
	refused("region: []\n", "t.yaml:1:1: unknown key 'region' in the config (expected one of: regions, pin, exclude, closure, cost, runs, solver, data, pin-data, allow-boot-path, ram-handlers)");
	refused("allow-boot-path: maybe\nregions: [{budget: 1K}]\n", "t.yaml:1:18: 'allow-boot-path' must be 'yes' or 'no', not 'maybe'");
	refused("regions:\n  - name: a\n    budget: lots\n", "t.yaml:3:13: budget: 'lots' is not a size");
	refused("regions:\n  - name: a\n", "t.yaml:2:5: region 'a' has no 'budget' (a size such as 96K, or auto)");
	refused("regions:\n  - budget: 1K\n", "t.yaml:2:5: region 1 has no 'name'");
	refused("regions:\n  - {name: a, budget: 1K}\n  - {name: a, budget: 1K, output-section: .b}\n",
		"t.yaml:3:5: region name 'a' is used twice");
	refused("regions:\n  - {name: a, budget: 1K}\n  - {name: b, budget: 1K}\n",
		"t.yaml:3:5: region 'b' needs an 'output-section' (only the first defaults to .ramtext)");
	refused("regions:\n  - {name: a, budget: 1K, reserve: 1K}\n", "t.yaml:2:5: region 'a': 'reserve' only applies to 'budget: auto'");
	refused("regions:\n  - {name: a, budget: 1K, align: 3}\n", "t.yaml:2:34: 'align': 3 is not a power of two from 1 to 4096");
	refused("regions:\n  - {name: a, budget: 1K, align: 8192}\n", "t.yaml:2:34: 'align': 8192 is not a power of two from 1 to 4096");
	refused("regions:\n  - {name: a, budget: 1K}\nx: " "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n", "t.yaml:3:67: nested more than 64 levels deep (the limit for a config)");
	refused("regions:\n  - {name: a, budget: 1K, speed: 2}\n", "t.yaml:2:34: 'speed' must be a number from 0.001 to 1, not '2'");
	refused("regions:\n  - {name: a, budget: 1K}\ncost: {flash-wait-states: 2, cycles-per-flash-fetch: 3}\n",
		"t.yaml:3:30: give either 'flash-wait-states' or 'cycles-per-flash-fetch', not both");
	refused("regions:\n  - {name: a, budget: 1K}\npin: [f]\nexclude: [f]\n", "t.yaml:1:1: 'f' is both pinned and excluded");
	refused("regions:\n  - {name: a, budget: 1K}\nregions: []\n", "t.yaml:3:1: 'regions' given twice in the config");
	refused("regions: 5\n", "t.yaml:1:10: 'regions' must be a list of regions, not a scalar");
	refused("pin: [f]\n", "t.yaml:1:1: no 'regions': at least one RAM region with a budget is needed");
	refused("", "t.yaml:1:1: empty config (expected at least 'regions')");
	refused("regions: [\n", "t.yaml:2:1: did not find expected node content while parsing a flow node");
	refused("regions:\n  - {name: a, budget: 1K}\n---\nregions: []\n", "t.yaml:4:1: a second YAML document; the config is one document");
	refused("regions:\n  - {name: a, budget: 1K}\nruns: {weighting: loud}\n", "t.yaml:3:19: 'weighting' must be 'samples' or 'equal', not 'loud'");
}

/* cost.model: a flash model (flashmodel.h), beside the older keys; a bad one names its reason */
static void test_flash_model(void **state)
{
	(void)state;
	rp_config *cfg = parse_ok("regions:\n  - {name: a, budget: 1K}\ncost:\n  model: cache:rp2040\n  veneer-cycles: 2\n");
	assert_true(cfg->cost.have_model);
	assert_int_equal(cfg->cost.model.kind, RP_FM_CACHE);
	assert_int_equal(cfg->cost.model.size, 16384);
	assert_string_equal(cfg->cost.model.name, "cache:rp2040");
	assert_true(cfg->cost.flash_fetch_cycles == 1.0);   /* the per-sample key untouched */
	rp_config_free(cfg);
	cfg = parse_ok("regions:\n  - {name: a, budget: 1K}\ncost: {flash-wait-states: 2}\n");
	assert_false(cfg->cost.have_model);
	rp_config_free(cfg);
	refused("regions:\n  - {name: a, budget: 1K}\ncost:\n  model: ws:5,line=8\n",
		"t.yaml:4:10: flash model 'ws:5,line=8': 'line' is not a parameter of this model (or out of range)");
	refused("regions:\n  - {name: a, budget: 1K}\ncost:\n  model: [ws:5]\n",
		"t.yaml:4:10: 'model' must be a single value, not a list");
}

/* cost.flash: a model per range or MEMORY region; ranges apart, one of memory/range, not with
 * cost.model. Unknown memories are found by place, against the map (t_flash_model_plugin.sh). */
static void test_flash_list(void **state)
{
	(void)state;
	rp_config *cfg = parse_ok("regions:\n  - {name: a, budget: 1K}\ncost:\n  flash:\n"
				  "    - {memory: FLASH, model: \"art:ws=5,line=16\"}\n"
				  "    - range: 0x90000000-0x90800000\n      model: cache:rp2040\n");
	assert_false(cfg->cost.have_model);
	assert_int_equal(cfg->cost.nflash, 2);
	assert_string_equal(cfg->cost.flash[0].memory, "FLASH");
	assert_string_equal(cfg->cost.flash[0].model.name, "art:ws=5,line=16");
	assert_string_equal(cfg->cost.flash[0].where, "t.yaml:5:7");
	assert_null(cfg->cost.flash[1].memory);
	assert_true(cfg->cost.flash[1].lo == 0x90000000u && cfg->cost.flash[1].hi == 0x90800000u);
	assert_int_equal(cfg->cost.flash[1].model.kind, RP_FM_CACHE);
	rp_config_free(cfg);
	const char *head = "regions:\n  - {name: a, budget: 1K}\ncost:\n  flash:\n";
	char text[512];
	snprintf(text, sizeof(text), "%s    - {range: 0-0x8000, model: ws:5}\n    - {range: 0x4000-0x10000, model: ws:1}\n", head);
	refused(text, "t.yaml:6:7: flash range 0x4000-0x10000 overlaps an earlier one");
	snprintf(text, sizeof(text), "%s    - {range: 0x8000-0x4000, model: ws:5}\n", head);
	refused(text, "t.yaml:5:15: 'range' 0x8000-0x4000: the start must be below the end");
	snprintf(text, sizeof(text), "%s    - {range: 0-zz, model: ws:5}\n", head);
	refused(text, "t.yaml:5:15: range: 'zz' is not a size");
	snprintf(text, sizeof(text), "%s    - {memory: FLASH, range: 0-8, model: ws:5}\n", head);
	refused(text, "t.yaml:5:7: a 'cost.flash' entry needs 'model' and one of 'memory' (a MEMORY region of the map) "
		"or 'range' (LO-HI)");
	snprintf(text, sizeof(text), "%s    - {memory: FLASH}\n", head);
	refused(text, "t.yaml:5:7: a 'cost.flash' entry needs 'model' and one of 'memory' (a MEMORY region of the map) "
		"or 'range' (LO-HI)");
	snprintf(text, sizeof(text), "%s    - {memory: FLASH, model: ws:5}\n    - {memory: FLASH, model: ws:2}\n", head);
	refused(text, "t.yaml:6:7: memory 'FLASH' has a flash model already");
	snprintf(text, sizeof(text), "%s    - {memory: FLASH, model: cache:pico}\n", head);
	refused(text, "t.yaml:5:30: flash model 'cache:pico': unknown cache preset (rp2040, fe310, esp32) or missing '='");
	snprintf(text, sizeof(text), "%s    - {memory: FLASH, model: ws:5, size: 4}\n", head);
	refused(text, "t.yaml:5:36: unknown key 'size' in a 'cost.flash' entry (expected one of: memory, range, model)");
	refused("regions:\n  - {name: a, budget: 1K}\ncost:\n  model: ws:5\n  flash: [{memory: F, model: ws:1}]\n",
		"t.yaml:5:3: give either 'model' (one flash) or 'flash' (a model per flash), not both");
	refused("regions:\n  - {name: a, budget: 1K}\ncost:\n  flash: ws:5\n",
		"t.yaml:4:10: 'flash' must be a list of {memory: NAME or range: LO-HI, model: SPEC}");
	refused("regions:\n  - {name: a, budget: 1K}\ncost:\n  flash: []\n",
		"t.yaml:4:10: 'flash' must be a list of {memory: NAME or range: LO-HI, model: SPEC}");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_flash_model),
		cmocka_unit_test(test_flash_list),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
