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

#include "check_profile.h"
#include "cli.h"
#include "ramplace/check.h"
#include "ramplace/image.h"
#include "ramplace/plan.h"

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
	char **plans;         /* owned strings */
	size_t nplans;
	const char *elf_path;
	int quiet;            /* failures only, no summaries */
	int allow_empty;      /* --allow-empty: a plan with no unit is not a failure */
	int allow_boot_path;  /* --allow-boot-path: reset-path findings are notes, not failures */
	int plan_allows_boot_path; /* a plan was made with place --allow-boot-path (its boot-path line) */
	const char *profile, *baseline;   /* --profile, --baseline: the move in cycles */
	const char **handler_globs;       /* --ram-handler (owned array, borrowed strings) */
	size_t nhandler_globs;
	int all_handlers;                 /* --ram-handlers */
	rp_plan_func *handlers;           /* the plans' handlers (owned strings), then the options' */
	size_t nhandlers, nplan_handlers;
	size_t nloader_loaded;            /* plans for ESP-IDF, whose bootloader loads IRAM: no copy */
} check_args;

static int add_plan(check_args *a, const char *path, const char *suffix, rp_err *err)
{
	char **bigger = realloc(a->plans, (a->nplans + 1) * sizeof(char *));
	if (!bigger)
		return rp_err_nomem(err, "reading options");
	a->plans = bigger;
	size_t n = strlen(path) + strlen(suffix) + 1;
	if (!(a->plans[a->nplans] = malloc(n)))
		return rp_err_nomem(err, "reading options");
	snprintf(a->plans[a->nplans++], n, "%s%s", path, suffix);
	return 0;
}

static int listed(const check_args *a, const char *path)
{
	for (size_t i = 0; i < a->nplans; i++)
		if (strcmp(a->plans[i], path) == 0)
			return 1;
	return 0;
}

/* The data plans the code plans name ("data-plan", written by place --data), resolved beside
 * each code plan and added once, so `check fw.elf` verifies .ramdata too. A code plan that does
 * not read fails here as it would in check_one. */
static int add_data_plans(check_args *a, rp_err *err)
{
	size_t ngiven = a->nplans;
	int rc = 0;
	for (size_t i = 0; !rc && i < ngiven; i++) {
		rp_plan *plan = NULL;
		if ((rc = rp_plan_read(&plan, a->plans[i], err)))
			break;
		if (plan->data_plan) {
			const char *slash = strrchr(a->plans[i], '/');
			int dirlen = slash ? (int)(slash - a->plans[i] + 1) : 0;
			char path[4096];
			if (snprintf(path, sizeof(path), "%.*s%s", dirlen, a->plans[i], plan->data_plan) >= (int)sizeof(path))
				rc = rp_err_set(err, RP_EINPUT, "%s: data-plan path too long", a->plans[i]);
			else if (!listed(a, path))
				rc = add_plan(a, path, "", err);
		}
		rp_plan_free(plan);
	}
	return rc;
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
		case 'E': a->allow_empty = 1; break;
		case 'A': a->allow_boot_path = 1; break;
		case 'R': a->profile = optarg; break;
		case 'B': a->baseline = optarg; break;
		case 'V': a->all_handlers = 1; break;
		case 'H': {
			const char **bigger = realloc(a->handler_globs, (a->nhandler_globs + 1) * sizeof(char *));
			if (!bigger)
				return rp_err_nomem(err, "reading options");
			a->handler_globs = bigger;
			a->handler_globs[a->nhandler_globs++] = optarg;
			break;
		}
		case 'h': fputs(usage, stdout); return 1;
		default: return cli_usage_error(err, "check", "unknown option");
		}
	}
	if (rc)
		return rc;
	if (argc - optind != 1)
		return cli_usage_error(err, "check", "expects one firmware.elf");
	a->elf_path = argv[optind];
	int rc2 = a->nplans ? 0 : add_plan(a, "ramtext.ld", ".plan", err);
	return rc2 ? rc2 : add_data_plans(a, err);
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

/* Keeps a copy of the plan's interrupt handlers for the proof after every plan is checked. */
static int keep_plan_handlers(check_args *a, const rp_plan *plan, rp_err *err)
{
	if (!plan->nhandlers)
		return 0;
	rp_plan_func *bigger = realloc(a->handlers, (a->nhandlers + plan->nhandlers) * sizeof(*bigger));
	if (!bigger)
		return rp_err_nomem(err, "checking");
	a->handlers = bigger;
	for (size_t i = 0; i < plan->nhandlers; i++) {
		rp_plan_func *h = &a->handlers[a->nhandlers];
		*h = (rp_plan_func){ NULL, NULL };
		a->nhandlers++;
		a->nplan_handlers++;
		if (rp_strdup(&h->name, plan->handlers[i].name, err) || rp_strdup(&h->file, plan->handlers[i].file, err))
			return err->code;
	}
	return 0;
}

static int check_one(const char *plan_path, const rp_image *img, check_args *a, const char **outsec,
		     size_t *failures, rp_err *err)
{
	rp_plan *plan = NULL;
	rp_check_result res;
	int quiet = a->quiet;
	int rc = rp_plan_read(&plan, plan_path, err);
	/* everything passes trivially on an empty plan: in CI that is a loop that did nothing */
	/* a data plan may move nothing: the code plan beside it is what shows the loop did something */
	if (!rc && plan->allow_boot_path)
		a->plan_allows_boot_path = 1;
	if (!rc && plan->nunits == 0 && !a->allow_empty && !plan->is_data) {
		printf("%s: the plan moves nothing (no profile, or nothing worth moving): nothing to check; "
		       "--allow-empty when that is expected\n", plan_path);
		(*failures)++;
	}
	if (!rc)
		rc = keep_plan_handlers(a, plan, err);
	if (!rc && rp_dialect_info_of(rp_plan_dialect(plan))->loader_fills_ram)
		a->nloader_loaded++;
	if (!rc)
		rc = rp_check_run(img, plan, &res, err);
	if (!rc) {
		print_result(img, &res, plan, quiet);
		*failures += res.nfailures;
		rp_check_result_release(&res);
	}
	/* the name outlives the plan: the reset-path check needs it */
	*outsec = NULL;
	if (!rc && plan->outsec && !(*outsec = strdup(plan->outsec)))
		rc = rp_err_nomem(err, "checking");
	rp_plan_free(plan);
	return rc;
}

/* Interrupt handlers kept off flash: the plans' own and --ram-handler(s)' (found in the relinked
 * ELF), each walked to the first function in flash. */
static int check_handlers(check_args *a, const rp_image *img, const char **outsecs, size_t *failures, rp_err *err)
{
	int rc = rp_check_find_handlers(img, a->handler_globs, a->nhandler_globs, a->all_handlers, &a->handlers,
					&a->nhandlers, err);
	if (rc || !a->nhandlers)
		return rc;
	rp_check_result res;
	memset(&res, 0, sizeof(res));
	size_t nreached = 0;
	rc = rp_check_handlers(img, a->handlers, a->nhandlers, outsecs, a->nplans, &res, &nreached, err);
	for (size_t i = 0; !rc && i < res.nfailures; i++)
		printf("%s\n", res.failures[i]);
	if (!rc && !a->quiet)
		printf("interrupt handlers: %zu, reaching %zu function(s), %zu path(s) to flash\n", a->nhandlers, nreached,
		       res.nfailures);
	*failures += res.nfailures;
	rp_check_result_release(&res);
	return rc;
}

static int run_check(check_args *a, rp_err *err)
{
	rp_image *img = NULL;
	const char **outsecs = calloc(a->nplans, sizeof(char *));
	size_t failures = 0, nreset = 0;
	int rc = outsecs ? rp_image_load(&img, a->elf_path, err) : rp_err_nomem(err, "checking");
	for (size_t i = 0; !rc && i < a->nplans; i++)
		rc = check_one(a->plans[i], img, a, &outsecs[i], &failures, err);
	int boot_allowed = a->allow_boot_path || a->plan_allows_boot_path;
	const char *allowed_by = a->allow_boot_path ? " (allowed by --allow-boot-path)" : " (allowed: the plan was made with --allow-boot-path)";
	if (!rc && a->nplans && a->nloader_loaded == a->nplans) {
		if (!a->quiet)
			printf("reset path: not a constraint: ESP-IDF's second-stage bootloader loads IRAM before the "
			       "application starts\n");
	} else if (!rc) {
		rp_check_result res;
		memset(&res, 0, sizeof(res));
		rc = rp_check_reset_path(img, outsecs, a->nplans, &res, &nreset, err);
		/* allowed: the user vouched for the boot path; what the analysis sees is still said */
		for (size_t i = 0; !rc && i < res.nfailures && (!boot_allowed || !a->quiet); i++)
			printf("%s%s\n", boot_allowed ? "allowed: " : "", res.failures[i]);
		if (!rc && !a->quiet)
			printf("reset path: %zu function%s run before the copy, %zu in RAM%s\n", nreset, nreset == 1 ? "" : "s",
			       res.nfailures, boot_allowed ? allowed_by : "");
		if (!boot_allowed)
			failures += res.nfailures;
		rp_check_result_release(&res);
	}
	if (!rc)
		rc = check_handlers(a, img, outsecs, &failures, err);
	if (!rc && a->profile)
		rc = check_profile_report(a->profile, a->baseline, a->plans, a->nplans, err);
	if (!rc && failures)
		rc = rp_err_set(err, RP_ECHECK, "%s: %zu check%s failed", a->elf_path, failures, failures == 1 ? "" : "s");
	for (size_t i = 0; outsecs && i < a->nplans; i++)
		free((char *)outsecs[i]);
	free(outsecs);
	rp_image_free(img);
	return rc;
}

int cmd_check(int argc, char **argv, rp_err *err)
{
	check_args a = { 0 };
	int rc = parse_args(&a, argc, argv, err);
	if (rc == 0)
		rc = run_check(&a, err);
	for (size_t i = 0; i < a.nplans; i++)
		free(a.plans[i]);
	for (size_t i = 0; i < a.nplan_handlers; i++) {   /* the options' names are the image's */
		free(a.handlers[i].name);
		free(a.handlers[i].file);
	}
	free(a.handlers);
	free(a.handler_globs);
	free(a.plans);
	return rc > 0 ? 0 : rc;
}
