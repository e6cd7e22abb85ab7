/* pipe_guard.c: never slower than flash under a cache, by default (issue 37 item 7). Under a
 * cache or a flash accelerator, a placement made without the access trace is priced in the
 * layout that was profiled, and the relink does not keep it: every function left in flash
 * moves, veneers appear, and the conflicts change. bench/bench_models.sh measured relinks that
 * way up to 0.5 % slower than flash only where the model promised a little (an RP2040's 16 KiB
 * cache holding the hot code) and 2.6 % behind placement by instructions where it promised 11 %.
 * So without --trace, under such a model, a plan must promise more than GUARD_SHARE of the
 * modeled cycles, or nothing moves; `place` says which, and that --trace prices the relinked
 * layout itself. Owns nothing beyond the placement it may replace. Workload: once per place. */
#include <string.h>

#include "pipeline_internal.h"

/* What a relink's new conflicts took on the benchmark, rounded up: below it a plan's modeled
 * gain is within the noise of the layout change it causes. */
#define GUARD_SHARE 0.03

static int layout_sensitive(const rp_fm_map *m)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->r[i].cfg.kind == RP_FM_CACHE || m->r[i].cfg.kind == RP_FM_ART)
			return 1;
	return 0;
}

static int moves_anything(const rp_placement *pl)
{
	for (size_t r = 0; r < pl->nplans; r++)
		if (pl->plans[r]->nunits)
			return 1;
	return 0;
}

int pipe_cache_guard(rp_pipeline *p, rp_err *err)
{
	const rp_place_opts *o = &p->opts;
	memset(&p->guard, 0, sizeof(p->guard));
	if (p->layout.trace_path || !p->have_profile || !p->cycles.prepared || !p->cycles.weigh_cycles ||
	    !layout_sensitive(&p->cycles.cy.models) || p->data.enabled || o->npin || o->nclosure || o->nhandlers ||
	    o->all_handlers || o->nregions > 1 || !moves_anything(&p->placement))
		return 0;
	rp_pipe_figures f;
	pipe_cycles_figures(&p->cycles, &p->placement, o, &f);
	if (!f.have || f.before <= 0)
		return 0;
	p->guard.share = (f.before - f.after) / f.before;
	p->guard.floor = GUARD_SHARE;
	if (p->guard.share >= GUARD_SHARE)
		return 0;
	/* the same placement with no room: an empty plan with the budget, region and notes */
	rp_place_opts none = *o;
	none.link_reserve = UINT64_MAX;
	rp_placement again;
	memset(&again, 0, sizeof(again));
	int rc = rp_place(p->img, p->map, p->weights, &none, &again, err);
	if (rc)
		return rc;
	for (size_t r = 0; r < again.nplans; r++)
		again.plans[r]->link_reserve = o->link_reserve;
	rp_placement_release(&p->placement);
	p->placement = again;
	p->guard.held_back = 1;
	return 0;
}
