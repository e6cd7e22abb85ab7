/* cli_stability.h: the stability lines the commands print beside their work (cli_stability.c):
 * one line in `place`, one verdict over the usual budgets after `import` and `record`. The text
 * and `report --stability`'s table are stability_text.h's. */
#ifndef RAMPLACE_CLI_STABILITY_H
#define RAMPLACE_CLI_STABILITY_H

#include <stdint.h>
#include <stdio.h>

#include "ramplace/image.h"
#include "ramplace/profiledb.h"

/* "stability: the 4 KiB choice is stable: ..." for the decision at budget bytes. Never fails
 * the command (its outputs are written): a failure is printed as a note. */
void cli_stability_line(FILE *out, const rp_image *img, const rp_db_totals *t, uint64_t budget);

/* After import/record: the whole of db_path on img over the usual budgets, one line. Never
 * fails the command that stored the profile: a failure is printed as a note. */
void cli_stability_after_store(const char *db_path, const rp_image *img);

#endif
