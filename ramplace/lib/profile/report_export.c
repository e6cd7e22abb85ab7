/* report_export.c: machine-readable views of an rp_profile (see report.h and
 * docs/report-formats.md): JSON, callgrind (KCacheGrind), folded stacks (flamegraph.pl), and
 * the before/after diff table. Pure formatting; owns nothing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/report.h"
#include "ramplace/util.h"

static void json_string(FILE *out, const char *s)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

/* %.17g keeps every bit, but JSON has no NaN or infinity */
static void json_number(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, "%.17g", v);
	else
		fputs("null", out);
}

/* `, "key": value` after the first member of an object. */
static void json_str_member(FILE *out, const char *key, const char *s)
{
	fprintf(out, ", \"%s\": ", key);
	json_string(out, s);
}

static void json_num_member(FILE *out, const char *key, double v)
{
	fprintf(out, ", \"%s\": ", key);
	json_number(out, v);
}

static void json_runs(FILE *out, const rp_run_row *runs, size_t nruns)
{
	fputs("  \"runs\": [", out);
	for (size_t i = 0; i < nruns; i++) {
		const rp_run_row *r = &runs[i];
		fprintf(out, "%s\n    {\"id\": %lld", i ? "," : "", (long long)r->id);
		json_str_member(out, "build_id", r->build_id);
		json_str_member(out, "image", r->image_path);
		json_str_member(out, "source", r->source);
		json_str_member(out, "tool", r->tool);
		json_str_member(out, "method", r->method);
		json_num_member(out, "rate_hz", r->rate_hz);
		json_num_member(out, "samples", r->samples);
		/* what record measured (schema version 4); null where it is not known */
		fprintf(out, ", \"covered\": %s", r->covered == 1 ? "true" : r->covered == 0 ? "false" : "null");
		json_num_member(out, "slowdown", r->slowdown >= 0 ? r->slowdown : NAN);
		json_str_member(out, "notes", r->stop_reason);
		fputc('}', out);
	}
	fputs(nruns ? "\n  ],\n" : "],\n", out);
}

/* The measured handler entries (only when some run measured one: the plugin's entry=). */
static void json_entries(FILE *out, const rp_profile *p)
{
	if (!p->nentries)
		return;
	fputs("  \"entries\": [", out);
	for (size_t i = 0; i < p->nentries; i++) {
		const rp_entry_total *e = &p->entries[i];
		fprintf(out, "%s\n    {\"handler\": ", i ? "," : "");
		json_string(out, e->name);
		json_str_member(out, "file", e->file);
		fprintf(out, ", \"offset\": %llu, \"invocations\": %llu, \"worst_stall\": %llu, \"stall_sum\": %llu,"
			     " \"window_insns\": %u, \"returned\": %llu, \"worst_invocation_stall\": ",
			(unsigned long long)e->offset, (unsigned long long)e->invocations, (unsigned long long)e->worst,
			(unsigned long long)e->sum, e->window, (unsigned long long)e->returned);
		if (e->returned)
			fprintf(out, "%llu}", (unsigned long long)e->inv_worst);
		else
			fputs("null}", out);
	}
	fputs("\n  ],\n", out);
}

void rp_report_json(FILE *out, const rp_profile *p, const rp_run_row *runs, size_t nruns)
{
	rp_report_json_more(out, p, runs, nruns, NULL, NULL);
}

void rp_report_json_more(FILE *out, const rp_profile *p, const rp_run_row *runs, size_t nruns,
			 void (*more)(FILE *out, const void *arg), const void *arg)
{
	fprintf(out, "{\n  \"schema\": \"ramplace-profile/1\",\n  \"unit\": \"%s\",\n  \"rate_hz\": ", p->unit);
	json_number(out, p->rate_hz);
	fputs(",\n  \"total\": ", out);
	json_number(out, p->total);
	/* what an arc's count counts: calls (gmon.out) or samples whose return address lay in the
	 * caller (record); the "calls" members below hold the same counts */
	fprintf(out, ",\n  \"arc_counts\": \"%s\",\n", p->sampled_arcs ? "samples" : "calls");
	json_runs(out, runs, nruns);
	json_entries(out, p);
	if (more)
		more(out, arg);
	fputs("  \"functions\": [", out);
	for (size_t i = 0; i < p->nfns; i++) {
		const rp_prof_fn *f = &p->fns[i];
		fprintf(out, "%s\n    {\"name\": ", i ? "," : "");
		json_string(out, f->name);
		json_str_member(out, "file", f->file);
		json_num_member(out, "self", f->self);
		json_num_member(out, "self_outside", f->outside);
		json_num_member(out, "children", f->child);
		fprintf(out, ", \"calls\": %llu, \"self_calls\": %llu}", (unsigned long long)f->calls,
			(unsigned long long)f->self_calls);
	}
	fputs(p->nfns ? "\n  ],\n  \"arcs\": [" : "],\n  \"arcs\": [", out);
	for (size_t i = 0; i < p->narcs; i++) {
		const rp_prof_arc *a = &p->arcs[i];
		fprintf(out, "%s\n    {\"caller\": ", i ? "," : "");
		json_string(out, p->fns[a->caller].name);
		json_str_member(out, "caller_file", p->fns[a->caller].file);
		json_str_member(out, "callee", p->fns[a->callee].name);
		json_str_member(out, "callee_file", p->fns[a->callee].file);
		fprintf(out, ", \"count\": %llu}", (unsigned long long)a->count);
	}
	fputs(p->narcs ? "\n  ]\n}\n" : "]\n}\n", out);
}

static unsigned long long cost(const rp_profile *p, double v)
{
	double s = p->rate_hz > 0 ? v * p->rate_hz : v;
	return s > 0 ? (unsigned long long)llround(s) : 0;
}

static void cg_fn(FILE *out, const char *key, const rp_profile *p, size_t k, unsigned char *named)
{
	const rp_prof_fn *f = &p->fns[k];
	if (named[k]) {
		fprintf(out, "%s=(%zu)\n", key, k + 1);
		return;
	}
	named[k] = 1;
	fprintf(out, "%s=(%zu) %s%s%s%s\n", key, k + 1, f->name, f->file ? " '" : "", f->file ? f->file : "",
		f->file ? "'" : "");
}

void rp_report_callgrind(FILE *out, const rp_profile *p, const char *cmd)
{
	unsigned char *named = calloc(p->nfns + 1, 1);
	unsigned long long total = 0;
	if (!named)
		return;
	for (size_t i = 0; i < p->nfns; i++)
		total += cost(p, p->fns[i].self);
	fprintf(out, "# callgrind format\nversion: 1\ncreator: ramplace\ncmd: %s\npositions: line\nevents: Samples\nsummary: %llu\n",
		cmd, total);
	for (size_t k = 0; k < p->nfns; k++) {
		fputs("\nfl=???\n", out);
		cg_fn(out, "fn", p, k, named);
		fprintf(out, "0 %llu\n", cost(p, p->fns[k].self));
		for (size_t i = 0; i < p->narcs; i++) {
			const rp_prof_arc *a = &p->arcs[i];
			if (a->caller != k || a->callee == k)
				continue;
			cg_fn(out, "cfn", p, a->callee, named);
			fprintf(out, "calls=%llu 0\n0 %llu\n", (unsigned long long)a->count, cost(p, a->self + a->child));
		}
	}
	free(named);
}

/* A function's self time is shared among its callers in proportion to the calls, up to the
 * roots; a caller already on the stack (recursion) ends the walk there. */
static void fold_up(FILE *out, const rp_profile *p, size_t *stack, size_t depth, double value)
{
	size_t top = stack[depth - 1];
	const rp_prof_fn *f = &p->fns[top];
	int went_up = 0;
	if (depth < 64 && f->calls) {
		for (size_t i = 0; i < p->narcs; i++) {
			const rp_prof_arc *a = &p->arcs[i];
			int on_stack = 0;
			if (a->callee != top || a->caller == top)
				continue;
			for (size_t d = 0; d < depth; d++)
				on_stack |= stack[d] == a->caller;
			if (on_stack)
				continue;
			stack[depth] = a->caller;
			fold_up(out, p, stack, depth + 1, value * (double)a->count / (double)f->calls);
			went_up = 1;
		}
	}
	if (went_up || value <= 0)
		return;
	for (size_t d = depth; d-- > 0;)
		fprintf(out, "%s%s", p->fns[stack[d]].name, d ? ";" : "");
	fprintf(out, " %.6g\n", p->rate_hz > 0 ? value * p->rate_hz : value);
}

void rp_report_folded(FILE *out, const rp_profile *p)
{
	size_t stack[65];
	for (size_t k = 0; k < p->nfns; k++) {
		if (p->fns[k].self <= 0)
			continue;
		stack[0] = k;
		fold_up(out, p, stack, 1, p->fns[k].self);
	}
}

typedef struct diff_row {
	const char *name, *file;
	double old, new_;
} diff_row;

static int cmp_diff(const void *a, const void *b)
{
	const diff_row *x = a, *y = b;
	double mx = x->old > x->new_ ? x->old : x->new_, my = y->old > y->new_ ? y->old : y->new_;
	if (mx != my)
		return mx < my ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* Poisson standard error of a difference of two sampled counts, in percent of the old value. */
static double error_pct(const rp_profile *o, const rp_profile *n, double old, double new_, int exact_old, int exact_new)
{
	double ro = o->rate_hz > 0 ? o->rate_hz : 1, rn = n->rate_hz > 0 ? n->rate_hz : 1;
	double var = (exact_old ? 0 : old / ro) + (exact_new ? 0 : new_ / rn);
	return old > 0 ? 100 * sqrt(var) / old : 0;
}

static void diff_line(FILE *out, const rp_profile *o, const rp_profile *n, const char *name, const char *file,
		      double old, double new_, int eo, int en, int width)
{
	char label[256];
	snprintf(label, sizeof(label), "%s%s%s%s", name, file ? " (" : "", file ? file : "", file ? ")" : "");
	double d = new_ - old;
	if (old > 0)
		fprintf(out, "%-*s %10.2f -> %10.2f : %+10.2f = %+8.3f%% (+/-%.2f%%)\n", width, label, old, new_, d,
			100 * d / old, error_pct(o, n, old, new_, eo, en));
	else
		fprintf(out, "%-*s %10.2f -> %10.2f : %+10.2f =      new\n", width, label, old, new_, d);
}

void rp_report_diff(FILE *out, const rp_profile *old, const rp_profile *new_, int exact_old, int exact_new,
		    const char *old_name, const char *new_name, long limit)
{
	diff_row *rows = calloc(old->nfns + new_->nfns + 1, sizeof(*rows));
	size_t n = 0;
	double told = 0, tnew = 0;
	int width = 24;
	if (!rows)
		return;
	for (size_t i = 0; i < old->nfns; i++) {
		rows[n++] = (diff_row){ old->fns[i].name, old->fns[i].file, old->fns[i].self, 0 };
		told += old->fns[i].self;
	}
	for (size_t i = 0; i < new_->nfns; i++) {
		const rp_prof_fn *f = &new_->fns[i];
		size_t k = 0;
		while (k < n && !(strcmp(rows[k].name, f->name) == 0 &&
				  strcmp(rows[k].file ? rows[k].file : "", f->file ? f->file : "") == 0))
			k++;
		if (k == n)
			rows[n++] = (diff_row){ f->name, f->file, 0, 0 };
		rows[k].new_ = f->self;
		tnew += f->self;
	}
	rp_sort(rows, n, sizeof(*rows), cmp_diff);
	for (size_t i = 0; i < n; i++) {
		int w = (int)strlen(rows[i].name) + (rows[i].file ? (int)strlen(rows[i].file) + 3 : 0);
		width = w > width && w < 60 ? w : width;
	}
	const char *unit = old->rate_hz > 0 && new_->rate_hz > 0 ? "seconds" : "samples";
	fprintf(out, "diff of self %s (lower is better)\n", unit);
	fprintf(out, "%-*s %10.10s -> %10.10s : %10s = %9s (error%%)\n", width, "", old_name, new_name, "diff", "diff%");
	for (size_t i = 0; i < n && (limit < 0 || (long)i < limit); i++)
		diff_line(out, old, new_, rows[i].name, rows[i].file, rows[i].old, rows[i].new_, exact_old, exact_new, width);
	diff_line(out, old, new_, "total", NULL, told, tnew, exact_old, exact_new, width);
	free(rows);
}
