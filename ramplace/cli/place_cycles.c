/* place_cycles.c: `ramplace place` in cycles (place_cycles.h). A flash model given by
 * --flash-model or cost.model, or stall cycles in the profile (the QEMU plugin's model=), make
 * the solver maximise stall cycles saved; without either it places by samples as before and
 * the default model (cycles.h) only prices the result. Either way the output names the model
 * and gives the modeled cycles of the profiled workload before and after. Owns the profile's
 * costs and the weights for the length of one place. */
#include <stdio.h>
#include <string.h>

#include "place_cycles.h"

int place_cycles_option(place_cycles *pc, const char *spec, rp_err *err)
{
	char why[200];
	if (rp_fm_parse(&pc->model, spec, why, sizeof(why)) != 0)
		return rp_err_set(err, RP_EUSAGE, "--flash-model: %s", why);
	pc->have_model = pc->option_given = 1;
	return 0;
}

void place_cycles_config(place_cycles *pc, const rp_cost_model *cost)
{
	if (!pc->option_given && cost->have_model) {
		pc->model = cost->model;
		pc->have_model = 1;
	}
}

int place_cycles_load(place_cycles *pc, rp_db *db, rp_place_opts *opts, rp_err *err)
{
	int rc = rp_db_costs_load(db, &pc->costs, err);
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
static const rp_fm_cfg *pricing_model(const place_cycles *pc, const rp_place_opts *opts, rp_fm_cfg *buf)
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

int place_cycles_totals(place_cycles *pc, const rp_image *img, const rp_db_totals *samples,
			const rp_db_totals **out, rp_err *err)
{
	*out = samples;
	int rc = rp_cycles_prepare(&pc->cy, pc->have_model ? &pc->model : NULL, samples, &pc->costs, img, err);
	if (rc)
		return rc;
	pc->prepared = 1;
	if (pc->weigh_cycles)
		*out = &pc->cy.weights;
	return 0;
}

static void print_notes(const place_cycles *pc)
{
	const rp_cycles *cy = &pc->cy;
	if (pc->weigh_cycles && cy->model.kind == RP_FM_CACHE && cy->nnot_worth)
		printf("cache model: %zu function(s) with %.1f%% of the instructions miss the cache too rarely to be worth "
		       "RAM (their stall cycles do not pay for their copy at boot): they stay in flash however hot\n",
		       cy->nnot_worth, cy->insns > 0 ? 100.0 * (double)cy->not_worth_insns / cy->insns : 0.0);
	else if (pc->weigh_cycles && cy->nnot_worth)
		printf("kept in flash: %zu function(s) whose stall cycles do not pay for their copy to RAM at boot\n",
		       cy->nnot_worth);
}

void place_cycles_print(const place_cycles *pc, const rp_placement *p, const rp_place_opts *opts)
{
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
	double after = before - saved;
	char what[160];
	rp_fm_describe(m, what, sizeof(what));
	printf("modeled cycles (%s%s): %.3g -> %.3g, %.2fx fewer; flash: %s; %s\n", m->name,
	       pc->have_model ? "" : pc->weigh_cycles ? ", the profile's" : opts->have_cost ? "" : ", default", before, after, after > 0 ? before / after : 0.0, what,
	       pc->weigh_cycles && cy->measured ? "stall cycles measured by the QEMU plugin under this model"
	       : cy->measured || !pc->weigh_cycles ? "estimated: one flash fetch per sample, placed by samples"
						  : cy->estimated_why);
	print_notes(pc);
}

void place_cycles_release(place_cycles *pc)
{
	rp_db_costs_release(&pc->costs);
	if (pc->prepared)
		rp_cycles_release(&pc->cy);
	pc->prepared = 0;
}
