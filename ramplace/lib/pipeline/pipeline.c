/* pipeline.c: one placement from files to a result (pipeline.h): loads the ELF, the map and
 * profile.db, judges how stale the profile is, makes the weights (pipe_cycles.c), places code
 * and data (pipe_data.c), and prices the plan; rp_pipeline_write writes what it chose. Owns the
 * image, map, profile and placement of one run; decides, never prints. Workload: one ELF of up
 * to a few thousand functions and one profile.db, once per build. */
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ramplace/ldgen/ldgen.h"
#include "pipeline_internal.h"
#include "ramplace/util.h"

/* No profile.db yet is an error (a mistyped path must not pass as a first build with nothing
 * moved) unless allow_empty says this is the first build: then nothing is placed. An existing
 * but empty one is an error either way. */
static int load_profile(rp_pipeline *p, rp_err *err)
{
	struct stat st;
	rp_db *db;
	if (stat(p->db_path, &st) != 0) {
		if (p->allow_empty)
			return 0;
		return rp_err_set(err, RP_EINPUT, "%s: no such profile; make one with 'ramplace record' or 'ramplace import' "
				  "(--allow-empty writes empty fragments instead, for a first build)", p->db_path);
	}
	int rc = rp_db_open_existing(&db, p->db_path, err);
	if (rc)
		return rc;
	rc = p->run > 0 ? rp_db_totals_load_run(db, p->run, &p->totals, err)
			: rp_db_totals_load_weighted(db, p->weighting_equal, &p->totals, err);
	if (!rc)
		rc = rp_db_images_load(db, &p->images, &p->nimages, err);
	if (!rc)   /* before the arcs: placing in cycles turns the cost model on */
		rc = pipe_cycles_load(&p->cycles, db, p->run, &p->opts, err);
	if (!rc && p->opts.have_cost)
		rc = rp_db_arcs_load_run(db, p->run, &p->arcs, &p->narcs, err);
	p->opts.arcs = p->arcs;
	p->opts.narcs = p->narcs;
	rp_db_close(db);
	if (rc)
		return rc;
	if (p->totals.total == 0)
		return rp_err_set(err, RP_EINPUT, "%s: the profile holds no samples; run 'ramplace record' or 'ramplace import' first",
				  p->db_path);
	p->have_profile = 1;
	return 0;
}

/* How stale the profile is; refuses, unless force, when too little of it maps. */
static int assess_profile(rp_pipeline *p, rp_err *err)
{
	int rc = rp_staleness_assess(&p->staleness, p->img, p->images, p->nimages, &p->totals, err);
	if (rc)
		return rc;
	p->assessed = 1;
	p->mapped_share = rp_staleness_mapped_share(&p->staleness);
	if (p->mapped_share < p->min_mapped && !p->force)
		return rp_err_set(err, RP_EINPUT, "%s: only %.1f%% of %llu profiled samples map to functions of %s (--min-mapped %.0f%%): the profile is stale; record it again on this build, or pass --force",
				  p->db_path, 100.0 * p->mapped_share, (unsigned long long)p->staleness.profiled, p->elf_path,
				  100.0 * p->min_mapped);
	return 0;
}

/* The names of Arm functions that share their address with another name (an alias, a --wrap
 * twin): GNU ld makes a veneer per name called, which the objects' relocations tell (rp_map_ref). */
static int want_alias_refs(rp_pipeline *p, rp_err *err)
{
	const rp_image *img = p->img;
	if (img->machine != EM_ARM || !img->nfuncs)
		return 0;
	const char **names = malloc(img->nfuncs * sizeof(*names));
	if (!names)
		return rp_err_nomem(err, "listing aliased functions");
	size_t n = 0;
	for (size_t i = 0, end; i < img->nfuncs; i = end) {
		for (end = i + 1; end < img->nfuncs && img->funcs[end].addr == img->funcs[i].addr; end++)
			;
		for (size_t k = i; end - i > 1 && k < end; k++)
			names[n++] = img->funcs[k].name;
	}
	int rc = n ? rp_map_want_refs(p->map, names, n, err) : 0;
	free(names);
	return rc;
}

static int load_image_and_map(rp_pipeline *p, rp_err *err)
{
	double t0 = rp_seconds();
	int rc = rp_image_load(&p->img, p->elf_path, err);
	p->times.elf = rp_seconds() - t0;
	/* ESP-IDF's first chips: their windowed-register calls and literal pools are not decoded,
	 * so no call graph, veneer or reset path could be trusted; said plainly, not half done */
	if (!rc && p->img->machine == EM_XTENSA)
		rc = rp_err_set(err, RP_EINPUT, "%s: Xtensa (ESP32, ESP32-S2, ESP32-S3) is not supported yet: ramplace places "
				"code for Arm Cortex-M and RISC-V (ESP32-C3, C6 and H2 are RISC-V)", p->elf_path);
	t0 = rp_seconds();
	if (!rc && p->linker >= 0)
		rp_image_use_linker(p->img, p->linker);
	if (!rc && p->map_path)
		rc = rp_map_load(&p->map, p->map_path, err);
	if (!rc && p->map && p->map->from_lld && p->linker < 0)   /* the map says who linked, as .comment does */
		rp_image_use_linker(p->img, 1);
	/* RVC packs at 2 bytes; elsewhere an unreadable object is assumed at the --align floor */
	if (!rc && p->map)
		rc = want_alias_refs(p, err);
	if (!rc && p->map)
		rc = rp_map_read_alignments(p->map, p->img->machine == EM_RISCV ? 2 : p->opts.align, err);
	p->times.map = rp_seconds() - t0;
	return rc;
}

static uint64_t whole_cycles(double c)
{
	return c > 0 && c < 1.8e19 ? (uint64_t)(c + 0.5) : 0;
}

/* Each plan records the modeled cycles place prints, so that check --profile, reading the plan
 * after the relink, predicts what place said rather than a figure of its own. */
static int record_figures(rp_pipeline *p, rp_err *err)
{
	const rp_pipe_figures *f = &p->figures;
	for (size_t r = 0; f->have && r < p->placement.nplans; r++) {
		rp_plan *plan = p->placement.plans[r];
		if (rp_strdup(&plan->modeled_model, f->name, err))
			return err->code;
		plan->modeled_before = whole_cycles(f->before);
		plan->modeled_after = whole_cycles(f->after);
		if (plan->modeled_after > plan->modeled_before)
			plan->modeled_after = plan->modeled_before;
	}
	return 0;
}

int rp_pipeline_run(rp_pipeline *p, rp_err *err)
{
	int rc = load_image_and_map(p, err);
	double t0 = rp_seconds();
	if (!rc)
		rc = load_profile(p, err);
	if (!rc && p->have_profile)
		rc = rp_db_totals_bind(&p->totals, p->img, err);
	if (!rc && p->have_profile)
		rc = assess_profile(p, err);
	p->times.profile = rp_seconds() - t0;
	t0 = rp_seconds();
	p->data.db_path = p->db_path;       /* the data side reads its flash reads per object */
	p->data.run = p->run;               /* of the same runs */
	p->data.cycles = &p->cycles;        /* and weighs them in cycles when the code is */
	p->cycles.map = p->map;             /* ranged models name MEMORY regions of the map */
	p->data.samples = &p->totals;       /* its proxy counts samples, whatever the code weighs in */
	p->weights = &p->totals;
	if (!rc && p->have_profile)
		rc = pipe_cycles_totals(&p->cycles, p->img, &p->totals, &p->weights, err);
	if (!rc)
		rc = pipe_data_place(&p->data, p->first_fragment, p->img, p->map, p->have_profile ? p->weights : NULL,
				     &p->opts, &p->placement, err);
	if (!rc)
		rc = pipe_cache_guard(p, err);
	if (!rc)
		rc = pipe_layout_run(p, err);
	if (!rc && p->have_profile) {
		pipe_cycles_figures(&p->cycles, &p->placement, &p->opts, &p->figures);
		pipe_layout_figures(p, &p->figures);
	}
	if (!rc)
		rc = record_figures(p, err);
	p->times.place = rp_seconds() - t0;
	return rc;
}

int rp_pipeline_write(rp_pipeline *p, char *const *fragments, char *const *plans, rp_err *err)
{
	double t0 = rp_seconds();
	const rp_placement *pl = &p->placement;
	int rc = 0;
	for (size_t r = 0; !rc && r < pl->nplans; r++)
		if (rp_ldgen_gnu_write(pl->plans[r], fragments[r], err) || rp_plan_write(pl->plans[r], plans[r], err))
			rc = err->code;
	if (!rc)
		rc = pipe_data_write(&p->data, err);
	if (!rc && pl->nplans)
		rc = pipe_layout_write(p, fragments[0], err);
	p->times.write = rp_seconds() - t0;
	return rc;
}

int rp_pipeline_write_empty(rp_pipeline *p, const rp_region_cfg *regions, size_t nregions, char *const *fragments,
			    char *const *plans, rp_err *err)
{
	for (size_t r = 0; r < nregions; r++) {
		const rp_region_cfg *rg = &regions[r];
		rp_plan empty = { .outsec = rg->outsec ? rg->outsec : ".ramtext", .budget = rg->budget, .align = rg->align };
		if (rp_ldgen_gnu_write(&empty, fragments[r], err) || rp_plan_write(&empty, plans[r], err))
			return err->code;
	}
	return pipe_data_write_empty(&p->data, fragments[0], err);
}

void rp_pipeline_release(rp_pipeline *p)
{
	rp_placement_release(&p->placement);
	if (p->assessed)
		rp_staleness_release(&p->staleness);
	rp_db_totals_release(&p->totals);
	rp_db_images_free(p->images, p->nimages);
	rp_arc_totals_free(p->arcs, p->narcs);
	rp_map_free(p->map);
	rp_image_free(p->img);
	pipe_data_release(&p->data);
	pipe_layout_release(&p->layout);
	pipe_cycles_release(&p->cycles);
	p->assessed = p->have_profile = 0;
	p->img = NULL;
	p->map = NULL;
	p->images = NULL;
	p->arcs = NULL;
	p->nimages = p->narcs = 0;
}
