/* cmd_check.c: `ramplace check [--plan FILE] [--fragment FILE] firmware.elf`: verifies on the
 * relinked ELF that every planned function sits in the plan's output section, that the section
 * fits the budget and is loaded from flash. Prints one line per failure and a summary on
 * stdout; any failure makes the command fail with RP_ECHECK (exit status 1). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ramplace/check.h"
#include "ramplace/image.h"
#include "ramplace/plan.h"

static const char usage[] =
	"usage: ramplace check [options] firmware.elf\n"
	"\n"
	"Verifies on the relinked firmware.elf that the plan landed: every planned function is in\n"
	"the plan's output section (and memory region), the section is within the budget and is\n"
	"loaded from flash. Exits 1 when a check fails.\n"
	"\n"
	"  -p, --plan FILE       plan to verify (default: the fragment's name + .plan)\n"
	"  -f, --fragment FILE   fragment the plan was written beside (default ramtext.ld)\n"
	"  -h, --help            print this help\n";

typedef struct check_args {
	const char *plan_path;
	const char *fragment;
	const char *elf_path;
	char *default_plan;   /* "<fragment>.plan", owned */
} check_args;

/* Returns 1 after --help, 0 to go on, or a negative code. */
static int parse_args(check_args *a, int argc, char **argv, rp_err *err)
{
	static const struct option longopts[] = {
		{ "plan", required_argument, NULL, 'p' },
		{ "fragment", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;
	a->fragment = "ramtext.ld";
	while ((c = getopt_long(argc, argv, "+p:f:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': a->plan_path = optarg; break;
		case 'f': a->fragment = optarg; break;
		case 'h': fputs(usage, stdout); return 1;
		default: return cli_usage_error(err, "check", "unknown option");
		}
	}
	if (argc - optind != 1)
		return cli_usage_error(err, "check", "expects one firmware.elf");
	a->elf_path = argv[optind];
	if (!a->plan_path) {
		size_t n = strlen(a->fragment) + sizeof(".plan");
		a->default_plan = malloc(n);
		if (!a->default_plan)
			return rp_err_nomem(err, "reading options");
		snprintf(a->default_plan, n, "%s.plan", a->fragment);
		a->plan_path = a->default_plan;
	}
	return 0;
}

static void print_result(const rp_check_result *res, const rp_plan *plan)
{
	for (size_t i = 0; i < res->nfailures; i++)
		printf("%s\n", res->failures[i]);
	char of_total[64] = "";
	if (res->nfuncs_placed != res->nfuncs_checked)
		snprintf(of_total, sizeof(of_total), " of %zu", res->nfuncs_checked);
	printf("check: %zu%s function%s in %s (%llu bytes of %llu; planned %llu + %zu veneer%s)\n",
	       res->nfuncs_placed, of_total, res->nfuncs_checked == 1 ? "" : "s", plan->outsec,
	       (unsigned long long)res->outsec_size, (unsigned long long)plan->budget,
	       (unsigned long long)res->planned_bytes, res->nveneers, res->nveneers == 1 ? "" : "s");
}

static int run_check(const check_args *a, rp_err *err)
{
	rp_plan *plan = NULL;
	rp_image *img = NULL;
	rp_check_result res;
	int rc = rp_plan_read(&plan, a->plan_path, err);
	if (!rc)
		rc = rp_image_load(&img, a->elf_path, err);
	if (!rc)
		rc = rp_check_run(img, plan, &res, err);
	if (!rc) {
		print_result(&res, plan);
		if (res.nfailures)
			rc = rp_err_set(err, RP_ECHECK, "%s: %zu check%s failed", a->elf_path, res.nfailures,
					res.nfailures == 1 ? "" : "s");
		rp_check_result_release(&res);
	}
	rp_image_free(img);
	rp_plan_free(plan);
	return rc;
}

int cmd_check(int argc, char **argv, rp_err *err)
{
	check_args a = { 0 };
	int rc = parse_args(&a, argc, argv, err);
	if (rc == 0)
		rc = run_check(&a, err);
	free(a.default_plan);
	return rc > 0 ? 0 : rc;
}
