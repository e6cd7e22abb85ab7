/* place_data.c: code and read-only data sharing one RAM budget (see place_data.h).
 *
 * Data objects need no veneers and call nothing, so they interact with the code only through
 * the budget: the best joint placement is the best over "these objects, and the code placed in
 * what they leave". The objects are tried densest first (reads per byte), as prefixes 0..K-1 of
 * that order, each with a full rp_place of the code in the rest; the best sum of moved samples
 * and moved reads wins (both count flash accesses: an instruction fetched, a word read), or,
 * placing in cycles, of the code's cycles saved and the data's stall cycles (data_cycles.c).
 * Pinned objects are in every prefix. Owns the data plan and the kept list it returns, and every
 * trial placement until it is dropped. Workload: a handful of hot objects, K <= 8 placements. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/place_data.h"
#include "ramplace/util.h"

typedef struct cand {
	size_t obj;             /* index into the rp_dataobjs */
	double weight;
	int pinned;
} cand;

static int matches_any(const char *name, const char *const *globs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fnmatch(globs[i], name, 0) == 0)
			return 1;
	return 0;
}

static int by_density(const void *pa, const void *pb, void *arg)
{
	const cand *a = pa, *b = pb;
	const rp_dataobjs *sort_objs = arg;
	if (a->pinned != b->pinned)
		return b->pinned - a->pinned;
	double da = a->weight / (double)sort_objs->objs[a->obj].insec_size;
	double db = b->weight / (double)sort_objs->objs[b->obj].insec_size;
	if (da != db)
		return da > db ? -1 : 1;
	return a->obj < b->obj ? -1 : a->obj > b->obj;
}

/* Candidates (weighted, movable, not excluded; pins always) densest first; the weighted objects
 * that cannot move go to dout->kept with their reason. */
static int collect(cand **out, size_t *n, const rp_dataobjs *d, const double *w, const rp_data_opts *o,
		   rp_data_placement *dout, rp_err *err)
{
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < d->n; i++) {
		const rp_dataobj *obj = &d->objs[i];
		int pinned = matches_any(obj->name, o->pin, o->npin);
		dout->total_weight += w[i];
		if (w[i] <= 0 && !pinned)
			continue;
		const char *why = obj->why[0] ? obj->why
				: matches_any(obj->name, o->exclude, o->nexclude) ? "excluded" : NULL;
		if (why && pinned)
			return rp_err_set(err, RP_EINPUT, "pinned data object '%s' cannot move: %s", obj->name, why);
		if (why) {
			if (rp_strlist_pushf(&dout->kept, &dout->nkept, err, "%s%s%s%s: %s", obj->name, obj->file ? " (" : "",
					     obj->file ? obj->file : "", obj->file ? ")" : "", why))
				return err->code;
			continue;
		}
		if (rp_grow((void **)out, &cap, *n + 1, sizeof(**out), err))
			return err->code;
		(*out)[(*n)++] = (cand){ i, w[i], pinned };
	}
	rp_sort_r(*out, *n, sizeof(**out), by_density, (void *)d);
	dout->ncandidates = *n;
	return 0;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

/* Fragment order: largest alignment first (least padding), then the most read. */
static int by_align_then_weight(const void *pa, const void *pb, void *arg)
{
	const cand *a = pa, *b = pb;
	const rp_dataobjs *d = arg;
	uint64_t x = d->objs[a->obj].insec_align, y = d->objs[b->obj].insec_align;
	if (x != y)
		return x > y ? -1 : 1;
	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	return a->obj < b->obj ? -1 : a->obj > b->obj;
}

/* Sorts c[0..k) into fragment order and returns the bytes they take in .ramdata, each input
 * section at its own alignment, the end at 4; bytes[i] gets what c[i] adds, padding included
 * (bytes may be NULL). */
static uint64_t lay_out(cand *c, size_t k, const rp_dataobjs *d, uint64_t *bytes)
{
	uint64_t off = 0;
	rp_sort_r(c, k, sizeof(*c), by_align_then_weight, (void *)d);
	for (size_t i = 0; i < k; i++) {
		const rp_dataobj *o = &d->objs[c[i].obj];
		uint64_t start = off;
		off = align_up(off, o->insec_align) + o->insec_size;
		if (bytes)
			bytes[i] = off - start;
	}
	return align_up(off, 4);
}

/* What the densest k candidates take, laid out as the plan will (scratch: room for k). */
static uint64_t prefix_bytes(const cand *c, size_t k, const rp_dataobjs *d, cand *scratch)
{
	if (k)
		memcpy(scratch, c, k * sizeof(*c));
	return lay_out(scratch, k, d, NULL);
}

/* The first region's budget as rp_place resolves it (`budget: auto` needs one placement). */
static int resolve_budget(uint64_t *budget, const rp_image *img, const rp_map *map, const rp_db_totals *totals,
			  const rp_place_opts *opts, rp_err *err)
{
	if (opts->nregions == 0) {
		*budget = opts->budget;
		return 0;
	}
	if (!opts->regions[0].budget_auto) {
		*budget = opts->regions[0].budget;
		return 0;
	}
	rp_placement p;
	int rc = rp_place(img, map, totals, opts, &p, err);
	if (!rc)
		*budget = p.plans[0]->budget;
	if (!rc)
		rp_placement_release(&p);
	return rc;
}

/* rp_place with the first region's budget set to budget. */
static int place_code(const rp_image *img, const rp_map *map, const rp_db_totals *totals, const rp_place_opts *opts,
		      uint64_t budget, rp_placement *out, rp_err *err)
{
	rp_place_opts o = *opts;
	rp_region_cfg *regions = NULL;
	if (opts->nregions) {
		regions = malloc(opts->nregions * sizeof(*regions));
		if (!regions)
			return rp_err_nomem(err, "placing data");
		memcpy(regions, opts->regions, opts->nregions * sizeof(*regions));
		regions[0].budget = budget;
		regions[0].budget_auto = 0;
		o.regions = regions;
	} else {
		o.budget = budget;
	}
	int rc = rp_place(img, map, totals, &o, out, err);
	free(regions);
	return rc;
}

static uint64_t moved_samples(const rp_placement *p)
{
	uint64_t s = 0;
	for (size_t r = 0; r < p->nplans; r++)
		s += p->plans[r]->moved_samples;
	return s;
}

/* What the code side of a trial is worth: its samples, or in cycles its cycles saved net of
 * veneers (the same currency as the data weights then). */
static double code_value(const rp_placement *p, const rp_data_opts *o)
{
	return o->in_cycles && p->have_cycles ? p->cycles_saved : (double)moved_samples(p);
}

/* Tries prefixes of the candidates; *best_k and *out are the winner's. */
static int search(size_t *best_k, const rp_image *img, const rp_map *map, const rp_db_totals *totals,
		  const rp_place_opts *opts, const cand *c, size_t n, const rp_dataobjs *d, const rp_data_opts *dopts,
		  rp_placement *out, rp_data_placement *dout, rp_err *err)
{
	uint64_t budget = 0;
	cand *scratch = malloc((n ? n : 1) * sizeof(*scratch));
	if (!scratch)
		return rp_err_nomem(err, "placing data");
	int rc = resolve_budget(&budget, img, map, totals, opts, err), have = 0;
	size_t npinned = 0;
	while (npinned < n && c[npinned].pinned)
		npinned++;
	double best = -1, reads = 0;
	for (size_t k = 0; k < npinned; k++)
		reads += c[k].weight;
	for (size_t k = npinned; !rc && k <= n && k < npinned + (dopts->max_tries ? dopts->max_tries : 1); k++) {
		if (k > npinned)
			reads += c[k - 1].weight;
		uint64_t bytes = prefix_bytes(c, k, d, scratch);
		if (bytes >= budget) {
			if (k == npinned)
				rc = rp_err_set(err, RP_EINPUT, "pinned data takes %llu bytes, the whole budget of %llu",
						(unsigned long long)bytes, (unsigned long long)budget);
			break;
		}
		rp_placement p;
		if ((rc = place_code(img, map, totals, opts, budget - bytes, &p, err)))
			break;
		dout->tries++;
		double value = code_value(&p, dopts) + reads;
		if (!have || value > best) {
			if (have)
				rp_placement_release(out);
			*out = p;
			*best_k = k;
			best = value;
			have = 1;
		} else {
			rp_placement_release(&p);
		}
	}
	if (rc && have)
		rp_placement_release(out);
	free(scratch);
	return rc;
}

static int add_unit(rp_plan *plan, const rp_dataobj *o, double weight, uint64_t bytes, rp_err *err)
{
	rp_plan_unit *u = &plan->units[plan->nunits];
	memset(u, 0, sizeof(*u));
	plan->nunits++;
	u->size = o->insec_size;
	u->weight = bytes;
	u->samples = (uint64_t)(weight + 0.5);
	plan->moved_samples += u->samples;
	if (!(u->patterns = calloc(1, sizeof(char *))) || !(u->funcs = calloc(1, sizeof(rp_plan_func))))
		return rp_err_nomem(err, "writing the data plan");
	u->npatterns = u->nfuncs = 1;
	if (rp_strdup(&u->name, o->name, err) || (o->file && rp_strdup(&u->file, o->file, err)) ||
	    rp_strdup(&u->patterns[0], o->pattern, err) || rp_strdup(&u->funcs[0].name, o->name, err) ||
	    (o->file && rp_strdup(&u->funcs[0].file, o->file, err)))
		return err->code;
	return 0;
}

/* The .ramdata plan: the chosen objects in fragment order (largest alignment first), in the
 * first code plan's region, its budget what they take (the code plan got the rest). */
static int make_plan(rp_data_placement *dout, const rp_image *img, const rp_placement *code, cand *c, size_t k,
		     const rp_dataobjs *d, const rp_data_opts *dopts, rp_err *err)
{
	rp_plan *plan = calloc(1, sizeof(*plan));
	if (!plan)
		return rp_err_nomem(err, "writing the data plan");
	dout->plan = plan;
	plan->is_data = 1;
	plan->align = 4;
	const rp_plan *first = code->plans[0];
	if (rp_strdup(&plan->build_id, img->build_id, err) || rp_strdup(&plan->outsec, dopts->outsec, err) ||
	    (first->region && rp_strdup(&plan->region, first->region, err)))
		return err->code;
	plan->region_origin = first->region_origin;
	plan->region_length = first->region_length;
	plan->total_samples = (uint64_t)(dout->total_weight + 0.5);
	uint64_t *bytes = calloc(k ? k : 1, sizeof(uint64_t));
	if (!bytes || (k && !(plan->units = calloc(k, sizeof(*plan->units))))) {
		free(bytes);
		return rp_err_nomem(err, "writing the data plan");
	}
	plan->used = plan->budget = lay_out(c, k, d, bytes);
	int rc = 0;
	for (size_t i = 0; !rc && i < k; i++) {
		dout->moved_weight += c[i].weight;
		rc = add_unit(plan, &d->objs[c[i].obj], c[i].weight, bytes[i], err);
	}
	free(bytes);
	if (rc)
		return rc;
	if (plan->moved_samples > plan->total_samples)
		plan->total_samples = plan->moved_samples;   /* rounding: the plan reader refuses moved > total */
	return 0;
}

int rp_place_data(const rp_image *img, const rp_map *map, const rp_db_totals *totals,
		  const rp_place_opts *opts, const rp_dataobjs *d, const double *weights,
		  const rp_data_opts *dopts, rp_placement *out, rp_data_placement *dout, rp_err *err)
{
	cand *c = NULL;
	size_t n = 0, k = 0;
	memset(dout, 0, sizeof(*dout));
	memset(out, 0, sizeof(*out));
	int rc = collect(&c, &n, d, weights, dopts, dout, err);
	if (!rc && n == 0)
		rc = rp_place(img, map, totals, opts, out, err);   /* nothing to share the budget with */
	else if (!rc)
		rc = search(&k, img, map, totals, opts, c, n, d, dopts, out, dout, err);
	if (!rc) {
		dout->code_samples = moved_samples(out);
		dout->code_saved = code_value(out, dopts);
		rc = make_plan(dout, img, out, c, k, d, dopts, err);
		if (rc)
			rp_placement_release(out);
	}
	free(c);
	if (rc)
		rp_data_placement_release(dout);
	return rc;
}

void rp_data_placement_release(rp_data_placement *d)
{
	rp_plan_free(d->plan);
	for (size_t i = 0; i < d->nkept; i++)
		free(d->kept[i]);
	free(d->kept);
	memset(d, 0, sizeof(*d));
}
