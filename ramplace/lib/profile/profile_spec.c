/* profile_spec.c: a profile named as `diff OLD NEW` and `report --html --before OLD` take it,
 * profile.db or profile.db@RUN, loaded as one side of a before/after comparison (report.h:
 * rp_profile_spec). Owns the side's totals and flat profile. Workload: two profiles per
 * command. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ramplace/report.h"

/* "profile.db@12" -> path and run 12 ("@0": every run, as --before always took it); a path
 * that exists as given wins over the suffix. */
static int split_spec(rp_profile_spec *s, const char *spec, rp_err *err)
{
	const char *at = strrchr(spec, '@');
	s->run = 0;
	if (snprintf(s->path, sizeof(s->path), "%s", spec) >= (int)sizeof(s->path))
		return rp_err_set(err, RP_EUSAGE, "'%.64s...': the profile's path is too long", spec);
	if (!at || !at[1] || access(spec, F_OK) == 0)
		return 0;
	char *end;
	long long r = strtoll(at + 1, &end, 10);
	if (*end || r < 0)
		return rp_err_set(err, RP_EUSAGE, "'%s': the run after '@' must be a number (0: every run)", spec);
	s->run = r;
	s->path[at - spec] = '\0';
	return 0;
}

int rp_runs_all_exact(const rp_run_row *runs, size_t n, int64_t run)
{
	int exact = 1;
	for (size_t i = 0; i < n; i++)
		if (!run || runs[i].id == run)
			exact &= runs[i].method && strcmp(runs[i].method, "exact") == 0;
	return exact;
}

int rp_profile_spec_load(rp_profile_spec *s, const char *spec, rp_err *err)
{
	memset(s, 0, sizeof(*s));
	rp_db *db;
	rp_run_row *runs = NULL;
	size_t nruns = 0;
	int rc = split_spec(s, spec, err);
	if (rc || (rc = rp_db_open_existing(&db, s->path, err)))
		return rc;
	rc = rp_db_totals_load_run(db, s->run, &s->t, err);
	if (!rc && (rc = rp_db_runs_load(db, &runs, &nruns, err)))
		rp_db_totals_release(&s->t);
	if (!rc && (rc = rp_db_costs_load_run(db, s->run, &s->costs, err))) {
		rp_db_totals_release(&s->t);
		rp_run_rows_free(runs, nruns);
	}
	rp_db_close(db);
	if (rc)
		return rc;
	s->exact = rp_runs_all_exact(runs, nruns, s->run);
	rp_run_rows_free(runs, nruns);
	if ((rc = rp_profile_build(&s->p, &s->t, NULL, 0, err))) {
		rp_db_totals_release(&s->t);
		rp_db_costs_release(&s->costs);
	}
	return rc;
}

void rp_profile_spec_release(rp_profile_spec *s)
{
	rp_profile_release(&s->p);
	rp_db_totals_release(&s->t);
	rp_db_costs_release(&s->costs);
}
