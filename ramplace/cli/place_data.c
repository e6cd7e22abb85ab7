/* place_data.c (CLI): `ramplace place --data` on the command line (place_data.h): the options
 * and the report's lines about the data objects the pipeline placed (lib/pipeline/pipe_data.c
 * places them and writes ramdata.ld and its plan). Owns nothing. */
#include <stdio.h>

#include "place_data.h"

int place_data_option(rp_pipe_data *a, int c, const char *arg, rp_err *err)
{
	switch (c) {
	case PLACE_OPT_DATA: a->enabled = a->option_given = 1; return 0;
	case PLACE_OPT_NO_DATA: a->enabled = 0; a->option_given = 1; return 0;
	case PLACE_OPT_PIN_DATA:
		a->enabled = a->option_given = 1;   /* pinning data asks for data placement */
		return rp_pipe_data_pin(a, arg, err);
	default: return 1;
	}
}

void place_data_print(const rp_pipe_data *a)
{
	const rp_data_placement *d = &a->placed;
	if (!a->enabled || !d->plan)
		return;
	const rp_plan *plan = d->plan;
	printf("moved %zu of %zu candidate data object(s) to %s: %llu bytes of the budget (weights: %s%s)\n",
	       plan->nunits, d->ncandidates, plan->outsec, (unsigned long long)plan->used, a->weights_in, a->weights_from);
	if (plan->nunits)
		printf("%10s %7s %7s  %s\n", a->in_cycles ? "cycles~" : "reads~", "share", "bytes", "data object");
	for (size_t i = 0; i < plan->nunits; i++) {
		const rp_plan_unit *u = &plan->units[i];
		printf("%10llu %6.2f%% %7llu  %s%s%s%s\n", (unsigned long long)u->samples,
		       d->total_weight > 0 ? 100.0 * (double)u->samples / d->total_weight : 0.0,
		       (unsigned long long)u->size, u->name, u->file ? " (" : "", u->file ? u->file : "",
		       u->file ? ")" : "");
	}
	for (size_t i = 0; i < d->nkept && i < 20; i++)
		printf("kept in flash (data): %s\n", d->kept[i]);
	if (d->nkept > 20)
		printf("kept in flash (data): %zu more\n", d->nkept - 20);
	if (a->in_cycles) {
		double saved = d->code_saved + d->moved_weight;
		printf("data share of the saved stall cycles: %.1f%% (%.0f data + %.0f code cycles, %zu placement(s) tried)\n",
		       saved > 0 ? 100.0 * d->moved_weight / saved : 0.0, d->moved_weight, d->code_saved, d->tries);
	} else {
		double moved = (double)d->code_samples + d->moved_weight;
		printf("data share of the moved flash accesses: %.1f%% (%.0f data reads~ + %llu code samples, %zu placement(s) tried)\n",
		       moved > 0 ? 100.0 * d->moved_weight / moved : 0.0, d->moved_weight,
		       (unsigned long long)d->code_samples, d->tries);
	}
	printf("wrote %s and %s\n", a->fragment, a->plan);
}
