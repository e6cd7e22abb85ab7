/* place_data.h (CLI): the data side of `ramplace place` on the command line (place_data.c):
 * --data, --no-data and --pin-data, and the lines of the report about the data placed. The
 * placement itself is the pipeline's (pipeline.h: rp_pipe_data). Private to the CLI. */
#ifndef RAMPLACE_CLI_PLACE_DATA_H
#define RAMPLACE_CLI_PLACE_DATA_H

#include "ramplace/pipeline.h"

/* The long options' codes; place_data_option handles them. */
enum { PLACE_OPT_DATA = 0x1d00, PLACE_OPT_NO_DATA, PLACE_OPT_PIN_DATA };
#define PLACE_DATA_LONGOPTS \
	{ "data", no_argument, NULL, PLACE_OPT_DATA }, { "no-data", no_argument, NULL, PLACE_OPT_NO_DATA }, \
	{ "pin-data", required_argument, NULL, PLACE_OPT_PIN_DATA }

/* Applies one of the options above; returns 1 when c is not one of them. */
int place_data_option(rp_pipe_data *a, int c, const char *arg, rp_err *err);

void place_data_print(const rp_pipe_data *a);

#endif
