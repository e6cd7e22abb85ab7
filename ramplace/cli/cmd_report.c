/* cmd_report.c: `ramplace report profile.db`: the profile summed over every run (or one run)
 * in gprof's flat and call-graph layouts, iprof's per-image and per-address tables, exports
 * (JSON, callgrind, folded stacks), and with --elf the placement view: the share of samples in
 * code that runs from RAM (sections loaded elsewhere than they run); with --callers the sampled
 * caller->callee arcs (from the return address taken with each sample); with --html and
 * --budget-curve the decision: the placement `place` makes (the same options, the library's
 * pipeline), its budget curve, and the one-page HTML report (rp_pipeline_html). Formatting is
 * report.c's and present.h's. */
#include <getopt.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "ramplace/stability_text.h"
#include "place_opts.h"
#include "ramplace/image.h"
#include "ramplace/present.h"
#include "ramplace/profiledb.h"
#include "ramplace/report.h"
#include "ramplace/util.h"

static const char usage[] =
	"usage: ramplace report [options] profile.db\n"
	"\n"
	"Prints the flat profile of all runs (or of --run N) in gprof's layout: % time, cumulative\n"
	"and self seconds (samples when no sampling rate is known), calls where gmon.out's arcs\n"
	"count them (\"arcs\" where record sampled them: return addresses, not calls). As gprof\n"
	"does, samples in code where no function is (the PLT) count to the function below them.\n"
	"  -n, --limit N    print at most N functions (default: all)\n"
	"  -r, --run N      only run N (see --runs)\n"
	"  -q, --graph      also print the call graph in gprof's layout (needs arcs)\n"
	"  -c, --callers    also print the sampled caller -> callee arcs, with the share of the\n"
	"                   callee's samples each explains\n"
	"  -a, --addresses  iprof's per-function table: cycles, %, cum %, addr, function\n"
	"  -i, --by-image   iprof's per-image table: cycles, %, cum %, image\n"
	"      --runs       list the runs: id, build, tool, method, rate, samples, notes\n"
	"  -e, --elf FILE   also show where the sampled functions sit in FILE: code that runs\n"
	"                   from RAM (loaded from flash, copied at boot) versus flash; with\n"
	"                   --addresses, the addresses come from FILE\n"
	"      --json FILE        write the profile as JSON (docs/report-formats.md; - is stdout)\n"
	"      --callgrind FILE   write it in callgrind format, for KCacheGrind\n"
	"      --folded FILE      write folded stacks (caller;callee count), for flamegraph.pl\n"
	"      --stability  how stable the placement from this profile is (bootstrap resampling,\n"
	"                   docs/sampling.md): per budget of 1-16 KiB, or in detail at --budget;\n"
	"                   the sizes come from --elf (default: the ELF of the newest run)\n"
	"  -b, --budget SIZE  the budget of --stability's detail (bytes, or with K/KiB/M); and of the\n"
	"                   placement --html and --budget-curve show, as 'place --budget' (default:\n"
	"                   the free RAM, with --map); with --elf, --json then adds the curve\n"
	"      --html FILE  write the decision as one self-contained HTML page: the budget curve,\n"
	"                   the RAM and flash maps, the hot functions, a flame graph of the arcs,\n"
	"                   the before/after and the run (needs --elf)\n"
	"      --budget-curve  print the budget curve: what the exact knapsack moves at every budget\n"
	"                   step from 0 to the free RAM (needs --elf)\n"
	"  -m, --map FILE   GNU ld map of the ELF, as for place (memory regions, exact sections)\n"
	"      --config FILE  ramplace.yaml, as for place\n"
	"      --before OLD.db  the before/after against OLD.db[@RUN]: with --html its table, in the text\n"
	"                   report the interrupt handlers' entry stalls\n";

typedef struct report_args {
	long limit;
	int64_t run;
	int graph, callers, addresses, by_image, runs, stability;
	uint64_t budget;          /* --budget for --stability's detail; 0: every usual budget */
	const char *elf_path, *json, *callgrind, *folded;
	const char *html, *before, *map_path, *config_path, *db_path;
	int budget_curve;
} report_args;

/* The decision --html, --budget-curve and --json with --budget show: the placement `place`
 * makes from the same options (place_opts.c, the library's pipeline), its figures and curve. */
typedef struct decision {
	place_args pa;
	rp_curve curve;
	double cycles_per_sample;
	int have;
} decision;

static int wants_decision(const report_args *a)
{
	return a->html || a->budget_curve || (a->json && a->elf_path && (a->budget || a->config_path));
}

static int decide(decision *d, const report_args *a, rp_err *err)
{
	if (!a->elf_path)
		return cli_usage_error(err, "report", "--html and --budget-curve need --elf FILE");
	place_args *pa = &d->pa;
	pa->db_path = a->db_path;
	pa->elf_path = a->elf_path;
	pa->map_path = a->map_path;
	pa->config_path = a->config_path;
	if (a->budget) {
		pa->pipe.opts.budget = a->budget;
		pa->have_budget = 1;
	} else if (!a->config_path) {
		if (!a->map_path)
			return cli_usage_error(err, "report", "--html and --budget-curve need --budget (or --map for the free RAM, or --config)");
		pa->have_budget = pa->budget_auto = 1;
	}
	pa->pipe.run = a->run;
	pa->pipe.force = 1;   /* a view of the profile, stale or not: place says how stale */
	int rc = place_opts_apply_config(pa, err);
	if (!rc) {
		place_opts_pipeline(pa);
		rc = rp_pipeline_run(&pa->pipe, err);
	}
	if (rc)
		return rc;
	const rp_pipeline *p = &pa->pipe;
	double speed = pa->regions && pa->regions[0].speed > 0 ? pa->regions[0].speed : 1.0;
	d->cycles_per_sample = p->opts.have_cost ? p->opts.cost.flash_fetch_cycles - 1.0 / speed : 0.0;
	d->have = 1;
	return p->placement.nplans ? rp_pipe_curve(&d->curve, p->img, p->map, &p->placement, err) : 0;
}

static void decision_release(decision *d)
{
	rp_curve_release(&d->curve);
	place_opts_release(&d->pa);
}

static int show_decision(const report_args *a, const decision *d, rp_err *err)
{
	const rp_pipeline *p = &d->pa.pipe;
	uint64_t budget = p->placement.nplans ? p->placement.plan->budget : 0;
	if (a->budget_curve)
		rp_present_curve_text(stdout, &d->curve, p->weights->total, budget, d->cycles_per_sample);
	if (!a->html)
		return 0;
	rp_html_job j = { a->html, a->db_path, a->run, a->before, &p->totals,
			   p->img, p->map, &p->placement, d->cycles_per_sample };
	int rc = rp_pipeline_html(&j, err);
	if (!rc)
		printf("wrote %s\n", a->html);
	return rc;
}

/* --stability: needs the sizes of an ELF, --elf or the one the newest run was taken on. */
static int print_stability(const report_args *a, const rp_db_totals *t, const rp_run_row *runs, size_t nruns,
			   rp_err *err)
{
	const char *path = a->elf_path ? a->elf_path : nruns ? runs[nruns - 1].image_path : NULL;
	rp_image *img = NULL;
	if (!path)
		return rp_err_set(err, RP_EUSAGE, "report --stability: no run names its ELF; pass --elf");
	int rc = rp_image_load(&img, path, err);
	if (!rc)
		rc = rp_stab_text_report(stdout, img, t, a->budget, a->limit, err);
	rp_image_free(img);
	return rc;
}

/* The RAM/flash split of the samples in the ELF at elf_path (rp_report_placement). */
static int report_placement(const rp_db_totals *t, const char *elf_path, rp_err *err)
{
	rp_image *img;
	int rc = rp_image_load(&img, elf_path, err);
	if (!rc)
		rp_report_placement(stdout, t, img);
	rp_image_free(img);
	return rc;
}

/* with a decision, the JSON export carries its budget curve */
static const rp_curve_json *json_curve;

static int exports(const report_args *a, const rp_profile *p, const rp_run_row *runs, size_t nruns, rp_err *err)
{
	int rc = 0;
	if (!rc && a->json)
		rc = rp_present_export(a->json, RP_EXPORT_JSON, p, runs, nruns, json_curve, err);
	if (!rc && a->callgrind)
		rc = rp_present_export(a->callgrind, RP_EXPORT_CALLGRIND, p, runs, nruns, NULL, err);
	if (!rc && a->folded)
		rc = rp_present_export(a->folded, RP_EXPORT_FOLDED, p, runs, nruns, NULL, err);
	return rc;
}

/* The text report: the flat profile with each function's stall cycles, the call graph and
 * callers when asked, the placement against --elf, the model's totals and the handler entries. */
static int print_text(const report_args *a, const rp_db_totals *t, const rp_arc_total *arcs, size_t narcs,
		      const rp_run_row *runs, size_t nruns, rp_profile *p, const rp_db_costs *costs, rp_err *err)
{
	int rc = 0;
	p->exact = nruns > 0 && rp_runs_all_exact(runs, nruns, 0);
	printf("Flat profile: %llu samples in %zu run(s) on %zu build(s)\n", (unsigned long long)t->taken_count,
	       t->nruns, t->nimages);
	rp_report_flat(stdout, p, a->limit);
	if (a->graph)
		rp_report_callgraph(stdout, p);
	if (a->callers)
		rp_report_callers(stdout, t, arcs, narcs, a->limit);
	if (a->elf_path)
		rc = report_placement(t, a->elf_path, err);
	if (!rc)   /* the model's totals and the data it charged */
		rp_report_costs(stdout, costs, t->nruns, a->limit);
	return rc ? rc : rp_report_entries_before(stdout, costs, a->before, err);
}

/* Whether an export or the budget curve takes standard output (the text report then does not). */
static int stdout_taken(const report_args *a)
{
	return (a->json && !strcmp(a->json, "-")) || (a->callgrind && !strcmp(a->callgrind, "-")) ||
	       (a->folded && !strcmp(a->folded, "-")) || a->budget_curve;
}

static int print_report(const report_args *a, const rp_db_totals *t, const rp_arc_total *arcs, size_t narcs,
			const rp_run_row *runs, size_t nruns, rp_err *err)
{
	rp_profile p;
	rp_image *img = NULL;
	rp_db_costs costs = { 0 };
	uint64_t *stall = NULL;
	int rc = rp_profile_build(&p, t, arcs, narcs, err);
	if (rc)
		return rc;
	int to_stdout = stdout_taken(a) || a->html;
	if (a->stability) {
		rc = print_stability(a, t, runs, nruns, err);
	} else if (a->runs) {
		rp_report_runs(stdout, runs, nruns);
	} else if (a->by_image) {
		rp_report_by_image(stdout, runs, nruns);
	} else if (a->addresses) {
		if (a->elf_path && (rc = rp_image_load(&img, a->elf_path, err)))
			goto out;
		rp_report_addresses(stdout, &p, img, a->limit);
	} else {
		/* the model's figures go into the text and into the JSON export alike */
		if ((rc = rp_report_costs_load(&costs, a->db_path, a->run, err)) ||
		    (rc = rp_report_stall_per_function(&stall, &costs, &p, err)))
			goto out;
		p.entries = costs.entries;
		p.nentries = costs.nentries;
		if (!to_stdout) {
			p.stall = stall;
			rc = print_text(a, t, arcs, narcs, runs, nruns, &p, &costs, err);
		}
	}
	if (!rc)
		rc = exports(a, &p, runs, nruns, err);
out:
	free(stall);
	rp_db_costs_release(&costs);
	rp_image_free(img);
	rp_profile_release(&p);
	return rc;
}

static int parse_args(report_args *a, int argc, char **argv, rp_err *err)
{
	static const struct option longopts[] = {
		{ "limit", required_argument, NULL, 'n' }, { "elf", required_argument, NULL, 'e' },
		{ "run", required_argument, NULL, 'r' },   { "graph", no_argument, NULL, 'q' },
		{ "callers", no_argument, NULL, 'c' },
		{ "addresses", no_argument, NULL, 'a' },   { "by-image", no_argument, NULL, 'i' },
		{ "runs", no_argument, NULL, 'R' },        { "json", required_argument, NULL, 'J' },
		{ "callgrind", required_argument, NULL, 'C' }, { "folded", required_argument, NULL, 'F' },
		{ "stability", no_argument, NULL, 'S' },   { "budget", required_argument, NULL, 'b' },
		{ "html", required_argument, NULL, 'H' },  { "budget-curve", no_argument, NULL, 'K' },
		{ "map", required_argument, NULL, 'm' },   { "config", required_argument, NULL, 'G' },
		{ "before", required_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },        { NULL, 0, NULL, 0 }
	};
	int c;
	char *end;
	memset(a, 0, sizeof(*a));
	a->limit = -1;
	while ((c = getopt_long(argc, argv, "n:e:r:b:m:qcaih", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			a->limit = strtol(optarg, &end, 10);
			if (*end || a->limit < 0)
				return cli_usage_error(err, "report", "--limit takes a number");
			break;
		case 'r':
			a->run = strtoll(optarg, &end, 10);
			if (*end || a->run <= 0)
				return cli_usage_error(err, "report", "--run takes a run number");
			break;
		case 'e': a->elf_path = optarg; break;
		case 'q': a->graph = 1; break;
		case 'c': a->callers = 1; break;
		case 'a': a->addresses = 1; break;
		case 'i': a->by_image = 1; break;
		case 'R': a->runs = 1; break;
		case 'J': a->json = optarg; break;
		case 'C': a->callgrind = optarg; break;
		case 'F': a->folded = optarg; break;
		case 'S': a->stability = 1; break;
		case 'H': a->html = optarg; break;
		case 'K': a->budget_curve = 1; break;
		case 'm': a->map_path = optarg; break;
		case 'G': a->config_path = optarg; break;
		case 'O': a->before = optarg; break;
		case 'b':
			if (rp_parse_size(&a->budget, optarg, "--budget", err))
				return err->code = RP_EUSAGE;
			if (!a->budget)
				return cli_usage_error(err, "report", "--budget must be more than 0");
			break;
		case 'h': return 1;
		default: return cli_usage_error(err, "report", "unknown option");
		}
	}
	if (argc - optind != 1)
		return cli_usage_error(err, "report", "expects profile.db");
	if (a->budget && !a->stability && !a->html && !a->budget_curve && !a->json)
		return cli_usage_error(err, "report", "--budget goes with --stability, --html, --budget-curve or --json");
	if (a->before && !a->html && (a->stability || a->runs || a->by_image || a->addresses || stdout_taken(a)))
		return cli_usage_error(err, "report", "--before goes with --html or the text report");
	a->db_path = argv[optind];
	return 0;
}

int cmd_report(int argc, char **argv, rp_err *err)
{
	report_args a;
	int rc = parse_args(&a, argc, argv, err);
	if (rc)
		return rc > 0 ? (fputs(usage, stdout) < 0 ? RP_EIO : 0) : rc;
	rp_db *db;
	rp_db_totals t;
	rp_arc_total *arcs = NULL;
	rp_run_row *runs = NULL;
	size_t narcs = 0, nruns = 0;
	if ((rc = rp_db_open_existing(&db, argv[optind], err)))
		return rc;
	rc = rp_db_totals_load_run(db, a.run, &t, err);
	if (!rc && (rc = rp_db_arcs_load_run(db, a.run, &arcs, &narcs, err)))
		rp_db_totals_release(&t);
	if (!rc && (rc = rp_db_runs_load(db, &runs, &nruns, err))) {
		rp_db_totals_release(&t);
		rp_arc_totals_free(arcs, narcs);
	}
	rp_db_close(db);
	if (rc)
		return rc;
	decision d = { .pa = PLACE_ARGS_INIT };
	rp_curve_json cj = { 0 };
	if (wants_decision(&a) && !(rc = decide(&d, &a, err)) && d.curve.npoints) {
		const rp_pipeline *p = &d.pa.pipe;
		cj = (rp_curve_json){ &d.curve, p->weights->total, p->placement.plan->budget, p->placement.plan->moved_samples,
				      d.cycles_per_sample, p->placement.plan };
		json_curve = &cj;
	}
	if (!rc)
		rc = print_report(&a, &t, arcs, narcs, runs, nruns, err);
	if (!rc && d.have)
		rc = show_decision(&a, &d, err);
	json_curve = NULL;
	decision_release(&d);
	rp_run_rows_free(runs, nruns);
	rp_arc_totals_free(arcs, narcs);
	rp_db_totals_release(&t);
	return rc;
}
