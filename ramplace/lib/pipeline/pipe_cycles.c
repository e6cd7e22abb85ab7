/* pipe_cycles.c: a placement in cycles (pipeline.h). A flash model given as an option or by
 * cost.model, or stall cycles in the profile (the QEMU plugin's model=), make the solver
 * maximise stall cycles saved; without either it places by samples and the default model
 * (cycles.h) only prices the result. Either way the result names the model and gives the
 * modeled cycles of the profiled workload before and after (rp_pipe_figures), which every
 * presenter shows. Owns the profile's costs and the weights for the length of one placement.
 * Workload: once per placement, over the profile's functions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline_internal.h"
#include "ramplace/util.h"

/* "SPEC@LO-HI" or "SPEC@MEMORY" into the next option entry. */
static int ranged_option(rp_pipe_cycles *pc, const char *spec, const char *at, rp_err *err)
{
	char model[160], why[200];
	if (pc->nopt_flash >= RP_FM_MAX_RANGES)
		return rp_err_set(err, RP_EUSAGE, "--flash-model: at most %d ranged models", RP_FM_MAX_RANGES);
	if ((size_t)(at - spec) >= sizeof(model) || !at[1])
		return rp_err_set(err, RP_EUSAGE, "--flash-model '%s': expected SPEC@LO-HI or SPEC@MEMORY", spec);
	snprintf(model, sizeof(model), "%.*s", (int)(at - spec), spec);
	rp_flash_cfg *f = &pc->opt_flash[pc->nopt_flash];
	memset(f, 0, sizeof(*f));
	if (rp_fm_parse(&f->model, model, why, sizeof(why)) != 0)
		return rp_err_set(err, RP_EUSAGE, "--flash-model: %s", why);
	const char *dash = strchr(at + 1, '-');
	if (at[1] >= '0' && at[1] <= '9' && dash) {
		char lo[64];
		rp_err e = RP_ERR_INIT;
		snprintf(lo, sizeof(lo), "%.*s", (int)(dash - at - 1), at + 1);
		if (rp_parse_size(&f->lo, lo, "--flash-model range", &e) || rp_parse_size(&f->hi, dash + 1, "--flash-model range", &e))
			return rp_err_set(err, RP_EUSAGE, "--flash-model '%s': %s", spec, e.msg);
		if (f->lo >= f->hi)
			return rp_err_set(err, RP_EUSAGE, "--flash-model '%s': the start must be below the end", spec);
	} else if (rp_strdup(&f->memory, at + 1, err)) {
		return err->code;
	}
	pc->nopt_flash++;
	if (rp_strdup(&f->where, spec, err))
		return err->code;
	pc->model = pc->opt_flash[0].model;
	return 0;
}

int rp_pipe_cycles_option(rp_pipe_cycles *pc, const char *spec, rp_err *err)
{
	char why[200];
	const char *at = strchr(spec, '@');
	if (pc->option_given && !at != !pc->nopt_flash)
		return rp_err_set(err, RP_EUSAGE, "--flash-model '%s': give one model, or each with its range "
				  "(SPEC@LO-HI or SPEC@MEMORY), not both", spec);
	if (at) {
		if (ranged_option(pc, spec, at, err))
			return err->code;
	} else if (rp_fm_parse(&pc->model, spec, why, sizeof(why)) != 0) {
		return rp_err_set(err, RP_EUSAGE, "--flash-model: %s", why);
	}
	pc->have_model = pc->option_given = 1;
	return 0;
}

void rp_pipe_cycles_config(rp_pipe_cycles *pc, const rp_cost_model *cost)
{
	if (!pc->option_given && cost->have_model) {
		pc->model = cost->model;
		pc->have_model = 1;
	} else if (!pc->option_given && cost->nflash) {
		pc->cfg_flash = cost->flash;
		pc->ncfg_flash = cost->nflash;
		pc->model = cost->flash[0].model;
		pc->have_model = 1;
	}
}

/* The entries (options or config) into pc->models, MEMORY names looked up in the map. */
static int resolve_models(rp_pipe_cycles *pc, rp_err *err)
{
	int opt = pc->nopt_flash > 0;
	const rp_flash_cfg *f = opt ? pc->opt_flash : pc->cfg_flash;
	size_t n = opt ? pc->nopt_flash : pc->ncfg_flash;
	int code = opt ? RP_EUSAGE : RP_EINPUT;
	const char *pre = opt ? "--flash-model '" : "", *post = opt ? "'" : "";
	char why[200];
	memset(&pc->models, 0, sizeof(pc->models));
	if (!n)
		return rp_fm_map_add(&pc->models, &pc->model, 0, 0, why, sizeof(why));   /* one, everywhere: cannot fail */
	for (size_t i = 0; i < n; i++) {
		uint64_t lo = f[i].lo, hi = f[i].hi;
		if (f[i].memory) {
			const rp_map_region *r = pc->map ? rp_map_region_find(pc->map, f[i].memory, 0) : NULL;
			if (!pc->map)
				return rp_err_set(err, code, "%s%s%s: memory '%s' needs the link map (--map)", pre, f[i].where, post,
						  f[i].memory);
			if (!r || strcmp(r->name, "*default*") == 0 || !r->length)
				return rp_err_set(err, code, "%s%s%s: memory '%s' is not a MEMORY region of %s", pre, f[i].where,
						  post, f[i].memory, pc->map->path);
			lo = r->origin;   /* the map parser checked that the region does not wrap (rp_check_region) */
			hi = r->origin + r->length;
			if (!hi)
				hi = UINT64_MAX;   /* a region ending at the top of the address space */
		}
		if (rp_fm_map_add(&pc->models, &f[i].model, lo, hi, why, sizeof(why)) != 0)
			return rp_err_set(err, code, "%s%s%s: %s", pre, f[i].where, post, why);
	}
	return 0;
}

int pipe_cycles_load(rp_pipe_cycles *pc, rp_db *db, int64_t run, rp_place_opts *opts, rp_err *err)
{
	int rc = rp_db_costs_load_run(db, run, &pc->costs, err);   /* the runs the totals are of */
	if (rc)
		return rc;
	/* the old keys (flash-wait-states, cycles-per-flash-fetch) keep their per-sample objective
	 * unless a model is named */
	pc->weigh_cycles = pc->have_model || (pc->costs.nruns && !opts->have_cost && strcmp(pc->costs.model, "mixed") != 0);
	if (pc->weigh_cycles) {
		opts->have_cost = 1;
		opts->cost.flash_fetch_cycles = 2.0;   /* region gain 2 - 1/speed: one cycle per weight at speed 1 */
	}
	return 0;
}

/* The model that prices the result: the one given, else the old keys' wait states, else the
 * default (cycles.h picks the profile's own model when it has stall cycles). */
static const rp_fm_cfg *pricing_model(const rp_pipe_cycles *pc, const rp_place_opts *opts, rp_fm_cfg *buf)
{
	if (pc->have_model)
		return &pc->model;
	if (pc->weigh_cycles)
		return NULL;   /* the profile's own model (cycles.c) */
	double ws = opts->cost.flash_fetch_cycles - 1.0;
	char spec[32], why[100];
	if (opts->have_cost && ws >= 0 && ws == (double)(unsigned)ws) {
		snprintf(spec, sizeof(spec), "ws:%u,prefetch=0", (unsigned)ws);
		if (rp_fm_parse(buf, spec, why, sizeof(why)) == 0)
			return buf;
	}
	return NULL;
}

int pipe_cycles_totals(rp_pipe_cycles *pc, const rp_image *img, const rp_db_totals *samples,
			const rp_db_totals **out, rp_err *err)
{
	*out = samples;
	int rc = pc->have_model ? resolve_models(pc, err) : 0;
	if (!rc) {
		rc = rp_cycles_prepare(&pc->cy, pc->have_model ? &pc->models : NULL, samples, &pc->costs, img, err);
		pc->prepared = 1;   /* rp_cycles_release frees what a failed prepare left */
	}
	if (rc)
		return rc;
	if (pc->weigh_cycles)
		*out = &pc->cy.weights;
	return 0;
}

/* "5 wait states" or, a model per range, "5 wait states at 0-92c; an RP2040 XIP cache ... at 92c-400000". */
static void describe_models(const rp_fm_map *m, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < m->n && at < len; i++) {
		char one[160];
		rp_fm_describe(&m->r[i].cfg, one, sizeof(one));
		int n = m->r[i].hi ? snprintf(buf + at, len - at, "%s%s at %llx-%llx", i ? "; " : "", one,
					      (unsigned long long)m->r[i].lo, (unsigned long long)m->r[i].hi)
				   : snprintf(buf + at, len - at, "%s", one);
		at += n > 0 ? (size_t)n : 0;
	}
}

static int any_cache(const rp_fm_map *m)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->r[i].cfg.kind == RP_FM_CACHE)
			return 1;
	return 0;
}

void pipe_cycles_figures(const rp_pipe_cycles *pc, const rp_placement *p, const rp_place_opts *opts,
			 rp_pipe_figures *f)
{
	memset(f, 0, sizeof(*f));
	if (!pc->prepared)
		return;
	const rp_cycles *cy = &pc->cy;
	rp_fm_cfg buf;
	const rp_fm_cfg *m = pricing_model(pc, opts, &buf);
	if (!m)
		m = &cy->model;
	double before = rp_cycles_before(cy), saved;
	if (pc->weigh_cycles) {
		saved = p->cycles_saved + pc->data_saved;   /* code and data in one currency */
		before += pc->data_stall;
		/* the weights credit a conflict miss to its victim and to its evictor: moving both
		 * saves it once, so no plan saves more than the stall cycles there are */
		if (saved > before - cy->insns)
			saved = before - cy->insns;
	} else {
		uint64_t moved = 0;
		for (size_t r = 0; r < p->nplans; r++)
			moved += p->plans[r]->moved_samples;
		saved = (double)moved * rp_fm_fetch_estimate(m);
		before = cy->insns * (1.0 + rp_fm_fetch_estimate(m));
	}
	f->have = 1;
	f->before = before;
	f->after = before - saved;
	snprintf(f->name, sizeof(f->name), "%s", m->name);
	if (pc->weigh_cycles) {   /* every model with its range */
		describe_models(&cy->models, f->what, sizeof(f->what));
		snprintf(f->name, sizeof(f->name), "%s", cy->model_name);
	} else {
		rp_fm_describe(m, f->what, sizeof(f->what));
	}
	f->qualifier = pc->have_model ? "" : pc->weigh_cycles ? ", the profile's" : opts->have_cost ? "" : ", default";
	f->basis = pc->weigh_cycles && cy->measured ? "stall cycles measured by the QEMU plugin under this model"
		   : cy->measured || !pc->weigh_cycles ? "estimated: one flash fetch per sample, placed by samples"
						       : cy->estimated_why;
	f->cache_note = pc->weigh_cycles && any_cache(&cy->models) && cy->nnot_worth;
	f->nnot_worth = pc->weigh_cycles ? cy->nnot_worth : 0;
	f->not_worth_share = cy->insns > 0 ? 100.0 * (double)cy->not_worth_insns / cy->insns : 0.0;
}

void pipe_cycles_release(rp_pipe_cycles *pc)
{
	for (size_t i = 0; i < pc->nopt_flash; i++) {
		free(pc->opt_flash[i].memory);
		free(pc->opt_flash[i].where);
	}
	pc->nopt_flash = 0;
	rp_db_costs_release(&pc->costs);
	if (pc->prepared)
		rp_cycles_release(&pc->cy);
	pc->prepared = 0;
}
