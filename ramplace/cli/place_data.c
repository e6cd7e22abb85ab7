/* place_data.c (CLI): `ramplace place --data`: hot read-only data objects placed beside the
 * functions in the same RAM budget, written as ramdata.ld (INCLUDEd in a .ramdata output
 * section) and ramdata.ld.plan beside the first code fragment; see place_data.h.
 *
 * Owns the data objects, their weights and the data plan of one run. The weights are the flash
 * reads per data object that profile.db holds when its runs had a flash model (the QEMU
 * plugin's model=, rp_db_costs_load); without them, the literal-pool proxy
 * (rp_data_proxy_weights). Placing in cycles, either becomes stall cycles under the code's model
 * (rp_data_cycle_weights), so code and data share one currency. The report says which. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldgen.h"
#include "place_data.h"
#include "ramplace/profiledb.h"
#include "ramplace/util.h"

static int push_pin(place_data_args *a, const char *glob, rp_err *err)
{
	const char **bigger = realloc(a->pin, (a->npin + 1) * sizeof(char *));
	if (!bigger)
		return rp_err_nomem(err, "reading options");
	a->pin = bigger;
	a->pin[a->npin++] = glob;
	return 0;
}

int place_data_option(place_data_args *a, int c, const char *arg, rp_err *err)
{
	switch (c) {
	case PLACE_OPT_DATA: a->enabled = a->option_given = 1; return 0;
	case PLACE_OPT_NO_DATA: a->enabled = 0; a->option_given = 1; return 0;
	case PLACE_OPT_PIN_DATA:
		a->enabled = a->option_given = 1;   /* pinning data asks for data placement */
		return push_pin(a, arg, err);
	default: return 1;
	}
}

int place_data_config(place_data_args *a, const rp_config *cfg, rp_err *err)
{
	for (size_t i = 0; i < cfg->npin_data; i++)
		if (push_pin(a, cfg->pin_data[i], err))
			return err->code;
	if (a->option_given)
		return 0;   /* --data, --no-data win over the file */
	if (cfg->data >= 0)
		a->enabled = cfg->data;   /* `data: off` wins over pin-data */
	else
		a->enabled = a->npin > 0;
	return 0;
}

/* "<dir of first>/ramdata.ld" and its plan. */
static int name_outputs(place_data_args *a, const char *first, rp_err *err)
{
	const char *slash = strrchr(first, '/');
	int dirlen = slash ? (int)(slash - first + 1) : 0;
	char buf[4096];
	snprintf(buf, sizeof(buf), "%.*sramdata.ld", dirlen, first);
	if (rp_strdup(&a->fragment, buf, err))
		return err->code;
	snprintf(buf, sizeof(buf), "%.*sramdata.ld.plan", dirlen, first);
	return rp_strdup(&a->plan, buf, err);
}

/* Reads per object from the profile's flash-model costs; *n gets how many objects got some (0:
 * the profile has none, use the proxy). Data costs are stored by name: statics match any file. */
static int profile_weights(place_data_args *a, const char *db_path, size_t *n, rp_err *err)
{
	rp_db *db = NULL;
	rp_db_costs costs;
	*n = 0;
	if (!db_path)
		return 0;
	int rc = rp_db_open_existing(&db, db_path, err);
	if (!rc)
		rc = rp_db_costs_load(db, &costs, err);
	rp_db_close(db);
	if (rc)
		return rc;
	for (size_t i = 0; i < costs.ndata; i++) {
		const rp_dataobj *o = rp_dataobjs_find(&a->objs, costs.data[i].name, costs.data[i].file);
		if (o && costs.data[i].reads) {
			a->weights[o - a->objs.objs] += (double)costs.data[i].reads;
			a->read_stall += costs.data[i].stall;
			(*n)++;
		}
	}
	if (*n)
		snprintf(a->weights_from, sizeof(a->weights_from), "flash reads per object from profile.db (model %s)",
			 costs.model);
	rp_db_costs_release(&costs);
	return 0;
}

/* Placing in cycles: the reads (or proxy) become stall cycles under the same model as the code,
 * or the plugin's measured stall cycles per object under it. Returns 0 (nothing to fail). */
static int weigh_in_cycles(place_data_args *a)
{
	place_cycles *pc = a->cycles;
	if (!pc || !pc->weigh_cycles || !pc->prepared)
		return 0;
	double stall = 0;
	int measured = pc->cy.measured && pc->costs.ndata;
	a->nweighted = rp_data_cycle_weights(a->weights, &stall, &pc->cy, &a->objs, &pc->costs);
	a->in_cycles = 1;
	if (!pc->cy.measured)
		pc->data_stall = stall;   /* a measured profile's stall cycles already hold its data reads */
	if (measured)
		snprintf(a->weights_from, sizeof(a->weights_from), "stall cycles per object measured under %.60s, less the copy",
			 pc->cy.model.name);
	else
		snprintf(a->weights_in, sizeof(a->weights_in), "stall cycles under %.40s, %.3g per read, less the copy; reads: ",
			 pc->cy.model.name, rp_data_read_estimate(&pc->cy.model));
	return 0;
}

int place_data_place(place_data_args *a, const char *first_fragment, const rp_image *img, const rp_map *map,
		     const rp_db_totals *totals, const rp_place_opts *opts, rp_placement *out, rp_err *err)
{
	if (!a->enabled)
		return rp_place(img, map, totals, opts, out, err);
	int rc = name_outputs(a, first_fragment, err);
	if (!rc)
		rc = rp_dataobjs_load(&a->objs, img, map, err);
	if (!rc && !(a->weights = calloc(a->objs.n ? a->objs.n : 1, sizeof(double))))
		rc = rp_err_nomem(err, "placing data");
	if (rc)
		return rc;
	rc = profile_weights(a, totals ? a->db_path : NULL, &a->nweighted, err);
	if (rc)
		return rc;
	if (!a->nweighted) {
		a->nweighted = rp_data_proxy_weights(a->weights, img, &a->objs, totals && a->samples ? a->samples : totals);
		snprintf(a->weights_from, sizeof(a->weights_from), "literal-pool proxy, the samples of the functions "
			 "that load each object's address (the profile has no flash reads per object)");
	}
	rp_data_opts dopts = RP_DATA_OPTS_INIT;
	if ((rc = weigh_in_cycles(a)))
		return rc;
	dopts.in_cycles = a->in_cycles;
	dopts.pin = a->pin;
	dopts.npin = a->npin;
	dopts.exclude = opts->exclude;
	dopts.nexclude = opts->nexclude;
	rc = rp_place_data(img, map, totals, opts, &a->objs, a->weights, &dopts, out, &a->placed, err);
	if (!rc && a->cycles && a->in_cycles)
		a->cycles->data_saved = a->placed.moved_weight;
	/* check finds the data plan through the code plan */
	if (!rc && out->nplans && a->placed.plan && (rc = rp_strdup(&out->plans[0]->data_plan, "ramdata.ld.plan", err)))
		rp_placement_release(out);
	return rc;
}

int place_data_write(const place_data_args *a, rp_err *err)
{
	if (!a->enabled || !a->placed.plan)
		return 0;
	if (rp_ldgen_gnu_write(a->placed.plan, a->fragment, err) || rp_plan_write(a->placed.plan, a->plan, err))
		return err->code;
	return 0;
}

int place_data_write_empty(place_data_args *a, const char *first_fragment, rp_err *err)
{
	if (!a->enabled)
		return 0;
	rp_plan empty = { .outsec = ".ramdata", .is_data = 1 };
	if (name_outputs(a, first_fragment, err) || rp_ldgen_gnu_write(&empty, a->fragment, err) ||
	    rp_plan_write(&empty, a->plan, err))
		return err->code;
	return 0;
}

void place_data_print(const place_data_args *a)
{
	const rp_data_placement *d = &a->placed;
	if (!a->enabled || !d->plan)
		return;
	const rp_plan *plan = d->plan;
	printf("moved %zu of %zu candidate data object(s) to %s: %llu bytes of the budget (weights: %s%s)\n",
	       plan->nunits, d->ncandidates, plan->outsec, (unsigned long long)plan->used, a->weights_in, a->weights_from);
	if (plan->nunits)
		printf("%10s %7s %7s  %s\n", a->in_cycles ? "cycles~" : "reads~", "share", "bytes", "data object");
	for (size_t i = 0; i < plan->nunits; i++) {
		const rp_plan_unit *u = &plan->units[i];
		printf("%10llu %6.2f%% %7llu  %s%s%s%s\n", (unsigned long long)u->samples,
		       d->total_weight > 0 ? 100.0 * (double)u->samples / d->total_weight : 0.0,
		       (unsigned long long)u->size, u->name, u->file ? " (" : "", u->file ? u->file : "",
		       u->file ? ")" : "");
	}
	for (size_t i = 0; i < d->nkept && i < 20; i++)
		printf("kept in flash (data): %s\n", d->kept[i]);
	if (d->nkept > 20)
		printf("kept in flash (data): %zu more\n", d->nkept - 20);
	if (a->in_cycles) {
		double saved = d->code_saved + d->moved_weight;
		printf("data share of the saved stall cycles: %.1f%% (%.0f data + %.0f code cycles, %zu placement(s) tried)\n",
		       saved > 0 ? 100.0 * d->moved_weight / saved : 0.0, d->moved_weight, d->code_saved, d->tries);
	} else {
		double moved = (double)d->code_samples + d->moved_weight;
		printf("data share of the moved flash accesses: %.1f%% (%.0f data reads~ + %llu code samples, %zu placement(s) tried)\n",
		       moved > 0 ? 100.0 * d->moved_weight / moved : 0.0, d->moved_weight,
		       (unsigned long long)d->code_samples, d->tries);
	}
	printf("wrote %s and %s\n", a->fragment, a->plan);
}

void place_data_release(place_data_args *a)
{
	free(a->pin);
	free(a->fragment);
	free(a->plan);
	free(a->weights);
	rp_dataobjs_release(&a->objs);
	rp_data_placement_release(&a->placed);
	memset(a, 0, sizeof(*a));
}
