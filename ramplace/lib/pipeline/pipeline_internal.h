/* pipeline_internal.h: the private interface between the pieces of one pipeline run
 * (pipeline.h). Not installed.
 *
 *   pipeline.c     the driver: loads, judges the profile, weighs, places, writes
 *   pipe_cycles.c  the currency: flash models, stall cycles, the modeled before and after
 *   pipe_data.c    read-only data placed beside the code (--data)
 *   pipe_layout.c  the flash layout on the access trace (--trace)
 *   pipe_guard.c   without the trace, under a cache: a small promise moves nothing */
#ifndef RAMPLACE_PIPELINE_INTERNAL_H
#define RAMPLACE_PIPELINE_INTERNAL_H

#include "ramplace/pipeline.h"

/* After the totals are read from db, before the arcs: reads the stall cycles and decides the
 * objective; in cycles it turns on opts' cost model (arcs, veneer cycles) at one cycle saved
 * per unit of weight. */
int pipe_cycles_load(rp_pipe_cycles *pc, rp_db *db, int64_t run, rp_place_opts *opts, rp_err *err);
/* The totals to place from: the weights in cycles, or samples as they are. Resolves the models'
 * MEMORY names against pc->map first: an unknown one, or ranges that overlap, fail naming the
 * config's file:line:column (RP_EINPUT) or the option (RP_EUSAGE). */
int pipe_cycles_totals(rp_pipe_cycles *pc, const rp_image *img, const rp_db_totals *samples,
		       const rp_db_totals **out, rp_err *err);
/* The modeled cycles of the profiled workload before and after p, and what they rest on. */
void pipe_cycles_figures(const rp_pipe_cycles *pc, const rp_placement *p, const rp_place_opts *opts,
			 rp_pipe_figures *f);
void pipe_cycles_release(rp_pipe_cycles *pc);

/* Places (rp_place_data when data placement is on, else rp_place) into *out. first_fragment
 * names where the data fragment goes (its directory). */
int pipe_data_place(rp_pipe_data *a, const char *first_fragment, const rp_image *img, const rp_map *map,
		    const rp_db_totals *totals, const rp_place_opts *opts, rp_placement *out, rp_err *err);
/* Writes ramdata.ld and ramdata.ld.plan when data placement is on. */
int pipe_data_write(const rp_pipe_data *a, rp_err *err);
/* The first build: an empty ramdata.ld and plan beside first_fragment when data placement is on,
 * so a script that INCLUDEs it links. */
int pipe_data_write_empty(rp_pipe_data *a, const char *first_fragment, rp_err *err);
void pipe_data_release(rp_pipe_data *a);

/* After the placement, without --trace, under a cache or accelerator model: when the plan's
 * modeled gain is below what a relink's layout change costs, the placement is replaced by an
 * empty one (p->guard says so). */
int pipe_cache_guard(rp_pipeline *p, rp_err *err);

/* --trace: after the placement, before its figures: cuts the plan to the units that pay under
 * the model and chooses the flash order. RP_EUSAGE without a map, a single model, one region,
 * or with --data. Nothing without a trace or a profile. */
int pipe_layout_run(rp_pipeline *p, rp_err *err);
/* With a layout chosen, the modeled after is the layout's price (flash only less the chosen):
 * the placement's own saving leaves out the order's, and the by-samples or by-layout set's is
 * in another currency. */
void pipe_layout_figures(const rp_pipeline *p, rp_pipe_figures *f);
/* flashtext.ld and flashtext.order beside first_fragment; without a layout an existing
 * flashtext.ld is emptied (an earlier order would outlive its trace). */
int pipe_layout_write(rp_pipeline *p, const char *first_fragment, rp_err *err);
void pipe_layout_release(rp_pipe_layout *L);

#endif
