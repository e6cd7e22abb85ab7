/* ilp_fold.c: folding lone veneers into their callers' sizes before the ILP is written out
 * (ilp_fold.h). Owns the folded copies of the items and calls. Why: on a firmware of many
 * small functions most flash callees of a hot function are called by no other candidate, and
 * each was a row and a column of the LP (200,000 functions: 7,800 rows, most of the solve's
 * 2 s). Workload: O(items + calls + targets), once per solve. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/util.h"
#include "ilp_fold.h"

/* The one item that calls flash-only target t, or SIZE_MAX: called by no item, by two, or a
 * target that is itself an item (its veneer depends on where both are). */
static size_t *lone_callers(const rp_ilp_problem *pb)
{
	size_t nt = pb->ntargets ? pb->ntargets : 1;
	size_t *owner = malloc(nt * sizeof(size_t));
	unsigned char *seen = calloc(nt, 1);
	if (!owner || !seen) {
		free(owner);
		free(seen);
		return NULL;
	}
	for (size_t t = 0; t < pb->ntargets; t++)
		owner[t] = SIZE_MAX;
	for (size_t k = 0; k < pb->ncalls; k++) {
		const rp_ilp_call *cl = &pb->calls[k];
		if (cl->to == cl->from)
			continue;   /* a self-call needs no veneer */
		if (cl->to != SIZE_MAX || (seen[cl->target] && owner[cl->target] != cl->from))
			owner[cl->target] = SIZE_MAX, seen[cl->target] = 2;
		else if (!seen[cl->target])
			owner[cl->target] = cl->from, seen[cl->target] = 1;
	}
	free(seen);
	return owner;
}

static int fold_into(const rp_ilp_problem *pb, const size_t *owner, rp_ilp_folded *out, rp_err *err)
{
	size_t nt = pb->ntargets ? pb->ntargets : 1;
	size_t *renum = malloc(nt * sizeof(size_t));
	out->items = malloc((pb->nitems ? pb->nitems : 1) * sizeof(rp_ilp_item));
	out->calls = malloc((pb->ncalls ? pb->ncalls : 1) * sizeof(rp_ilp_call));
	if (!renum || !out->items || !out->calls) {
		free(renum);
		return rp_err_nomem(err, "folding the ILP's veneers");
	}
	memcpy(out->items, pb->items, pb->nitems * sizeof(rp_ilp_item));
	size_t nkept = 0;
	for (size_t t = 0; t < pb->ntargets; t++) {
		renum[t] = owner[t] == SIZE_MAX ? nkept++ : SIZE_MAX;
		if (owner[t] == SIZE_MAX)
			continue;
		if (out->items[owner[t]].size > UINT64_MAX - pb->veneer_bytes) {
			free(renum);
			return rp_err_set(err, RP_EINPUT, "folding the ILP's veneers: an item's size overflows");
		}
		out->items[owner[t]].size += pb->veneer_bytes;
		out->nfolded++;
	}
	size_t ncalls = 0;
	for (size_t k = 0; k < pb->ncalls; k++)
		if (renum[pb->calls[k].target] != SIZE_MAX) {
			out->calls[ncalls] = pb->calls[k];
			out->calls[ncalls++].target = renum[pb->calls[k].target];
		}
	free(renum);
	out->pb.items = out->items;
	out->pb.calls = out->calls;
	out->pb.ncalls = ncalls;
	out->pb.ntargets = nkept;
	return 0;
}

int rp_ilp_fold(const rp_ilp_problem *pb, rp_ilp_folded *out, rp_err *err)
{
	memset(out, 0, sizeof(*out));
	out->pb = *pb;
	if (!pb->veneer_bytes || !pb->ntargets)
		return 0;
	size_t *owner = lone_callers(pb);
	if (!owner)
		return rp_err_nomem(err, "folding the ILP's veneers");
	int rc = fold_into(pb, owner, out, err);
	free(owner);
	if (rc)
		rp_ilp_folded_release(out);
	return rc;
}

void rp_ilp_folded_release(rp_ilp_folded *f)
{
	free(f->items);
	free(f->calls);
	memset(f, 0, sizeof(*f));
}
