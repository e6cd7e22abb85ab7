/* export.c: the profile written as an export (present.h: rp_present_export): JSON (with the
 * budget curve when a placement was made), callgrind or folded stacks, to a file through
 * rp_afile (never half-written) or to standard output for "-". Owns nothing. Workload: one
 * export of up to the profile's functions per call. */
#include <string.h>

#include "ramplace/present.h"
#include "ramplace/report.h"
#include "ramplace/util.h"

typedef struct export_job {
	rp_export_kind kind;
	const rp_profile *p;
	const rp_run_row *runs;
	size_t nruns;
	const rp_curve_json *curve;
} export_job;

static void write_to(FILE *out, const export_job *j)
{
	switch (j->kind) {
	case RP_EXPORT_JSON:
		if (j->curve)
			rp_report_json_more(out, j->p, j->runs, j->nruns, rp_present_curve_json, j->curve);
		else
			rp_report_json(out, j->p, j->runs, j->nruns);
		break;
	case RP_EXPORT_CALLGRIND:
		rp_report_callgrind(out, j->p, j->nruns ? j->runs[0].image_path : "firmware");
		break;
	case RP_EXPORT_FOLDED:
		rp_report_folded(out, j->p);
		break;
	}
}

int rp_present_export(const char *path, rp_export_kind kind, const rp_profile *p, const rp_run_row *runs, size_t nruns,
		      const rp_curve_json *curve, rp_err *err)
{
	export_job j = { kind, p, runs, nruns, curve };
	if (strcmp(path, "-") == 0) {
		write_to(stdout, &j);
		return fflush(stdout) ? rp_err_set(err, RP_EIO, "<stdout>: write failed") : 0;
	}
	rp_afile af;
	int rc = rp_afile_open(&af, path, err);
	if (rc)
		return rc;
	write_to(af.fp, &j);
	return rp_afile_commit(&af, err);
}
