/* place_output.h: what `ramplace place` prints (place_output.c): the table of what moved, the
 * report lines and the warnings about guessed sections and vanished functions. Private to the
 * CLI. */
#ifndef RAMPLACE_CLI_PLACE_OUTPUT_H
#define RAMPLACE_CLI_PLACE_OUTPUT_H

#include "place_opts.h"
#include "ramplace/placement.h"
#include "ramplace/staleness.h"

/* To stderr: the profiled functions not in the ELF (the first 20), with their samples. */
void place_print_vanished(const rp_staleness *st, const place_args *a);
/* To stderr: what placing without --map guessed, and what it could not move. */
void place_print_warnings(const rp_placement *p);
/* To stdout: per region the table of what moved, then the notes, what stayed in flash, the
 * solver, the share of samples in RAM, the cycles saved and the files written; without a
 * profile, the empty fragments written. */
void place_print_report(const rp_placement *p, const place_args *a, int have_profile);

#endif
