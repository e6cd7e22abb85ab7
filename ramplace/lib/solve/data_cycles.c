/* data_cycles.c: read-only data objects weighed in stall cycles (place_data.h), so that when
 * `place` optimises cycles, code and data compete for the budget in one unit.
 *
 * An object's worth is the stall cycles its reads cost from flash, less what copying it at boot
 * costs (rp_cycles_copy_cost, the price functions pay too). The stall cycles are the plugin's,
 * per object, when the profile was run under the very model placement uses; else its reads (or
 * the literal-pool proxy for them) times what one data read costs under the model. Owns
 * nothing. Workload: the profile's data objects (tens to thousands), one lookup each. */
#include <string.h>

#include "ramplace/place_data.h"

double rp_data_read_estimate(const rp_fm_cfg *m)
{
	if (m->kind == RP_FM_CACHE && !m->dcache)
		return (double)m->penalty;   /* uncached: every read goes to the serial flash */
	return rp_fm_fetch_estimate(m);  /* ws, art: a demand read; cache: a line fill per line/4 reads */
}

size_t rp_data_cycle_weights(double *weights, double *stall, const rp_cycles *cy, const rp_dataobjs *d,
			     const rp_db_costs *costs)
{
	int measured = cy->measured && costs && costs->ndata;
	*stall = 0;
	if (measured) {
		for (size_t i = 0; i < d->n; i++)
			weights[i] = 0;
		for (size_t i = 0; i < costs->ndata; i++) {
			const rp_dataobj *o = rp_dataobjs_find(d, costs->data[i].name, costs->data[i].file);
			if (o)
				weights[o - d->objs] += (double)costs->data[i].stall;
		}
	} else {
		double per_read = rp_data_read_estimate(&cy->model);
		for (size_t i = 0; i < d->n; i++)
			weights[i] *= per_read;
	}
	size_t n = 0;
	for (size_t i = 0; i < d->n; i++) {
		*stall += weights[i];
		double net = weights[i] - rp_cycles_copy_cost(&cy->model, d->objs[i].insec_size);
		weights[i] = weights[i] > 0 && net > 0 ? net : 0;
		n += weights[i] > 0;
	}
	return n;
}
