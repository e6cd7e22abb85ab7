/* cmd_report.c: `ramplace report profile.db`: the flat profile summed over every run, in
 * gprof's columns (% time, cumulative, self samples, name). */
#include <getopt.h>
#include <stdlib.h>
#include <stdio.h>

#include "cli.h"
#include "ramplace/profiledb.h"

static const char usage[] =
	"usage: ramplace report [--limit N] profile.db\n"
	"\n"
	"Prints the flat profile: every function's share of the samples of all runs.\n"
	"  -n, --limit N   print at most N functions (default: all)\n";

static void print_flat(const rp_db_totals *t, long limit)
{
	double cumulative = 0;
	printf("Flat profile: %llu samples in %zu run(s) on %zu build(s)\n\n",
	       (unsigned long long)t->total, t->nruns, t->nimages);
	printf("%7s %11s %10s  %s\n", "% time", "cumulative", "self", "name");
	for (size_t i = 0; i < t->nfuncs && (limit < 0 || (long)i < limit); i++) {
		const rp_func_total *f = &t->funcs[i];
		double share = t->total ? 100.0 * (double)f->count / (double)t->total : 0.0;
		cumulative += share;
		printf("%6.2f%% %10.2f%% %10llu  %s%s%s%s\n", share, cumulative, (unsigned long long)f->count,
		       f->func, f->file ? " (" : "", f->file ? f->file : "", f->file ? ")" : "");
	}
}

int cmd_report(int argc, char **argv, rp_err *err)
{
	static const struct option longopts[] = {
		{ "limit", required_argument, NULL, 'n' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	long limit = -1;
	int c;
	while ((c = getopt_long(argc, argv, "+n:h", longopts, NULL)) != -1) {
		if (c == 'n') {
			char *end;
			limit = strtol(optarg, &end, 10);
			if (*end || limit < 0)
				return cli_usage_error(err, "report", "--limit takes a number");
		} else if (c == 'h') {
			fputs(usage, stdout);
			return 0;
		} else {
			return cli_usage_error(err, "report", "unknown option");
		}
	}
	if (argc - optind != 1)
		return cli_usage_error(err, "report", "expects profile.db");
	rp_db *db;
	rp_db_totals t;
	int rc = rp_db_open_existing(&db, argv[optind], err);
	if (rc)
		return rc;
	rc = rp_db_totals_load(db, &t, err);
	rp_db_close(db);
	if (rc)
		return rc;
	print_flat(&t, limit);
	rp_db_totals_release(&t);
	return 0;
}
