/* place_opts.h: the options of `ramplace place` (place_opts.c): the parsed command line, the
 * config it overrides, the regions and the fragment and plan names they give, and the pipeline
 * they set up (pipeline.h). cmd_place.c runs it; place_output.c prints from it. Private to the
 * CLI. */
#ifndef RAMPLACE_CLI_PLACE_OPTS_H
#define RAMPLACE_CLI_PLACE_OPTS_H

#include <stddef.h>
#include "ramplace/config.h"
#include "ramplace/pipeline.h"

typedef struct place_args {
	rp_pipeline pipe;         /* the placement: options, linker, force, min-mapped, model, data */
	const char *output;
	const char *plan_path;
	const char *map_path;
	const char *db_path;
	const char *elf_path;
	const char **exclude, **pin, **closure, **handlers;
	size_t nexclude, npin, nclosure, nhandlers;
	const char *config_path;
	int budget_auto;
	double flash_wait_states;   /* < 0: not given */
	int quiet;
	int timings;              /* --timings: seconds of each stage to stderr */
	const char *html;         /* --html FILE: the decision as one HTML page (cli_html.c) */
	int have_budget;
	int align_given, output_given, time_limit_given;
	int allow_empty;          /* --allow-empty: no profile.db is a first build */
	int first_build;          /* --allow-empty with no profile and no ELF: empty outputs only */
	rp_config *cfg;             /* owned */
	rp_region_cfg *regions;     /* owned copy with the command-line overrides */
	size_t nregions;
	char **fragments, **plans;  /* per region, owned */
} place_args;

/* The defaults before any option: what `place` does with only --budget. */
#define PLACE_ARGS_INIT { .pipe = RP_PIPELINE_INIT, .output = "ramtext.ld", .flash_wait_states = -1 }

/* The options and the two operands into a; RAMPLACE_FORCE=1 counts as --force. Prints the help
 * and returns 1 after --help; returns 0 to go on, or a usage error. */
int place_opts_parse(place_args *a, int argc, char **argv, rp_err *err);
/* Loads --config, puts the command line on top of it, and fills in the regions, fragments and
 * plans (and a->opts' lists and regions, which borrow from a). */
int place_opts_apply_config(place_args *a, rp_err *err);
/* Hands the operands and the config's weighting to a->pipe (after place_opts_apply_config). */
void place_opts_pipeline(place_args *a);
/* Frees what a owns; a PLACE_ARGS_INIT a that parsing stopped half-way through is fine. */
void place_opts_release(place_args *a);

#endif
