/* check_profile.c: after a relink, what the move achieved in cycles (present.h:
 * rp_present_check_profile, `check --profile`). Reads
 * the flash-model costs of two profiles (the one the plan was made from, and the relinked
 * firmware's own exact counts under the same model) and the plans; owns them for one call.
 * The prediction is the one place printed, as the plan records it ("modeled"); for a plan that
 * records none, the first-order one: every planned function's stall cycles gone. */
#include <stdio.h>
#include <string.h>

#include "ramplace/plan.h"
#include "ramplace/present.h"
#include "ramplace/profiledb.h"
#include "ramplace/report.h"

static int load(const char *path, rp_db_costs *c, rp_err *err)
{
	int rc = rp_report_costs_load(c, path, 0, err);
	if (!rc && !c->nruns) {
		rp_db_costs_release(c);
		return rp_err_set(err, RP_EINPUT, "%s: no flash-model stall cycles: import the firmware's QEMU plugin counts "
				  "taken with model=SPEC,flash=LO-HI (docs/cost-models.md)", path);
	}
	return rc;
}

static double cycles(const rp_db_costs *c)
{
	return (double)c->insns + (double)c->fetch_stall + (double)c->read_stall;
}

static uint64_t stall_of(const rp_db_costs *c, const char *name, const char *file)
{
	for (size_t i = 0; i < c->nfuncs; i++)
		if (strcmp(c->funcs[i].name, name) == 0 && (!file == !c->funcs[i].file) && (!file || strcmp(file, c->funcs[i].file) == 0))
			return c->funcs[i].stall;
	return 0;
}

/* What place predicted under the profiles' model, as the plan records it ("modeled"). */
typedef struct recorded {
	int have;
	double before, after;
} recorded;

/* Stall cycles of the baseline that the plans' functions (code plans only) took, for a plan that
 * records no prediction (an older plan); and the prediction a plan records under model. */
static int planned_stall(const rp_db_costs *base, const char *model, const char *const *plans, size_t nplans, double *out,
			 recorded *rec, rp_err *err)
{
	*out = 0;
	for (size_t p = 0; p < nplans; p++) {
		rp_plan *plan = NULL;
		int rc = rp_plan_read(&plan, plans[p], err);
		if (rc)
			return rc;
		if (!rec->have && plan->modeled_model && strcmp(plan->modeled_model, model) == 0 && plan->modeled_after)
			*rec = (recorded){ 1, (double)plan->modeled_before, (double)plan->modeled_after };
		for (size_t u = 0; !plan->is_data && u < plan->nunits; u++)
			for (size_t f = 0; f < plan->units[u].nfuncs; f++)
				*out += (double)stall_of(base, plan->units[u].funcs[f].name, plan->units[u].funcs[f].file);
		rp_plan_free(plan);
	}
	return 0;
}

int rp_present_check_profile(FILE *out, const char *new_db, const char *baseline_db, const char *const *plans, size_t nplans,
			     rp_err *err)
{
	rp_db_costs now, base;
	int rc = load(new_db, &now, err);
	if (rc)
		return rc;
	double after = cycles(&now);
	if (!baseline_db) {
		fprintf(out, "profile: under %s the relinked firmware takes %.0f modeled cycles (%llu instructions, %.1f%% of the "
		       "cycles waiting on flash); --baseline PROFILE.db compares them with the plan's\n", now.model, after,
		       (unsigned long long)now.insns, after > 0 ? 100.0 * (after - (double)now.insns) / after : 0.0);
		rp_db_costs_release(&now);
		return 0;
	}
	double planned = 0;
	recorded rec = { 0, 0, 0 };
	if (!(rc = load(baseline_db, &base, err))) {
		if (strcmp(base.model, now.model) != 0)
			rc = rp_err_set(err, RP_EINPUT, "%s: flash model %s, but %s has %s: compare profiles taken under one model",
					new_db, now.model, baseline_db, base.model);
		if (!rc)
			rc = planned_stall(&base, now.model, plans, nplans, &planned, &rec, err);
		if (!rc) {
			/* the plan's own figures when it records them: the numbers place printed */
			double before = cycles(&base), predicted = rec.have ? rec.after : before - planned;
			double predicted_x = rec.have ? rec.before / rec.after : predicted > 0 ? before / predicted : 0.0;
			fprintf(out, "profile: under %s the move took the workload from %.0f to %.0f modeled cycles, %.2fx fewer; the plan "
			       "predicted %.0f, %.2fx fewer (measured/predicted speed-up %.3f)\n", now.model, before, after,
			       after > 0 ? before / after : 0.0, predicted, predicted_x,
			       after > 0 && predicted_x > 0 ? (before / after) / predicted_x : 0.0);
		}
		rp_db_costs_release(&base);
	}
	rp_db_costs_release(&now);
	return rc;
}
