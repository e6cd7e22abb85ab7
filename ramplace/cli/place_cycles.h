/* place_cycles.h: `ramplace place` in cycles (place_cycles.c, cycles.h): --flash-model and
 * cost.model, the profile's measured stall cycles, the weights the solver gets, and the line
 * every place prints: modeled cycles before and after, and the speed-up. */
#ifndef RAMPLACE_PLACE_CYCLES_H
#define RAMPLACE_PLACE_CYCLES_H

#include "ramplace/config.h"
#include "ramplace/cycles.h"
#include "ramplace/map.h"
#include "ramplace/placement.h"

typedef struct place_cycles {
	rp_fm_cfg model;          /* --flash-model, else cost.model (with ranges: the first one's) */
	int have_model;
	int option_given;         /* --flash-model (it wins over the config) */
	rp_flash_cfg opt_flash[RP_FM_MAX_RANGES];   /* --flash-model SPEC@LO-HI|SPEC@MEMORY (owned) */
	size_t nopt_flash;
	const rp_flash_cfg *cfg_flash;   /* cost.flash (the config's), unless options name models */
	size_t ncfg_flash;
	const rp_map *map;        /* the link map, to resolve MEMORY names; NULL without --map */
	rp_fm_map models;         /* the models by range, resolved by place_cycles_totals */
	rp_db_costs costs;        /* the profile's stall cycles (owned) */
	rp_cycles cy;             /* owned */
	int weigh_cycles;         /* the solver maximises cycles saved (weights), not samples */
	int prepared;
	double data_saved;        /* placing in cycles with --data: stall cycles the moved data saves */
	double data_stall;        /* its estimated stall cycles, when the profile's stall does not hold them */
} place_cycles;

/* --flash-model SPEC, or repeated SPEC@LO-HI / SPEC@MEMORY (a model per flash): RP_EUSAGE
 * naming the option when SPEC is no model or plain and ranged spellings are mixed. */
int place_cycles_option(place_cycles *pc, const char *spec, rp_err *err);
/* The config's cost.model or cost.flash, unless --flash-model was given. */
void place_cycles_config(place_cycles *pc, const rp_cost_model *cost);
/* After the totals are read from db, before the arcs: reads the stall cycles and decides the
 * objective; in cycles it turns on opts' cost model (arcs, veneer cycles) at one cycle saved
 * per unit of weight. */
int place_cycles_load(place_cycles *pc, rp_db *db, rp_place_opts *opts, rp_err *err);
/* The totals to place from: the weights in cycles, or samples as they are. Resolves the models'
 * MEMORY names against pc->map first: an unknown one, or ranges that overlap, fail naming the
 * config's file:line:column (RP_EINPUT) or the option (RP_EUSAGE). */
int place_cycles_totals(place_cycles *pc, const rp_image *img, const rp_db_totals *samples,
			const rp_db_totals **out, rp_err *err);
/* "modeled cycles (ws:5, default): 1.23e+06 -> 4.2e+05, 2.9x fewer ..." and what the model says
 * about code a cache holds. */
void place_cycles_print(const place_cycles *pc, const rp_placement *p, const rp_place_opts *opts);
void place_cycles_release(place_cycles *pc);

#endif
