/* html_page.c: the HTML report's skeleton (present.h): head and CSS, the summary that answers
 * "how much RAM, what moved, what it gained", the sections in order, the run, and the one
 * script (table sorting). Self-contained: no link, font or script leaves the file. Owns
 * nothing. Workload: one page per command. */
#include <stdlib.h>
#include <string.h>

#include "html.h"

static const char css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em auto;max-width:1100px;color:#222;padding:0 1em}\n"
	"h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:1.6em}\n"
	".summary{background:#f4f7fb;border:1px solid #d8e0ea;padding:.6em 1em;border-radius:4px}\n"
	"table{border-collapse:collapse;font-size:13px}td,th{padding:2px 8px;text-align:left;"
	"border-bottom:1px solid #eee;white-space:nowrap}\n"
	/* long names and reasons break, so the page never scrolls sideways */
	"td.name{white-space:normal;overflow-wrap:anywhere;min-width:8em}"
	"td.why{white-space:normal;min-width:18em}\n"
	"td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}th{cursor:pointer;background:#f3f3f3}\n"
	"tr.ram td{background:#eaf6ea}tfoot td{font-style:italic;color:#555}\n"
	".region{margin:.6em 0}.bar{display:flex;height:26px;border:1px solid #888;background:#fff}\n"
	".seg{height:100%;overflow:hidden;font-size:11px;color:#fff;white-space:nowrap;min-width:1px}\n"
	".seg.code{background:#4a6fa5}.seg.rodata{background:#7b9acc}.seg.data{background:#c0504d}\n"
	".seg.bss{background:#e07b39}.seg.stack{background:#8064a2}.seg.heap{background:#9bbb59}\n"
	".seg.ramtext{background:#2e8b57}.seg.load{background:#b7a57a}.seg.other{background:#777}\n"
	".seg.plan{background:repeating-linear-gradient(45deg,#2e8b57,#2e8b57 4px,#9fd4b4 4px,#9fd4b4 8px)}\n"
	".seg.free{background:#fafafa;color:#666}\n"
	".seg.reserve{background-image:repeating-linear-gradient(-45deg,transparent,transparent 5px,rgba(255,255,255,.35) 5px,rgba(255,255,255,.35) 10px)}\n"
	"pre{background:#f7f7f7;padding:.5em;overflow-x:auto;font-size:12px}\n"
	"svg text{font:11px system-ui,sans-serif}.muted{color:#666}\n";

/* Clicking a header sorts by that column (numbers by their data-v), again reverses it. */
static const char script[] =
	"<script>\n"
	"document.querySelectorAll('table.sortable th').forEach(function(th,col){\n"
	" th.addEventListener('click',function(){\n"
	"  var tb=th.closest('table').tBodies[0],rows=Array.prototype.slice.call(tb.rows);\n"
	"  var dir=th.dataset.dir==='a'?'d':'a';th.dataset.dir=dir;\n"
	"  rows.sort(function(a,b){var x=a.cells[col].dataset.v,y=b.cells[col].dataset.v;\n"
	"   var r=(x!==undefined&&y!==undefined)?(+x)-(+y):a.cells[col].textContent.localeCompare(b.cells[col].textContent);\n"
	"   return dir==='a'?r:-r;});\n"
	"  rows.forEach(function(r){tb.appendChild(r);});});});\n"
	"</script>\n";

/* One plan per region: what moved, its bytes, and the share of samples now in RAM. */
static void summary(FILE *out, const rp_present_in *in)
{
	const rp_placement *p = in->placement;
	char b1[32], b2[32];
	fputs("<div class=\"summary\" id=\"summary\">\n", out);
	if (!p || !p->nplans) {
		fputs("<p>No placement: give a budget (--budget) to see what would move.</p>\n", out);
	} else {
		uint64_t moved = 0, total = p->plan->total_samples;
		for (size_t r = 0; r < p->nplans; r++) {
			const rp_plan *pl = p->plans[r];
			moved += pl->moved_samples;
			fprintf(out, "<p><b>%zu</b> function(s) move to <code>", pl->nunits);
			html_text(out, pl->outsec);
			fprintf(out, "</code>: %s of a %s budget (%llu code + %llu veneer(s)).</p>\n",
				rp_present_bytes(pl->used + pl->veneer_reserve, b1, sizeof(b1)),
				rp_present_bytes(pl->budget, b2, sizeof(b2)), (unsigned long long)pl->used,
				(unsigned long long)pl->nveneers);
		}
		fprintf(out, "<p>Samples in code running from RAM after the move: <b id=\"moved-share\">%.1f %%</b> of %llu.",
			total ? 100.0 * (double)moved / (double)total : 0.0, (unsigned long long)total);
		/* the figures place printed and the plan records (the pipeline's, pipeline.h): the
		 * page, the terminal and check --profile show one number */
		const rp_plan *pl = p->plan;
		if (pl->modeled_model && pl->modeled_before) {
			double b = (double)pl->modeled_before, a = (double)pl->modeled_after;
			fputs(" Modeled cycles (", out);
			html_text(out, pl->modeled_model);
			fprintf(out, "): <b id=\"modeled-before\">%llu</b> from flash, <b id=\"modeled-after\">%llu</b> after the "
				     "move: <b id=\"modeled-speedup\">%.2fx</b> fewer (%.1f %% saved).",
				(unsigned long long)pl->modeled_before, (unsigned long long)pl->modeled_after, a > 0 ? b / a : 0.0,
				100.0 * (b - a) / b);
		}
		fputs("</p>\n", out);
		if (p->solver) {
			fputs("<p class=\"muted\">Solver: ", out);
			html_text(out, p->solver);
			fputs(p->optimal ? ", optimal.</p>\n" : ".</p>\n", out);
		}
	}
	fputs("</div>\n", out);
}

/* What record measured about the run (runs.slowdown and runs.covered, cmd_record.c), in
 * percent; imported runs and runs stored before schema version 4 know neither. */
static int run_slowdown(const rp_run_row *r, double *pct)
{
	if (r->slowdown < 0)
		return 0;
	*pct = 100 * r->slowdown;
	return 1;
}

static const char *run_covered(const rp_run_row *r)
{
	return r->covered == 1 ? "yes" : r->covered == 0 ? "no" : "-";
}

static void run_row(FILE *out, const rp_run_row *r)
{
	double slow;
	/* a build-id, a path and a note are long: they wrap, the page stays as wide as the window */
	fprintf(out, "<tr><td class=\"n\">%lld</td><td class=\"name\">", (long long)r->id);
	html_text(out, r->build_id);
	fputs("</td><td>", out);
	html_text(out, r->tool);
	fputs("</td><td>", out);
	html_text(out, r->method && r->method[0] ? r->method : "-");
	fprintf(out, "</td><td class=\"n\">%.0f</td><td class=\"n\">%.0f</td><td class=\"n\">%.2f</td>",
		r->rate_hz, r->samples, r->duration_s);
	if (run_slowdown(r, &slow))
		fprintf(out, "<td class=\"n\">%.1f %%</td>", slow);
	else
		fputs("<td class=\"n\">-</td>", out);
	fprintf(out, "<td>%s</td><td class=\"name\">", run_covered(r));
	html_text(out, r->source);
	fputs("</td><td class=\"why\">", out);
	html_text(out, r->stop_reason);
	fputs("</td></tr>\n", out);
}

static void fact(FILE *out, const char *id, const char *label, const char *value)
{
	fprintf(out, "<tr><th>%s</th><td id=\"%s\">", label, id);
	html_text(out, value);
	fputs("</td></tr>\n", out);
}

/* Values of the runs joined by ", " without repeats ("exact", "halting, exact"). */
static void joined(char *buf, size_t cap, const rp_present_in *in, int what)
{
	buf[0] = '\0';
	for (size_t i = 0; i < in->nruns; i++) {
		const rp_run_row *r = &in->runs[i];
		char v[64];
		double slow;
		if (what == 0)
			snprintf(v, sizeof(v), "%s", r->method && r->method[0] ? r->method : "-");
		else if (what == 1 && r->rate_hz > 0)
			snprintf(v, sizeof(v), "%.0f Hz", r->rate_hz);
		else if (what == 1)   /* counted, not sampled (the plugin, a trace) */
			snprintf(v, sizeof(v), "none (counted)");
		else if (what == 2 && run_slowdown(r, &slow))
			snprintf(v, sizeof(v), "%.1f %%", slow);
		else if (what == 2)
			snprintf(v, sizeof(v), "-");
		else
			snprintf(v, sizeof(v), "%s", run_covered(r));
		const char *at = strstr(buf, v);
		size_t len = strlen(v), have = strlen(buf);
		if (at && (at == buf || at[-1] == ' ') && (at[len] == '\0' || at[len] == ','))
			continue;   /* the same value again */
		snprintf(buf + have, cap - have, "%s%s", have ? ", " : "", v);
	}
}

/* The run's facts in one small table (method, rate, samples, slowdown, coverage, stability,
 * build-id, version), then one row per run as `report --runs` lists them. */
static void run_facts(FILE *out, const rp_present_in *in)
{
	char buf[512];
	fputs("<table id=\"run-facts\"><tbody>\n", out);
	joined(buf, sizeof(buf), in, 0);
	fact(out, "run-method", "collection method", in->nruns ? buf : "-");
	joined(buf, sizeof(buf), in, 1);
	fact(out, "run-rate", "rate", in->nruns ? buf : "-");
	snprintf(buf, sizeof(buf), "%.0f", in->totals->taken);
	fact(out, "run-samples", "samples", buf);
	joined(buf, sizeof(buf), in, 2);
	fact(out, "run-slowdown", "slowdown", in->nruns ? buf : "-");
	joined(buf, sizeof(buf), in, 3);
	fact(out, "run-covered", "covered the whole run", in->nruns ? buf : "-");
	fact(out, "run-stability", "profile stability",
	     in->stability ? in->stability : "not computed (no placement, or no sampled function fits)");
	fact(out, "run-build-id", "build-id", in->img->build_id[0] ? in->img->build_id : "-");
	fact(out, "run-version", "ramplace version", in->version);
	fputs("</tbody></table>\n", out);
}

static void run_section(FILE *out, const rp_present_in *in)
{
	fputs("<h2 id=\"run\">The run</h2>\n<p>Firmware <code>", out);
	html_text(out, in->img->path);
	fprintf(out, "</code> (%s), build-id <code id=\"build-id\">", rp_image_arch(in->img));
	html_text(out, in->img->build_id);
	fputs("</code>; ramplace ", out);
	html_text(out, in->version);
	fprintf(out, ". %.0f samples in %zu run(s) on %zu build(s).</p>\n", in->totals->taken, in->totals->nruns,
		in->totals->nimages);
	run_facts(out, in);
	fputs("<table id=\"runs\"><thead><tr><th>run</th><th>build</th><th>tool</th><th>method</th><th class=\"n\">rate Hz</th>"
	      "<th class=\"n\">samples</th><th class=\"n\">seconds</th><th class=\"n\">slowdown</th><th>covered</th>"
	      "<th>source</th><th>notes</th></tr></thead><tbody>\n", out);
	for (size_t i = 0; i < in->nruns; i++)
		run_row(out, &in->runs[i]);
	fputs("</tbody></table>\n", out);
	const rp_placement *p = in->placement;
	for (size_t i = 0; p && i < p->nnotes; i++) {
		fputs("<p class=\"muted\">", out);
		html_text(out, p->notes[i]);
		fputs("</p>\n", out);
	}
}

int rp_present_html(FILE *out, const rp_present_in *in, rp_err *err)
{
	const char *base = strrchr(in->img->path, '/');
	base = base ? base + 1 : in->img->path;
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>ramplace report: ", out);
	html_text(out, base);
	fprintf(out, "</title>\n<style>\n%s</style></head><body>\n<h1>ramplace: ", css);
	html_text(out, base);
	fputs("</h1>\n", out);
	summary(out, in);
	html_curve(out, in);
	int rc = html_memmap(out, in, err);
	if (!rc)
		rc = html_table(out, in, err);
	if (!rc)
		rc = html_flame(out, in, err);
	if (!rc)
		rc = html_diff(out, in, err);
	if (rc)
		return rc;
	run_section(out, in);
	fprintf(out, "%s</body></html>\n", script);
	return 0;
}
