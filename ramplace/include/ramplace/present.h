/* present.h: the decision as one self-contained HTML page (`report --html`, `place --html`):
 * the budget curve, the RAM and flash maps, the hot functions (table and flame graph), the
 * before/after diff and the run; and the budget curve as text and as JSON members.
 *
 * The page needs no network: inline CSS, inline SVG and one short script that sorts the table.
 * Every name from input (symbols, files, sections, paths) is escaped for HTML. It stays small
 * for large firmware: the table lists the hottest max_rows functions and sums up the rest, and
 * the flame graph draws only frames wider than a pixel's worth. This stage sits above solve and
 * verify: it reads the profile, the image, the map, the placement and the curve, and owns
 * nothing it is given. */
#ifndef RAMPLACE_PRESENT_H
#define RAMPLACE_PRESENT_H

#include <stdint.h>
#include <stdio.h>
#include "ramplace/curve.h"
#include "ramplace/error.h"
#include "ramplace/image.h"
#include "ramplace/map.h"
#include "ramplace/placement.h"
#include "ramplace/profiledb.h"
#include "ramplace/report.h"

typedef struct rp_present_in {
	const rp_db_totals *totals;      /* samples per function (required) */
	const rp_profile *prof;          /* the model over totals and arcs (required): flame graph */
	const rp_run_row *runs;          /* the runs the profile holds */
	size_t nruns;
	const rp_image *img;             /* the firmware placed (required) */
	const rp_map *map;               /* its link map, or NULL: regions guessed from addresses */
	const rp_placement *placement;   /* the decision, or NULL */
	const rp_curve *curve;           /* the budget curve, or NULL */
	double cycles_per_sample;        /* > 0: values are drawn as modeled cycles saved */
	const rp_profile *before;        /* --before: the old profile, or NULL */
	const char *before_name, *after_name;
	int exact_before, exact_after;   /* exact counts (no sampling error) */
	const char *version;             /* ramplace's version */
	size_t max_rows;                 /* table rows before the rest is summed up; 0: 2000 */
	const rp_profile *diff_after;    /* the new side of the diff, built without arcs as `diff`
					    builds it (arcs add functions without samples); NULL: prof */
	const char *stability;           /* the stability verdict at the plan's budget, as `place`
					    prints it, or NULL (not computed) */
} rp_present_in;

/* Writes the page. Fails only on memory (the stream's errors are the caller's to check). */
int rp_present_html(FILE *out, const rp_present_in *in, rp_err *err);

/* The curve as text: one line per point, "budget bytes value share% units" with the plan's
 * budget and the knee named (docs/report-formats.md). total: the profile's samples. */
void rp_present_curve_text(FILE *out, const rp_curve *c, uint64_t total, uint64_t plan_budget,
			   double cycles_per_sample);

/* What rp_present_curve_json writes: the curve and what it is measured against. */
typedef struct rp_curve_json {
	const rp_curve *curve;
	uint64_t total;                  /* the profile's samples */
	uint64_t plan_budget;
	uint64_t plan_value;             /* samples the plan moves */
	double cycles_per_sample;
	const rp_plan *plan;             /* its modeled cycles ("modeled"), or NULL */
} rp_curve_json;

/* The "budget_curve" member of the JSON export (report.h: rp_report_json_more); arg is an
 * rp_curve_json. */
void rp_present_curve_json(FILE *out, const void *arg);

/* "6 KiB", "1.5 KiB", "900 B" into buf; returns buf. */
const char *rp_present_bytes(uint64_t n, char *buf, size_t cap);
/* A count in words a person reads at a glance: "0", "950", "12.5 k", "5.22 G" (three
 * significant digits, SI prefixes up to T); whole numbers under 1,000 print without decimals. */
const char *rp_present_count(double v, char *buf, size_t cap);

/* `check --profile NEW.db [--baseline OLD.db]`: what the move achieved, on out: the relinked
 * firmware's modeled cycles from new_db (exact counts and stall cycles of the QEMU plugin's
 * model=), against baseline_db's (the profile the plans were made from; NULL: not compared),
 * and against what the plans predicted (as they record it, else baseline's cycles less the
 * stall cycles of every planned function). Fails when new_db has no stall cycles, or the two
 * profiles' models differ. */
int rp_present_check_profile(FILE *out, const char *new_db, const char *baseline_db, const char *const *plans,
			     size_t nplans, rp_err *err);

/* `callgraph --handlers`: img's interrupt and exception handlers, "ADDRESS NAME" a line, then
 * "plugin: entry=ADDR[@SLOT],..." (at most 16), the QEMU plugin's options measuring them. */
int rp_present_handlers(FILE *out, const rp_image *img, rp_err *err);

typedef enum rp_export_kind { RP_EXPORT_JSON, RP_EXPORT_CALLGRIND, RP_EXPORT_FOLDED } rp_export_kind;

/* The profile as an export (docs/report-formats.md) to path, or to standard output for "-";
 * JSON carries curve when given (NULL: none). A file is never left half-written. */
int rp_present_export(const char *path, rp_export_kind kind, const rp_profile *p, const rp_run_row *runs, size_t nruns,
		      const rp_curve_json *curve, rp_err *err);

#endif
