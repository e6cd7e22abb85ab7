/* html_curve.c: the budget curve as inline SVG (present.h): the value the exact knapsack moves
 * at every budget step (curve.h), the plan's budget marked with the plan's own point, and the
 * knee named ("80 % of the gain at 6 KiB"). Every point carries data-budget and data-value, so
 * what is drawn can be read back (the browser test does). Owns nothing. Workload: a few
 * hundred points. */
#include <math.h>

#include "html.h"

#define W 760.0
#define H 300.0
#define ML 72.0   /* room for the y labels ("5.22 G", "100.0 %") and the axis title */
#define MB 40.0   /* room for the x labels */
#define MT 14.0
#define MR 36.0   /* half of the last x label ("32.1 KiB") past the axis end */

static double px(const rp_curve *c, uint64_t budget)
{
	return ML + (c->max_budget ? (double)budget / (double)c->max_budget : 0.0) * (W - ML - MR);
}

static double py(double y, double ymax)
{
	return H - MB - (ymax > 0 ? y / ymax : 0.0) * (H - MB - MT);
}

/* A round step for about four y ticks (1, 2, 2.5 or 5 times a power of ten), so the labels
 * read "1 G, 2 G, 3 G" rather than "1.3 G, 2.61 G". */
static double tick_step(double ymax)
{
	double raw = ymax / 4.0, mag = 1.0;
	while (mag * 10.0 <= raw)
		mag *= 10.0;
	while (mag > raw && mag > 1e-9)
		mag /= 10.0;
	static const double steps[] = { 1.0, 2.0, 2.5, 5.0, 10.0 };
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (steps[i] * mag >= raw)
			return steps[i] * mag;
	return 10.0 * mag;
}

static void axes(FILE *out, const rp_present_in *in, double ymax, double ystep)
{
	const rp_curve *c = in->curve;
	char b[32];
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n", ML, H - MB, W - MR, H - MB);
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n", ML, MT, ML, H - MB);
	for (int k = 0; k <= 4; k++) {
		uint64_t bud = c->max_budget / 4 * (uint64_t)k + (k == 4 ? c->max_budget % 4 : 0);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", px(c, bud), H - MB + 15,
			rp_present_bytes(bud, b, sizeof(b)));
	}
	for (int k = 0; k * ystep <= ymax * (1 + 1e-9); k++) {
		double y = k * ystep;
		fprintf(out, "<text class=\"ylabel\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" data-value=\"%.0f\">%s</text>\n",
			ML - 5, py(y, ymax) + 4, y, html_curve_label(in, y, b, sizeof(b)));
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n", ML + 1, py(y, ymax),
			W - MR, py(y, ymax));
	}
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">RAM budget</text>\n", (ML + W - MR) / 2, H - 6);
	fprintf(out, "<text x=\"12\" y=\"%.1f\" transform=\"rotate(-90 12 %.1f)\" text-anchor=\"middle\">%s</text>\n",
		(H - MB) / 2, (H - MB) / 2, in->cycles_per_sample > 0 ? "modeled cycles saved" : "samples moved to RAM");
}

static void points(FILE *out, const rp_present_in *in, double ymax)
{
	const rp_curve *c = in->curve;
	fputs("<polyline id=\"curve-line\" fill=\"none\" stroke=\"#2e6da4\" stroke-width=\"2\" points=\"", out);
	for (size_t k = 0; k < c->npoints; k++)
		fprintf(out, "%s%.1f,%.1f", k ? " " : "", px(c, c->points[k].budget),
			py(html_curve_y(in, c->points[k].value), ymax));
	fputs("\"/>\n<g id=\"curve-points\" fill=\"#2e6da4\">\n", out);
	for (size_t k = 0; k < c->npoints; k++) {
		const rp_curve_point *p = &c->points[k];
		fprintf(out, "<circle r=\"2\" cx=\"%.1f\" cy=\"%.1f\" data-budget=\"%llu\" data-value=\"%llu\"><title>%llu bytes: %.2f %s, %zu function(s)</title></circle>\n",
			px(c, p->budget), py(html_curve_y(in, p->value), ymax), (unsigned long long)p->budget,
			(unsigned long long)p->value, (unsigned long long)p->budget, html_curve_y(in, p->value),
			in->cycles_per_sample > 0 ? "cycles" : "% of samples", p->nchosen);
	}
	fputs("</g>\n", out);
}

/* The plan's budget as a vertical line, and the plan's own value there (the ILP may beat the
 * curve's knapsack, which counts every veneer). */
static void plan_mark(FILE *out, const rp_present_in *in, double ymax)
{
	const rp_placement *pl = in->placement;
	if (!pl || !pl->nplans)
		return;
	const rp_curve *c = in->curve;
	uint64_t b = pl->plan->budget;
	double x = px(c, b > c->max_budget ? c->max_budget : b);
	fprintf(out, "<line id=\"budget-mark\" data-budget=\"%llu\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c0392b\" stroke-dasharray=\"4 3\"/>\n",
		(unsigned long long)b, x, MT, x, H - MB);
	fprintf(out, "<circle id=\"plan-point\" r=\"5\" fill=\"none\" stroke=\"#c0392b\" stroke-width=\"2\" cx=\"%.1f\" cy=\"%.1f\" data-budget=\"%llu\" data-value=\"%llu\"><title>the plan</title></circle>\n",
		x, py(html_curve_y(in, pl->plan->moved_samples), ymax), (unsigned long long)b,
		(unsigned long long)pl->plan->moved_samples);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#c0392b\">budget</text>\n", x + 4, MT + 10);
}

void html_curve(FILE *out, const rp_present_in *in)
{
	const rp_curve *c = in->curve;
	char b[32];
	fputs("<h2 id=\"curve\">How much RAM: the budget curve</h2>\n", out);
	if (!c || !c->npoints) {
		fputs("<p>No curve: it needs a placement (a budget and the ELF).</p>\n", out);
		return;
	}
	double ymax = html_curve_y(in, c->points[c->npoints - 1].value);
	if (in->placement && in->placement->nplans && html_curve_y(in, in->placement->plan->moved_samples) > ymax)
		ymax = html_curve_y(in, in->placement->plan->moved_samples);
	if (ymax <= 0)
		ymax = 1;
	double ystep = tick_step(ymax);
	ymax = ceil(ymax / ystep - 1e-9) * ystep;   /* the axis ends on a tick */
	size_t knee = rp_curve_knee(c, 0.8);
	fprintf(out, "<p id=\"knee\" data-budget=\"%llu\">80 %% of the gain at %s",
		(unsigned long long)c->points[knee].budget, rp_present_bytes(c->points[knee].budget, b, sizeof(b)));
	char v[32];
	fprintf(out, " (the most, %s%s, at %s).</p>\n",
		html_curve_label(in, html_curve_y(in, c->points[c->npoints - 1].value), v, sizeof(v)),
		in->cycles_per_sample > 0 ? " cycles" : " of the samples",
		rp_present_bytes(c->points[c->npoints - 1].budget, b, sizeof(b)));
	fprintf(out, "<svg id=\"curve-svg\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" data-points=\"%zu\" data-step=\"%llu\">\n",
		W, H, W, H, c->npoints, (unsigned long long)c->step);
	axes(out, in, ymax, ystep);
	points(out, in, ymax);
	plan_mark(out, in, ymax);
	fputs("</svg>\n<p class=\"muted\">Each point is the exact knapsack optimum at that budget, every unit counted "
	      "with all its veneers; the circle is the plan.</p>\n", out);
}
