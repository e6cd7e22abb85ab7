/* place_data.h: read-only data objects beside the functions: which const objects go to
 * .ramdata, sharing the first region's RAM budget with the code (placement.h).
 *
 * A data object costs its input section's bytes and no veneer; it saves the flash reads it
 * causes. Those come from the profile when it holds data reads per object (weights given by
 * the caller); without them, from a documented proxy (rp_data_proxy_weights). The data plan is
 * an rp_plan with is_data set (output section .ramdata), written as ramdata.ld and its plan. */
#ifndef RAMPLACE_PLACE_DATA_H
#define RAMPLACE_PLACE_DATA_H

#include <stddef.h>
#include "ramplace/dataobjs.h"
#include "ramplace/error.h"
#include "ramplace/cycles.h"
#include "ramplace/placement.h"

typedef struct rp_data_opts {
	const char *outsec;            /* ".ramdata" */
	const char *const *pin;        /* globs: data objects that must be in RAM */
	size_t npin;
	const char *const *exclude;    /* globs: data objects that stay in flash */
	size_t nexclude;
	size_t max_tries;              /* placements tried: with the densest 0..max_tries-1 objects */
	int in_cycles;                 /* weights are stall cycles saved, and so is the code's
					  cycles_saved (totals in cycles): compare those */
} rp_data_opts;

#define RP_DATA_OPTS_INIT { .outsec = ".ramdata", .pin = NULL, .npin = 0, .exclude = NULL, .nexclude = 0, \
			    .max_tries = 8, .in_cycles = 0 }

typedef struct rp_data_placement {
	rp_plan *plan;          /* owned: the .ramdata plan (possibly without units) */
	char **kept;            /* "name: why" for weighted objects that stay in flash */
	size_t nkept;
	size_t ncandidates;     /* weighted objects that could move */
	double total_weight;    /* reads of every weighted object (moved or not) */
	double moved_weight;
	uint64_t code_samples;  /* samples the code plans moved alongside */
	double code_saved;      /* in_cycles: the code's cycles saved (net of veneers) */
	size_t tries;           /* placements solved to share the budget */
} rp_data_placement;

/* ARM literal-pool proxy for reads: each object is credited with the samples of every profiled
 * function whose code holds a 4-byte word pointing into it (a function that loads an object's
 * address from its literal pool reads it, at most once per instruction executed). weights has
 * one slot per object of d, filled; returns how many objects got a weight. Architectures
 * without literal pools (RISC-V builds addresses with lui/auipc) get none. */
size_t rp_data_proxy_weights(double *weights, const rp_image *img, const rp_dataobjs *d,
			     const rp_db_totals *totals);

/* Stall cycles one data read from flash costs under model m when no access stream is known: a
 * demand read (ws, art), a line fill per line/4 reads (cache holding data), the miss penalty
 * (cache without dcache: reads bypass it). */
double rp_data_read_estimate(const rp_fm_cfg *m);
/* Turns weights (reads per object, or their proxy) into stall cycles saved under cy's model: the
 * profile's measured stall cycles per object when cy->measured and costs has data rows (weights
 * then ignored), else reads x rp_data_read_estimate; less each object's copy at boot, floored at
 * 0. *stall gets the stall cycles of every object before that (for the modeled total). Returns
 * how many objects keep a weight. */
size_t rp_data_cycle_weights(double *weights, double *stall, const rp_cycles *cy, const rp_dataobjs *d,
			     const rp_db_costs *costs);
/* Places code and data together: runs rp_place with the first region's budget less the bytes of
 * the densest 0, 1, ... max_tries-1 candidate objects (pins always), keeps the best total of
 * moved samples + moved reads in *out, and the data plan in *dout. weights: one per object of
 * d (reads; 0 = not read). Fails as rp_place does, or when pinned data exceeds the budget. */
int rp_place_data(const rp_image *img, const rp_map *map, const rp_db_totals *totals,
		  const rp_place_opts *opts, const rp_dataobjs *d, const double *weights,
		  const rp_data_opts *dopts, rp_placement *out, rp_data_placement *dout, rp_err *err);
void rp_data_placement_release(rp_data_placement *d);

#endif
