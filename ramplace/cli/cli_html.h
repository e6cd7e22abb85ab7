/* cli_html.h: what `report` and `place` share to show a decision (cli_html.c): the budget curve
 * of a placement, the HTML report written atomically, and (report_place.c) a placement made
 * for the report from --budget, --map and --config as `place` would make it. */
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

/* The curve of a placement's first region: from 0 to the free RAM the ELF leaves in the plan's
 * memory region (with a map), else to where every candidate fits; never below the plan's budget;
 * at most 256 steps, each a multiple of the plan's alignment. */
int cli_budget_curve(rp_curve *out, const rp_image *img, const rp_map *map, const rp_placement *p, rp_err *err);

/* Writes the report (never half-written: a temporary file renamed). */
int cli_html_write(const cli_html_job *j, rp_err *err);

/* report_place.c: a placement as `place --budget SIZE [--map] [--config]` makes it; budget 0
 * means the config's, else `auto` with a map. *cycles_per_sample is set with a cost model. */
typedef struct cli_report_place {
	uint64_t budget;
	const char *map_path, *config_path;
	rp_config *cfg;                /* owned */
	rp_region_cfg *regions;        /* owned */
	const char **globs;            /* owned array (names borrowed from cfg) */
	rp_place_opts opts;
} cli_report_place;

int cli_report_place_run(cli_report_place *rp, const rp_image *img, rp_map **map, const rp_db_totals *totals,
			 rp_placement *out, double *cycles_per_sample, rp_err *err);
void cli_report_place_release(cli_report_place *rp);

#endif
