/* cmd_place.c: `ramplace [place] --budget SIZE profile.db firmware.elf`: chooses the functions
 * for RAM, writes the GNU ld fragment and the plan beside it (both atomically), and prints what
 * moved. With --config ramplace.yaml: several regions (one fragment and plan each), pins,
 * closures and the cost model; command-line options override the file. A missing profile.db
 * gives empty fragments, so the very first build links. */
#include <elf.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_html.h"
#include "cli_stability.h"
#include "ldgen.h"
#include "place_cycles.h"
#include "place_data.h"
#include "ramplace/config.h"
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
	const char **exclude, **pin, **closure;
	size_t nexclude, npin, nclosure;
	const char *config_path;
	int budget_auto;
	double flash_wait_states;   /* < 0: not given */
	int quiet;
	int timings;              /* --timings: seconds of each stage to stderr */
	const char *html;         /* --html FILE: the decision as one HTML page (cli_html.c) */
	int have_budget;
	int align_given, output_given, time_limit_given;
	int allow_empty;          /* --allow-empty: no profile.db is a first build */
	int linker;               /* --linker: 0 GNU ld, 1 ld.lld, -1 as the ELF's .comment says */
	rp_config *cfg;             /* owned */
	rp_region_cfg *regions;     /* owned copy with the command-line overrides */
	size_t nregions;
	char **fragments, **plans;  /* per region, owned */
	int force;
	double min_mapped;        /* refuse below this share of profiled samples mapping */
	place_data_args data;     /* --data, --no-data, --pin-data: read-only data in .ramdata */
	place_cycles cycles;      /* --flash-model, cost.model: placement and output in cycles */
} place_args;

/* What profile.db holds, when it exists. */
typedef struct profile {
	rp_db_totals totals;
	rp_arc_total *arcs;       /* with a cost model: sampled arcs, for crossing costs */
	size_t narcs;
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
	"  -b, --budget SIZE     RAM for code, veneers included: bytes, or with K/KiB/M, or\n"
	"                        'auto' (what .data, .bss, heap and stack leave; needs --map;\n"
	"                        with --map, a larger number is warned about)\n"
	"  -c, --config FILE     ramplace.yaml: regions, pin, exclude, closure, cost model\n"
	"                        (docs/config.md); the options here override it\n"
	"  -o, --output FILE     fragment to write (default ramtext.ld)\n"
	"      --plan FILE       plan to write (default FILE.plan beside the fragment)\n"
	"  -m, --map FILE        GNU ld map of firmware.elf (-Wl,-Map): exact input sections\n"
	"      --exclude GLOB    keep matching functions in flash (repeatable)\n"
	"      --region NAME     memory region of the map the budget must fit (default: the\n"
	"                        one holding .ramtext or .data)\n"
	"      --align N         alignment of the output section's end, and of an input section\n"
	"                        whose own is unknown (default 4); each input section counts\n"
	"                        at its own alignment (read from the objects the map names)\n"
	"      --veneer-size N   bytes per RAM->flash call veneer (default: the architecture's\n"
	"                        and the linker's: 8 on ARMv7-M, 16 on ARMv6-M, 12 with ld.lld,\n"
	"                        0 on RISC-V)\n"
	"      --linker gnu|lld  the linker that will use the fragment (default: the one that\n"
	"                        linked firmware.elf, from its .comment)\n"
	"      --output-section NAME   output section of the fragment (default .ramtext)\n"
	"      --allow-boot-path also move what the reset handler calls (unsafe)\n"
	"      --pin GLOB        always move matching functions (repeatable)\n"
	"      --closure GLOB    move matching functions and everything they call (repeatable)\n"
	"      --flash-wait-states N   cost model: report cycles, weigh crossing calls\n"
	"      --flash-model SPEC  place by stall cycles saved under a flash model: ws:N,\n"
	"                        art:ws=N,line=L, cache:rp2040|fe310|esp32 or\n"
	"                        cache:size=S,ways=W,line=L,penalty=P (docs/cost-models.md);\n"
	"                        the profile's own stall cycles (QEMU plugin model=) when it has\n"
	"                        them for this model. Every place prints the modeled cycles\n"
	"                        before and after (default model ws:5)\n"
	"      --time-limit S    ILP time limit in seconds (default 10)\n"
	"      --ilp             use the ILP even for a plain knapsack\n"
	"      --min-mapped PCT  refuse when less than PCT% of the profiled samples fall in\n"
	"                        functions the ELF still has (default 50)\n"
	"      --force           place from a stale profile anyway (also: RAMPLACE_FORCE=1)\n"
	"      --min-share PCT   leave in flash what has less than PCT% of the samples: not\n"
	"                        worth its copy at boot and its veneers (default 0.01)\n"
	"      --allow-empty     no profile.db yet (a first build): write empty fragment(s)\n"
	"                        instead of failing\n"
	"      --data            also move hot read-only data objects (needs --map and\n"
	"                        -fdata-sections) to .ramdata: writes ramdata.ld and\n"
	"                        ramdata.ld.plan beside the fragment, in the same budget;\n"
	"                        weighed in stall cycles like the code when placing in cycles\n"
	"      --no-data         move code only (the default)\n"
	"      --pin-data GLOB   always move matching const objects (implies --data)\n"
	"      --html FILE       also write the decision as one self-contained HTML page (budget\n"
	"                        curve, RAM and flash maps, hot functions; as 'report --html')\n"
	"      --timings         print the seconds of each stage to standard error: ELF, map,\n"
	"                        profile, call graph, solve, write\n"
	"  -q, --quiet           print nothing but errors and warnings\n";

static int add_glob(const char ***list, size_t *n, const char *glob, rp_err *err)
{
	const char **bigger = realloc(*list, (*n + 1) * sizeof(char *));
	if (!bigger)
		return rp_err_nomem(err, "reading options");
	*list = bigger;
	bigger[(*n)++] = glob;
	return 0;
}

static int parse_double(double *out, const char *text, const char *what, double lo, double hi, rp_err *err)
{
	char *end;
	double v = strtod(text, &end);
	if (!*text || *end || !(v >= lo && v <= hi))
		return rp_err_set(err, RP_EUSAGE, "%s: '%s' is not a number from %g to %g", what, text, lo, hi);
	*out = v;
	return 0;
}

static int parse_percent(double *out, const char *text, const char *what, rp_err *err)
{
	char *end;
	double v = strtod(text, &end);
	if (end == text || (*end && strcmp(end, "%") != 0) || !(v >= 0.0 && v <= 100.0))
		return rp_err_set(err, RP_EUSAGE, "%s: '%s' is not a percentage from 0 to 100", what, text);
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
		{ "config", required_argument, NULL, 'c' }, { "pin", required_argument, NULL, 'p' },
		{ "closure", required_argument, NULL, 'C' }, { "flash-wait-states", required_argument, NULL, 'W' },
		{ "time-limit", required_argument, NULL, 'T' }, { "ilp", no_argument, NULL, 'I' },
		{ "allow-empty", no_argument, NULL, 'E' }, { "linker", required_argument, NULL, 'L' },
		{ "min-share", required_argument, NULL, 's' }, PLACE_DATA_LONGOPTS,
		{ "html", required_argument, NULL, 'H' }, { "timings", no_argument, NULL, 'G' },
		{ "flash-model", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 }
	};
	int c, rc = 0;
	uint64_t n;
	while (!rc && (c = getopt_long(argc, argv, "b:o:m:c:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'E':
			a->allow_empty = 1;
			break;
		case 's':
			rc = parse_percent(&a->opts.min_share, optarg, "--min-share", err);
			break;
		case 'L':
			if (strcmp(optarg, "gnu") != 0 && strcmp(optarg, "lld") != 0)
				rc = rp_err_set(err, RP_EUSAGE, "--linker: '%s' is neither gnu nor lld", optarg);
			a->linker = strcmp(optarg, "lld") == 0 ? 1 : 0;
			break;
		case 'b':
			a->have_budget = 1;
			a->budget_auto = strcmp(optarg, "auto") == 0;
			if (!a->budget_auto)
				rc = rp_parse_size(&a->opts.budget, optarg, "--budget", err);
			break;
		case 'c': a->config_path = optarg; break;
		case 'p': rc = add_glob(&a->pin, &a->npin, optarg, err); break;
		case 'C': rc = add_glob(&a->closure, &a->nclosure, optarg, err); break;
		case 'W': rc = parse_double(&a->flash_wait_states, optarg, "--flash-wait-states", 0, 1000, err); break;
		case 'T':
			rc = parse_double(&a->opts.time_limit_s, optarg, "--time-limit", 0.01, 86400, err);
			a->time_limit_given = 1;
			break;
		case 'I': a->opts.force_ilp = 1; break;
		case 'o': a->output = optarg; a->output_given = 1; break;
		case 'P': a->plan_path = optarg; break;
		case 'm': a->map_path = optarg; break;
		case 'x': rc = add_glob(&a->exclude, &a->nexclude, optarg, err); break;
		case 'r': a->opts.region = optarg; break;
		case 'a':
			rc = rp_parse_size(&n, optarg, "--align", err);
			if (!rc && rp_check_align(n, "--align", err))
				rc = err->code = RP_EUSAGE;
			a->opts.align = n;
			a->align_given = 1;
			break;
		case 'v':
			rc = rp_parse_size(&n, optarg, "--veneer-size", err);
			if (!rc && rp_check_veneer_size(n, "--veneer-size", err))
				rc = err->code = RP_EUSAGE;
			a->opts.veneer_size = (int64_t)n;
			break;
		case 'S': a->opts.outsec = optarg; break;
		case 'B': a->opts.keep_boot_path = 0; break;
		case 'q': a->quiet = 1; break;
		case 'H': a->html = optarg; break;
		case 'f': rc = place_cycles_option(&a->cycles, optarg, err); break;
		case 'G': a->timings = 1; break;
		case 'F': a->force = 1; break;
		case 'M': rc = parse_percent(&a->min_mapped, optarg, "--min-mapped", err); break;
		case 'h': fputs(usage, stdout); return 1;
		default:
			if ((rc = place_data_option(&a->data, c, optarg, err)) > 0)
				return cli_usage_error(err, "place", "unknown option");
		}
	}
	if (rc)
		return rc;
	if (argc - optind != 2)
		return cli_usage_error(err, "place", "expects profile.db and firmware.elf");
	if (!a->have_budget && !a->config_path)
		return cli_usage_error(err, "place", "--budget (or --config with regions) is required");
	const char *force = getenv("RAMPLACE_FORCE"); /* how the build integrations pass --force */
	if (force && *force && strcmp(force, "0") != 0)
		a->force = 1;
	a->db_path = argv[optind];
	a->elf_path = argv[optind + 1];
	return 0;
}
static int append_names(const char ***list, size_t *n, char *const *names, size_t count, rp_err *err)
{
	for (size_t i = 0; i < count; i++)
		if (add_glob(list, n, names[i], err))
			return err->code;
	return 0;
}

/* The regions: the config's, with --budget, --output-section, --region and --align applied to
 * the first (--align to all); without a config, one region from the options. */
static int make_regions(place_args *a, rp_err *err)
{
	size_t n = a->cfg ? a->cfg->nregions : 1;
	a->regions = calloc(n, sizeof(rp_region_cfg));
	if (!a->regions)
		return rp_err_nomem(err, "reading options");
	a->nregions = n;
	if (a->cfg)
		memcpy(a->regions, a->cfg->regions, n * sizeof(rp_region_cfg));
	else
		rp_region_cfg_defaults(&a->regions[0]);
	rp_region_cfg *first = &a->regions[0];
	if (a->have_budget) {
		first->budget_auto = a->budget_auto;
		first->budget = a->budget_auto ? 0 : a->opts.budget;
	}
	if (!a->cfg || strcmp(a->opts.outsec, ".ramtext") != 0)
		first->outsec = (char *)a->opts.outsec;
	if (a->opts.region)
		first->memory = (char *)a->opts.region;
	for (size_t r = 0; r < n; r++)
		if (a->align_given || !a->cfg)
			a->regions[r].align = a->opts.align;
	return 0;
}

/* Fragment and plan of each region: the first from -o/--plan (or the config), the others from
 * the config or "<output section>.ld" beside the first. */
static int name_outputs(place_args *a, rp_err *err)
{
	a->fragments = calloc(a->nregions, sizeof(char *));
	a->plans = calloc(a->nregions, sizeof(char *));
	if (!a->fragments || !a->plans)
		return rp_err_nomem(err, "reading options");
	const char *slash = strrchr(a->output, '/');
	int dirlen = slash ? (int)(slash - a->output + 1) : 0;
	for (size_t r = 0; r < a->nregions; r++) {
		const rp_region_cfg *rg = &a->regions[r];
		char buf[4096];
		if (r == 0 && (a->output_given || !rg->fragment))
			snprintf(buf, sizeof(buf), "%s", a->output);
		else if (rg->fragment)
			snprintf(buf, sizeof(buf), "%.*s%s", dirlen, a->output, rg->fragment);
		else
			snprintf(buf, sizeof(buf), "%.*s%s.ld", dirlen, a->output, rg->outsec[0] == '.' ? rg->outsec + 1 : rg->outsec);
		if (rp_strdup(&a->fragments[r], buf, err))
			return err->code;
		if (r == 0 && a->plan_path)
			snprintf(buf, sizeof(buf), "%s", a->plan_path);
		else
			snprintf(buf, sizeof(buf), "%s.plan", a->fragments[r]);
		if (rp_strdup(&a->plans[r], buf, err))
			return err->code;
	}
	return 0;
}

/* Config first, then the command line on top of it. */
static int apply_config(place_args *a, rp_err *err)
{
	if (a->config_path && rp_config_load(&a->cfg, a->config_path, err))
		return err->code;
	rp_place_opts *o = &a->opts;
	if (a->cfg) {
		if (append_names(&a->exclude, &a->nexclude, a->cfg->exclude, a->cfg->nexclude, err) ||
		    append_names(&a->pin, &a->npin, a->cfg->pin, a->cfg->npin, err) ||
		    append_names(&a->closure, &a->nclosure, a->cfg->closure, a->cfg->nclosure, err))
			return err->code;
		o->cost = a->cfg->cost;
		o->have_cost = a->cfg->have_cost && (a->cfg->cost.flash_fetch_cycles != 1.0 || !a->cfg->cost.have_model);
		place_cycles_config(&a->cycles, &a->cfg->cost);
		if (place_data_config(&a->data, a->cfg, err))
			return err->code;
		if (!a->time_limit_given)
			o->time_limit_s = a->cfg->time_limit_s;
	}
	if (o->veneer_size >= 0)
		o->cost.veneer_bytes = o->veneer_size;
	else if (o->cost.veneer_bytes >= 0)
		o->veneer_size = o->cost.veneer_bytes;
	if (a->flash_wait_states >= 0) {
		o->cost.flash_fetch_cycles = 1.0 + a->flash_wait_states;
		o->have_cost = 1;
	}
	o->exclude = a->exclude;
	o->nexclude = a->nexclude;
	o->pin = a->pin;
	o->npin = a->npin;
	o->closure = a->closure;
	o->nclosure = a->nclosure;
	if (make_regions(a, err) || name_outputs(a, err))
		return err->code;
	if (a->cfg || a->budget_auto) {
		o->regions = a->regions;
		o->nregions = a->nregions;
	}
	return 0;
}


/* No profile.db yet is an error (a mistyped path must not pass as a first build with nothing
 * moved) unless --allow-empty says this is the first build: then nothing is placed. An existing
 * but empty one is an error either way. */
static int load_profile(place_args *a, profile *pr, rp_err *err)
{
	struct stat st;
	rp_db *db;
	if (stat(a->db_path, &st) != 0) {
		if (a->allow_empty)
			return 0;
		return rp_err_set(err, RP_EINPUT, "%s: no such profile; make one with 'ramplace record' or 'ramplace import' "
				  "(--allow-empty writes empty fragments instead, for a first build)", a->db_path);
	}
	int rc = rp_db_open_existing(&db, a->db_path, err);
	if (rc)
		return rc;
	rc = rp_db_totals_load_weighted(db, a->cfg && a->cfg->weighting == RP_WEIGHT_EQUAL, &pr->totals, err);
	if (!rc)
		rc = rp_db_images_load(db, &pr->images, &pr->nimages, err);
	if (!rc)   /* before the arcs: placing in cycles turns the cost model on */
		rc = place_cycles_load(&a->cycles, db, &a->opts, err);
	if (!rc && a->opts.have_cost)
		rc = rp_db_arcs_load(db, &pr->arcs, &pr->narcs, err);
	a->opts.arcs = pr->arcs;
	a->opts.narcs = pr->narcs;
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
	rp_arc_totals_free(pr->arcs, pr->narcs);
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
	if (!p->guessed_patterns)
		return;
	uint64_t total = p->plan->total_samples;
	fprintf(stderr, "ramplace: note: no --map: input sections are guessed from function names (*(.text.NAME), "
			"*(.text.*.NAME)) and sizes from symbols. The link map (-Wl,-Map=fw.map, then --map fw.map) "
			"gives exact archive members (libc.a:lib_a-memcpy.o), sections such as .text.startup.main, "
			"sizes with each section's alignment, and tells statics of the same name in two files apart "
			"(without it they move together)\n");
	if (p->nunguessed)
		fprintf(stderr, "ramplace: note: %zu sampled function(s) with %.1f%% of the samples stay in flash: "
				"no name pattern can move them (compiled without -ffunction-sections, e.g. library code; "
				"the hottest: %s); --map moves them\n",
			p->nunguessed, total ? 100.0 * (double)p->unguessed_samples / (double)total : 0.0, p->unguessed_top);
	if (p->guess_unverified && p->plan->nunits)
		fprintf(stderr, "ramplace: warning: no --map and no debug information: nothing tells which functions have "
				"a section of their own; 'ramplace check' after linking names those that did not move\n");
}

static void print_plan(const rp_placement *p, const rp_plan *plan)
{
	printf("moved %zu of %zu candidate function(s) to %s: %llu of %llu bytes (%llu code + %llu veneer(s))\n",
	       plan->nunits, p->ncandidates, plan->outsec,
	       (unsigned long long)(plan->used + plan->veneer_reserve), (unsigned long long)plan->budget,
	       (unsigned long long)plan->used, (unsigned long long)plan->nveneers);
	printf("%10s %7s %7s  %s\n", "samples", "share", "bytes", "function");
	for (size_t i = 0; i < plan->nunits; i++) {
		const rp_plan_unit *u = &plan->units[i];
		printf("%10llu %6.2f%% %7llu  %s%s%s%s\n", (unsigned long long)u->samples,
		       plan->total_samples ? 100.0 * (double)u->samples / (double)plan->total_samples : 0.0,
		       (unsigned long long)u->size, u->name, u->file ? " (" : "", u->file ? u->file : "",
		       u->file ? ")" : "");
	}
}

static void print_report(const rp_placement *p, const place_args *a, int have_profile)
{
	if (!have_profile) {
		printf("no profile yet (%s does not exist): wrote empty fragment(s)", a->db_path);
		for (size_t r = 0; r < p->nplans; r++)
			printf(" %s", a->fragments[r]);
		putchar('\n');
		return;
	}
	uint64_t moved = 0, total = p->plan->total_samples;
	for (size_t r = 0; r < p->nplans; r++) {
		print_plan(p, p->plans[r]);
		moved += p->plans[r]->moved_samples;
	}
	for (size_t i = 0; i < p->nnotes; i++)
		printf("%s\n", p->notes[i]);
	for (size_t i = 0; i < p->nkept; i++)
		printf("kept in flash: %s\n", p->kept[i]);
	if (p->nbelow_share)
		printf("kept in flash: %zu function(s) with %.3f%% of the samples, each below --min-share %g%%: not worth "
		       "a copy at boot and veneers back to flash\n",
		       p->nbelow_share, total ? 100.0 * (double)p->below_share_samples / (double)total : 0.0,
		       100.0 * a->opts.min_share);
	if (p->solver) {
		if (p->optimal)
			printf("solver: %s, optimal\n", p->solver);
		else if (isinf(p->gap))
			printf("solver: %s, stopped by the %.1f s time limit before the LP bound: the best heuristic placement, no optimality gap known\n",
			       p->solver, a->opts.time_limit_s);
		else if (p->gap > 0)
			printf("solver: %s, stopped by the %.1f s time limit with an optimality gap of %.3f%%\n", p->solver,
			       a->opts.time_limit_s, 100.0 * p->gap);
		else
			printf("solver: %s\n", p->solver);
	}
	printf("samples in RAM: %.1f%% of %llu\n", total ? 100.0 * (double)moved / (double)total : 0.0,
	       (unsigned long long)total);
	if (p->have_cycles && !a->cycles.weigh_cycles)   /* in cycles: place_cycles_print says it */
		printf("expected cycles saved: %.0f of %.0f (%.1f%%) at %g cycles per flash fetch, counting one fetch per sample\n",
		       p->cycles_saved, p->cycles_flash, p->cycles_flash > 0 ? 100.0 * p->cycles_saved / p->cycles_flash : 0.0,
		       a->opts.cost.flash_fetch_cycles);
	for (size_t r = 0; r < p->nplans; r++)
		printf("wrote %s and %s\n", a->fragments[r], a->plans[r]);
}

static int write_outputs(const rp_placement *p, const place_args *a, rp_err *err)
{
	for (size_t r = 0; r < p->nplans; r++)
		if (rp_ldgen_gnu_write(p->plans[r], a->fragments[r], err) || rp_plan_write(p->plans[r], a->plans[r], err))
			return err->code;
	return 0;
}

/* --html: the report of this placement, from the same profile, image and map. */
static int write_html(const place_args *a, const rp_image *img, const rp_map *map, const profile *pr,
		      const rp_placement *p, rp_err *err)
{
	double speed = a->regions && a->regions[0].speed > 0 ? a->regions[0].speed : 1.0;
	cli_html_job j = { a->html, a->db_path, 0, NULL, &pr->totals, img, map, p,
			   a->opts.have_cost ? a->opts.cost.flash_fetch_cycles - 1.0 / speed : 0.0 };
	int rc = cli_html_write(&j, err);
	if (!rc && !a->quiet)
		printf("wrote %s\n", a->html);
	return rc;
}

/* --timings: seconds per stage; lap() closes the stage running since the last lap. */
typedef struct stage_times {
	double start, mark, elf, map, profile, place, write;
} stage_times;

static double lap(stage_times *t)
{
	double now = rp_seconds(), d = now - t->mark;
	t->mark = now;
	return d;
}

static void print_timings(const stage_times *t, const rp_placement *p)
{
	fprintf(stderr, "ramplace: timings: elf %.3f map %.3f profile %.3f callgraph %.3f solve %.3f write %.3f total %.3f (seconds)\n",
		t->elf, t->map, t->profile, p->callgraph_seconds, t->place - p->callgraph_seconds, t->write,
		rp_seconds() - t->start);
}

static int run_place(place_args *a, rp_err *err)
{
	rp_image *img = NULL;
	rp_map *map = NULL;
	profile pr = { .have = 0 };
	rp_placement placement = { 0 };
	stage_times tm = { .start = rp_seconds() };
	tm.mark = tm.start;
	int rc = rp_image_load(&img, a->elf_path, err);
	tm.elf = lap(&tm);
	if (!rc && a->linker >= 0)
		rp_image_use_linker(img, a->linker);
	if (!rc && a->map_path)
		rc = rp_map_load(&map, a->map_path, err);
	/* RVC packs at 2 bytes; elsewhere an unreadable object is assumed at the --align floor */
	if (!rc && map)
		rc = rp_map_read_alignments(map, img->machine == EM_RISCV ? 2 : a->opts.align, err);
	tm.map = lap(&tm);
	if (!rc)
		rc = load_profile(a, &pr, err);
	if (!rc && pr.have)
		rc = assess_profile(a, img, &pr, err);
	tm.profile = lap(&tm);
	a->data.db_path = a->db_path;   /* the data side reads its flash reads per object */
	a->data.cycles = &a->cycles;    /* and weighs them in cycles when the code is */
	a->data.samples = &pr.totals;   /* its proxy counts samples, whatever the code weighs in */
	const rp_db_totals *weights = &pr.totals;   /* samples, or cycles under a flash model */
	if (!rc && pr.have)
		rc = place_cycles_totals(&a->cycles, img, &pr.totals, &weights, err);
	if (!rc)
		rc = place_data_place(&a->data, a->fragments[0], img, map, pr.have ? weights : NULL, &a->opts, &placement, err);
	tm.place = lap(&tm);
	if (!rc)
		rc = write_outputs(&placement, a, err);
	if (!rc)
		rc = place_data_write(&a->data, err);
	tm.write = lap(&tm);
	if (!rc) {
		print_warnings(&placement);
		if (!a->quiet)
			print_report(&placement, a, pr.have);
		if (!a->quiet && pr.have)
			place_cycles_print(&a->cycles, &placement, &a->opts);
		if (!a->quiet)
			place_data_print(&a->data);
		if (!a->quiet && pr.have && placement.nplans)   /* how much sampling noise decides */
			cli_stability_line(stdout, img, &pr.totals, placement.plans[0]->budget);
		if (a->html && pr.have)
			rc = write_html(a, img, map, &pr, &placement, err);
		if (a->timings)
			print_timings(&tm, &placement);
	}
	rp_placement_release(&placement);
	profile_release(&pr);
	rp_map_free(map);
	rp_image_free(img);
	return rc;
}

static void args_release(place_args *a)
{
	for (size_t r = 0; r < a->nregions; r++) {
		free(a->fragments ? a->fragments[r] : NULL);
		free(a->plans ? a->plans[r] : NULL);
	}
	free(a->fragments);
	free(a->plans);
	free(a->regions);
	free(a->exclude);
	free(a->pin);
	free(a->closure);
	place_data_release(&a->data);
	rp_config_free(a->cfg);
	place_cycles_release(&a->cycles);
}

int cmd_place(int argc, char **argv, rp_err *err)
{
	place_args a = { .opts = RP_PLACE_OPTS_INIT, .output = "ramtext.ld", .flash_wait_states = -1, .min_mapped = 0.5,
			 .linker = -1 };
	int rc = parse_args(&a, argc, argv, err);
	if (rc == 0)
		rc = apply_config(&a, err);
	if (rc == 0)
		rc = run_place(&a, err);
	args_release(&a);
	return rc > 0 ? 0 : rc;
}
