/* pipe_config.c: ramplace.yaml under a caller's options (pipeline.h: rp_pipeline_configure):
 * what `place` and `report --html` (and a library user) get from the same config and options,
 * the same placement; and the names of each region's fragment and plan. Owns nothing but the
 * regions and names it returns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/pipeline.h"
#include "ramplace/util.h"

/* The regions: the config's, with the budget, output section, memory and alignment of the
 * options applied to the first (the alignment to all); without a config, one region from the
 * options. */
static int make_regions(const rp_pipeline *p, const rp_config *cfg, const rp_pipe_overrides *ov,
			rp_region_cfg **out, size_t *nout, rp_err *err)
{
	const rp_place_opts *o = &p->opts;
	size_t n = cfg ? cfg->nregions : 1;
	rp_region_cfg *regions = calloc(n, sizeof(rp_region_cfg));
	if (!regions)
		return rp_err_nomem(err, "reading options");
	*out = regions;
	*nout = n;
	if (cfg)
		memcpy(regions, cfg->regions, n * sizeof(rp_region_cfg));
	else
		rp_region_cfg_defaults(&regions[0]);
	rp_region_cfg *first = &regions[0];
	if (ov->have_budget) {
		first->budget_auto = ov->budget_auto;
		first->budget = ov->budget_auto ? 0 : o->budget;
	}
	if (!cfg || strcmp(o->outsec, ".ramtext") != 0)
		first->outsec = (char *)o->outsec;
	if (o->region)
		first->memory = (char *)o->region;
	for (size_t r = 0; r < n; r++)
		if (ov->align_given || !cfg)
			regions[r].align = o->align;
	return 0;
}

int rp_pipeline_configure(rp_pipeline *p, const rp_config *cfg, const rp_pipe_overrides *ov,
			  rp_region_cfg **regions, size_t *nregions, rp_err *err)
{
	rp_place_opts *o = &p->opts;
	if (cfg) {
		if (cfg->all_handlers)
			o->all_handlers = 1;
		o->cost = cfg->cost;
		/* a flash model alone (cost.model, cost.flash) places in cycles (pipe_cycles.c), not by
		 * the old per-sample fetch cost */
		o->have_cost = cfg->have_cost && (cfg->cost.flash_fetch_cycles != 1.0 ||
						  (!cfg->cost.have_model && !cfg->cost.nflash));
		rp_pipe_cycles_config(&p->cycles, &cfg->cost);
		if (rp_pipe_data_config(&p->data, cfg, err))
			return err->code;
		if (!ov->time_limit_given)
			o->time_limit_s = cfg->time_limit_s;
		if (cfg->allow_boot_path)
			o->keep_boot_path = 0;
	}
	if (o->veneer_size >= 0)
		o->cost.veneer_bytes = o->veneer_size;
	else if (o->cost.veneer_bytes >= 0)
		o->veneer_size = o->cost.veneer_bytes;
	if (ov->flash_wait_states >= 0) {
		o->cost.flash_fetch_cycles = 1.0 + ov->flash_wait_states;
		o->have_cost = 1;
	}
	if (make_regions(p, cfg, ov, regions, nregions, err))
		return err->code;
	if (cfg || (*regions)[0].budget_auto) {
		o->regions = *regions;
		o->nregions = *nregions;
	}
	return 0;
}

int rp_pipeline_name_outputs(const char *output, int output_given, const char *plan_path, const rp_region_cfg *regions,
			     size_t nregions, char ***fragments, char ***plans, rp_err *err)
{
	*fragments = calloc(nregions ? nregions : 1, sizeof(char *));
	*plans = calloc(nregions ? nregions : 1, sizeof(char *));
	if (!*fragments || !*plans)
		return rp_err_nomem(err, "naming the fragments");
	const char *slash = strrchr(output, '/');
	int dirlen = slash ? (int)(slash - output + 1) : 0;
	for (size_t r = 0; r < nregions; r++) {
		const rp_region_cfg *rg = &regions[r];
		char buf[4096];
		if (r == 0 && (output_given || !rg->fragment))
			snprintf(buf, sizeof(buf), "%s", output);
		else if (rg->fragment)
			snprintf(buf, sizeof(buf), "%.*s%s", dirlen, output, rg->fragment);
		else
			snprintf(buf, sizeof(buf), "%.*s%s.ld", dirlen, output, rg->outsec[0] == '.' ? rg->outsec + 1 : rg->outsec);
		if (rp_strdup(&(*fragments)[r], buf, err))
			return err->code;
		if (r == 0 && plan_path)
			snprintf(buf, sizeof(buf), "%s", plan_path);
		else
			snprintf(buf, sizeof(buf), "%s.plan", (*fragments)[r]);
		if (rp_strdup(&(*plans)[r], buf, err))
			return err->code;
	}
	return 0;
}
