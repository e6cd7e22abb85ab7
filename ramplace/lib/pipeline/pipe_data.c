/* pipe_data.c: read-only data in a placement (pipeline.h, `place --data`): hot read-only data
 * objects placed beside the functions in the same RAM budget, written as ramdata.ld (INCLUDEd in
 * a .ramdata output section) and ramdata.ld.plan beside the first code fragment.
 *
 * Owns the data objects, their weights and the data plan of one run. The weights are the flash
 * reads per data object that profile.db holds when its runs had a flash model (the QEMU
 * plugin's model=, rp_db_costs_load); without them, the literal-pool proxy
 * (rp_data_proxy_weights). Placing in cycles, either becomes stall cycles under the code's model
 * (rp_data_cycle_weights), so code and data share one currency. The report says which. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/ldgen/ldgen.h"
#include "pipeline_internal.h"
#include "ramplace/profiledb.h"
#include "ramplace/util.h"

int rp_pipe_data_pin(rp_pipe_data *a, const char *glob, rp_err *err)
{
	const char **bigger = realloc(a->pin, (a->npin + 1) * sizeof(char *));
	if (!bigger)
		return rp_err_nomem(err, "reading options");
	a->pin = bigger;
	a->pin[a->npin++] = glob;
	return 0;
}

int rp_pipe_data_config(rp_pipe_data *a, const rp_config *cfg, rp_err *err)
{
	for (size_t i = 0; i < cfg->npin_data; i++)
		if (rp_pipe_data_pin(a, cfg->pin_data[i], err))
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
static int name_outputs(rp_pipe_data *a, const char *first, rp_err *err)
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
static int profile_weights(rp_pipe_data *a, const char *db_path, size_t *n, rp_err *err)
{
	rp_db *db = NULL;
	rp_db_costs costs;
	*n = 0;
	if (!db_path)
		return 0;
	int rc = rp_db_open_existing(&db, db_path, err);
	if (!rc)
		rc = rp_db_costs_load_run(db, a->run, &costs, err);
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
static int weigh_in_cycles(rp_pipe_data *a)
{
	rp_pipe_cycles *pc = a->cycles;
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

int pipe_data_place(rp_pipe_data *a, const char *first_fragment, const rp_image *img, const rp_map *map,
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

int pipe_data_write(const rp_pipe_data *a, rp_err *err)
{
	if (!a->enabled || !a->placed.plan)
		return 0;
	if (rp_ldgen_gnu_write(a->placed.plan, a->fragment, err) || rp_plan_write(a->placed.plan, a->plan, err))
		return err->code;
	return 0;
}

int pipe_data_write_empty(rp_pipe_data *a, const char *first_fragment, rp_err *err)
{
	if (!a->enabled)
		return 0;
	rp_plan empty = { .outsec = ".ramdata", .is_data = 1 };
	if (name_outputs(a, first_fragment, err) || rp_ldgen_gnu_write(&empty, a->fragment, err) ||
	    rp_plan_write(&empty, a->plan, err))
		return err->code;
	return 0;
}

void pipe_data_release(rp_pipe_data *a)
{
	free(a->pin);
	free(a->fragment);
	free(a->plan);
	free(a->weights);
	rp_dataobjs_release(&a->objs);
	rp_data_placement_release(&a->placed);
	memset(a, 0, sizeof(*a));
}
