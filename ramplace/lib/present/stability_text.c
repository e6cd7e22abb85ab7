/* stability_text.c: the profile-stability text of place, import, record and report
 * (stability_text.h) over solve/stability.c. Owns nothing beyond one call: each function builds
 * the items of the profile on the image, resamples, prints and releases. Units are sized and
 * cut as `place` does by default (RP_PLACE_OPTS_INIT). Workload: one profile, up to five
 * budgets; each verdict is a fraction of a second (stability.h bounds the work). */
#include <stdlib.h>
#include <string.h>

#include "ramplace/placement.h"
#include "ramplace/stability.h"
#include "ramplace/stability_text.h"

const uint64_t rp_stab_text_budgets[RP_STAB_TEXT_NBUDGETS] = { 1024, 2048, 4096, 8192, 16384 };

/* The items of t on img, sized and cut as `place` does by default. */
static int items_build(rp_stab_items *it, const rp_image *img, const rp_db_totals *t, rp_err *err)
{
	static const rp_place_opts dflt = RP_PLACE_OPTS_INIT;
	return rp_stab_items_build(it, img, t, dflt.align, dflt.min_share, err);
}

rp_stab_basis rp_stab_text_basis(const rp_db_totals *t)
{
	rp_stab_basis b = { t->rate_hz > 0 ? t->taken_seconds : 0.0, t->nruns, t->whole_runs };
	return b;
}

static uint64_t all_bytes(const rp_stab_items *it)
{
	uint64_t b = 0;
	for (size_t i = 0; i < it->n; i++)
		b += it->items[i].weight;
	return b;
}

int rp_stab_text_verdict(char *buf, size_t cap, const rp_image *img, const rp_db_totals *t, uint64_t budget,
			  rp_err *err)
{
	rp_stab_items it = { 0 };
	rp_stability s = { 0 };
	rp_stab_basis basis = rp_stab_text_basis(t);
	int rc = items_build(&it, img, t, err);
	if (!rc && !(rc = rp_stability_run(&s, it.items, it.n, it.rest, budget, NULL, err)))
		rp_stability_verdict(buf, cap, &s, &basis);
	rp_stab_items_release(&it);
	rp_stability_release(&s);
	return rc;
}

/* Stable up to the first budget that is not (the larger ones need even more), or up to the one
 * that holds every sampled function. */
static int summary(FILE *out, const rp_stab_items *it, const rp_stab_basis *basis, rp_err *err)
{
	char line[768], stable_at[128] = "";
	uint64_t all = all_bytes(it);
	for (size_t b = 0; b < RP_STAB_TEXT_NBUDGETS; b++) {
		rp_stability s;
		int rc = rp_stability_run(&s, it->items, it->n, it->rest, rp_stab_text_budgets[b], NULL, err);
		if (rc) {
			rp_stability_release(&s);
			return rc;
		}
		rp_stability_verdict(line, sizeof(line), &s, basis);
		int stable = s.stable, last = b + 1 == RP_STAB_TEXT_NBUDGETS || rp_stab_text_budgets[b] >= all;
		rp_stability_release(&s);
		if (!stable || last) {
			fprintf(out, "stability: %s%s%s%s\n", line, stable_at[0] ? " (stable at " : "", stable_at,
				stable_at[0] ? " KiB)" : "");
			return 0;
		}
		size_t len = strlen(stable_at);
		snprintf(stable_at + len, sizeof(stable_at) - len, "%s%llu", len ? ", " : "",
			 (unsigned long long)(rp_stab_text_budgets[b] / 1024));
	}
	return 0;
}

int rp_stab_text_after_store(FILE *out, const char *db_path, const rp_image *img, rp_err *err)
{
	rp_db *db = NULL;
	rp_db_totals t;
	rp_stab_items it;
	int rc = rp_db_open_existing(&db, db_path, err);
	if (!rc && !(rc = rp_db_totals_load(db, &t, err))) {
		if (!(rc = items_build(&it, img, &t, err))) {
			rp_stab_basis basis = rp_stab_text_basis(&t);
			rc = summary(out, &it, &basis, err);
			rp_stab_items_release(&it);
		}
		rp_db_totals_release(&t);
	}
	rp_db_close(db);
	fflush(out);
	return rc;
}

static void print_levels(FILE *out, const rp_stability *s)
{
	fprintf(out, "%8s %12s %10s %9s %8s  %s\n", "scale", "samples", "resamples", "same set", "jaccard",
		"value kept: 5th pct, median");
	for (size_t k = 0; k < s->nlevels; k++) {
		const rp_stab_level *l = &s->levels[k];
		fprintf(out, "%7.2fx %12.0f %10u %8.1f%% %8.3f  %6.2f%% %6.2f%%%s\n", l->scale, l->scale * (double)s->samples,
			l->resamples, 100.0 * l->same, l->jaccard, 100.0 * l->value_p05, 100.0 * l->value_median,
			l->stable ? "  stable" : "");
	}
}

/* Functions whose choice depends on the sample: chosen in some resamples but not all. */
static void print_uncertain(FILE *out, const rp_stab_items *it, const rp_stability *s, long limit)
{
	size_t shown = 0, n = 0;
	for (size_t i = 0; i < it->n; i++)
		n += s->inclusion[i] > 0.0 && s->inclusion[i] < 1.0;
	fprintf(out, "\n%zu function(s) chosen in some resamples but not all%s\n", n, n ? " (choice: in the choice from\n"
		"the profile itself)" : "");
	if (!n)
		return;
	fprintf(out, "%9s %6s %10s %7s  %s\n", "chosen in", "choice", "samples", "bytes", "function");
	for (size_t i = 0; i < it->n && (limit < 0 || (long)shown < limit); i++) {
		if (!(s->inclusion[i] > 0.0 && s->inclusion[i] < 1.0))
			continue;
		fprintf(out, "%8.1f%% %6s %10llu %7llu  %s\n", 100.0 * s->inclusion[i], s->chosen[i] ? "yes" : "no",
			(unsigned long long)it->items[i].count, (unsigned long long)it->items[i].weight, it->items[i].name);
		shown++;
	}
}

static int detail(FILE *out, const rp_stab_items *it, const rp_stab_basis *basis, uint64_t budget, long limit,
		  rp_err *err)
{
	rp_stab_opts o = RP_STAB_OPTS_INIT;
	rp_stability s;
	char line[768];
	o.fractions = 1;
	int rc = rp_stability_run(&s, it->items, it->n, it->rest, budget, &o, err);
	if (!rc) {
		uint64_t bytes = 0;
		for (size_t i = 0; i < it->n; i++)
			bytes += s.chosen[i] ? it->items[i].weight : 0;
		fprintf(out, "\nstability at %llu bytes: %llu samples%s, %zu sampled function(s); the choice from them: "
			"%zu function(s), %llu bytes, %.1f%% of the samples (90%% of resamples: %.1f-%.1f%%)\n",
			(unsigned long long)budget, (unsigned long long)s.samples, basis->seconds > 0 ? " (rate known)" : "", it->n,
			s.nchosen, (unsigned long long)bytes, s.samples ? 100.0 * (double)s.value / (double)s.samples : 0.0,
			100.0 * s.share_lo, 100.0 * s.share_hi);
		print_levels(out, &s);
		print_uncertain(out, it, &s, limit);
		rp_stability_verdict(line, sizeof(line), &s, basis);
		fprintf(out, "stability: %s\n", line);
	}
	rp_stability_release(&s);
	return rc;
}

int rp_stab_text_report(FILE *out, const rp_image *img, const rp_db_totals *t, uint64_t budget, long limit,
			 rp_err *err)
{
	rp_stab_items it;
	int rc = items_build(&it, img, t, err);
	if (rc)
		return rc;
	rp_stab_basis basis = rp_stab_text_basis(t);
	if (budget)
		rc = detail(out, &it, &basis, budget, limit, err);
	for (size_t b = 0; !budget && !rc && b < RP_STAB_TEXT_NBUDGETS; b++) {
		rp_stability s;
		char line[768];
		if (!(rc = rp_stability_run(&s, it.items, it.n, it.rest, rp_stab_text_budgets[b], NULL, err))) {
			rp_stability_verdict(line, sizeof(line), &s, &basis);
			fprintf(out, "stability: %s\n", line);
		}
		rp_stability_release(&s);
	}
	rp_stab_items_release(&it);
	return rc;
}
