/* placement.c: profile + image (+ link map) -> one plan per region (see placement.h): the driver.
 * Owns the working state of one placement (place.h: the unit table, call graph and reset-path
 * analysis) and runs the steps in order: regions and budgets, samples per function, units,
 * what is kept or required, the solvers, cycles, the plans. The plans it returns are the
 * caller's. Workload: up to tens of thousands of functions, a few thousand with samples. */
#include <stdlib.h>
#include <string.h>

#include "ramplace/util.h"
#include "place.h"

static void ctx_release(ctx *c)
{
	free(c->handler_roots);
	free(c->ufirst);
	free(c->ufuncs);
	rp_callgraph_free(c->cg);
	if (c->have_boot)
		rp_boot_release(&c->boot);
	free(c->regions);
	for (size_t u = 0; c->units && u < c->nunits; u++)
		free(c->units[u].callees);
	free(c->units);
	free(c->parent);
	free(c->unit_of);
	free(c->fsamples);
	free(c->insec_of);
	free(c->funcsec);
}

static int ctx_init(ctx *c, const rp_image *img, const rp_map *map, const rp_place_opts *opts,
		    rp_placement *out, rp_err *err)
{
	size_t nf = img->nfuncs ? img->nfuncs : 1;
	memset(c, 0, sizeof(*c));
	c->img = img;
	c->map = map;
	c->opts = opts;
	c->out = out;
	/* the veneer's shape is the architecture's (16 bytes on ARMv6-M, 8 on v7-M; image.h) */
	c->veneer = opts->veneer_size >= 0 ? (uint64_t)opts->veneer_size : img->veneer_size;
	/* GNU ld's block: its padding is only modelled for veneers that are whole multiples of it
	 * (8 and 16 bytes are; a --veneer-size of 12 is not, and then no padding is assumed) */
	c->veneer_block_align = c->veneer && img->veneer_block_align > 1 && c->veneer % img->veneer_block_align == 0
					? img->veneer_block_align : 1;
	c->parent = malloc(nf * sizeof(size_t));
	c->unit_of = malloc(nf * sizeof(size_t));
	c->fsamples = calloc(nf, sizeof(uint64_t));
	c->insec_of = malloc(nf * sizeof(size_t));
	if (!c->parent || !c->unit_of || !c->fsamples || !c->insec_of)
		return rp_err_nomem(err, "preparing the placement");
	for (size_t i = 0; i < img->nfuncs; i++)
		c->parent[i] = i;
	return 0;
}

/* Without a map, which functions have a section of their own that a name pattern can move,
 * from the DWARF; an ELF without DWARF leaves every guess unverified (out->guess_unverified). */
static int read_func_sections(ctx *c, rp_err *err)
{
	if (c->map)
		return 0;
	rp_dwarf *dw = NULL;
	rp_err ignored = RP_ERR_INIT;
	if (rp_dwarf_open(&dw, c->img->path, &ignored)) {
		c->out->guess_unverified = 1;
		return 0;
	}
	int rc = (c->funcsec = malloc(c->img->nfuncs ? c->img->nfuncs : 1)) ? 0 : rp_err_nomem(err, "reading the debug information");
	if (!rc)
		rc = rp_dwarf_func_sections(c->funcsec, c->img, dw, err);
	rp_dwarf_close(dw);
	return rc;
}

/* A chosen function whose object has no debug information (a port that builds without -g and
 * links libgcc's or libg's) was guessed from its name alone: warned about as for an ELF
 * without any. */
static void note_unverified_guesses(ctx *c)
{
	for (size_t u = 0; c->funcsec && u < c->nunits; u++)
		for (size_t k = c->ufirst[u]; c->units[u].chosen && k < c->ufirst[u + 1]; k++)
			if (c->funcsec[c->ufuncs[k]] == RP_FUNCSEC_NONE) {
				c->out->guess_unverified = 1;
				if (c->out->nunverified < sizeof(c->out->unverified) / sizeof(c->out->unverified[0]))
					c->out->unverified[c->out->nunverified] = c->img->funcs[c->ufuncs[k]].name;
				c->out->nunverified++;
			}
}

/* The call graph feeds veneers, closures and the reset path; an architecture libopcodes is
 * not set up for here simply has none. */
static int build_callgraph(ctx *c, rp_err *err)
{
	double t0 = rp_seconds();
	int rc = rp_callgraph_build(&c->cg, c->img, err);
	c->out->callgraph_seconds = rp_seconds() - t0;
	if (rc == RP_EINPUT) {
		c->cg = NULL;
		err->code = 0;
		err->msg[0] = '\0';
		return 0;
	}
	/* auipc+jalr calls to targets within jal's 1 MiB mean ld did not relax (--no-relax), unless
	 * they are the few that startup code writes under `.option norelax` (around `la gp`): a
	 * relaxed link has more short calls and jumps between functions than such unrelaxed ones */
	uint64_t unrelaxed = 0, short_sites = 0;
	for (size_t k = 0; !rc && c->cg && k < c->cg->nedges; k++) {
		const rp_cg_edge *e = &c->cg->edges[k];
		if (e->sites8 && pl_in_jal_reach(c, e))   /* RISC-V's pairs: elsewhere none, no address read */
			unrelaxed += e->sites8;
		short_sites += (uint64_t)e->sites2 + e->sites4;
	}
	c->no_relax = unrelaxed > short_sites;
	return rc;
}

int rp_place(const rp_image *img, const rp_map *map, const rp_db_totals *totals,
	     const rp_place_opts *opts, rp_placement *out, rp_err *err)
{
	ctx c;
	int rc;
	memset(out, 0, sizeof(*out));
	out->guessed_patterns = map == NULL;
	if ((rc = ctx_init(&c, img, map, opts, out, err)))
		goto done;
	if ((rc = pl_resolve_regions(&c, err)) || (rc = pl_attribute_samples(&c, totals, err)))
		goto done;
	pl_group_clones(&c);
	/* the call graph before the units: without a map, RISC-V jumps into other functions bind */
	if ((rc = build_callgraph(&c, err)) || (rc = read_func_sections(&c, err)) || (rc = pl_group_by_input_section(&c, err)))
		goto done;
	if ((rc = pl_build_units(&c, err)))
		goto done;
	if ((rc = pl_index_units(&c, err)) || (rc = pl_size_units(&c, err)) ||
	    (rc = pl_collect_callees(&c, err)) || (rc = pl_note_shared_text(&c, err)))
		goto done;
	if ((rc = pl_apply_exclusions(&c, err)) || (rc = pl_solve(&c, err)) || (rc = pl_record_reasons(&c, err)))
		goto done;
	note_unverified_guesses(&c);
	pl_count_cycles(&c, totals ? totals->total : 0);
	rc = pl_make_plans(&c, totals ? totals->total : 0, err);
done:
	ctx_release(&c);
	if (rc)
		rp_placement_release(out);
	return rc;
}

void rp_placement_release(rp_placement *p)
{
	for (size_t i = 0; i < p->nplans; i++)
		rp_plan_free(p->plans[i]);
	free(p->plans);
	for (size_t i = 0; i < p->nnotes; i++)
		free(p->notes[i]);
	free(p->notes);
	for (size_t i = 0; i < p->nmissing; i++)
		free(p->missing[i]);
	for (size_t i = 0; i < p->nkept; i++)
		free(p->kept[i]);
	free(p->missing);
	free(p->kept);
	free(p->items);
	free(p->func_why);
	memset(p, 0, sizeof(*p));
}
