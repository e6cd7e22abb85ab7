/* cmd_report.c: `ramplace report profile.db`: the flat profile summed over every run, in
 * gprof's columns (% time, cumulative, self samples, name); with --callers the sampled
 * caller->callee arcs (from the return address taken with each sample); with --elf the placement
 * view: the share of samples in code that runs from RAM (sections loaded elsewhere than they
 * run). */
#include <getopt.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "ramplace/image.h"
#include "ramplace/profiledb.h"

static const char usage[] =
	"usage: ramplace report [--limit N] [--elf firmware.elf] profile.db\n"
	"\n"
	"Prints the flat profile: every function's share of the samples of all runs.\n"
	"  -n, --limit N   print at most N functions (and N arcs) (default: all)\n"
	"  -c, --callers   also print the sampled caller -> callee arcs\n"
	"  -e, --elf FILE  also show where the sampled functions sit in FILE: code that runs\n"
	"                  from RAM (loaded from flash, copied at boot) versus flash\n";

/* Code that runs where it is not loaded was copied at boot: that is RAM code. */
static int print_placement(const rp_db_totals *t, const char *elf_path, rp_err *err)
{
	rp_image *img;
	int rc = rp_image_load(&img, elf_path, err);
	if (rc)
		return rc;
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
	printf("\nplacement in %s: %.1f%% of samples in code running from RAM, %.1f%% in flash, %.1f%% not in this ELF\n",
	       elf_path, 100.0 * (double)in_ram / total, 100.0 * (double)in_flash / total,
	       100.0 * (double)elsewhere / total);
	rp_image_free(img);
	return 0;
}

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
static int print_callers(rp_db *db, const rp_db_totals *t, long limit, rp_err *err)
{
	rp_arc_total *arcs;
	size_t n, shown = 0;
	char f1[300], f2[300];
	int rc = rp_db_arcs_load(db, &arcs, &n, err);
	if (rc)
		return rc;
	printf("\nSampled callers: %zu arc(s); 'of callee' is the share of the callee's samples\n\n", n);
	printf("%10s %10s  %s\n", "samples", "of callee", "caller -> callee");
	for (size_t i = 0; i < n && (limit < 0 || (long)shown < limit); i++) {
		const rp_arc_total *a = &arcs[i];
		if (same_func(a->caller, a->caller_file, a->callee, a->callee_file))
			continue;
		uint64_t of = samples_of(t, a->callee, a->callee_file);
		printf("%10llu %9.1f%%  %s%s -> %s%s\n", (unsigned long long)a->count,
		       of ? 100.0 * (double)a->count / (double)of : 0.0, a->caller,
		       paren(a->caller_file, f1, sizeof(f1)), a->callee, paren(a->callee_file, f2, sizeof(f2)));
		shown++;
	}
	rp_arc_totals_free(arcs, n);
	return 0;
}

static void print_flat(const rp_db_totals *t, long limit)
{
	double cumulative = 0;
	printf("Flat profile: %llu samples in %zu run(s) on %zu build(s)\n\n",
	       (unsigned long long)t->total, t->nruns, t->nimages);
	printf("%7s %11s %10s  %s\n", "% time", "cumulative", "self", "name");
	for (size_t i = 0; i < t->nfuncs && (limit < 0 || (long)i < limit); i++) {
		const rp_func_total *f = &t->funcs[i];
		double share = t->total ? 100.0 * (double)f->count / (double)t->total : 0.0;
		cumulative += share;
		printf("%6.2f%% %10.2f%% %10llu  %s%s%s%s\n", share, cumulative, (unsigned long long)f->count,
		       f->func, f->file ? " (" : "", f->file ? f->file : "", f->file ? ")" : "");
	}
}

int cmd_report(int argc, char **argv, rp_err *err)
{
	static const struct option longopts[] = {
		{ "limit", required_argument, NULL, 'n' }, { "elf", required_argument, NULL, 'e' },
		{ "callers", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	long limit = -1;
	const char *elf_path = NULL;
	int c, callers = 0;
	while ((c = getopt_long(argc, argv, "+n:e:ch", longopts, NULL)) != -1) {
		if (c == 'n') {
			char *end;
			limit = strtol(optarg, &end, 10);
			if (*end || limit < 0)
				return cli_usage_error(err, "report", "--limit takes a number");
		} else if (c == 'e') {
			elf_path = optarg;
		} else if (c == 'c') {
			callers = 1;
		} else if (c == 'h') {
			fputs(usage, stdout);
			return 0;
		} else {
			return cli_usage_error(err, "report", "unknown option");
		}
	}
	if (argc - optind != 1)
		return cli_usage_error(err, "report", "expects profile.db");
	rp_db *db;
	rp_db_totals t;
	int rc = rp_db_open_existing(&db, argv[optind], err);
	if (rc)
		return rc;
	rc = rp_db_totals_load(db, &t, err);
	if (rc) {
		rp_db_close(db);
		return rc;
	}
	print_flat(&t, limit);
	if (callers)
		rc = print_callers(db, &t, limit, err);
	rp_db_close(db);
	if (rc == 0 && elf_path)
		rc = print_placement(&t, elf_path, err);
	rp_db_totals_release(&t);
	return rc;
}
