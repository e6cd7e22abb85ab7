/* stability_text.h: what a person reads about a profile's stability (stability.h), as the
 * commands print it (stability_text.c): one verdict for a budget, a verdict over the usual
 * budgets after a profile is stored, and the detailed table of `report --stability`. */
#ifndef RAMPLACE_STABILITY_TEXT_H
#define RAMPLACE_STABILITY_TEXT_H

#include <stdint.h>
#include <stdio.h>

#include "ramplace/error.h"
#include "ramplace/image.h"
#include "ramplace/profiledb.h"
#include "ramplace/stability.h"

/* The budgets the verdicts after import and record look at, and report's default. */
#define RP_STAB_TEXT_NBUDGETS 5
extern const uint64_t rp_stab_text_budgets[RP_STAB_TEXT_NBUDGETS];

/* What the profile was taken over: how long, when its rate is known (0: unknown), its runs, and
 * whether each covered its program to the exit. */
rp_stab_basis rp_stab_text_basis(const rp_db_totals *t);

/* The verdict for the decision at budget bytes into buf ("the 4 KiB choice is stable: ...").
 * Fails on memory or as rp_stability_run does. */
int rp_stab_text_verdict(char *buf, size_t cap, const rp_image *img, const rp_db_totals *t, uint64_t budget,
			 rp_err *err);

/* After a profile is stored: the whole of db_path on img over rp_stab_text_budgets, one line
 * ("stability: ... (stable at 1, 2 KiB)") on out. */
int rp_stab_text_after_store(FILE *out, const char *db_path, const rp_image *img, rp_err *err);

/* report --stability: with one budget, the detail (scales, uncertain functions, up to limit of
 * them; limit < 0: all); with none, one verdict per budget of rp_stab_text_budgets. */
int rp_stab_text_report(FILE *out, const rp_image *img, const rp_db_totals *t, uint64_t budget, long limit,
			rp_err *err);

#endif
