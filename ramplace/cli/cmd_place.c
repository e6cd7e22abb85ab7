/* cmd_place.c: `ramplace [place] --budget SIZE profile.db firmware.elf`: chooses the functions
 * for RAM, writes the GNU ld fragment and the plan beside it (both atomically), and prints what
 * moved. A missing profile.db gives an empty fragment, so the very first build links. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "ldgen.h"
#include "ramplace/placement.h"
#include "ramplace/staleness.h"
#include "ramplace/util.h"

typedef struct place_args {
	rp_place_opts opts;
	const char *output;
	const char *plan_path;
	const char *map_path;
	const char *db_path;
	const char *elf_path;
	const char **exclude;
	size_t nexclude;
	int quiet;
	int have_budget;
	int force;
	double min_mapped;        /* refuse below this share of profiled samples mapping */
} place_args;

/* What profile.db holds, when it exists. */
typedef struct profile {
	rp_db_totals totals;
	rp_db_image *images;
	size_t nimages;
	int have;
} profile;

static const char usage[] =
	"usage: ramplace [place] --budget SIZE [options] profile.db firmware.elf\n"
	"\n"
	"Chooses the functions that give the most profiled samples per byte of RAM and writes a\n"
	"GNU ld fragment to INCLUDE inside the .ramtext output section, plus the plan that\n"
	"'ramplace check' verifies. Without profile.db it writes an empty fragment.\n"
	"\n"
	"  -b, --budget SIZE     RAM for code, veneers included: bytes, or with K/KiB/M\n"
	"  -o, --output FILE     fragment to write (default ramtext.ld)\n"
	"      --plan FILE       plan to write (default FILE.plan beside the fragment)\n"
	"  -m, --map FILE        GNU ld map of firmware.elf (-Wl,-Map): exact input sections\n"
	"      --exclude GLOB    keep matching functions in flash (repeatable)\n"
	"      --region NAME     memory region of the map the budget must fit (default: the\n"
	"                        one holding .ramtext or .data)\n"
	"      --align N         round unit sizes up to N bytes (default 4)\n"
	"      --veneer-size N   bytes per RAM->flash call veneer (default 8 on ARM, 0 else)\n"
	"      --output-section NAME   output section of the fragment (default .ramtext)\n"
	"      --allow-boot-path also move what the reset handler calls (unsafe)\n"
	"      --min-mapped PCT  refuse when less than PCT%% of the profiled samples fall in\n"
	"                        functions the ELF still has (default 50)\n"
	"      --force           place from a stale profile anyway (also: RAMPLACE_FORCE=1)\n"
	"  -q, --quiet           print nothing but errors and warnings\n";

static int add_exclude(place_args *a, const char *glob, rp_err *err)
{
	const char **bigger = realloc(a->exclude, (a->nexclude + 1) * sizeof(char *));
	if (!bigger)
		return rp_err_nomem(err, "reading options");
	a->exclude = bigger;
	a->exclude[a->nexclude++] = glob;
	return 0;
}

static int parse_percent(double *out, const char *text, rp_err *err)
{
	char *end;
	double v = strtod(text, &end);
	if (end == text || (*end && strcmp(end, "%") != 0) || !(v >= 0.0 && v <= 100.0))
		return rp_err_set(err, RP_EUSAGE, "--min-mapped: '%s' is not a percentage from 0 to 100", text);
	*out = v / 100.0;
	return 0;
}

static int parse_args(place_args *a, int argc, char **argv, rp_err *err)
{
	static const struct option longopts[] = {
		{ "budget", required_argument, NULL, 'b' }, { "output", required_argument, NULL, 'o' },
		{ "plan", required_argument, NULL, 'P' },   { "map", required_argument, NULL, 'm' },
		{ "exclude", required_argument, NULL, 'x' }, { "region", required_argument, NULL, 'r' },
		{ "align", required_argument, NULL, 'a' },  { "veneer-size", required_argument, NULL, 'v' },
		{ "output-section", required_argument, NULL, 'S' },
		{ "allow-boot-path", no_argument, NULL, 'B' }, { "quiet", no_argument, NULL, 'q' },
		{ "min-mapped", required_argument, NULL, 'M' }, { "force", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 }
	};
	int c, rc = 0;
	uint64_t n;
	while (!rc && (c = getopt_long(argc, argv, "+b:o:m:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'b': rc = rp_parse_size(&a->opts.budget, optarg, "--budget", err); a->have_budget = 1; break;
		case 'o': a->output = optarg; break;
		case 'P': a->plan_path = optarg; break;
		case 'm': a->map_path = optarg; break;
		case 'x': rc = add_exclude(a, optarg, err); break;
		case 'r': a->opts.region = optarg; break;
		case 'a':
			rc = rp_parse_size(&n, optarg, "--align", err);
			if (!rc && (n == 0 || (n & (n - 1))))
				rc = rp_err_set(err, RP_EUSAGE, "--align: %s is not a power of two", optarg);
			a->opts.align = n;
			break;
		case 'v':
			rc = rp_parse_size(&n, optarg, "--veneer-size", err);
			a->opts.veneer_size = (int64_t)n;
			break;
		case 'S': a->opts.outsec = optarg; break;
		case 'B': a->opts.keep_boot_path = 0; break;
		case 'q': a->quiet = 1; break;
		case 'F': a->force = 1; break;
		case 'M': rc = parse_percent(&a->min_mapped, optarg, err); break;
		case 'h': fputs(usage, stdout); return 1;
		default: return cli_usage_error(err, "place", "unknown option");
		}
	}
	if (rc)
		return rc;
	if (argc - optind != 2)
		return cli_usage_error(err, "place", "expects profile.db and firmware.elf");
	if (!a->have_budget)
		return cli_usage_error(err, "place", "--budget is required");
	const char *force = getenv("RAMPLACE_FORCE"); /* how the build integrations pass --force */
	if (force && *force && strcmp(force, "0") != 0)
		a->force = 1;
	a->db_path = argv[optind];
	a->elf_path = argv[optind + 1];
	a->opts.exclude = a->exclude;
	a->opts.nexclude = a->nexclude;
	return 0;
}

/* No profile.db yet is the first build: place nothing. An existing but empty one is an error. */
static int load_profile(const place_args *a, profile *pr, rp_err *err)
{
	struct stat st;
	rp_db *db;
	if (stat(a->db_path, &st) != 0)
		return 0;
	int rc = rp_db_open_existing(&db, a->db_path, err);
	if (rc)
		return rc;
	rc = rp_db_totals_load(db, &pr->totals, err);
	if (!rc)
		rc = rp_db_images_load(db, &pr->images, &pr->nimages, err);
	rp_db_close(db);
	if (rc)
		return rc;
	if (pr->totals.total == 0)
		return rp_err_set(err, RP_EINPUT, "%s: the profile holds no samples; run 'ramplace record' or 'ramplace import' first",
				  a->db_path);
	pr->have = 1;
	return 0;
}

static void profile_release(profile *pr)
{
	rp_db_totals_release(&pr->totals);
	rp_db_images_free(pr->images, pr->nimages);
}

static void print_vanished(const rp_staleness *st, const place_args *a)
{
	fprintf(stderr, "ramplace: warning: %zu profiled function(s) with %llu samples are not in %s (removed, inlined or renamed since):",
		st->nvanished, (unsigned long long)(st->profiled - st->mapped), a->elf_path);
	for (size_t i = 0; i < st->nvanished && i < 20; i++) {
		const rp_stale_func *v = &st->vanished[i];
		fprintf(stderr, "%s %s%s%s%s (%llu)", i ? "," : "", v->name, v->file ? " (" : "",
			v->file ? v->file : "", v->file ? ")" : "", (unsigned long long)v->samples);
		if (v->now)
			fprintf(stderr, " now %s?", v->now);
	}
	fprintf(stderr, "%s\n", st->nvanished > 20 ? ", ..." : "");
}

/* Says how stale the profile is and refuses, unless --force, when too little of it maps. */
static int assess_profile(const place_args *a, const rp_image *img, const profile *pr, rp_err *err)
{
	rp_staleness st;
	int rc = rp_staleness_assess(&st, img, pr->images, pr->nimages, &pr->totals, err);
	if (rc)
		return rc;
	double share = rp_staleness_mapped_share(&st);
	if (st.nother)
		fprintf(stderr, "ramplace: note: %s: %llu of %llu samples were recorded on %s build %.12s (%s), not on %s (%.12s); %.1f%% of the profiled samples still map\n",
			a->db_path, (unsigned long long)st.other_samples, (unsigned long long)pr->totals.total,
			st.nother > 1 ? "another build, e.g." : "another", st.other_build_id, st.other_path,
			a->elf_path, img->build_id, 100.0 * share);
	if (st.nvanished)
		print_vanished(&st, a);
	if (share < a->min_mapped && !a->force)
		rc = rp_err_set(err, RP_EINPUT, "%s: only %.1f%% of %llu profiled samples map to functions of %s (--min-mapped %.0f%%): the profile is stale; record it again on this build, or pass --force",
				a->db_path, 100.0 * share, (unsigned long long)st.profiled, a->elf_path,
				100.0 * a->min_mapped);
	rp_staleness_release(&st);
	return rc;
}

/* Profiled functions missing from the ELF are named by assess_profile, before placing. */
static void print_warnings(const rp_placement *p)
{
	if (p->guessed_patterns && p->plan->nunits)
		fprintf(stderr, "ramplace: warning: no --map: input sections guessed from symbol names; "
				"pass the link map (-Wl,-Map) for exact patterns and sizes\n");
}

static void print_report(const rp_placement *p, const place_args *a, int have_profile)
{
	const rp_plan *plan = p->plan;
	if (!have_profile) {
		printf("no profile yet (%s does not exist): wrote an empty fragment %s\n", a->db_path, a->output);
		return;
	}
	printf("moved %zu of %zu candidate function(s) to %s: %llu of %llu bytes (%llu code + %zu veneer(s))\n",
	       plan->nunits, p->ncandidates, plan->outsec,
	       (unsigned long long)(plan->used + plan->veneer_reserve), (unsigned long long)plan->budget,
	       (unsigned long long)plan->used, p->nveneers);
	printf("%10s %7s %7s  %s\n", "samples", "share", "bytes", "function");
	for (size_t i = 0; i < plan->nunits; i++) {
		const rp_plan_unit *u = &plan->units[i];
		printf("%10llu %6.2f%% %7llu  %s%s%s%s\n", (unsigned long long)u->samples,
		       plan->total_samples ? 100.0 * (double)u->samples / (double)plan->total_samples : 0.0,
		       (unsigned long long)u->size, u->name, u->file ? " (" : "", u->file ? u->file : "",
		       u->file ? ")" : "");
	}
	for (size_t i = 0; i < p->nkept; i++)
		printf("kept in flash: %s\n", p->kept[i]);
	printf("samples in RAM: %.1f%% of %llu\n",
	       plan->total_samples ? 100.0 * (double)plan->moved_samples / (double)plan->total_samples : 0.0,
	       (unsigned long long)plan->total_samples);
	printf("wrote %s and %s\n", a->output, a->plan_path);
}

static int run_place(place_args *a, rp_err *err)
{
	rp_image *img = NULL;
	rp_map *map = NULL;
	profile pr = { .have = 0 };
	rp_placement placement = { 0 };
	int rc = rp_image_load(&img, a->elf_path, err);
	if (!rc && a->map_path)
		rc = rp_map_load(&map, a->map_path, err);
	if (!rc)
		rc = load_profile(a, &pr, err);
	if (!rc && pr.have)
		rc = assess_profile(a, img, &pr, err);
	if (!rc)
		rc = rp_place(img, map, pr.have ? &pr.totals : NULL, &a->opts, &placement, err);
	if (!rc)
		rc = rp_ldgen_gnu_write(placement.plan, a->output, err);
	if (!rc)
		rc = rp_plan_write(placement.plan, a->plan_path, err);
	if (!rc) {
		print_warnings(&placement);
		if (!a->quiet)
			print_report(&placement, a, pr.have);
	}
	rp_placement_release(&placement);
	profile_release(&pr);
	rp_map_free(map);
	rp_image_free(img);
	return rc;
}

int cmd_place(int argc, char **argv, rp_err *err)
{
	place_args a = { .opts = RP_PLACE_OPTS_INIT, .output = "ramtext.ld", .min_mapped = 0.5 };
	char *default_plan = NULL;
	int rc = parse_args(&a, argc, argv, err);
	if (rc == 1) {
		free(a.exclude);
		return 0;
	}
	if (!rc && !a.plan_path) {
		size_t n = strlen(a.output) + 6;
		if (!(default_plan = malloc(n)))
			rc = rp_err_nomem(err, "reading options");
		else
			snprintf(default_plan, n, "%s.plan", a.output);
		a.plan_path = default_plan;
	}
	if (!rc)
		rc = run_place(&a, err);
	free(default_plan);
	free(a.exclude);
	return rc;
}
