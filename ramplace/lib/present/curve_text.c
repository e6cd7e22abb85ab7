/* curve_text.c: the budget curve for scripts and CI (present.h): as text (`report
 * --budget-curve`) and as the "budget_curve" member of the JSON export (docs/report-formats.md).
 * Same figures as the HTML curve. Owns nothing. */
#include <math.h>

#include "html.h"

static double share(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

/* ", \"modeled\": {...}": the cycles place printed and the plan records, or null. */
static void modeled_json(FILE *out, const rp_plan *plan)
{
	if (!plan || !plan->modeled_model || !plan->modeled_before) {
		fputs(", \"modeled\": null", out);
		return;
	}
	fputs(", \"modeled\": {\"model\": \"", out);
	for (const unsigned char *c = (const unsigned char *)plan->modeled_model; *c; c++)
		if (*c == '"' || *c == '\\' || *c < 0x20)
			fprintf(out, "\\u%04x", *c);
		else
			fputc(*c, out);
	double b = (double)plan->modeled_before, a = (double)plan->modeled_after;
	fprintf(out, "\", \"before\": %llu, \"after\": %llu, \"speedup\": %.17g}", (unsigned long long)plan->modeled_before,
		(unsigned long long)plan->modeled_after, a > 0 ? b / a : 0.0);
}

void rp_present_curve_text(FILE *out, const rp_curve *c, uint64_t total, uint64_t plan_budget,
			   double cycles_per_sample)
{
	char b[32];
	size_t knee = rp_curve_knee(c, 0.8), at = rp_curve_at(c, plan_budget);
	fprintf(out, "budget curve: %zu point(s), every %llu bytes up to %llu; exact knapsack at each\n", c->npoints,
		(unsigned long long)c->step, (unsigned long long)c->max_budget);
	if (c->npoints)
		fprintf(out, "knee: 80%% of the gain at %s (%llu bytes)\n", rp_present_bytes(c->points[knee].budget, b, sizeof(b)),
			(unsigned long long)c->points[knee].budget);
	fprintf(out, "%10s %10s %8s %10s%s\n", "budget", "samples", "share", "functions", cycles_per_sample > 0 ? "     cycles" : "");
	for (size_t k = 0; k < c->npoints; k++) {
		const rp_curve_point *p = &c->points[k];
		fprintf(out, "%10llu %10llu %7.2f%% %10zu", (unsigned long long)p->budget, (unsigned long long)p->value,
			share(p->value, total), p->nchosen);
		if (cycles_per_sample > 0)
			fprintf(out, " %10.0f", (double)p->value * cycles_per_sample);
		fputs(plan_budget && k == at ? "  <- budget\n" : "\n", out);
	}
}

void rp_present_curve_json(FILE *out, const void *arg)
{
	const rp_curve_json *j = arg;
	const rp_curve *c = j->curve;
	fprintf(out, "  \"budget_curve\": {\"step\": %llu, \"max_budget\": %llu, \"plan_budget\": %llu, \"plan_samples\": %llu, ",
		(unsigned long long)c->step, (unsigned long long)c->max_budget, (unsigned long long)j->plan_budget,
		(unsigned long long)j->plan_value);
	fprintf(out, "\"knee_80\": %llu, \"cycles_per_sample\": ", c->npoints ? (unsigned long long)c->points[rp_curve_knee(c, 0.8)].budget : 0ULL);
	if (isfinite(j->cycles_per_sample) && j->cycles_per_sample > 0)
		fprintf(out, "%.17g", j->cycles_per_sample);
	else
		fputs("null", out);
	modeled_json(out, j->plan);
	fputs(", \"points\": [", out);
	for (size_t k = 0; k < c->npoints; k++)
		fprintf(out, "%s\n    {\"budget\": %llu, \"samples\": %llu, \"share\": %.17g, \"bytes\": %llu, \"functions\": %zu}",
			k ? "," : "", (unsigned long long)c->points[k].budget, (unsigned long long)c->points[k].value,
			share(c->points[k].value, j->total), (unsigned long long)c->points[k].bytes, c->points[k].nchosen);
	fputs(c->npoints ? "\n  ]},\n" : "]},\n", out);
}
