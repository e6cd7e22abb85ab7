/* cli_costs.h: the flash-model figures of `ramplace report` (cli_costs.c). */
#ifndef RAMPLACE_CLI_COSTS_H
#define RAMPLACE_CLI_COSTS_H

#include <stdint.h>
#include <stdio.h>
#include "ramplace/error.h"
#include "ramplace/profiledb.h"
#include "ramplace/report.h"

/* The flash-model costs of every run of db_path (c->nruns 0: no run had a model); release with
 * rp_db_costs_release. */
int cli_costs_load(rp_db_costs *c, const char *db_path, rp_err *err);
/* *stall: per p->fns[i], its stall cycles in c (malloc'ed; NULL when no run had a model). */
int cli_costs_per_function(uint64_t **stall, const rp_db_costs *c, const rp_profile *p, rp_err *err);
/* The model's totals over nruns runs, and the data objects read from flash (at most limit rows,
 * 0: none, < 0: all); nothing for a profile without a model. */
void cli_costs_print(FILE *out, const rp_db_costs *c, size_t nruns, long limit);

#endif
