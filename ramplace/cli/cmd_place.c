/* cmd_place.c: `ramplace [place] --budget SIZE profile.db firmware.elf`: chooses the functions
 * for RAM, writes the GNU ld fragment and the plan beside it (both atomically), and prints what
 * moved. With --config ramplace.yaml: several regions (one fragment and plan each), pins,
 * closures and the cost model; command-line options override the file. A missing profile.db
 * gives empty fragments, so the very first build links. This file is the driver: it loads the
 * ELF, the map and the profile, checks how stale the profile is, places, writes and times the
 * stages; the options are place_opts.c's, the printed report place_output.c's. Owns the image,
 * map, profile and placement of one run. The workload: one ELF of up to a few thousand
 * functions and one profile.db, once per build. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_html.h"
#include "cli_stability.h"
#include "ldgen.h"
#include "place_cycles.h"
#include "place_data.h"
#include "place_opts.h"
#include "place_output.h"
#include "ramplace/config.h"
#include "ramplace/placement.h"
#include "ramplace/staleness.h"
#include "ramplace/util.h"

/* What profile.db holds, when it exists. */
typedef struct profile {
	rp_db_totals totals;
	rp_arc_total *arcs;       /* with a cost model: sampled arcs, for crossing costs */
	size_t narcs;
	rp_db_image *images;
	size_t nimages;
	int have;
} profile;

/* No profile.db yet is an error (a mistyped path must not pass as a first build with nothing
 * moved) unless --allow-empty says this is the first build: then nothing is placed. An existing
 * but empty one is an error either way. */
static int load_profile(place_args *a, profile *pr, rp_err *err)
{
	struct stat st;
	rp_db *db;
	if (stat(a->db_path, &st) != 0) {
		if (a->allow_empty)
			return 0;
		return rp_err_set(err, RP_EINPUT, "%s: no such profile; make one with 'ramplace record' or 'ramplace import' "
				  "(--allow-empty writes empty fragments instead, for a first build)", a->db_path);
	}
	int rc = rp_db_open_existing(&db, a->db_path, err);
	if (rc)
		return rc;
	rc = rp_db_totals_load_weighted(db, a->cfg && a->cfg->weighting == RP_WEIGHT_EQUAL, &pr->totals, err);
	if (!rc)
		rc = rp_db_images_load(db, &pr->images, &pr->nimages, err);
	if (!rc)   /* before the arcs: placing in cycles turns the cost model on */
		rc = place_cycles_load(&a->cycles, db, &a->opts, err);
	if (!rc && a->opts.have_cost)
		rc = rp_db_arcs_load(db, &pr->arcs, &pr->narcs, err);
	a->opts.arcs = pr->arcs;
	a->opts.narcs = pr->narcs;
	rp_db_close(db);
	if (rc)
		return rc;
	if (pr->totals.total == 0)
		return rp_err_set(err, RP_EINPUT, "%s: the profile holds no samples; run 'ramplace record' or 'ramplace import' first",
				  a->db_path);
	pr->have = 1;
	return 0;
}

static void profile_release(profile *pr)
{
	rp_db_totals_release(&pr->totals);
	rp_db_images_free(pr->images, pr->nimages);
	rp_arc_totals_free(pr->arcs, pr->narcs);
}

/* Says how stale the profile is and refuses, unless --force, when too little of it maps. */
static int assess_profile(const place_args *a, const rp_image *img, const profile *pr, rp_err *err)
{
	rp_staleness st;
	int rc = rp_staleness_assess(&st, img, pr->images, pr->nimages, &pr->totals, err);
	if (rc)
		return rc;
	double share = rp_staleness_mapped_share(&st);
	if (st.nother)
		cli_note("ramplace: note: %s: %llu of %llu samples were recorded on %s build %.12s (%s), not on %s (%.12s); %.1f%% of the profiled samples still map",
			a->db_path, (unsigned long long)st.other_samples, (unsigned long long)pr->totals.total,
			st.nother > 1 ? "another build, e.g." : "another", st.other_build_id, st.other_path,
			a->elf_path, img->build_id, 100.0 * share);
	if (st.nvanished)
		place_print_vanished(&st, a);
	if (share < a->min_mapped && !a->force)
		rc = rp_err_set(err, RP_EINPUT, "%s: only %.1f%% of %llu profiled samples map to functions of %s (--min-mapped %.0f%%): the profile is stale; record it again on this build, or pass --force",
				a->db_path, 100.0 * share, (unsigned long long)st.profiled, a->elf_path,
				100.0 * a->min_mapped);
	rp_staleness_release(&st);
	return rc;
}

static int write_outputs(const rp_placement *p, const place_args *a, rp_err *err)
{
	for (size_t r = 0; r < p->nplans; r++)
		if (rp_ldgen_gnu_write(p->plans[r], a->fragments[r], err) || rp_plan_write(p->plans[r], a->plans[r], err))
			return err->code;
	return 0;
}

/* --html: the report of this placement, from the same profile, image and map. */
static int write_html(const place_args *a, const rp_image *img, const rp_map *map, const profile *pr,
		      const rp_placement *p, rp_err *err)
{
	double speed = a->regions && a->regions[0].speed > 0 ? a->regions[0].speed : 1.0;
	cli_html_job j = { a->html, a->db_path, 0, NULL, &pr->totals, img, map, p,
			   a->opts.have_cost ? a->opts.cost.flash_fetch_cycles - 1.0 / speed : 0.0 };
	int rc = cli_html_write(&j, err);
	if (!rc && !a->quiet)
		printf("wrote %s\n", a->html);
	return rc;
}

/* --timings: seconds per stage; lap() closes the stage running since the last lap. */
typedef struct stage_times {
	double start, mark, elf, map, profile, place, write;
} stage_times;

static double lap(stage_times *t)
{
	double now = rp_seconds(), d = now - t->mark;
	t->mark = now;
	return d;
}

static void print_timings(const stage_times *t, const rp_placement *p)
{
	fprintf(stderr, "ramplace: timings: elf %.3f map %.3f profile %.3f callgraph %.3f solve %.3f write %.3f total %.3f (seconds)\n",
		t->elf, t->map, t->profile, p->callgraph_seconds, t->place - p->callgraph_seconds, t->write,
		rp_seconds() - t->start);
}

static int run_place(place_args *a, rp_err *err)
{
	rp_image *img = NULL;
	rp_map *map = NULL;
	profile pr = { .have = 0 };
	rp_placement placement = { 0 };
	stage_times tm = { .start = rp_seconds() };
	tm.mark = tm.start;
	int rc = rp_image_load(&img, a->elf_path, err);
	tm.elf = lap(&tm);
	if (!rc && a->linker >= 0)
		rp_image_use_linker(img, a->linker);
	if (!rc && a->map_path)
		rc = rp_map_load(&map, a->map_path, err);
	if (!rc && map && map->from_lld && a->linker < 0)   /* the map says who linked, as .comment does */
		rp_image_use_linker(img, 1);
	/* RVC packs at 2 bytes; elsewhere an unreadable object is assumed at the --align floor */
	if (!rc && map)
		rc = rp_map_read_alignments(map, img->machine == EM_RISCV ? 2 : a->opts.align, err);
	tm.map = lap(&tm);
	if (!rc)
		rc = load_profile(a, &pr, err);
	if (!rc && pr.have)
		rc = assess_profile(a, img, &pr, err);
	tm.profile = lap(&tm);
	a->data.db_path = a->db_path;   /* the data side reads its flash reads per object */
	a->data.cycles = &a->cycles;    /* and weighs them in cycles when the code is */
	a->cycles.map = map;            /* cost.flash / --flash-model SPEC@MEMORY name MEMORY regions */
	a->data.samples = &pr.totals;   /* its proxy counts samples, whatever the code weighs in */
	const rp_db_totals *weights = &pr.totals;   /* samples, or cycles under a flash model */
	if (!rc && pr.have)
		rc = place_cycles_totals(&a->cycles, img, &pr.totals, &weights, err);
	if (!rc)
		rc = place_data_place(&a->data, a->fragments[0], img, map, pr.have ? weights : NULL, &a->opts, &placement, err);
	tm.place = lap(&tm);
	if (!rc)
		rc = write_outputs(&placement, a, err);
	if (!rc)
		rc = place_data_write(&a->data, err);
	tm.write = lap(&tm);
	if (!rc) {
		place_print_warnings(&placement);
		if (!a->quiet)
			place_print_report(&placement, a, pr.have);
		if (!a->quiet && pr.have)
			place_cycles_print(&a->cycles, &placement, &a->opts);
		if (!a->quiet)
			place_data_print(&a->data);
		if (!a->quiet && pr.have && placement.nplans)   /* how much sampling noise decides */
			cli_stability_line(stdout, img, &pr.totals, placement.plans[0]->budget);
		if (a->html && pr.have)
			rc = write_html(a, img, map, &pr, &placement, err);
		if (a->timings)
			print_timings(&tm, &placement);
	}
	rp_placement_release(&placement);
	profile_release(&pr);
	rp_map_free(map);
	rp_image_free(img);
	return rc;
}

/* The first build, before there is a profile or even the ELF this link makes: every region's
 * fragment and plan, empty (a plan made without an ELF has no build-id), and nothing read. */
static int write_first_build(place_args *a, rp_err *err)
{
	for (size_t r = 0; r < a->nregions; r++) {
		const rp_region_cfg *rg = &a->regions[r];
		rp_plan empty = { .outsec = rg->outsec ? rg->outsec : ".ramtext", .budget = rg->budget,
				  .align = rg->align };
		if (rp_ldgen_gnu_write(&empty, a->fragments[r], err) || rp_plan_write(&empty, a->plans[r], err))
			return err->code;
		if (!a->quiet)
			printf("wrote %s and %s: empty, every function stays in flash (the first build)\n",
			       a->fragments[r], a->plans[r]);
	}
	return place_data_write_empty(&a->data, a->fragments[0], err);
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
