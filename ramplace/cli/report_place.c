/* report_place.c: the placement `report --html/--budget-curve` shows (cli_html.h): made from
 * --budget, --map and --config the way `place` makes it (the config's regions, exclusions, pins,
 * closures and cost model; --budget overrides the first region's budget), without writing a
 * fragment. Without --budget and --config the budget is `auto` (needs --map). Owns the config
 * and the region copies it passes to the solver. */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_html.h"
#include "ramplace/util.h"

static int set_budget(cli_report_place *rp, rp_region_cfg *first, int have_map, rp_err *err)
{
	if (!rp->budget && rp->cfg)
		return 0;
	if (!rp->budget && !have_map)
		return cli_usage_error(err, "report", "--html and --budget-curve need --budget (or --map for the free RAM, or --config)");
	first->budget_auto = !rp->budget;
	first->budget = rp->budget;
	rp->opts.budget = rp->budget;
	return 0;
}

static int make_opts(cli_report_place *rp, int have_map, rp_err *err)
{
	rp_place_opts *o = &rp->opts;
	size_t n = rp->cfg ? rp->cfg->nregions : 1;
	if (!(rp->regions = calloc(n, sizeof(rp_region_cfg))))
		return rp_err_nomem(err, "reading options");
	if (rp->cfg)
		memcpy(rp->regions, rp->cfg->regions, n * sizeof(rp_region_cfg));
	else
		rp_region_cfg_defaults(&rp->regions[0]);
	if (set_budget(rp, &rp->regions[0], have_map, err))
		return err->code;
	if (rp->cfg || rp->regions[0].budget_auto) {
		o->regions = rp->regions;
		o->nregions = n;
	}
	if (!rp->cfg)
		return 0;
	o->exclude = (const char *const *)rp->cfg->exclude;
	o->nexclude = rp->cfg->nexclude;
	o->pin = (const char *const *)rp->cfg->pin;
	o->npin = rp->cfg->npin;
	o->closure = (const char *const *)rp->cfg->closure;
	o->nclosure = rp->cfg->nclosure;
	o->cost = rp->cfg->cost;
	o->have_cost = rp->cfg->have_cost;
	o->time_limit_s = rp->cfg->time_limit_s;
	if (o->cost.veneer_bytes >= 0)
		o->veneer_size = o->cost.veneer_bytes;
	return 0;
}

int cli_report_place_run(cli_report_place *rp, const rp_image *img, rp_map **map, const rp_db_totals *totals,
			 rp_placement *out, double *cycles_per_sample, rp_err *err)
{
	rp_place_opts init = RP_PLACE_OPTS_INIT;
	rp->opts = init;
	*cycles_per_sample = 0;
	if (rp->map_path && (rp_map_load(map, rp->map_path, err) ||
			     rp_map_read_alignments(*map, img->machine == EM_RISCV ? 2 : rp->opts.align, err)))
		return err->code;
	if (rp->config_path && rp_config_load(&rp->cfg, rp->config_path, err))
		return err->code;
	if (make_opts(rp, *map != NULL, err))
		return err->code;
	int rc = rp_place(img, *map, totals, &rp->opts, out, err);
	if (!rc && rp->opts.have_cost)
		*cycles_per_sample = rp->opts.cost.flash_fetch_cycles - 1.0 / (rp->regions[0].speed > 0 ? rp->regions[0].speed : 1.0);
	return rc;
}

void cli_report_place_release(cli_report_place *rp)
{
	free(rp->regions);
	free(rp->globs);
	rp_config_free(rp->cfg);
	rp->regions = NULL;
	rp->globs = NULL;
	rp->cfg = NULL;
}
