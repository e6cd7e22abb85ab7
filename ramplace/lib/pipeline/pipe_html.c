/* pipe_html.c: the one-page HTML report of a placement (pipeline.h: rp_pipeline_html), shared
 * by `report --html` and `place --html`: the budget curve, the stability verdict, the
 * before/after table. Reads the runs and arcs from profile.db (read-only) and,
 * with --before, the old profile; owns them while writing. */
#include <stdlib.h>
#include <string.h>

#include "ramplace/stability_text.h"
#include "ramplace/pipeline.h"
#include "ramplace/present.h"
#include "ramplace/report.h"
#include "ramplace/util.h"


typedef struct html_data {
	rp_arc_total *arcs;
	size_t narcs;
	rp_run_row *runs;
	size_t nruns;
	rp_profile prof;
	int have_prof;
	rp_profile_spec before;
	int have_before;
	rp_profile after;         /* --before: this profile without arcs, as `diff` has it */
	rp_curve curve;
	char stability[768];      /* the verdict at the plan's budget, or "" */
} html_data;

static int load_data(html_data *d, const rp_html_job *j, rp_err *err)
{
	rp_db *db;
	int rc = rp_db_open_existing(&db, j->db_path, err);
	if (rc)
		return rc;
	rc = rp_db_arcs_load_run(db, j->run, &d->arcs, &d->narcs, err);
	if (!rc)
		rc = rp_db_runs_load(db, &d->runs, &d->nruns, err);
	rp_db_close(db);
	if (!rc && !(rc = rp_profile_build(&d->prof, j->totals, d->arcs, d->narcs, err)))
		d->have_prof = 1;
	if (!rc && j->before && !(rc = rp_profile_spec_load(&d->before, j->before, err))) {
		d->have_before = 1;
		if ((rc = rp_profile_build(&d->after, j->totals, NULL, 0, err)))
			memset(&d->after, 0, sizeof(d->after));
	}
	if (!rc && j->placement && j->placement->nplans)
		rc = rp_pipe_curve(&d->curve, j->img, j->map, j->placement, err);
	rp_err ignored = RP_ERR_INIT;   /* no verdict (no sampled function fits): the page says so */
	if (!rc && j->placement && j->placement->nplans &&
	    rp_stab_text_verdict(d->stability, sizeof(d->stability), j->img, j->totals, j->placement->plans[0]->budget,
				  &ignored))
		d->stability[0] = '\0';
	return rc;
}

static void release_data(html_data *d)
{
	rp_curve_release(&d->curve);
	if (d->have_before) {
		rp_profile_release(&d->after);
		rp_profile_spec_release(&d->before);
	}
	if (d->have_prof)
		rp_profile_release(&d->prof);
	rp_run_rows_free(d->runs, d->nruns);
	rp_arc_totals_free(d->arcs, d->narcs);
}

int rp_pipeline_html(const rp_html_job *j, rp_err *err)
{
	html_data d;
	memset(&d, 0, sizeof(d));
	int rc = load_data(&d, j, err);
	rp_afile af;
	if (!rc && !(rc = rp_afile_open(&af, j->path, err))) {
		rp_present_in in = { j->totals, &d.prof, d.runs, d.nruns, j->img, j->map, j->placement,
				     d.curve.npoints ? &d.curve : NULL, j->cycles_per_sample,
				     d.have_before ? &d.before.p : NULL, j->before, j->db_path, d.before.exact,
				     rp_runs_all_exact(d.runs, d.nruns, j->run), rp_version(), 0,
				     d.have_before ? &d.after : NULL, d.stability[0] ? d.stability : NULL };
		rc = rp_present_html(af.fp, &in, err);
		if (rc)
			rp_afile_abort(&af);
		else
			rc = rp_afile_commit(&af, err);
	}
	release_data(&d);
	return rc;
}
