/* cmd_check.c: `ramplace check [--plan FILE]... [--fragment FILE]... firmware.elf`: verifies on
 * the relinked ELF, for each plan (one per region), that every planned function sits in the
 * plan's output section, that the section fits the budget, is loaded from flash and holds the
 * bytes the plan claimed; then that nothing the reset handler runs before the copy is in RAM.
 * Prints one line per failure and a summary per plan on stdout (with --quiet only the failures);
 * any failure makes the command fail with RP_ECHECK (exit status 1). */
#include <elf.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ramplace/check.h"
#include "ramplace/check_firmware.h"
#include "ramplace/image.h"
#include "ramplace/plan.h"
#include "ramplace/present.h"

static const char usage[] =
	"usage: ramplace check [options] firmware.elf\n"
	"\n"
	"Verifies on the relinked firmware.elf that the plan landed: every planned function is in\n"
	"the plan's output section (and memory region), the section is within the budget, is\n"
	"loaded from flash and holds what the plan claimed (code + veneers, within the unit\n"
	"alignment); and that nothing the reset handler calls before it copies the code is in RAM.\n"
	"Exits 1 when a check fails.\n"
	"\n"
	"  -p, --plan FILE       plan to verify (default: the fragment's name + .plan); repeat\n"
	"                        it for the plans of several regions. The data plan a code plan\n"
	"                        names (place --data: ramdata.ld.plan) is verified with it\n"
	"  -f, --fragment FILE   fragment the plan was written beside (default ramtext.ld);\n"
	"                        repeatable\n"
	"  -q, --quiet           print only the failures (the exit status is the same)\n"
	"      --allow-empty     a plan that moves nothing passes (without it, an empty plan is\n"
	"                        a failure: a loop that moved nothing has not worked)\n"
	"      --allow-boot-path functions the reset path runs before the copy may sit in RAM:\n"
	"                        they are listed, not failed: for a firmware whose reset path\n"
	"                        you know better than the analysis, placed with place's option\n"
	"                        of the same name (or allow-boot-path: yes in ramplace.yaml);\n"
	"                        a plan made so says it (boot-path allowed), and is honoured\n"
	"      --profile NEW.db  the relinked firmware's exact counts and flash stall cycles (QEMU\n"
	"                        plugin model=): its modeled cycles, and with --baseline the\n"
	"                        speed-up achieved against the one the plan predicted\n"
	"      --baseline OLD.db the profile the plan was made from (same flash model)\n"
	"      --ram-handler GLOB  prove that no path from the matching interrupt handlers\n"
	"                        reaches code in flash (repeatable; the plan's own handlers,\n"
	"                        place --ram-handler(s), are proved without it)\n"
	"      --ram-handlers    the same for every vector-table handler but the reset handler\n"
	"                        (RISC-V: every trap handler the code writes into mtvec)\n"
	"  -h, --help            print this help\n";

typedef struct check_args {
	const char **plans;   /* the plan files given (owned array; "ramtext.ld.plan" strings owned too) */
	char **owned;         /* the strings made here (--fragment's NAME.plan) */
	size_t nplans, nowned;
	const char *profile, *baseline;   /* --profile, --baseline: the move in cycles */
	const char **handler_globs;       /* --ram-handler (owned array, borrowed strings) */
	rp_check_opts o;
	int quiet;            /* failures only, no summaries */
} check_args;

/* A plan file: path itself, or path + suffix (a fragment's plan). */
static int add_plan(check_args *a, const char *path, const char *suffix, rp_err *err)
{
	if (!*suffix)
		return cli_push(&a->plans, &a->nplans, path, err);
	char **bigger = realloc(a->owned, (a->nowned + 1) * sizeof(char *));
	if (!bigger)
		return rp_err_nomem(err, "reading options");
	a->owned = bigger;
	size_t n = strlen(path) + strlen(suffix) + 1;
	if (!(a->owned[a->nowned] = malloc(n)))
		return rp_err_nomem(err, "reading options");
	snprintf(a->owned[a->nowned], n, "%s%s", path, suffix);
	return cli_push(&a->plans, &a->nplans, a->owned[a->nowned++], err);
}

/* Returns 1 after --help, 0 to go on, or a negative code. */
static int parse_args(check_args *a, int argc, char **argv, rp_err *err)
{
	static const struct option longopts[] = {
		{ "plan", required_argument, NULL, 'p' },
		{ "fragment", required_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "allow-empty", no_argument, NULL, 'E' },
		{ "allow-boot-path", no_argument, NULL, 'A' },
		{ "profile", required_argument, NULL, 'R' }, { "baseline", required_argument, NULL, 'B' },
		{ "ram-handler", required_argument, NULL, 'H' }, { "ram-handlers", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c, rc = 0;
	while (!rc && (c = getopt_long(argc, argv, "p:f:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': rc = add_plan(a, optarg, "", err); break;
		case 'f': rc = add_plan(a, optarg, ".plan", err); break;
		case 'q': a->quiet = 1; break;
		case 'E': a->o.allow_empty = 1; break;
		case 'A': a->o.allow_boot_path = 1; break;
		case 'R': a->profile = optarg; break;
		case 'B': a->baseline = optarg; break;
		case 'V': a->o.all_handlers = 1; break;
		case 'H': rc = cli_push(&a->handler_globs, &a->o.nhandler_globs, optarg, err); break;
		case 'h': fputs(usage, stdout); return 1;
		default: return cli_usage_error(err, "check", "unknown option");
		}
	}
	if (rc)
		return rc;
	if (argc - optind != 1)
		return cli_usage_error(err, "check", "expects one firmware.elf");
	a->o.elf_path = argv[optind];
	return a->nplans ? 0 : add_plan(a, "ramtext.ld", ".plan", err);
}

static void print_result(const rp_image *img, const rp_check_result *res, const rp_plan *plan, int quiet)
{
	for (size_t i = 0; i < res->nfailures; i++)
		printf("%s\n", res->failures[i]);
	if (quiet)
		return;
	char of_total[64] = "";
	if (res->nfuncs_placed != res->nfuncs_checked)
		snprintf(of_total, sizeof(of_total), " of %zu", res->nfuncs_checked);
	if (res->shared_outsec && !res->nby_memory) {   /* an SDK's section: its own code or data too */
		int espidf = rp_dialect_info_of(rp_plan_dialect(plan))->loader_fills_ram;
		printf("check: %zu%s function%s in RAM in %s (%s); %llu bytes of %llu with %zu veneer%s (planned %llu + %llu veneer reserve)\n",
		       res->nfuncs_placed, of_total, res->nfuncs_checked == 1 ? "" : "s", plan->outsec,
		       espidf ? "loaded there by ESP-IDF's bootloader" : "run from RAM, loaded from flash",
		       (unsigned long long)(res->placed_bytes + res->veneer_bytes), (unsigned long long)plan->budget,
		       res->nveneers, res->nveneers == 1 ? "" : "s", (unsigned long long)res->planned_bytes,
		       (unsigned long long)plan->veneer_reserve);
		printf("accounting: by memory: %s holds %s too, so the planned functions' own bytes (and the veneers in it to what they call) "
		       "are checked against the budget, not its size\n", plan->outsec,
		       espidf ? "ESP-IDF's own IRAM code" : "the program's data and the SDK's own RAM code");
		return;
	}
	if (res->nby_memory) {   /* an SDK's own RAM section holds them: checked by memory */
		printf("check: %zu%s function%s in RAM: %zu in %s, %zu in %s (run from RAM, loaded from flash); "
		       "%llu bytes of %llu (planned %llu + %llu veneer reserve)\n", res->nfuncs_placed, of_total,
		       res->nfuncs_checked == 1 ? "" : "s", res->nfuncs_placed - res->nby_memory, plan->outsec, res->nby_memory,
		       res->holders, (unsigned long long)(res->placed_bytes + res->veneer_bytes), (unsigned long long)plan->budget,
		       (unsigned long long)res->planned_bytes, (unsigned long long)plan->veneer_reserve);
		printf("accounting: by memory: %s may hold code the plan did not move, so the planned functions' own "
		       "bytes are checked against the budget, not the sections' sizes\n", res->holders);
		return;
	}
	printf("check: %zu%s %s%s in %s (%llu bytes of %llu; planned %llu + %zu veneer%s)\n",
	       res->nfuncs_placed, of_total, plan->is_data ? "data object" : "function",
	       res->nfuncs_checked == 1 ? "" : "s", plan->outsec,
	       (unsigned long long)res->outsec_size, (unsigned long long)plan->budget,
	       (unsigned long long)res->planned_bytes, res->nveneers, res->nveneers == 1 ? "" : "s");
	printf("accounting: %s planned %llu bytes (%llu code + %llu in %llu veneer(s)), linked %llu: difference %+lld%s\n",
	       plan->outsec, (unsigned long long)res->planned_total, (unsigned long long)plan->used,
	       (unsigned long long)plan->veneer_reserve, (unsigned long long)plan->nveneers,
	       (unsigned long long)res->outsec_size, (long long)res->difference,
	       res->difference >= -(long long)(plan->align ? plan->align : 4) ? ""
	       : plan->sizes_estimated ? " (a plan made without a map holds upper bounds: below it is fine)"
	       : img->machine == EM_RISCV ? " (GNU ld relaxed calls between moved functions: below the plan is fine)" : "");
}

static void print_report(const check_args *a, const rp_check_report *r)
{
	for (size_t i = 0; i < r->nplans; i++) {
		const rp_check_plan_report *p = &r->plans[i];
		if (p->empty_fails)
			printf("%s: the plan moves nothing (no profile, or nothing worth moving): nothing to check; "
			       "--allow-empty when that is expected\n", p->path);
		if (p->checked)
			print_result(r->img, &p->res, p->plan, a->quiet);
	}
	if (r->reset_loader && !a->quiet)
		printf("reset path: not a constraint: ESP-IDF's second-stage bootloader loads IRAM before the "
		       "application starts\n");
	if (r->reset_checked) {
		const char *allowed_by = r->boot_allowed_by_option ? " (allowed by --allow-boot-path)"
								   : " (allowed: the plan was made with --allow-boot-path)";
		/* allowed: the user vouched for the boot path; what the analysis sees is still said */
		for (size_t i = 0; i < r->reset.nfailures && (!r->boot_allowed || !a->quiet); i++)
			printf("%s%s\n", r->boot_allowed ? "allowed: " : "", r->reset.failures[i]);
		if (!a->quiet)
			printf("reset path: %zu function%s run before the copy, %zu in RAM%s\n", r->nreset, r->nreset == 1 ? "" : "s",
			       r->reset.nfailures, r->boot_allowed ? allowed_by : "");
	}
	if (r->handlers_checked) {
		for (size_t i = 0; i < r->handlers.nfailures; i++)
			printf("%s\n", r->handlers.failures[i]);
		if (!a->quiet)
			printf("interrupt handlers: %zu, reaching %zu function(s), %zu path(s) to flash\n", r->nhandlers,
			       r->nreached, r->handlers.nfailures);
	}
}

static int run_check(check_args *a, rp_err *err)
{
	rp_check_report r;
	a->o.plans = a->plans;
	a->o.nplans = a->nplans;
	a->o.handler_globs = a->handler_globs;
	int rc = rp_check_firmware(&a->o, &r, err);
	print_report(a, &r);   /* also what was checked before an error */
	if (!rc && a->profile) {
		const char **paths = malloc((r.nplans ? r.nplans : 1) * sizeof(char *));
		for (size_t i = 0; paths && i < r.nplans; i++)
			paths[i] = r.plans[i].path;
		rc = paths ? rp_present_check_profile(stdout, a->profile, a->baseline, paths, r.nplans, err) : rp_err_nomem(err, "checking");
		free(paths);
	}
	if (!rc && r.failures)
		rc = rp_err_set(err, RP_ECHECK, "%s: %zu check%s failed", a->o.elf_path, r.failures, r.failures == 1 ? "" : "s");
	rp_check_report_release(&r);
	return rc;
}

int cmd_check(int argc, char **argv, rp_err *err)
{
	check_args a = { 0 };
	int rc = parse_args(&a, argc, argv, err);
	if (rc == 0)
		rc = run_check(&a, err);
	for (size_t i = 0; i < a.nowned; i++)
		free(a.owned[i]);
	free(a.owned);
	free(a.plans);
	free(a.handler_globs);
	return rc > 0 ? 0 : rc;
}
