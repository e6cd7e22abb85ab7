/* place.h: the private interface between the pieces of one placement (rp_place, placement.h).
 * Not installed. Each piece owns one concern of the same working state (ctx):
 *
 *   placement.c      the driver: sets the state up, runs the steps in order, tears it down
 *   place_units.c    units: clones and shared input sections grouped, sized, indexed, callees
 *   place_keep.c     what stays in flash (reset path, --exclude) and what must go (pins, closures)
 *   place_regions.c  the regions to fill: their memory in the map, budgets, `budget: auto`
 *   place_cost.c     bytes and cycles a choice costs: veneers, RISC-V relaxation, crossing arcs
 *   place_solve.c    the solver driver: knapsack, ILP, or the knapsack then the ILP
 *   place_plan.c     the chosen units written as one plan per region
 *
 * The steps run in that order (rp_place); each reads what the earlier ones filled in. */
#ifndef RAMPLACE_SOLVE_PLACE_H
#define RAMPLACE_SOLVE_PLACE_H

#include <stddef.h>
#include <stdint.h>

#include "ramplace/boot.h"
#include "ramplace/callgraph.h"
#include "ramplace/ilp.h"
#include "ramplace/placement.h"
#include "ramplace/srcloc.h"
#include "ramplace/util.h"

typedef struct unit {
	size_t root;              /* representative function */
	uint64_t size, weight, samples;
	size_t *callees;          /* distinct functions outside the unit it branches to */
	size_t ncallees, callees_cap;
	const char *kept_why;     /* non-NULL: stays in flash */
	size_t kept_func;         /* the function the reason is about */
	int movable;
	int chosen;               /* placed in RAM: region says where */
	int region;
	const char *must_why;     /* non-NULL: must be in RAM (pin, closure) */
	size_t must_func;
	uint64_t max_align, min_align; /* of its pieces (input sections, or functions without a map) */
} unit;

typedef struct region {
	const char *name;         /* config label, or NULL for the command-line region */
	const char *outsec;
	const rp_map_region *map_region;
	uint64_t budget;
	uint64_t align;
	double speed;
	int memory_guessed;       /* map_region is a fallback (.data's memory, or RAM): no `memory`, and
				     the output section is not in a memory of the map yet */
	int budget_round;         /* the solvers see the budget rounded down to the veneer block's
				     alignment (place_solve.c: the padding before it overflowed) */
	uint64_t link_reserve;    /* of the budget, kept free (--link-reserve): the solvers do not see it */
} region;

typedef struct ctx {
	const rp_image *img;
	const rp_map *map;
	const rp_place_opts *opts;
	rp_placement *out;
	uint64_t veneer;          /* bytes per veneer (0: calls need none) */
	uint64_t veneer_block_align; /* GNU ld puts the veneers together, this aligned; 1: lld, none */
	size_t *parent;           /* union-find over functions */
	size_t *unit_of;          /* function -> unit */
	uint64_t *fsamples;       /* samples per function */
	size_t *insec_of;         /* function -> map input section, SIZE_MAX if none */
	size_t *handler_roots;    /* interrupt handlers whose reach must run from RAM (place_keep.c) */
	size_t nhandler_roots;
	unit *units;
	size_t nunits;
	region *regions;
	size_t nregions;
	size_t *ufirst, *ufuncs;  /* functions of unit u: ufuncs[ufirst[u] .. ufirst[u+1]) */
	int no_relax;             /* RISC-V linked with --no-relax: calls stay auipc+jalr */
	rp_callgraph *cg;         /* NULL when the architecture cannot be disassembled */
	rp_boot boot;
	int have_boot;
	unsigned char *funcsec;   /* no map: RP_FUNCSEC_ per function (srcloc.h); NULL without DWARF */
	uint64_t nomap_align;     /* no map: alignment of a function the link shows nothing about */
	uint64_t total_samples;   /* of the profile (--min-share is a share of it) */
} ctx;

/* Why a unit stays in flash without a map (place_units.c); summarised, not listed one by one. */
extern const char pl_why_shared_text[], pl_why_no_debug[];
extern const char pl_why_below_share[];   /* place_keep.c: --min-share */

/* A unit the solvers may place: movable, not kept in flash, and sampled or required. */
static inline int pl_is_candidate(const unit *u)
{
	return u->movable && !u->kept_why && (u->samples > 0 || u->must_why);
}

/* Where a unit is: its region index, or -1 for flash. */
static inline int pl_location(const unit *u)
{
	return u->chosen ? u->region : -1;
}

/* Appends a line to the placement's notes; fails only on memory. A macro, not a function of
 * the driver, so that the pieces never call back into placement.c. */
#define pl_note(c, err, ...) rp_strlist_pushf(&(c)->out->notes, &(c)->out->nnotes, (err), __VA_ARGS__)

/* place_units.c, in the order rp_place calls them */
int pl_attribute_samples(ctx *c, const rp_db_totals *totals, rp_err *err); /* samples per function; unknown names to out->missing */
void pl_group_clones(ctx *c);             /* foo.part.0, foo.cold ... join foo */
int pl_group_by_input_section(ctx *c, rp_err *err); /* sharing a map input section (no map: a name) join */
int pl_build_units(ctx *c, rp_err *err);  /* one unit per group: root, samples, movable */
/* out->func_why: each function's unit's reason to stay in flash (place_keep.c). */
int pl_record_reasons(ctx *c, rp_err *err);
int pl_index_units(ctx *c, rp_err *err);  /* ufirst/ufuncs: the functions of each unit */
/* Bytes in RAM of each unit, its pieces at their own alignment; needs ufirst/ufuncs. */
int pl_size_units(ctx *c, rp_err *err);
int pl_collect_callees(ctx *c, rp_err *err); /* distinct outside callees of each unit (veneers) */
/* A note for each object whose whole .text (no -ffunction-sections) holds a sampled unit. */
int pl_note_shared_text(ctx *c, rp_err *err);
/* A unit's pieces are what its patterns move: its distinct map input sections, or without a map
 * its functions. pl_unit_pieces writes them to out (room for the unit's function count) in the
 * fragment's order, largest alignment first, and returns how many. */
size_t pl_unit_pieces(const ctx *c, size_t ui, size_t *out);
uint64_t pl_piece_size(const ctx *c, size_t p);
uint64_t pl_piece_align(const ctx *c, size_t p);
/* The bytes unit ui adds when laid out from *offset, padding included (scratch: as for pieces). */
uint64_t pl_layout_unit(const ctx *c, size_t ui, uint64_t *offset, size_t *scratch);

/* place_keep.c: the reset path and --exclude keep units in flash, pins and closures require
 * them in RAM; fails when a required unit cannot move or the required bytes exceed the budgets. */
int pl_apply_exclusions(ctx *c, rp_err *err);

/* place_regions.c: fills c->regions (memory, budget, `budget: auto`) and warns about budgets
 * over the free RAM; fails on a budget of 0, one over its memory, or auto in a shared memory. */
int pl_resolve_regions(ctx *c, rp_err *err);

/* place_cost.c */
int64_t pl_relax_delta(const ctx *c, size_t ui, int upper); /* RISC-V relaxation bytes (0 elsewhere) */
int pl_in_jal_reach(const ctx *c, const rp_cg_edge *e); /* the edge's target within jal's 1 MiB of its first site */
uint64_t pl_bytes_used(const ctx *c);     /* chosen units at their placement-dependent size */
int pl_size_depends_on_placement(const ctx *c, size_t ui); /* veneers or relaxed call sites */
double pl_region_gain(const ctx *c, size_t r);   /* objective per sample placed in region r */
double pl_veneer_cycles(const ctx *c);    /* cycles one executed veneer costs */
/* Sampled arcs between units as ILP arcs (cycles per crossing); *out is the caller's. */
int pl_build_arcs(const ctx *c, const size_t *item_of, rp_ilp_arc **out, size_t *n, rp_err *err);
size_t pl_region_veneers(const ctx *c, int r); /* distinct callees outside region r called from it */
/* The padding before GNU ld's veneer block after code_bytes of code (0 without veneers). */
uint64_t pl_veneer_pad(const ctx *c, uint64_t code_bytes, size_t nveneers);
/* Region r's budget less its link reserve (--link-reserve): what the plan may fill. */
uint64_t pl_usable_budget(const ctx *c, size_t r);
/* Region r's budget as the solvers see it: the usable one, whole or rounded down to the veneer
 * block's alignment when a first answer overflowed with the block's padding (place_solve.c). */
uint64_t pl_solver_budget(const ctx *c, size_t r);
void pl_count_cycles(ctx *c, uint64_t total);  /* out->cycles_*: the cost model's figures */

/* place_solve.c: sets chosen/region of every unit and out->solver, optimal, gap, seconds. */
int pl_solve(ctx *c, rp_err *err);

/* place_plan.c: out->plans, one per region, units by samples; fails only on memory. */
int pl_make_plans(ctx *c, uint64_t total, rp_err *err);

#endif
