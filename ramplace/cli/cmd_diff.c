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
	rp_profile_spec *old = calloc(1, sizeof(*old)), *new_ = calloc(1, sizeof(*new_));
	int rc = !old || !new_ ? rp_err_nomem(err, "diff") : rp_profile_spec_load(old, argv[optind], err);
	if (!rc && (rc = rp_profile_spec_load(new_, argv[optind + 1], err)))
		rp_profile_spec_release(old);
	if (!rc) {
		rp_report_diff(stdout, &old->p, &new_->p, old->exact, new_->exact, "old", "new", limit);
		rp_profile_spec_release(old);
		rp_profile_spec_release(new_);
	}
	free(old);
	free(new_);
	return rc;
}
