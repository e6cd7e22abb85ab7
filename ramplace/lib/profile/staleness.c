/* staleness.c: how much of a profile still maps onto the ELF being placed (see staleness.h).
 * Owns the rp_staleness lists and, while assessing, the ELFs of older builds it loads to
 * recognize renamed functions by their code, and the indexes the guesses use. Workload: up
 * to 100,000 profiled functions against an image of up to 200,000; when thousands of them
 * vanished (a profile of another build), each guess is a lookup in an index of clone parents or
 * sizes built once, never a pass over the image per vanished function. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ramplace/staleness.h"
#include "ramplace/util.h"

#define MAX_OLD_IMAGES 4        /* older ELFs loaded to recognize renames by their code */
#define MAX_COMPARE (64 * 1024) /* bytes of code compared per candidate */

typedef struct olds {
	rp_image *img[MAX_OLD_IMAGES];
	size_t n;
} olds;

static int set_now(rp_stale_func *v, const rp_func *g, rp_err *err)
{
	char buf[1024];
	if (g->file)
		snprintf(buf, sizeof(buf), "%s (%s)", g->name, g->file);
	else
		snprintf(buf, sizeof(buf), "%s", g->name);
	return rp_strdup(&v->now, buf, err);
}

/* A static may be matched with a static of the same file, a global with anything. */
static int files_compatible(const char *a, const char *b)
{
	return !a || !b || strcmp(a, b) == 0;
}

/* Both statics of one file: evidence of its own that the candidate is the same function. */
static int same_file(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* The candidates a name-based guess may pick: any compatible one on the same firmware, else only
 * a static of the vanished function's own file. */
static int may_guess(const rp_stale_func *v, const rp_func *g, int same_firmware)
{
	return same_firmware ? files_compatible(v->file, g->file) : same_file(v->file, g->file);
}

#define PARENT_MAX 512   /* clone parents are compared up to this many bytes, NUL included */

/* The image's functions by clone parent (rp_clone_parent) and by size, each in function order
 * among equals: the candidates of one guess without a pass over every function. */
typedef struct guess_index {
	rp_name_index parents;
	char *parent_text;       /* the parents' strings, one after another */
	size_t *by_size;         /* function indices by (size, index); NULL until old builds ask */
} guess_index;

static void guess_index_release(guess_index *gi)
{
	rp_name_index_release(&gi->parents);
	free(gi->parent_text);
	free(gi->by_size);
}

static int index_parents(guess_index *gi, const rp_image *img, rp_err *err)
{
	char buf[PARENT_MAX];
	size_t total = 1, at = 0;
	for (size_t i = 0; i < img->nfuncs; i++)
		total += strlen(rp_clone_parent(img->funcs[i].name, buf, sizeof(buf))) + 1;
	gi->parent_text = malloc(total);
	if (!gi->parent_text || rp_name_index_init(&gi->parents, img->nfuncs, err))
		return err->code ? err->code : rp_err_nomem(err, "indexing clone parents");
	for (size_t i = 0; i < img->nfuncs; i++) {
		size_t n = strlen(rp_clone_parent(img->funcs[i].name, buf, sizeof(buf))) + 1;
		memcpy(gi->parent_text + at, buf, n);
		gi->parents.e[i] = (rp_name_entry){ gi->parent_text + at, NULL, i, 0 };
		at += n;
	}
	rp_name_index_sort(&gi->parents);
	return 0;
}

static int by_size_then_index(const void *a, const void *b, void *funcs)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	const rp_func *f = funcs;
	if (f[x].size != f[y].size)
		return f[x].size < f[y].size ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int index_sizes(guess_index *gi, const rp_image *img, rp_err *err)
{
	gi->by_size = malloc((img->nfuncs ? img->nfuncs : 1) * sizeof(size_t));
	if (!gi->by_size)
		return rp_err_nomem(err, "indexing function sizes");
	for (size_t i = 0; i < img->nfuncs; i++)
		gi->by_size[i] = i;
	rp_sort_r(gi->by_size, img->nfuncs, sizeof(size_t), by_size_then_index, img->funcs);
	return 0;
}

/* The first position in by_size of a function of this size (img->nfuncs when none). */
static size_t first_of_size(const guess_index *gi, const rp_image *img, uint64_t size)
{
	size_t lo = 0, hi = img->nfuncs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (img->funcs[gi->by_size[mid]].size < size)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* foo.constprop.0 -> foo.isra.0 or foo: the compiler chose other clones for the same function.
 * The last compatible candidate named exactly the parent, else the first compatible one. */
static const rp_func *clone_relative(const rp_image *img, const guess_index *gi, const rp_stale_func *v,
				     int same_firmware)
{
	char want[PARENT_MAX];
	rp_clone_parent(v->name, want, sizeof(want));
	const rp_func *best = NULL;
	for (const rp_name_entry *e = rp_name_index_find(&gi->parents, want, NULL, 0); e;
	     e = rp_name_index_next(&gi->parents, e)) {
		const rp_func *g = &img->funcs[e->index];
		if (!may_guess(v, g, same_firmware))
			continue;
		if (!best || strcmp(g->name, want) == 0)
			best = g;
	}
	return best;
}

static int same_code(const rp_image *a, const rp_func *fa, const rp_image *b, const rp_func *fb)
{
	rp_err ignored = RP_ERR_INIT;
	if (fa->size != fb->size || fa->size == 0 || fa->size > MAX_COMPARE)
		return 0;
	unsigned char *ba = malloc(fa->size), *bb = malloc(fa->size);
	int same = ba && bb && !rp_image_read(a, fa->addr, ba, fa->size, &ignored) &&
		   !rp_image_read(b, fb->addr, bb, fb->size, &ignored) && memcmp(ba, bb, fa->size) == 0;
	free(ba);
	free(bb);
	return same; /* an allocation failure only costs the guess */
}

/* In an older build still on disk: the one function of the new ELF with a name the old build
 * did not have and the same code as the vanished one, or on the same firmware only the same
 * size. */
static const rp_func *renamed_by_code(const rp_image *img, const guess_index *gi, const olds *o,
				      const rp_stale_func *v, int same_firmware)
{
	for (size_t k = 0; k < o->n && gi->by_size; k++) {
		const rp_func *old = rp_image_func_by_name(o->img[k], v->name, v->file);
		if (!old)
			continue;
		const rp_func *sized = NULL, *equal = NULL;
		size_t nsized = 0, nequal = 0;
		for (size_t j = first_of_size(gi, img, old->size); j < img->nfuncs; j++) {
			const rp_func *g = &img->funcs[gi->by_size[j]];
			if (g->size != old->size)
				break;   /* past this size: by_size holds the equal sizes together */
			if (!files_compatible(v->file, g->file) ||
			    rp_image_func_by_name(o->img[k], g->name, g->file))
				continue;
			nsized++;
			sized = g;
			if (same_code(o->img[k], old, img, g)) {
				nequal++;
				equal = g;
			}
		}
		if (nequal == 1)
			return equal;
		if (nequal == 0 && nsized == 1 && same_firmware) /* the size alone proves little */
			return sized;
	}
	return NULL;
}

/* same_firmware: most of the profile still maps by name. Without that, a name or a size the ELF
 * also has proves nothing (two benchmarks of one suite both define a static benchmark_body): only
 * evidence of the function's own counts, a candidate in the vanished static's own file or the
 * identical code of the old build. */
static const rp_func *guess_rename(const rp_image *img, const guess_index *gi, const olds *o, const rp_stale_func *v,
				   int same_firmware)
{
	const rp_func *g = same_firmware ? rp_image_func_by_name(img, v->name, NULL) : NULL; /* a static that changed files */
	if (!g)
		g = clone_relative(img, gi, v, same_firmware);
	if (!g)
		g = renamed_by_code(img, gi, o, v, same_firmware);
	return g;
}

/* Loads the ELFs of other builds that are still where they were recorded, unchanged. */
static void load_olds(olds *o, const rp_image *img, const rp_db_image *images, size_t nimages)
{
	struct stat st;
	for (size_t i = 0; i < nimages && o->n < MAX_OLD_IMAGES; i++) {
		rp_image *old = NULL;
		rp_err ignored = RP_ERR_INIT;
		if (strcmp(images[i].build_id, img->build_id) == 0 || stat(images[i].path, &st) != 0)
			continue;
		if (rp_image_load(&old, images[i].path, &ignored))
			continue;
		if (strcmp(old->build_id, images[i].build_id) == 0)
			o->img[o->n++] = old;
		else
			rp_image_free(old);
	}
}

static int summarize_images(rp_staleness *s, const rp_image *img, const rp_db_image *images,
			    size_t nimages, rp_err *err)
{
	const rp_db_image *top = NULL;
	s->nimages = nimages;
	for (size_t i = 0; i < nimages; i++) {
		if (strcmp(images[i].build_id, img->build_id) == 0)
			continue;
		s->nother++;
		s->other_samples += images[i].samples;
		if (!top || images[i].samples > top->samples)
			top = &images[i];
	}
	if (!top)
		return 0;
	if (rp_strdup(&s->other_build_id, top->build_id, err) || rp_strdup(&s->other_path, top->path, err))
		return err->code;
	return 0;
}

static int add_vanished(rp_staleness *s, size_t *cap, const rp_func_total *t, rp_err *err)
{
	if (rp_grow((void **)&s->vanished, cap, s->nvanished + 1, sizeof(*s->vanished), err))
		return err->code;
	rp_stale_func *v = &s->vanished[s->nvanished++];
	memset(v, 0, sizeof(*v));
	v->samples = t->count;
	if (rp_strdup(&v->name, t->func, err) || rp_strdup(&v->file, t->file, err))
		return err->code;
	return 0;
}

int rp_staleness_assess(rp_staleness *out, const rp_image *img, const rp_db_image *images,
			size_t nimages, const rp_db_totals *totals, rp_err *err)
{
	size_t cap = 0;
	olds o = { { NULL }, 0 };
	memset(out, 0, sizeof(*out));
	int rc = summarize_images(out, img, images, nimages, err);
	for (size_t i = 0; !rc && i < totals->nfuncs; i++) { /* totals are by count descending */
		const rp_func_total *t = &totals->funcs[i];
		if (strcmp(t->func, "<unknown>") == 0)
			continue;
		out->profiled += t->count;
		if (rp_db_totals_func(totals, img, i))
			out->mapped += t->count;
		else
			rc = add_vanished(out, &cap, t, err);
	}
	if (!rc && out->nvanished && out->nother)
		load_olds(&o, img, images, nimages);
	guess_index gi = { { NULL, 0, NULL, 0 }, NULL, NULL };
	if (!rc && out->nvanished)
		rc = index_parents(&gi, img, err);
	if (!rc && out->nvanished && o.n)
		rc = index_sizes(&gi, img, err);
	/* the same firmware, as far as names tell: at least half the profile maps (guess_rename) */
	int same_firmware = out->mapped * 2 >= out->profiled;
	for (size_t i = 0; !rc && i < out->nvanished; i++) {
		const rp_func *g = guess_rename(img, &gi, &o, &out->vanished[i], same_firmware);
		if (g && !(rc = set_now(&out->vanished[i], g, err)))
			out->nrenamed++;
	}
	guess_index_release(&gi);
	for (size_t k = 0; k < o.n; k++)
		rp_image_free(o.img[k]);
	if (rc)
		rp_staleness_release(out);
	return rc;
}

void rp_staleness_release(rp_staleness *s)
{
	for (size_t i = 0; i < s->nvanished; i++) {
		free(s->vanished[i].name);
		free(s->vanished[i].file);
		free(s->vanished[i].now);
	}
	free(s->vanished);
	free(s->other_build_id);
	free(s->other_path);
	memset(s, 0, sizeof(*s));
}

double rp_staleness_mapped_share(const rp_staleness *s)
{
	return s->profiled ? (double)s->mapped / (double)s->profiled : 1.0;
}
