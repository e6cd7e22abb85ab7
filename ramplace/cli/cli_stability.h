/* cli_stability.h: what the commands print about a profile's stability (stability.h): one line
 * in `place`, one verdict over the usual budgets after `import` and `record`, and the detailed
 * table of `report --stability`. Printing is the CLI's; the statistics are solve/stability.c's. */
#ifndef RAMPLACE_CLI_STABILITY_H
#define RAMPLACE_CLI_STABILITY_H

#include <stdint.h>
#include <stdio.h>

#include "ramplace/error.h"
#include "ramplace/image.h"
#include "ramplace/profiledb.h"
#include "ramplace/stability.h"

/* The budgets the verdicts after import and record look at, and report's default. */
#define CLI_STAB_NBUDGETS 5
extern const uint64_t cli_stab_budgets[CLI_STAB_NBUDGETS];

/* What the profile was taken over: how long, when its rate is known (0: unknown), its runs, and
 * whether each covered its program to the exit. */
rp_stab_basis cli_stab_basis(const rp_db_totals *t);

/* The verdict for the decision at budget bytes into buf ("the 4 KiB choice is stable: ..."), as
 * cli_stability_line prints it. Fails on memory or as rp_stability_run does. */
int cli_stability_verdict(char *buf, size_t cap, const rp_image *img, const rp_db_totals *t, uint64_t budget,
			  rp_err *err);

/* "stability: the 4 KiB choice is stable: ..." for the decision at budget bytes. Never fails
 * the command (its outputs are written): a failure is printed as a note. */
void cli_stability_line(FILE *out, const rp_image *img, const rp_db_totals *t, uint64_t budget);

/* After import/record: the whole of db_path on img over cli_stab_budgets, one line. Never
 * fails the command that stored the profile: a failure is printed as a note. */
void cli_stability_after_store(const char *db_path, const rp_image *img);

/* report --stability: with one budget, the detail (scales, uncertain functions, up to limit of
 * them; limit < 0: all); with none, one verdict per budget of cli_stab_budgets. */
int cli_stability_report(FILE *out, const rp_image *img, const rp_db_totals *t, uint64_t budget, long limit,
			 rp_err *err);

#endif
