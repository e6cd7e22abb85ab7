/* cmd_place.c: `ramplace [place] --budget SIZE profile.db firmware.elf`: chooses the functions
 * for RAM, writes the GNU ld fragment and the plan beside it (both atomically), and prints what
 * moved. With --config ramplace.yaml: several regions (one fragment and plan each), pins,
 * closures and the cost model; command-line options override the file. A missing profile.db
 * gives empty fragments, so the very first build links. The placement is the library's
 * pipeline (pipeline.h: load, judge the profile, weigh, place, price, write); this file runs it
 * and prints: the options are place_opts.c's, the report place_output.c's, the cycles line
 * place_cycles.c's. Owns nothing beyond the place_args of one run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_stability.h"
#include "place_cycles.h"
#include "place_data.h"
#include "place_layout.h"
#include "place_opts.h"
#include "place_output.h"
#include "ramplace/config.h"
#include "ramplace/pipeline.h"
#include "ramplace/util.h"

/* What the pipeline judged of the profile: notes on stderr (also before a refusal). */
static void print_staleness(const place_args *a)
{
	const rp_pipeline *p = &a->pipe;
	const rp_staleness *st = &p->staleness;
	if (!p->assessed)
		return;
	if (st->nother)
		cli_note("ramplace: note: %s: %llu of %llu samples were recorded on %s build %.12s (%s), not on %s (%.12s); %.1f%% of the profiled samples still map",
			a->db_path, (unsigned long long)st->other_samples, (unsigned long long)p->totals.total,
			st->nother > 1 ? "another build, e.g." : "another", st->other_build_id, st->other_path,
			a->elf_path, p->img->build_id, 100.0 * p->mapped_share);
	if (st->nvanished)
		place_print_vanished(st, a);
}

/* --html: the report of this placement, from the same profile, image and map. */
static int write_html(const place_args *a, rp_err *err)
{
	const rp_pipeline *p = &a->pipe;
	double speed = a->regions && a->regions[0].speed > 0 ? a->regions[0].speed : 1.0;
	rp_html_job j = { a->html, a->db_path, 0, NULL, &p->totals, p->img, p->map, &p->placement,
			   p->opts.have_cost ? p->opts.cost.flash_fetch_cycles - 1.0 / speed : 0.0 };
	int rc = rp_pipeline_html(&j, err);
	if (!rc && !a->quiet)
		printf("wrote %s\n", a->html);
	return rc;
}

static void print_timings(const rp_pipe_times *t, const rp_placement *p, double start)
{
	fprintf(stderr, "ramplace: timings: elf %.3f map %.3f profile %.3f callgraph %.3f solve %.3f write %.3f total %.3f (seconds)\n",
		t->elf, t->map, t->profile, p->callgraph_seconds, t->place - p->callgraph_seconds, t->write,
		rp_seconds() - start);
}

static int run_place(place_args *a, rp_err *err)
{
	double start = rp_seconds();
	rp_pipeline *p = &a->pipe;
	place_opts_pipeline(a);
	int rc = rp_pipeline_run(p, err);
	print_staleness(a);
	if (!rc)
		rc = rp_pipeline_write(p, a->fragments, a->plans, err);
	if (rc)
		return rc;
	place_print_warnings(&p->placement);
	if (!a->quiet)
		place_print_report(&p->placement, a, p->have_profile);
	if (!a->quiet)
		place_cycles_print(&p->figures);
	if (p->guard.held_back)   /* even with --quiet: the user asked for a move and gets none */
		printf("cache model without a trace: the plan would save %.2f%% of the modeled cycles, less than the %.0f%% "
		       "the relink's new layout may cost in conflicts (bench/bench_models.sh): nothing moved. Record the "
		       "access trace in the same plugin run (trace=FILE) and place --trace, which prices the relinked layout\n",
		       100.0 * p->guard.share, 100.0 * p->guard.floor);
	if (!a->quiet)
		place_data_print(&p->data);
	if (!a->quiet)
		place_layout_print(&p->layout);
	if (!a->quiet && p->have_profile && p->placement.nplans)   /* how much sampling noise decides */
		cli_stability_line(stdout, p->img, &p->totals, p->placement.plans[0]->budget);
	if (a->html && p->have_profile)
		rc = write_html(a, err);
	if (a->timings)
		print_timings(&p->times, &p->placement, start);
	return rc;
}

/* The first build, before there is a profile or even the ELF this link makes: every region's
 * fragment and plan, empty (a plan made without an ELF has no build-id), and nothing read. */
static int write_first_build(place_args *a, rp_err *err)
{
	if (rp_pipeline_write_empty(&a->pipe, a->regions, a->nregions, a->fragments, a->plans, err))
		return err->code;
	for (size_t r = 0; !a->quiet && r < a->nregions; r++)
		printf("wrote %s and %s: empty, every function stays in flash (the first build)\n", a->fragments[r],
		       a->plans[r]);
	return 0;
}

/* --allow-empty while neither profile.db nor the ELF exists is the first build as well: the
 * build integrations run place before every link, the very first one included. */
static int is_first_build(const place_args *a)
{
	struct stat st;
	return a->first_build || (a->allow_empty && stat(a->db_path, &st) != 0 && stat(a->elf_path, &st) != 0);
}

int cmd_place(int argc, char **argv, rp_err *err)
{
	place_args a = PLACE_ARGS_INIT;
	int rc = place_opts_parse(&a, argc, argv, err);
	if (rc == 0)
		rc = place_opts_apply_config(&a, err);
	if (rc == 0 && is_first_build(&a))
		rc = write_first_build(&a, err);
	else if (rc == 0 && !a.have_budget && !a.config_path)   /* --allow-empty put off asking */
		rc = cli_usage_error(err, "place", "--budget (or --config with regions) is required");
	else if (rc == 0)
		rc = run_place(&a, err);
	place_opts_release(&a);
	return rc > 0 ? 0 : rc;
}
