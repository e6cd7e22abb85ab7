/* report_costs.c: `ramplace report`'s flash-model figures (report.h): what the model the plugin ran charged
 * (docs/cost-models.md), each function's stall cycles beside its instruction count in the flat
 * profile, the data objects read from flash, and the interrupt handlers' entry stalls (the
 * plugin's entry=; before and after a plan with --before), so a user sees which code misses the cache or
 * waits on flash, not only which code runs most. Reads profile.db through its own read-only
 * connection. Workload: one row per function of the profile (50,000 in a big firmware), matched
 * through a name index, not a scan per row. */
#include <stdlib.h>
#include <string.h>

#include "ramplace/report.h"
#include "ramplace/util.h"

int rp_report_costs_load(rp_db_costs *c, const char *db_path, int64_t run, rp_err *err)
{
	rp_db *db;
	int rc = rp_db_open_existing(&db, db_path, err);
	if (!rc)
		rc = rp_db_costs_load_run(db, run, c, err);
	rp_db_close(db);
	return rc;
}

int rp_report_stall_per_function(uint64_t **stall, const rp_db_costs *c, const rp_profile *p, rp_err *err)
{
	rp_name_index ix = { 0 };
	*stall = NULL;
	if (!c->nruns)
		return 0;
	uint64_t *per_fn = calloc(p->nfns ? p->nfns : 1, sizeof(uint64_t));
	if (!per_fn)
		return rp_err_nomem(err, "the stall cycles per function");
	int rc = rp_name_index_init(&ix, c->nfuncs, err);
	if (rc) {
		free(per_fn);
		return rc;
	}
	for (size_t i = 0; i < c->nfuncs; i++)
		ix.e[i] = (rp_name_entry){ .name = c->funcs[i].name, .sub = c->funcs[i].file, .index = i };
	rp_name_index_sort(&ix);
	for (size_t i = 0; i < p->nfns; i++) {
		const rp_name_entry *e = rp_name_index_find(&ix, p->fns[i].name, p->fns[i].file, 1);
		per_fn[i] = e ? c->funcs[e->index].stall : 0;
	}
	rp_name_index_release(&ix);
	*stall = per_fn;
	return 0;
}

void rp_report_costs(FILE *out, const rp_db_costs *c, size_t nruns, long limit)
{
	if (!c->nruns)
		return;
	uint64_t stall = c->fetch_stall + c->read_stall;
	fprintf(out, "\nFlash stall cycles (%s): %llu (%llu by code, its fetches and literal-pool reads; %llu on data reads; %llu misses) over %llu "
		     "instructions: %llu modeled cycles, %.1f%% of them waiting on flash; each function's are in the flat profile's \"flash stall\" column\n",
		c->model, (unsigned long long)stall, (unsigned long long)c->fetch_stall, (unsigned long long)c->read_stall,
		(unsigned long long)c->misses, (unsigned long long)c->insns, (unsigned long long)(c->insns + stall),
		c->insns + stall ? 100.0 * (double)stall / (double)(c->insns + stall) : 0.0);
	if (c->nruns < nruns)
		fprintf(out, "(%zu of %zu runs ran under a flash model; the instruction counts are of all runs)\n", c->nruns,
			nruns);
	size_t n = limit < 0 || (size_t)limit > c->ndata ? c->ndata : (size_t)limit;
	if (n)
		fprintf(out, "\n%14s %14s  %s\n", "stall cycles", "reads", "data object read from flash");
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%14llu %14llu  %s\n", (unsigned long long)c->data[i].stall, (unsigned long long)c->data[i].reads,
			c->data[i].name);
}

static double entry_mean(const rp_entry_total *e)
{
	return e->invocations ? (double)e->sum / (double)e->invocations : 0.0;
}

static const rp_entry_total *entry_find(const rp_db_costs *c, const rp_entry_total *e)
{
	for (size_t i = 0; c && i < c->nentries; i++)
		if (strcmp(c->entries[i].name, e->name) == 0 && c->entries[i].offset == e->offset &&
		    strcmp(c->entries[i].file ? c->entries[i].file : "", e->file ? e->file : "") == 0)
			return &c->entries[i];
	return NULL;
}

/* The worst whole invocation, "-" when none was seen to return. */
static void print_invocation(FILE *out, const rp_entry_total *e)
{
	if (e->returned)
		fprintf(out, "%12llu", (unsigned long long)e->inv_worst);
	else
		fprintf(out, "%12s", "-");
}

void rp_report_entries(FILE *out, const rp_db_costs *c, const rp_db_costs *before)
{
	if (!c->nentries)
		return;
	unsigned window = 0;
	for (size_t i = 0; i < c->nentries; i++)
		window = c->entries[i].window > window ? c->entries[i].window : window;
	fprintf(out, "\nInterrupt handler entries (%s): stall cycles in the first %u instructions of each invocation "
		     "(worst, mean) and in the worst whole invocation, entry to return (of those seen to return)\n",
		c->model, window);
	if (before)
		fprintf(out, "%12s %12s %12s %12s %12s %12s %12s %12s  %s\n", "invocations", "worst", "mean", "invocation",
			"before:", "worst", "mean", "invocation", "handler");
	else
		fprintf(out, "%12s %12s %12s %12s  %s\n", "invocations", "worst", "mean", "invocation", "handler");
	for (size_t i = 0; i < c->nentries; i++) {
		const rp_entry_total *e = &c->entries[i], *b = entry_find(before, e);
		fprintf(out, "%12llu %12llu %12.1f ", (unsigned long long)e->invocations, (unsigned long long)e->worst,
			entry_mean(e));
		print_invocation(out, e);
		if (before && b) {
			fprintf(out, " %12llu %12llu %12.1f ", (unsigned long long)b->invocations, (unsigned long long)b->worst,
				entry_mean(b));
			print_invocation(out, b);
		} else if (before) {
			fprintf(out, " %12s %12s %12s %12s", "-", "-", "-", "-");
		}
		fprintf(out, "  %s", e->name);
		if (e->offset)
			fprintf(out, "+0x%llx", (unsigned long long)e->offset);
		if (e->file)
			fprintf(out, " (%s)", e->file);
		fputc('\n', out);
	}
}

int rp_report_entries_before(FILE *out, const rp_db_costs *c, const char *before_spec, rp_err *err)
{
	if (!before_spec) {
		rp_report_entries(out, c, NULL);
		return 0;
	}
	rp_profile_spec old;
	int rc = rp_profile_spec_load(&old, before_spec, err);
	if (rc)
		return rc;
	rp_report_entries(out, c, &old.costs);
	rp_profile_spec_release(&old);
	return 0;
}
