/* cycles.h: placement in cycles (docs/cost-models.md). Turns a profile into what moving each
 * function to RAM saves under a flash model (flashmodel.h): the stall cycles the QEMU plugin
 * measured under that model when the profile has them (profile.db schema 3), else an estimate
 * of stall cycles per sample; less the cycles its copy at boot costs. The solver then maximises
 * stall cycles saved instead of samples, so with a cache model code the cache holds anyway (no
 * misses) is worth nothing in RAM. After placing, the modeled cycles of the profiled workload
 * before and after, and the speed-up. */
#ifndef RAMPLACE_CYCLES_H
#define RAMPLACE_CYCLES_H

#include <stdint.h>
#include "ramplace/error.h"
#include "ramplace/flashmap.h"
#include "ramplace/flashmodel.h"
#include "ramplace/image.h"
#include "ramplace/profiledb.h"

/* The model when none is given: STM32F4-class flash at 168 MHz without its accelerator. */
#define RP_CYCLES_DEFAULT_MODEL "ws:5"

typedef struct rp_cycles {
	rp_fm_map models;         /* a model per flash range (one without a range: everywhere) */
	char model_name[128];     /* their name (flashmap.h), as the plugin writes it */
	rp_fm_cfg model;          /* the first range's model: what data objects and copies are priced by
				     where no range says otherwise */
	int model_default;        /* no model given: RP_CYCLES_DEFAULT_MODEL or the profile's own */
	int measured;             /* stall cycles counted by the plugin under this very model */
	char estimated_why[400];  /* when not measured: why, for the output */
	double insns;             /* instructions (exact profiles) or samples of the profile */
	double stall;             /* stall cycles of the whole profile under the model */
	double per_sample;        /* estimated: stall cycles charged per sample */
	rp_db_totals weights;     /* owned: per function, stall cycles less its copy at boot (>= 0) */
	size_t nnot_worth;        /* profiled functions whose stalls do not pay for their copy (with a
				     cache: the code it holds anyway) */
	uint64_t not_worth_insns; /* their instructions (samples) */
} rp_cycles;

/* models: NULL for the default (the profile's model(s) when it has stall cycles, else ws:5).
 * A function is priced by the model of the range holding its address; one in no range (code
 * already in RAM) stalls nothing. costs may be NULL or hold no runs. Fails only for lack of
 * memory. */
int rp_cycles_prepare(rp_cycles *out, const rp_fm_map *models, const rp_db_totals *samples, const rp_db_costs *costs,
		      const rp_image *img, rp_err *err);
void rp_cycles_release(rp_cycles *c);

/* What copying bytes from flash to RAM at boot costs under model (a load and a store per word),
 * the price a function or a data object pays once for moving. */
double rp_cycles_copy_cost(const rp_fm_cfg *model, uint64_t bytes);

/* Modeled cycles of the profiled workload: all of it in flash, and after a placement that saved
 * `saved` cycles (rp_placement.cycles_saved, weights in cycles). */
double rp_cycles_before(const rp_cycles *c);

#endif
