/* stability_items.c: a profile's per-function totals on an image as the items the stability
 * resampling weighs (stability.h): each sampled function the image has, its compiler clones
 * joined to it as `place` joins them, its bytes rounded up to the alignment. Owns the item and
 * name arrays it returns. Workload: a few thousand sampled functions; units are found by a
 * linear search over the units seen so far, a few million string compares at worst. */
#include <stdlib.h>
#include <string.h>

#include "ramplace/stability.h"
#include "ramplace/util.h"

static int same_file(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

typedef struct builder {
	rp_stab_items *out;
	char **files;      /* per unit, borrowed from the image */
	size_t icap, ncap, fcap;
} builder;

static size_t find_unit(const builder *b, const char *name, const char *file)
{
	for (size_t u = 0; u < b->out->n; u++)
		if (strcmp(b->out->names[u], name) == 0 && same_file(b->files[u], file))
			return u;
	return SIZE_MAX;
}

static int add_unit(builder *b, const char *name, char *file, rp_err *err)
{
	rp_stab_items *o = b->out;
	if (rp_grow((void **)&o->items, &b->icap, o->n + 1, sizeof(rp_stab_item), err) ||
	    rp_grow((void **)&o->names, &b->ncap, o->n + 1, sizeof(char *), err) ||
	    rp_grow((void **)&b->files, &b->fcap, o->n + 1, sizeof(char *), err))
		return err->code;
	if (rp_strdup(&o->names[o->n], name, err))
		return err->code;
	b->files[o->n] = file;
	o->items[o->n] = (rp_stab_item){ 0, 0, o->names[o->n] };
	o->n++;
	return 0;
}

static uint64_t round_up(uint64_t size, uint64_t align)
{
	return align > 1 ? (size + align - 1) / align * align : size;
}

/* One function total into its unit; the unit's bytes count each member once. */
static int add_total(builder *b, const rp_image *img, const rp_func_total *t, uint64_t align, uint64_t floor_count,
		     rp_err *err)
{
	const rp_func *f = strcmp(t->func, "<unknown>") == 0 ? NULL : rp_image_func_by_name(img, t->func, t->file);
	if (!f || t->count == 0 || t->count < floor_count)
		return rp_count_add(&b->out->rest, t->count) ? rp_err_set(err, RP_EINPUT, "the sample counts overflow") : 0;
	char parent[512];
	rp_clone_parent(f->name, parent, sizeof(parent));
	size_t u = find_unit(b, parent, f->file);
	if (u == SIZE_MAX) {
		if (add_unit(b, parent, f->file, err))
			return err->code;
		u = b->out->n - 1;
	}
	rp_stab_item *it = &b->out->items[u];
	it->weight += round_up(f->size, align);
	return rp_count_add(&it->count, t->count) ? rp_err_set(err, RP_EINPUT, "the sample counts overflow") : 0;
}

int rp_stab_items_build(rp_stab_items *out, const rp_image *img, const rp_db_totals *totals,
			uint64_t align, double min_share, rp_err *err)
{
	builder b = { out, NULL, 0, 0, 0 };
	int rc = 0;
	/* per function rather than per unit as `place` does: close enough for what is noise anyway */
	uint64_t floor_count = (uint64_t)(min_share * (double)totals->total);
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; !rc && i < totals->nfuncs; i++)
		rc = add_total(&b, img, &totals->funcs[i], align, floor_count, err);
	free(b.files);
	out->total = out->rest;
	for (size_t u = 0; !rc && u < out->n; u++)
		if (rp_count_add(&out->total, out->items[u].count))
			rc = rp_err_set(err, RP_EINPUT, "the sample counts overflow");
	if (rc)
		rp_stab_items_release(out);
	return rc;
}

void rp_stab_items_release(rp_stab_items *it)
{
	for (size_t u = 0; it->names && u < it->n; u++)
		free(it->names[u]);
	free(it->names);
	free(it->items);
	memset(it, 0, sizeof(*it));
}
