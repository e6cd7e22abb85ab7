/* cli_costs.h: the flash-model section of `ramplace report` (cli_costs.c). */
#ifndef RAMPLACE_CLI_COSTS_H
#define RAMPLACE_CLI_COSTS_H

#include <stdio.h>
#include "ramplace/error.h"
#include "ramplace/profiledb.h"

/* When runs of db_path carry flash-model costs: their stall cycles beside the instruction
 * counts of t, per function and per data object read from flash (at most limit rows each, 0:
 * none, < 0: all). Prints nothing for a profile without a model. */
int cli_costs_print(FILE *out, const char *db_path, const rp_db_totals *t, long limit, rp_err *err);

#endif
