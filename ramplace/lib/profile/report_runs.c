/* report_runs.c: the report's tables about the runs and where the samples ran (report.h): the
 * runs stored, the sampled callers, and the share of the samples in RAM and in flash on an
 * ELF. No state of its own. Workload: one table of up to the profile's functions per call. */
#include <stdio.h>
#include <string.h>

#include "ramplace/report.h"

static int same_func(const char *a, const char *afile, const char *b, const char *bfile)
{
	return strcmp(a, b) == 0 && ((!afile && !bfile) || (afile && bfile && strcmp(afile, bfile) == 0));
}

static uint64_t samples_of(const rp_db_totals *t, const char *func, const char *file)
{
	for (size_t i = 0; i < t->nfuncs; i++)
		if (same_func(t->funcs[i].func, t->funcs[i].file, func, file))
			return t->funcs[i].count;
	return 0;
}

static const char *paren(const char *file, char *buf, size_t cap)
{
	if (!file)
		return "";
	snprintf(buf, cap, " (%s)", file);
	return buf;
}

/* The arcs, most sampled first, with the share of the callee's samples each explains. An arc
 * whose return address lies in the sampled function itself is left out: that is a stale
 * LR/ra (the function called something earlier) far more often than recursion. */
void rp_report_callers(FILE *out, const rp_db_totals *t, const rp_arc_total *arcs, size_t n, long limit)
{
	size_t shown = 0;
	char f1[300], f2[300];
	fprintf(out, "\nSampled callers: %zu arc(s); 'of callee' is the share of the callee's samples\n\n", n);
	fprintf(out, "%10s %10s  %s\n", "samples", "of callee", "caller -> callee");
	for (size_t i = 0; i < n && (limit < 0 || (long)shown < limit); i++) {
		const rp_arc_total *a = &arcs[i];
		if (same_func(a->caller, a->caller_file, a->callee, a->callee_file))
			continue;
		uint64_t of = samples_of(t, a->callee, a->callee_file);
		fprintf(out, "%10llu %9.1f%%  %s%s -> %s%s\n", (unsigned long long)a->count,
		       of ? 100.0 * (double)a->count / (double)of : 0.0, a->caller,
		       paren(a->caller_file, f1, sizeof(f1)), a->callee, paren(a->callee_file, f2, sizeof(f2)));
		shown++;
	}
}

void rp_report_runs(FILE *out, const rp_run_row *runs, size_t n)
{
	fprintf(out, "%4s  %-16.16s %-14s %-10s %10s %12s  %s\n", "run", "build", "tool", "method", "rate Hz",
	       "samples", "notes");
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%4lld  %-16.16s %-14s %-10s %10.0f %12.0f  %s\n", (long long)runs[i].id, runs[i].build_id,
		       runs[i].tool, runs[i].method[0] ? runs[i].method : "-", runs[i].rate_hz, runs[i].samples,
		       runs[i].stop_reason);
}

/* Code that runs where it is not loaded was copied at boot: that is RAM code. */
void rp_report_placement(FILE *out, const rp_db_totals *t, const rp_image *img)
{
	uint64_t in_ram = 0, in_flash = 0, elsewhere = 0;
	for (size_t i = 0; i < t->nfuncs; i++) {
		const rp_func *f = rp_image_func_by_name(img, t->funcs[i].func, t->funcs[i].file);
		const rp_section *s = f && f->section < img->nsections ? &img->sections[f->section] : NULL;
		if (!s)
			elsewhere += t->funcs[i].count;
		else if (s->lma != s->vma)
			in_ram += t->funcs[i].count;
		else
			in_flash += t->funcs[i].count;
	}
	double total = t->total ? (double)t->total : 1.0;
	fprintf(out, "\nplacement in %s: %.1f%% of samples in code running from RAM, %.1f%% in flash, %.1f%% not in this ELF\n",
	       img->path, 100.0 * (double)in_ram / total, 100.0 * (double)in_flash / total,
	       100.0 * (double)elsewhere / total);
}
