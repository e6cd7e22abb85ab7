/* place_cycles.h: the line every `ramplace place` prints about cycles (place_cycles.c): modeled
 * cycles of the profiled workload before and after, the speed-up and what the figures rest on,
 * as the pipeline computed them (pipeline.h: rp_pipe_figures). */
#ifndef RAMPLACE_PLACE_CYCLES_H
#define RAMPLACE_PLACE_CYCLES_H

#include "ramplace/pipeline.h"

/* "modeled cycles (ws:5, default): 1.23e+06 -> 4.2e+05, 2.9x fewer ..." and what the model says
 * about code a cache holds. Prints nothing without figures (no profile). */
void place_cycles_print(const rp_pipe_figures *f);

#endif
