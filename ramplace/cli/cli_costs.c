/* cli_costs.c: `ramplace report`'s flash-model section: what the model the plugin ran charged
 * (docs/cost-models.md), stall cycles beside instruction counts, so a user sees which code
 * misses the cache or waits on flash, not only which code runs most. Reads profile.db through
 * its own read-only connection; owns nothing after it returns. */
#include <string.h>

#include "cli_costs.h"

static uint64_t insns_of(const rp_db_totals *t, const char *name, const char *file)
{
	for (size_t i = 0; i < t->nfuncs; i++)
		if (strcmp(t->funcs[i].func, name) == 0 && (!file == !t->funcs[i].file) &&
		    (!file || strcmp(file, t->funcs[i].file) == 0))
			return t->funcs[i].count;
	return 0;
}

static void print_rows(FILE *out, const rp_db_costs *c, const rp_db_totals *t, long limit)
{
	size_t n = limit < 0 || (size_t)limit > c->nfuncs ? c->nfuncs : (size_t)limit;
	if (n)
		fprintf(out, "%14s %14s %9s  %s\n", "stall cycles", "instructions", "per insn", "function");
	for (size_t i = 0; i < n; i++) {
		const rp_cost_total *f = &c->funcs[i];
		uint64_t insns = insns_of(t, f->name, f->file);
		fprintf(out, "%14llu %14llu %9.2f  %s%s%s%s\n", (unsigned long long)f->stall, (unsigned long long)insns,
			insns ? (double)f->stall / (double)insns : 0.0, f->name, f->file ? " (" : "", f->file ? f->file : "",
			f->file ? ")" : "");
	}
	n = limit < 0 || (size_t)limit > c->ndata ? c->ndata : (size_t)limit;
	if (n)
		fprintf(out, "\n%14s %14s  %s\n", "stall cycles", "reads", "data object read from flash");
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%14llu %14llu  %s\n", (unsigned long long)c->data[i].stall, (unsigned long long)c->data[i].reads,
			c->data[i].name);
}

int cli_costs_print(FILE *out, const char *db_path, const rp_db_totals *t, long limit, rp_err *err)
{
	rp_db *db;
	rp_db_costs c;
	int rc = rp_db_open_existing(&db, db_path, err);
	if (!rc)
		rc = rp_db_costs_load(db, &c, err);
	rp_db_close(db);
	if (rc || !c.nruns) {
		if (!rc)
			rp_db_costs_release(&c);
		return rc;
	}
	uint64_t stall = c.fetch_stall + c.read_stall;
	fprintf(out, "\nFlash stall cycles (%s): %llu (%llu by code, its fetches and literal-pool reads; %llu on data reads; %llu misses) over %llu "
		     "instructions: %llu modeled cycles, %.1f%% of them waiting on flash\n",
		c.model, (unsigned long long)stall, (unsigned long long)c.fetch_stall, (unsigned long long)c.read_stall,
		(unsigned long long)c.misses, (unsigned long long)c.insns, (unsigned long long)(c.insns + stall),
		c.insns + stall ? 100.0 * (double)stall / (double)(c.insns + stall) : 0.0);
	if (c.nruns < t->nruns)
		fprintf(out, "(%zu of %zu runs ran under a flash model; the instruction counts below are of all runs)\n", c.nruns,
			t->nruns);
	print_rows(out, &c, t, limit);
	rp_db_costs_release(&c);
	return 0;
}
