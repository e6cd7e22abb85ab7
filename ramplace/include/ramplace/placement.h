/* placement.h: from an image, its link map and a profile to a plan for one RAM region.
 *
 * Placement units are a function with its compiler clones and everything that shares an input
 * section with them (what a linker pattern moves moves together). Units reached by the reset
 * handler stay in flash (it runs before .ramtext is copied), as do --exclude matches. On ARM,
 * each distinct flash function called from RAM costs a veneer in RAM: the solver reserves it. */
#ifndef RAMPLACE_PLACEMENT_H
#define RAMPLACE_PLACEMENT_H

#include <stdint.h>
#include <stddef.h>
#include "ramplace/error.h"
#include "ramplace/image.h"
#include "ramplace/plan.h"
#include "ramplace/profiledb.h"
#include "map.h"

typedef struct rp_place_opts {
	uint64_t budget;          /* bytes of RAM for code, veneers included */
	uint64_t align;           /* unit sizes are rounded up to this */
	int64_t veneer_size;      /* bytes per RAM->flash call; -1: by architecture (8 on ARM, 0 else) */
	const char *outsec;       /* output section the fragment is INCLUDEd in */
	const char *region;       /* memory region name in the map; NULL: the one holding .data */
	const char *const *exclude; /* glob patterns of functions that stay in flash */
	size_t nexclude;
	int keep_boot_path;       /* keep what the reset handler calls in flash */
} rp_place_opts;

#define RP_PLACE_OPTS_INIT { 0, 4, -1, ".ramtext", NULL, NULL, 0, 1 }

typedef struct rp_placement {
	rp_plan *plan;            /* owned */
	char **missing;           /* profiled functions not found in the image ("name" or "name (file)") */
	size_t nmissing;
	uint64_t missing_samples;
	char **kept;              /* "name: why" for hot units kept in flash */
	size_t nkept;
	size_t ncandidates;       /* units with samples that could move */
	size_t nveneers;          /* veneers the plan expects in RAM */
	int guessed_patterns;     /* no map: patterns guessed from symbol names */
} rp_placement;

/* Builds the plan. map and totals may be NULL (no map: patterns guessed from names; no
 * profile: an empty plan). Fails on a budget of 0 or one larger than the RAM region. */
int rp_place(const rp_image *img, const rp_map *map, const rp_db_totals *totals,
	     const rp_place_opts *opts, rp_placement *out, rp_err *err);
void rp_placement_release(rp_placement *p);

#endif
