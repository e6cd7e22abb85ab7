/* cmd_diff.c: `ramplace diff OLD NEW`: two profiles (a whole profile.db, or one run of it as
 * profile.db@RUN) compared function by function as a before/after table in MicroPython's
 * benchmark-diff form (old -> new : diff = diff% (+/-error%)), and in total. Formatting is
 * report_export.c's rp_report_diff. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ramplace/profiledb.h"
#include "ramplace/report.h"

static const char usage[] =
	"usage: ramplace diff [--limit N] OLD NEW\n"
	"\n"
	"Compares two profiles, OLD and NEW, each a profile.db (all its runs) or profile.db@RUN\n"
	"(one run), function by function: self seconds (samples when a rate is unknown) before\n"
	"and after, the difference, the difference in percent of OLD and its statistical error\n"
	"(the Poisson standard error of two sampled counts; 0 for exact QEMU counts).\n"
	"  -n, --limit N   print at most N functions (the hottest), then the total\n";

typedef struct side {
	char path[4096];
	int64_t run;
	rp_db_totals t;
	rp_profile p;
	int exact;
} side;

/* "profile.db@12" -> path and run 12; a path that exists as given wins over the suffix. */
static int split_spec(side *s, const char *spec, rp_err *err)
{
	const char *at = strrchr(spec, '@');
	char *end;
	s->run = 0;
	snprintf(s->path, sizeof(s->path), "%s", spec);
	if (at && at[1]) {
		long long r = strtoll(at + 1, &end, 10);
		if (*end || r <= 0)
			return rp_err_set(err, RP_EUSAGE, "diff: '%s': the run after '@' must be a number", spec);
		s->run = r;
		s->path[at - spec] = '\0';
	}
	return 0;
}

static int load_side(side *s, const char *spec, rp_err *err)
{
	rp_db *db;
	rp_run_row *runs = NULL;
	size_t nruns = 0;
	int rc = split_spec(s, spec, err);
	if (rc || (rc = rp_db_open_existing(&db, s->path, err)))
		return rc;
	rc = rp_db_totals_load_run(db, s->run, &s->t, err);
	if (!rc && (rc = rp_db_runs_load(db, &runs, &nruns, err)))
		rp_db_totals_release(&s->t);
	rp_db_close(db);
	if (rc)
		return rc;
	s->exact = 1;
	for (size_t i = 0; i < nruns; i++)
		if (!s->run || runs[i].id == s->run)
			s->exact &= strcmp(runs[i].method, "exact") == 0;
	rp_run_rows_free(runs, nruns);
	if ((rc = rp_profile_build(&s->p, &s->t, NULL, 0, err)))
		rp_db_totals_release(&s->t);
	return rc;
}

static void release_side(side *s)
{
	rp_profile_release(&s->p);
	rp_db_totals_release(&s->t);
}

int cmd_diff(int argc, char **argv, rp_err *err)
{
	static const struct option longopts[] = {
		{ "limit", required_argument, NULL, 'n' }, { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	long limit = -1;
	int c;
	char *end;
	while ((c = getopt_long(argc, argv, "n:h", longopts, NULL)) != -1) {
		if (c == 'n') {
			limit = strtol(optarg, &end, 10);
			if (*end || limit < 0)
				return cli_usage_error(err, "diff", "--limit takes a number");
		} else if (c == 'h') {
			return fputs(usage, stdout) < 0 ? RP_EIO : 0;
		} else {
			return cli_usage_error(err, "diff", "unknown option");
		}
	}
	if (argc - optind != 2)
		return cli_usage_error(err, "diff", "expects OLD and NEW");
	side *old = calloc(1, sizeof(side)), *new_ = calloc(1, sizeof(side));
	int rc = !old || !new_ ? rp_err_nomem(err, "diff") : load_side(old, argv[optind], err);
	if (!rc && (rc = load_side(new_, argv[optind + 1], err)))
		release_side(old);
	if (!rc) {
		rp_report_diff(stdout, &old->p, &new_->p, old->exact, new_->exact, "old", "new", limit);
		release_side(old);
		release_side(new_);
	}
	free(old);
	free(new_);
	return rc;
}
