/* report.h: a profile (per-function totals and call arcs from profile.db) as the tables users
 * already read: gprof's flat profile and call graph, iprof's per-image and per-function tables,
 * a before/after diff in MicroPython's benchmark-diff form, and exports (JSON, callgrind for
 * KCacheGrind, folded stacks for flame graphs). Pure formatting over an rp_profile model. */
#ifndef RAMPLACE_REPORT_H
#define RAMPLACE_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include "ramplace/error.h"
#include "ramplace/image.h"
#include "ramplace/profiledb.h"

typedef struct rp_prof_fn {
	const char *name, *file;    /* borrowed from the totals / arcs */
	double self;                /* samples, or seconds when rp_profile.rate_hz != 0 */
	double outside;             /* of self: samples in code past its end where no function is
				       (the PLT after _init), credited to it as gprof does */
	double child;               /* time propagated from callees along arcs (gprof's children) */
	uint64_t count;             /* self in whole samples, exact (self is a double: 53 bits) */
	uint64_t calls;             /* arcs into it from other known functions */
	uint64_t self_calls;        /* recursive arcs */
	int show_file;              /* its name is shared by another function */
	int index;                  /* call-graph index, 1-based, by total time */
} rp_prof_fn;

typedef struct rp_prof_arc {
	size_t caller, callee;      /* indexes into rp_profile.fns */
	uint64_t count;
	double self, child;         /* time propagated along this arc */
} rp_prof_arc;

typedef struct rp_profile {
	rp_prof_fn *fns;            /* gprof's flat order: time, then calls, then name */
	size_t nfns;
	rp_prof_arc *arcs;
	size_t narcs;
	double total;               /* base of the percentages: samples taken (or seconds) */
	uint64_t total_count;       /* samples taken, exact: what the tables print in samples */
	double rate_hz;             /* 0: times are in samples */
	const char *unit;           /* "seconds" or "samples" */
	int sampled_arcs;           /* arcs are sampled return addresses (record), not counted calls:
				       the text says "arcs" where gprof says "calls" */
	char **names;               /* owned: names of the functions "<unknown>" rows went to */
	size_t nnames, names_cap;
	/* Set by the caller after rp_profile_build (which leaves them 0), borrowed: */
	const uint64_t *stall;      /* per fns[i]: flash stall cycles under the model the plugin ran,
				       printed beside each function's count; NULL: no model ran */
	int exact;                  /* every run counted instructions (the QEMU plugin), each sample
				       is one executed instruction */
	const rp_entry_total *entries;   /* measured handler entries (JSON "entries"); NULL: none */
	size_t nentries;
} rp_profile;

/* Builds the model from totals and arcs (both must outlive it). Samples of "<unknown>" that lie
 * in code past a function's end go to that function (rp_prof_fn.outside), as gprof does. */
int rp_profile_build(rp_profile *p, const rp_db_totals *t, const rp_arc_total *arcs, size_t narcs, rp_err *err);
void rp_profile_release(rp_profile *p);

/* One side of a before/after comparison, named as `diff` and `--before` take it: a profile.db
 * (all its runs) or profile.db@RUN (one run; a path that exists as given wins over the
 * suffix), loaded as totals and a flat profile without arcs (profile_spec.c). */
typedef struct rp_profile_spec {
	char path[4096];
	int64_t run;                /* 0: every run */
	rp_db_totals t;
	rp_profile p;
	int exact;                  /* every run it holds counted instructions (the QEMU plugin) */
	rp_db_costs costs;          /* what a flash model charged it (handler entries included) */
} rp_profile_spec;

/* Loads spec into s; RP_EUSAGE for a run after '@' that is not a number. */
int rp_profile_spec_load(rp_profile_spec *s, const char *spec, rp_err *err);
void rp_profile_spec_release(rp_profile_spec *s);
/* Whether every run of runs[0..n) that run selects (0: all) counted instructions. */
int rp_runs_all_exact(const rp_run_row *runs, size_t n, int64_t run);

/* gprof's flat profile (`gprof -b -p` columns); limit < 0: every function. */
void rp_report_flat(FILE *out, const rp_profile *p, long limit);
/* gprof's call graph (`gprof -b -q` layout); cycles are not collapsed (back arcs carry no time). */
void rp_report_callgraph(FILE *out, const rp_profile *p);
/* iprof -f: cycles, %, cum %, addr, function; addresses from img when given. */
void rp_report_addresses(FILE *out, const rp_profile *p, const rp_image *img, long limit);
/* iprof: cycles, %, cum %, image, one row per image (runs summed by build). */
void rp_report_by_image(FILE *out, const rp_run_row *runs, size_t nruns);

/* The runs stored: id, build, tool, method, rate, samples, notes. */
void rp_report_runs(FILE *out, const rp_run_row *runs, size_t n);
/* The sampled arcs, most sampled first, with the share of the callee's samples each explains
 * (at most limit rows; < 0: all). */
void rp_report_callers(FILE *out, const rp_db_totals *t, const rp_arc_total *arcs, size_t n, long limit);
/* "placement in ELF: x% of samples in code running from RAM, y% in flash, z% not in this ELF":
 * code that runs where it is not loaded was copied at boot. */
void rp_report_placement(FILE *out, const rp_db_totals *t, const rp_image *img);

/* The flash-model costs of run `run` of db_path, or of every run for 0 (c->nruns 0: no run had
 * a model); release with rp_db_costs_release. */
int rp_report_costs_load(rp_db_costs *c, const char *db_path, int64_t run, rp_err *err);
/* *stall: per p->fns[i], its stall cycles in c (malloc'ed; NULL when no run had a model). */
int rp_report_stall_per_function(uint64_t **stall, const rp_db_costs *c, const rp_profile *p, rp_err *err);
/* The model's totals over nruns runs, and the data objects read from flash (at most limit rows,
 * 0: none, < 0: all); nothing for a profile without a model. */
void rp_report_costs(FILE *out, const rp_db_costs *c, size_t nruns, long limit);
/* The measured handler entries (the plugin's entry=): per handler its invocations, worst and
 * mean stall cycles in the window after each entry; with before (another profile's costs, NULL:
 * none) each beside its value there. Nothing when no run measured an entry. */
void rp_report_entries(FILE *out, const rp_db_costs *c, const rp_db_costs *before);
/* The same beside the profile before_spec names (profile.db[@RUN], as --before takes it; NULL:
 * none). */
int rp_report_entries_before(FILE *out, const rp_db_costs *c, const char *before_spec, rp_err *err);

/* Exports (docs/report-formats.md). */
void rp_report_json(FILE *out, const rp_profile *p, const rp_run_row *runs, size_t nruns);
/* The same with more top-level members, written by more(out, arg) before "functions" (each
 * line indented two spaces and ending in ","): the budget curve (present.h). */
void rp_report_json_more(FILE *out, const rp_profile *p, const rp_run_row *runs, size_t nruns,
			 void (*more)(FILE *out, const void *arg), const void *arg);
void rp_report_callgrind(FILE *out, const rp_profile *p, const char *cmd);
void rp_report_folded(FILE *out, const rp_profile *p);

/* MicroPython's benchmark diff: old -> new : diff = diff% (+/-error%) per function and in total.
 * Error is the Poisson standard error of a sampled count (0 for exact runs: exact_old/new). */
void rp_report_diff(FILE *out, const rp_profile *old, const rp_profile *new_, int exact_old, int exact_new,
		    const char *old_name, const char *new_name, long limit);

#endif
