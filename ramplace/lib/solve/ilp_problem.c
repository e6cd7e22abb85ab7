/* ilp_problem.c: the value of a placement assignment (see ilp_problem.h): its gain, the cycles
 * of the arcs it cuts, and the veneers its cross-location calls need. Owns no state. Both the
 * GLPK driver (ilp.c) and the local search (ilp_search.c) score with it, so it calls neither.
 * Workload: a full pass over items, calls and arcs each time; the local search keeps its own
 * incremental sums and calls this only to reload and to stop drift. */
#include <stdlib.h>
#include <string.h>

#include "ramplace/ilp_problem.h"

void rp_ilp_needed_veneers(const rp_ilp_problem *pb, const int *region, unsigned char *need)
{
	memset(need, 0, pb->nregions * (pb->ntargets ? pb->ntargets : 1));
	if (!pb->veneer_bytes)
		return;
	for (size_t k = 0; k < pb->ncalls; k++) {
		const rp_ilp_call *c = &pb->calls[k];
		int rf = region[c->from];
		int rt = c->to == SIZE_MAX ? -1 : region[c->to];
		if (rf >= 0 && rf != rt)
			need[(size_t)rf * pb->ntargets + c->target] = 1;
	}
}

int rp_ilp_arc_crosses(const rp_ilp_problem *pb, const int *region, size_t a)
{
	const rp_ilp_arc *arc = &pb->arcs[a];
	return region[arc->a] != (arc->b == SIZE_MAX ? -1 : region[arc->b]);
}

double rp_ilp_evaluate(const rp_ilp_problem *pb, const int *region, size_t *veneers)
{
	double obj = 0;
	for (size_t i = 0; i < pb->nitems; i++)
		if (region[i] >= 0)
			obj += pb->regions[region[i]].gain * pb->items[i].value;
	for (size_t a = 0; a < pb->narcs; a++)
		if (rp_ilp_arc_crosses(pb, region, a))
			obj -= pb->arcs[a].cycles;
	if (veneers) {
		memset(veneers, 0, pb->nregions * sizeof(size_t));
		unsigned char *need = malloc(pb->nregions * (pb->ntargets ? pb->ntargets : 1));
		if (need) {
			rp_ilp_needed_veneers(pb, region, need);
			for (size_t r = 0; r < pb->nregions; r++)
				for (size_t t = 0; t < pb->ntargets; t++)
					veneers[r] += need[r * pb->ntargets + t];
		}
		free(need);
	}
	return obj;
}

int rp_ilp_fits(const rp_ilp_problem *pb, const int *region)
{
	size_t R = pb->nregions, T = pb->ntargets;
	uint64_t *used = calloc(R ? R : 1, sizeof(uint64_t));
	unsigned char *need = malloc(R * (T ? T : 1) + 1);   /* its own: no memory is -1, never "fits" */
	int fits = used && need ? 1 : -1;
	for (size_t i = 0; fits == 1 && i < pb->nitems; i++) {
		if (region[i] >= (int)R || (pb->items[i].must && region[i] < 0))
			fits = 0;
		else if (region[i] >= 0)
			used[region[i]] += pb->items[i].size;
	}
	if (fits == 1)
		rp_ilp_needed_veneers(pb, region, need);
	for (size_t r = 0; fits == 1 && r < R; r++) {
		uint64_t nv = 0;
		for (size_t t = 0; t < T; t++)
			nv += need[r * T + t];
		fits = used[r] + nv * pb->veneer_bytes <= pb->regions[r].budget;
	}
	free(used);
	free(need);
	return fits;
}
