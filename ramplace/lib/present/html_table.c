/* html_table.c: the hot functions (present.h), a sortable table: name, file, size, samples (or
 * modeled cycles), share, cumulative share, where it is now, where the plan puts it and why it
 * stays; the hottest max_rows rows, the rest summed up in one footer row so that a firmware of
 * 50,000 functions gives a page that opens in seconds. And the before/after diff, in `ramplace
 * diff`'s own text (report.h). Owns nothing. */
#include <stdlib.h>
#include <string.h>

#include "html.h"

static int same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* The plan's output section holding the function, or NULL when it stays in flash. */
static const char *planned_in(const rp_placement *p, const char *name, const char *file)
{
	for (size_t r = 0; p && r < p->nplans; r++)
		for (size_t u = 0; u < p->plans[r]->nunits; u++) {
			const rp_plan_unit *un = &p->plans[r]->units[u];
			for (size_t k = 0; k < un->nfuncs; k++)
				if (!strcmp(un->funcs[k].name, name) && same(un->funcs[k].file, file))
					return p->plans[r]->outsec;
		}
	return NULL;
}

/* Why a sampled function stays in flash: its unit's reason as `place` gives it in its "kept in
 * flash:" lines (boot path, --exclude, --min-share, no section of its own), else the solver's. */
static const char *why_kept(const rp_present_in *in, const rp_func *f)
{
	const rp_placement *p = in->placement;
	if (!p)
		return "";
	if (!f)
		return "not in this ELF";
	size_t fi = (size_t)(f - in->img->funcs);
	if (fi < p->nfunc_why && p->func_why[fi])
		return p->func_why[fi];
	return "did not fit: the budget went to code with more samples per byte (its veneers counted)";
}

/* A text cell; class "wrap" lets long names and reasons break instead of widening the page. */
static void cell_text(FILE *out, const char *cls, const char *s)
{
	if (cls)
		fprintf(out, "<td class=\"%s\">", cls);
	else
		fputs("<td>", out);
	html_text(out, s);
	fputs("</td>", out);
}

static void row(FILE *out, const rp_present_in *in, const rp_func_total *t, double cum)
{
	const rp_func *f = rp_image_func_by_name(in->img, t->func, t->file);
	const rp_section *s = f && f->section < in->img->nsections ? &in->img->sections[f->section] : NULL;
	const char *plan = planned_in(in->placement, t->func, t->file);
	uint64_t total = in->totals->total;
	double share = total ? 100.0 * (double)t->count / (double)total : 0;
	uint64_t size = f ? rp_image_func_extent(in->img, f) : 0;
	fprintf(out, "<tr%s>", plan ? " class=\"ram\"" : "");
	cell_text(out, "name", t->func);
	cell_text(out, "name", t->file ? t->file : "");
	fprintf(out, "<td class=\"n\" data-v=\"%llu\">%llu</td>", (unsigned long long)size, (unsigned long long)size);
	if (in->cycles_per_sample > 0)
		fprintf(out, "<td class=\"n\" data-v=\"%llu\">%llu</td><td class=\"n\" data-v=\"%.0f\">%.0f</td>",
			(unsigned long long)t->count, (unsigned long long)t->count, (double)t->count * in->cycles_per_sample,
			(double)t->count * in->cycles_per_sample);
	else
		fprintf(out, "<td class=\"n\" data-v=\"%llu\">%llu</td>", (unsigned long long)t->count, (unsigned long long)t->count);
	fprintf(out, "<td class=\"n\" data-v=\"%.4f\">%.2f %%</td><td class=\"n\" data-v=\"%.4f\">%.2f %%</td><td>", share,
		share, cum, cum);
	if (s) {
		html_text(out, s->name);
		fputs(s->lma != s->vma ? " (RAM)" : " (flash)", out);
	} else {
		fputs("-", out);
	}
	fputs("</td>", out);
	cell_text(out, NULL, in->placement ? (plan ? plan : "flash") : "-");
	cell_text(out, "why", plan || !t->count ? "" : why_kept(in, f));
	fputs("</tr>\n", out);
}

int html_table(FILE *out, const rp_present_in *in, rp_err *err)
{
	(void)err;
	const rp_db_totals *t = in->totals;
	size_t max = in->max_rows ? in->max_rows : 2000;
	size_t n = t->nfuncs < max ? t->nfuncs : max;
	double cum = 0, total = t->total ? (double)t->total : 1.0;
	fprintf(out, "<h2 id=\"functions\">What moved: the hot functions</h2>\n<p>%zu sampled function(s); click a column to sort.</p>\n",
		t->nfuncs);
	fputs("<table id=\"hot\" class=\"sortable\"><thead><tr><th>function</th><th>file</th><th class=\"n\">bytes</th>"
	      "<th class=\"n\">samples</th>", out);
	if (in->cycles_per_sample > 0)
		fputs("<th class=\"n\">cycles</th>", out);
	fputs("<th class=\"n\">share</th><th class=\"n\">cumulative</th><th>now</th><th>plan</th><th>why it stays</th></tr></thead><tbody>\n", out);
	for (size_t i = 0; i < n; i++) {
		cum += 100.0 * (double)t->funcs[i].count / total;
		row(out, in, &t->funcs[i], cum);
	}
	fputs("</tbody>", out);
	if (n < t->nfuncs) {
		uint64_t rest = 0;
		for (size_t i = n; i < t->nfuncs; i++)
			rest += t->funcs[i].count;
		fprintf(out, "<tfoot><tr id=\"rest\" data-functions=\"%zu\" data-samples=\"%llu\"><td colspan=\"3\">%zu more function(s), summed up</td>"
			     "<td class=\"n\">%llu</td><td class=\"n\">%.2f %%</td><td colspan=\"5\"></td></tr></tfoot>",
			t->nfuncs - n, (unsigned long long)rest, t->nfuncs - n, (unsigned long long)rest, 100.0 * (double)rest / total);
	}
	fputs("</table>\n", out);
	return 0;
}

int html_diff(FILE *out, const rp_present_in *in, rp_err *err)
{
	if (!in->before)
		return 0;
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		return rp_err_nomem(err, "writing the before/after table");
	rp_report_diff(m, in->before, in->diff_after ? in->diff_after : in->prof, in->exact_before, in->exact_after, "old", "new", 200);
	if (fclose(m) != 0) {
		free(text);
		return rp_err_nomem(err, "writing the before/after table");
	}
	fputs("<h2 id=\"diff\">What it gained: before and after</h2>\n<p>old: <code>", out);
	html_text(out, in->before_name);
	fputs("</code>, new: <code>", out);
	html_text(out, in->after_name);
	fputs("</code>; as <code>ramplace diff OLD NEW</code> prints it.</p>\n<pre id=\"diff-text\">", out);
	html_text(out, text);
	fputs("</pre>\n", out);
	free(text);
	return 0;
}
