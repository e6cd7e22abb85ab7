/* place_opts.c: the command line of `ramplace place` (place_opts.h): the option table, the
 * --help text, the parsers of sizes, numbers and percentages, and --config merged underneath:
 * the regions with their overrides, and the fragment and plan each region is written to. Owns
 * the lists and names it builds in a place_args (place_opts_release frees them); the strings
 * they hold point into argv or the config. The workload: a few dozen options, a handful of
 * regions, so plain arrays grown one element at a time. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "place_data.h"
#include "place_opts.h"
#include "ramplace/util.h"

static const char usage[] =
	"usage: ramplace [place] --budget SIZE [options] profile.db firmware.elf\n"
	"       ramplace place --allow-empty [-o ramtext.ld]   (the first build)\n"
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
	"  -m, --map FILE        link map of firmware.elf (-Wl,-Map; GNU ld's or ld.lld's):\n"
	"                        exact input sections\n"
	"      --exclude GLOB    keep matching functions in flash (repeatable)\n"
	"      --region NAME     memory region of the map the budget must fit (default: the\n"
	"                        one holding .ramtext or .data)\n"
	"      --align N         alignment of the output section's end, and of an input section\n"
	"                        whose own is unknown (default 4); each input section counts\n"
	"                        at its own alignment (read from the objects the map names)\n"
	"      --veneer-size N   bytes per RAM->flash call veneer (default: the architecture's\n"
	"                        and the linker's: 8 on ARMv7-M, 16 on ARMv6-M, 12 with ld.lld,\n"
	"                        0 on RISC-V)\n"
	"      --link-reserve N  keep N bytes of the budget free: what the last link added\n"
	"                        beyond its plan (the build loop, ramplace-converge.sh, sets it\n"
	"                        when a link disagreed); the plan records it and check allows\n"
	"                        the link that much above the plan\n"
	"      --linker gnu|lld  the linker that will use the fragment (default: the one that\n"
	"                        linked firmware.elf, from its .comment)\n"
	"      --dialect gnu|zephyr|esp-idf|pico  what will move the functions: the GNU ld\n"
	"                        fragment (also what 'emit' turns into ld.lld's), Zephyr's code\n"
	"                        relocation or ESP-IDF's ldgen ('emit --format zephyr|esp-idf'),\n"
	"                        which move what the build compiled only: a toolchain library's\n"
	"                        functions (and, for ESP-IDF, objects linked directly and names\n"
	"                        outside ldgen's grammar) stay in flash, said why, their budget\n"
	"                        going to ones the dialect can move; or pico-sdk's own RAM code\n"
	"                        ('emit --format pico': the planned sections renamed to\n"
	"                        .time_critical.* in copies of the objects at link time; the\n"
	"                        output section is then .data; for esp-idf .iram0.text). All\n"
	"                        but gnu need --map\n"
	"      --output-section NAME   output section of the fragment (default .ramtext)\n"
	"      --allow-boot-path also move what the reset handler calls before the copy: for\n"
	"                        when you know better than the analysis (unsafe otherwise);\n"
	"                        give check the same option; config: allow-boot-path: yes\n"
	"      --reset-path      say how the reset path was read: where the copy is, and each\n"
	"                        call on the way with why it runs before or after the copy\n"
	"      --pin GLOB        always move matching functions (repeatable)\n"
	"      --closure GLOB    move matching functions and everything they call (repeatable)\n"
	"      --ram-handler GLOB  interrupt handlers whose whole static reach (calls, tail\n"
	"                        calls, veneers' targets, libgcc helpers) must run from RAM:\n"
	"                        moved first; the plan records them and check proves that no\n"
	"                        path from them reaches flash (repeatable)\n"
	"      --ram-handlers    the same for every vector-table handler but the reset handler\n"
	"                        (RISC-V: every trap handler the code writes into mtvec)\n"
	"      --flash-wait-states N   cost model: report cycles, weigh crossing calls\n"
	"      --flash-model SPEC  place by stall cycles saved under a flash model: ws:N,\n"
	"                        art:ws=N,line=L, cache:rp2040|fe310|esp32 or\n"
	"                        cache:size=S,ways=W,line=L,penalty=P (docs/cost-models.md);\n"
	"                        the profile's own stall cycles (QEMU plugin model=) when it has\n"
	"                        them for this model. Every place prints the modeled cycles\n"
	"                        before and after (default model ws:5). Several flashes:\n"
	"                        repeat it as SPEC@LO-HI or SPEC@MEMORY (a MEMORY region of\n"
	"                        --map), each function priced by its range's model\n"
	"      --trace FILE      the QEMU plugin's access trace of this build under the model of\n"
	"                        --flash-model (plugin options model=SPEC,trace=FILE; needs\n"
	"                        --map): keeps only the moves that pay under that model (the\n"
	"                        copy and veneers against the misses saved, priced by replaying\n"
	"                        the trace) and orders the hot code that stays in flash for its\n"
	"                        cache; writes flashtext.ld (INCLUDE it at the start of the\n"
	"                        text output section) and flashtext.order (ld.lld's\n"
	"                        --symbol-ordering-file) beside the fragment. With --budget 0\n"
	"                        it only lays out flash (docs/layout.md)\n"
	"      --no-order        with --trace: choose what moves only, keep the link's order\n"
	"      --time-limit S    ILP time limit in seconds (default 10)\n"
	"      --ilp             use the ILP even for a plain knapsack\n"
	"      --min-mapped PCT  refuse when less than PCT% of the profiled samples fall in\n"
	"                        functions the ELF still has (default 50)\n"
	"      --force           place from a stale profile anyway (also: RAMPLACE_FORCE=1)\n"
	"      --min-share PCT   leave in flash what has less than PCT% of the samples: not\n"
	"                        worth its copy at boot and its veneers (default 0.01)\n"
	"      --allow-empty     no profile.db yet (a first build): write empty fragment(s)\n"
	"                        and plan(s) instead of failing; without operands (or while\n"
	"                        neither profile.db nor firmware.elf exists) nothing else is\n"
	"                        read and no --budget is needed:\n"
	"                        'ramplace place --allow-empty -o ramtext.ld'\n"
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

int place_opts_parse(place_args *a, int argc, char **argv, rp_err *err)
{
	static const struct option longopts[] = {
		{ "budget", required_argument, NULL, 'b' }, { "output", required_argument, NULL, 'o' },
		{ "plan", required_argument, NULL, 'P' },   { "map", required_argument, NULL, 'm' },
		{ "exclude", required_argument, NULL, 'x' }, { "region", required_argument, NULL, 'r' },
		{ "align", required_argument, NULL, 'a' },  { "veneer-size", required_argument, NULL, 'v' },
		{ "output-section", required_argument, NULL, 'S' }, { "link-reserve", required_argument, NULL, 'R' },
		{ "allow-boot-path", no_argument, NULL, 'B' }, { "quiet", no_argument, NULL, 'q' },
		{ "reset-path", no_argument, NULL, 'Z' },
		{ "min-mapped", required_argument, NULL, 'M' }, { "force", no_argument, NULL, 'F' },
		{ "config", required_argument, NULL, 'c' }, { "pin", required_argument, NULL, 'p' },
		{ "closure", required_argument, NULL, 'C' }, { "flash-wait-states", required_argument, NULL, 'W' },
		{ "ram-handler", required_argument, NULL, 'X' }, { "ram-handlers", no_argument, NULL, 'Y' },
		{ "time-limit", required_argument, NULL, 'T' }, { "ilp", no_argument, NULL, 'I' },
		{ "allow-empty", no_argument, NULL, 'E' }, { "linker", required_argument, NULL, 'L' },
		{ "dialect", required_argument, NULL, 'D' },
		{ "min-share", required_argument, NULL, 's' }, PLACE_DATA_LONGOPTS,
		{ "html", required_argument, NULL, 'H' }, { "timings", no_argument, NULL, 'G' },
		{ "flash-model", required_argument, NULL, 'f' },
		{ "trace", required_argument, NULL, 'K' }, { "no-order", no_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 }
	};
	int c, rc = 0, outsec_given = 0;
	uint64_t n;
	while (!rc && (c = getopt_long(argc, argv, "b:o:m:c:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'E':
			a->allow_empty = 1;
			break;
		case 's':
			rc = parse_percent(&a->pipe.opts.min_share, optarg, "--min-share", err);
			break;
		case 'L':
			if (strcmp(optarg, "gnu") != 0 && strcmp(optarg, "lld") != 0)
				rc = rp_err_set(err, RP_EUSAGE, "--linker: '%s' is neither gnu nor lld", optarg);
			a->pipe.linker = strcmp(optarg, "lld") == 0 ? 1 : 0;
			break;
		case 'D':
			if ((a->pipe.opts.dialect = rp_dialect_from_name(optarg)) < 0) {
				a->pipe.opts.dialect = RP_DIALECT_GNU;
				rc = rp_err_set(err, RP_EUSAGE, "--dialect: '%s' is not gnu, zephyr, esp-idf or pico", optarg);
			}
			break;
		case 'b':
			a->have_budget = 1;
			a->budget_auto = strcmp(optarg, "auto") == 0;
			if (!a->budget_auto)
				rc = rp_parse_size(&a->pipe.opts.budget, optarg, "--budget", err);
			break;
		case 'c': a->config_path = optarg; break;
		case 'p': rc = cli_push(&a->pin, &a->npin, optarg, err); break;
		case 'C': rc = cli_push(&a->closure, &a->nclosure, optarg, err); break;
		case 'X': rc = cli_push(&a->handlers, &a->nhandlers, optarg, err); break;
		case 'Y': a->pipe.opts.all_handlers = 1; break;
		case 'W': rc = parse_double(&a->flash_wait_states, optarg, "--flash-wait-states", 0, 1000, err); break;
		case 'T':
			rc = parse_double(&a->pipe.opts.time_limit_s, optarg, "--time-limit", 0.01, 86400, err);
			a->time_limit_given = 1;
			break;
		case 'I': a->pipe.opts.force_ilp = 1; break;
		case 'o': a->output = optarg; a->output_given = 1; break;
		case 'P': a->plan_path = optarg; break;
		case 'm': a->map_path = optarg; break;
		case 'x': rc = cli_push(&a->exclude, &a->nexclude, optarg, err); break;
		case 'r': a->pipe.opts.region = optarg; break;
		case 'a':
			rc = rp_parse_size(&n, optarg, "--align", err);
			if (!rc && rp_check_align(n, "--align", err))
				rc = err->code = RP_EUSAGE;
			a->pipe.opts.align = n;
			a->align_given = 1;
			break;
		case 'v':
			rc = rp_parse_size(&n, optarg, "--veneer-size", err);
			if (!rc && rp_check_veneer_size(n, "--veneer-size", err))
				rc = err->code = RP_EUSAGE;
			a->pipe.opts.veneer_size = (int64_t)n;
			break;
		case 'S': a->pipe.opts.outsec = optarg; outsec_given = 1; break;
		case 'R': rc = rp_parse_size(&a->pipe.opts.link_reserve, optarg, "--link-reserve", err); break;
		case 'B': a->pipe.opts.keep_boot_path = 0; break;
		case 'Z': a->pipe.opts.explain_reset = 1; break;
		case 'q': a->quiet = 1; break;
		case 'H': a->html = optarg; break;
		case 'f': rc = rp_pipe_cycles_option(&a->pipe.cycles, optarg, err); break;
		case 'G': a->timings = 1; break;
		case 'K':
			a->pipe.layout.trace_path = optarg;
			a->pipe.opts.zero_budget_ok = 1;
			break;
		case 'O': a->pipe.layout.no_order = 1; break;
		case 'F': a->pipe.force = 1; break;
		case 'M': rc = parse_percent(&a->pipe.min_mapped, optarg, "--min-mapped", err); break;
		case 'h': fputs(usage, stdout); return 1;
		default:
			if ((rc = place_data_option(&a->pipe.data, c, optarg, err)) > 0)
				return cli_usage_error(err, "place", "unknown option");
		}
	}
	if (rc)
		return rc;
	const rp_dialect_info *di = rp_dialect_info_of(a->pipe.opts.dialect);
	if (di->outsec && !outsec_given)   /* the SDK's section the dialect's build input moves code to */
		a->pipe.opts.outsec = di->outsec;
	/* the first build: no profile and no ELF yet, only the fragment the link needs */
	if (a->allow_empty && argc == optind) {
		a->first_build = 1;
		return 0;
	}
	if (di->needs_map && !a->map_path)
		return cli_usage_error(err, "place", "--dialect zephyr, esp-idf and pico need --map: they move functions by "
				       "object and archive, which only the link map names");
	if (argc - optind != 2)
		return cli_usage_error(err, "place", a->allow_empty ? "expects profile.db and firmware.elf, or neither with --allow-empty"
								     : "expects profile.db and firmware.elf");
	/* with --allow-empty the budget is asked for only when there is a profile to place from */
	if (!a->have_budget && !a->config_path && !a->allow_empty)
		return cli_usage_error(err, "place", "--budget (or --config with regions) is required");
	const char *force = getenv("RAMPLACE_FORCE"); /* how the build integrations pass --force */
	if (force && *force && strcmp(force, "0") != 0)
		a->pipe.force = 1;
	a->db_path = argv[optind];
	a->elf_path = argv[optind + 1];
	return 0;
}

static int append_names(const char ***list, size_t *n, char *const *names, size_t count, rp_err *err)
{
	for (size_t i = 0; i < count; i++)
		if (cli_push(list, n, names[i], err))
			return err->code;
	return 0;
}

/* Config first, then the command line on top of it (the pipeline's rp_pipeline_configure); the
 * name lists are the options' and the config's together. */
int place_opts_apply_config(place_args *a, rp_err *err)
{
	if (a->config_path && rp_config_load(&a->cfg, a->config_path, err))
		return err->code;
	rp_place_opts *o = &a->pipe.opts;
	if (a->cfg && (append_names(&a->exclude, &a->nexclude, a->cfg->exclude, a->cfg->nexclude, err) ||
		       append_names(&a->pin, &a->npin, a->cfg->pin, a->cfg->npin, err) ||
		       append_names(&a->closure, &a->nclosure, a->cfg->closure, a->cfg->nclosure, err) ||
		       append_names(&a->handlers, &a->nhandlers, a->cfg->handlers, a->cfg->nhandlers, err)))
		return err->code;
	o->exclude = a->exclude;
	o->nexclude = a->nexclude;
	o->pin = a->pin;
	o->npin = a->npin;
	o->closure = a->closure;
	o->nclosure = a->nclosure;
	o->handlers = a->handlers;
	o->nhandlers = a->nhandlers;
	rp_pipe_overrides ov = { a->have_budget, a->budget_auto, a->align_given, a->time_limit_given,
				 a->flash_wait_states };
	if (rp_pipeline_configure(&a->pipe, a->cfg, &ov, &a->regions, &a->nregions, err) ||
	    rp_pipeline_name_outputs(a->output, a->output_given, a->plan_path, a->regions, a->nregions, &a->fragments,
				     &a->plans, err))
		return err->code;
	return 0;
}

void place_opts_pipeline(place_args *a)
{
	rp_pipeline *p = &a->pipe;
	p->elf_path = a->elf_path;
	p->map_path = a->map_path;
	p->db_path = a->db_path;
	p->allow_empty = a->allow_empty;
	p->weighting_equal = a->cfg && a->cfg->weighting == RP_WEIGHT_EQUAL;
	p->first_fragment = a->fragments[0];
}

void place_opts_release(place_args *a)
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
	free(a->handlers);
	rp_pipeline_release(&a->pipe);   /* what a run made, the data pins and the model options */
	rp_config_free(a->cfg);
}
