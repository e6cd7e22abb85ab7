/* placement.h: from an image, its link map and a profile to a plan per RAM region.
 *
 * Placement units are a function with its compiler clones and everything that shares an input
 * section with them (what a linker pattern moves moves together). What the reset handler runs
 * before the code is copied stays in flash (boot.h), as do excluded units; pinned units and
 * the static call closure of closure roots must go to RAM. On ARM, each distinct function
 * called across locations (flash and each region) costs a veneer in the caller's region.
 * One region without pins, closures or crossing costs is a plain knapsack (knapsack.h);
 * anything else is the GLPK ILP (ilp.h). */
#ifndef RAMPLACE_PLACEMENT_H
#define RAMPLACE_PLACEMENT_H

#include <stdint.h>
#include <stddef.h>
#include "ramplace/config.h"
#include "ramplace/error.h"
#include "ramplace/image.h"
#include "ramplace/knapsack.h"
#include "ramplace/plan.h"
#include "ramplace/profiledb.h"
#include "ramplace/map.h"

typedef struct rp_place_opts {
	uint64_t budget;          /* bytes of RAM for code, veneers included */
	uint64_t align;           /* unit sizes are rounded up to this */
	int64_t veneer_size;      /* bytes per RAM->flash call; -1: by architecture (image.h: 16 on ARMv6-M, 8 on other ARM, 0 else) */
	const char *outsec;       /* output section the fragment is INCLUDEd in */
	const char *region;       /* memory region name in the map; NULL: the one holding .data */
	const char *const *exclude; /* glob patterns of functions that stay in flash */
	size_t nexclude;
	int keep_boot_path;       /* keep what the reset handler calls in flash */
	/* several regions (ramplace.yaml): when nregions > 0 they replace budget, align, outsec
	 * and region above */
	const rp_region_cfg *regions;
	size_t nregions;
	const char *const *pin;   /* globs: units that must be in RAM */
	size_t npin;
	const char *const *closure; /* globs: roots whose whole static call closure must be in RAM */
	size_t nclosure;
	rp_cost_model cost;       /* cycles per flash fetch, veneer bytes and cycles */
	int have_cost;            /* the cost model was given: report cycles, weigh arcs */
	const rp_arc_total *arcs; /* sampled caller->callee arcs (crossing costs); may be NULL */
	size_t narcs;
	double time_limit_s;      /* ILP time limit */
	int force_ilp;            /* use the ILP even for a plain knapsack */
	double min_share;         /* units with a smaller share of the samples stay in flash: a cold
				     filler pays a copy at boot and veneers back to flash for little */
	int dialect;              /* what will move the units (RP_DIALECT_*): a unit it cannot
				     express stays in flash with its reason, so its budget goes to one
				     it can; recorded in the plan */
	const char *const *handlers; /* globs: interrupt handlers whose whole static reach must run
				     from RAM (a closure the plan records, so check proves it) */
	size_t nhandlers;
	int all_handlers;         /* every vector-table handler but the reset handler, likewise */
	int zero_budget_ok;       /* a budget of 0 places nothing instead of failing (place --trace
				     with --budget 0: the flash layout alone) */
	uint64_t link_reserve;    /* bytes of the first region's budget kept free for what a previous
				     link added beyond its plan (the build loop's correction,
				     make/ramplace-converge.sh); recorded in the plan, which check
				     then allows that much above it */
	int explain_reset;        /* the notes say how each call on the reset path was judged
				     (place --reset-path) */
} rp_place_opts;


/* What place does with only a budget; every field not named is 0 or NULL. */
#define RP_PLACE_OPTS_INIT { .align = 4, .veneer_size = -1, .outsec = ".ramtext", .keep_boot_path = 1, \
			     .cost = RP_COST_MODEL_INIT, .time_limit_s = 10.0, .min_share = 0.0001, \
			     .dialect = RP_DIALECT_GNU }

typedef struct rp_placement {
	rp_plan *plan;            /* plans[0] */
	rp_plan **plans;          /* owned: one per region, in configuration order */
	size_t nplans;
	char **notes;             /* reset path, RAM map of auto budgets: lines for the report */
	size_t nnotes;
	const char *solver;       /* "knapsack (expanding core)" or "ILP (GLPK)" */
	int optimal;              /* the solver proved its answer optimal */
	double gap;               /* ILP: relative optimality gap when the time limit stopped it */
	double seconds;           /* solver time */
	double callgraph_seconds; /* decoding the call graph (place --timings) */
	int have_cycles;          /* a cost model was given */
	double cycles_saved;      /* expected cycles saved over the profiled run (cost model) */
	double cycles_flash;      /* cycles the profiled code took from flash (same model) */
	char **missing;           /* profiled functions not found in the image ("name" or "name (file)") */
	size_t nmissing;
	uint64_t missing_samples;
	char **kept;              /* "name: why" for hot units kept in flash */
	size_t nkept;
	size_t ncandidates;       /* units with samples that could move */
	size_t nveneers;          /* veneers the plan expects in RAM */
	int guessed_patterns;     /* no map: patterns guessed from symbol names */
	int guess_unverified;     /* no map, and no DWARF for some moved function (or none at all):
				     nothing tells whether its guessed pattern matches */
	size_t nunverified;       /* those moved functions, when the ELF has DWARF for others */
	const char *unverified[8]; /* the first of them (names in the image) */
	size_t nunguessed;        /* no map: sampled units no name pattern can move (kept in flash) */
	uint64_t unguessed_samples;
	const char *unguessed_top; /* the hottest of them (a name in the image), or NULL */
	size_t nbelow_share;      /* sampled units kept in flash by --min-share */
	uint64_t below_share_samples;
	uint64_t unguessed_top_samples;
	rp_ks_item *items;        /* owned: the candidate units as the knapsack sees them (each at its
				     largest: every veneer, call sites at full length), for the budget
				     curve (curve.h); empty when nothing was placed */
	size_t nitems;
	const char **func_why;    /* owned array, one per image function (img->funcs): why its unit
				     stays in flash ("name: why" of kept without the name, static
				     text), or NULL for a candidate the solver weighed (HTML report) */
	size_t nfunc_why;
} rp_placement;

/* Builds the plan. map and totals may be NULL (no map: patterns guessed from names; no
 * profile: an empty plan). Fails on a budget of 0 or one larger than the RAM region. */
int rp_place(const rp_image *img, const rp_map *map, const rp_db_totals *totals,
	     const rp_place_opts *opts, rp_placement *out, rp_err *err);
void rp_placement_release(rp_placement *p);

#endif
