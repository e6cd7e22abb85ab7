/* place_data.h (CLI): the data side of `ramplace place` (--data, --no-data, --pin-data): its
 * options, the placement of code and read-only data together, the ramdata.ld fragment and plan
 * written beside the first code fragment, and the lines of the report. Private to the CLI. */
#ifndef RAMPLACE_CLI_PLACE_DATA_H
#define RAMPLACE_CLI_PLACE_DATA_H

#include <stddef.h>
#include "ramplace/config.h"
#include "ramplace/map.h"
#include "place_cycles.h"
#include "ramplace/place_data.h"

typedef struct place_data_args {
	int enabled;                 /* --data (off by default: see docs/config.md) */
	int option_given;            /* --data or --no-data (they win over the config) */
	const char **pin;            /* --pin-data globs (owned array, borrowed strings) */
	size_t npin;
	char *fragment, *plan;       /* ramdata.ld and its plan beside the first fragment (owned) */
	rp_dataobjs objs;
	double *weights;             /* one per object */
	size_t nweighted;
	const char *db_path;         /* profile.db, for its flash reads per object (borrowed) */
	const rp_db_totals *samples; /* the profile's samples, for the proxy (the totals placed from
					may be in cycles already; borrowed, NULL: those totals) */
	char weights_from[160];      /* what the weights are, for the report */
	char weights_in[160];        /* placing in cycles by estimate: the conversion, before that */
	uint64_t read_stall;         /* stall cycles of the profile's data reads, when it has them */
	place_cycles *cycles;        /* placing in cycles (weigh_cycles): data weighs in stall cycles
					too, and its saving joins the modeled cycles (borrowed) */
	int in_cycles;               /* the weights are stall cycles saved, not reads */
	rp_data_placement placed;
} place_data_args;

/* The long options' codes; place_data_option handles them. */
enum { PLACE_OPT_DATA = 0x1d00, PLACE_OPT_NO_DATA, PLACE_OPT_PIN_DATA };
#define PLACE_DATA_LONGOPTS \
	{ "data", no_argument, NULL, PLACE_OPT_DATA }, { "no-data", no_argument, NULL, PLACE_OPT_NO_DATA }, \
	{ "pin-data", required_argument, NULL, PLACE_OPT_PIN_DATA }

/* Applies one of the options above; returns 1 when c is not one of them. */
int place_data_option(place_data_args *a, int c, const char *arg, rp_err *err);
/* ramplace.yaml's `data: on|off` and `pin-data` under the options: pins add to --pin-data;
 * --data/--no-data win, then `data:`, and pins alone turn data placement on. */
int place_data_config(place_data_args *a, const rp_config *cfg, rp_err *err);

/* Places (rp_place_data when enabled, else rp_place) into *out. first_fragment names where the
 * data fragment goes (its directory). */
int place_data_place(place_data_args *a, const char *first_fragment, const rp_image *img, const rp_map *map,
		     const rp_db_totals *totals, const rp_place_opts *opts, rp_placement *out, rp_err *err);

/* Writes ramdata.ld and ramdata.ld.plan when data placement is on (an empty fragment without a
 * profile, so the first build links). */
int place_data_write(const place_data_args *a, rp_err *err);

/* The first build (place --allow-empty, no profile, no ELF): an empty ramdata.ld and plan beside
 * first_fragment when data placement is on, so a script that INCLUDEs it links. */
int place_data_write_empty(place_data_args *a, const char *first_fragment, rp_err *err);

void place_data_print(const place_data_args *a);
void place_data_release(place_data_args *a);

#endif
