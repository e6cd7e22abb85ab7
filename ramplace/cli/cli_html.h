/* cli_html.h: what `report` and `place` share to show a decision (cli_html.c): the budget curve
 * of a placement and the HTML report written atomically. Both show the library pipeline's
 * placement (pipeline.h), which `report` gets through place's own options (place_opts.h). */
#ifndef RAMPLACE_CLI_HTML_H
#define RAMPLACE_CLI_HTML_H

#include "ramplace/config.h"
#include "ramplace/curve.h"
#include "ramplace/image.h"
#include "ramplace/map.h"
#include "ramplace/placement.h"
#include "ramplace/profiledb.h"

typedef struct cli_html_job {
	const char *path;              /* the HTML file to write */
	const char *db_path;           /* profile.db: its runs and arcs are read from it */
	int64_t run;                   /* 0: every run */
	const char *before;            /* --before OLD.db[@RUN], or NULL */
	const rp_db_totals *totals;    /* what was placed */
	const rp_image *img;
	const rp_map *map;             /* may be NULL */
	const rp_placement *placement; /* may be NULL */
	double cycles_per_sample;      /* > 0 with a cost model */
} cli_html_job;

/* Writes the report (never half-written: a temporary file renamed). */
int cli_html_write(const cli_html_job *j, rp_err *err);

#endif
