/* boot.c: the reset path analysis (see boot.h). Owns the function lists, the keep flags and the
 * chain links. Heuristic by necessity, and conservative where it guesses:
 *  - the copier refers both to where the section runs and to where it loads from: either alone
 *    is too often a variable that happens to sit where .ramtext starts or ends (.data follows
 *    it), or a function where it loads (.text follows it in flash);
 *  - inside the copier, the copy is done once its last reference to the load address has been
 *    followed by the first call or tail jump out of it (forward guard branches allowed), which
 *    is how GCC emits memcpy(__ramtext_start, ...) out of a copy loop; a backward branch first
 *    means an inline loop did the copy, and the calls after it are free;
 *  - a callee that is not the way to the copier runs entirely before the copy;
 *  - the walk goes at most MAX_DEPTH calls deep and walks each function once; what lies beyond
 *    is kept with its closure.
 * Workload: the functions the reset path runs before the copy (or before main) are decoded
 * once each; the closures come from the call graph. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/boot.h"
#include "ramplace/disasm.h"
#include "ramplace/elfsyms.h"
#include "ramplace/util.h"

#define MAX_DEPTH 32

/* The addresses that name a copied code section: where it runs (start, end) and where it is
 * loaded from in flash; BOUND_ANY when the section is not in the ELF, so no telling. */
enum { BOUND_ANY, BOUND_RUN, BOUND_LOAD };

typedef struct bounds {
	uint64_t v[64];
	int kind[64];
	size_t n;
} bounds;

static void add_bound(bounds *b, uint64_t v, int kind)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->v[i] == v)
			return;
	if (b->n < sizeof(b->v) / sizeof(b->v[0])) {
		b->kind[b->n] = kind;
		b->v[b->n++] = v;
	}
}

/* The kind of bound v is, or -1. */
static int bound_kind(const bounds *b, uint64_t v)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->v[i] == v)
			return b->kind[i];
	return -1;
}

/* Linker symbols naming the section (__ramtext_start, _sramtext, __ramtext_load...; not sizes
 * such as __ramtext_size, which are numbers) and the section's own addresses. A value at the
 * section's start or end is where it runs; any other is where it loads from. */
static void collect_bounds(bounds *b, const rp_image *img, const rp_elfsyms *syms, const char *const *outsecs,
			   size_t n)
{
	for (size_t k = 0; k < n; k++) {
		const char *base = outsecs[k][0] == '.' ? outsecs[k] + 1 : outsecs[k];
		const rp_section *sec = rp_image_section(img, outsecs[k]);
		if (sec) {
			add_bound(b, sec->vma, BOUND_RUN);
			add_bound(b, sec->vma + sec->size, BOUND_RUN);
			if (sec->lma != sec->vma)
				add_bound(b, sec->lma, BOUND_LOAD);
		}
		for (size_t i = 0; *base && i < syms->nsyms; i++) {
			const rp_elfsym *s = &syms->syms[i];
			if (s->type == STT_FUNC || s->type == STT_SECTION || s->type == STT_FILE || !strstr(s->name, base) ||
			    strstr(s->name, "size") || strstr(s->name, "len"))
				continue;
			add_bound(b, s->value, !sec ? BOUND_ANY : s->value == sec->vma || s->value == sec->vma + sec->size
								 ? BOUND_RUN : BOUND_LOAD);
		}
	}
}

static const rp_func *thumb_func(const rp_image *img, uint64_t word)
{
	if (!(word & 1))
		return NULL;
	const rp_func *f = rp_image_func_at(img, word & ~1ull);
	return f && f->addr == (word & ~1ull) ? f : NULL;
}

/* Cortex-M: word 1 of the vector table is the reset handler (with the Thumb bit). */
static const rp_func *from_vector_table(const rp_image *img, char *how, size_t howlen)
{
	static const char *const names[] = { ".vectors", ".isr_vector", ".vector_table", ".intvecs" };
	if (img->machine != EM_ARM)
		return NULL;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const rp_section *s = rp_image_section(img, names[i]);
		unsigned char w[4];
		rp_err ignored = RP_ERR_INIT;
		if (!s || s->size < 8 || rp_image_read(img, s->vma + 4, w, 4, &ignored))
			continue;
		uint64_t word = img->big_endian ? (uint64_t)w[0] << 24 | (uint64_t)w[1] << 16 | (uint64_t)w[2] << 8 | w[3]
						: (uint64_t)w[3] << 24 | (uint64_t)w[2] << 16 | (uint64_t)w[1] << 8 | w[0];
		const rp_func *f = thumb_func(img, word);
		if (f) {
			snprintf(how, howlen, "the vector table (%s)", names[i]);
			return f;
		}
	}
	return NULL;
}

static const rp_func *find_reset(const rp_image *img, char *how, size_t howlen)
{
	const rp_func *f = from_vector_table(img, how, howlen);
	if (f)
		return f;
	f = img->entry ? rp_image_func_at(img, img->entry & (img->machine == EM_ARM ? ~1ull : ~0ull)) : NULL;
	if (f) {
		snprintf(how, howlen, "the ELF entry point");
		return f;
	}
	static const char *const names[] = { "Reset_Handler", "_start" };
	for (size_t i = 0; i < 2; i++)
		if ((f = rp_image_func_by_name(img, names[i], NULL))) {
			snprintf(how, howlen, "the symbol %s", names[i]);
			return f;
		}
	return NULL;
}

/* One function's instructions, in address order. */
typedef struct insns {
	rp_insn *v;
	size_t n, cap;
	rp_err *err;
} insns;

static int keep_insn(void *p, const rp_insn *in)
{
	insns *is = p;
	if (rp_grow((void **)&is->v, &is->cap, is->n + 1, sizeof(rp_insn), is->err))
		return is->err->code;
	is->v[is->n++] = *in;
	return 0;
}

static int push(size_t **list, size_t *n, size_t v, rp_err *err)
{
	for (size_t i = 0; i < *n; i++)
		if ((*list)[i] == v)
			return 0;
	size_t *bigger = realloc(*list, (*n + 1) * sizeof(size_t));
	if (!bigger)
		return rp_err_nomem(err, "analysing the reset path");
	*list = bigger;
	bigger[(*n)++] = v;
	return 0;
}

enum { W_NONE, W_COPY, W_MAIN };   /* what a walk found: nothing, the copy, a call to main */

typedef struct bwalk {
	const rp_image *img;
	const bounds *b;
	rp_disasm *d;
	rp_boot *out;
	unsigned char *state;   /* per function: 1 on the way down now, 2 walked */
	rp_err *err;
} bwalk;

/* The function a direct call or jump of self enters, or SIZE_MAX (none, or self). */
static size_t callee_at(const bwalk *w, const rp_insn *in, size_t self)
{
	if (in->kind == RP_INSN_OTHER || !in->has_target)
		return SIZE_MAX;
	const rp_func *t = rp_callgraph_entered(w->img, in->target);
	size_t ti = t ? (size_t)(t - w->img->funcs) : SIZE_MAX;
	return ti == self ? SIZE_MAX : ti;
}

/* Records that t, kept, is reached from `from` (the first way found stays). */
static int reach(bwalk *w, size_t **list, size_t *n, size_t t, size_t from)
{
	if (w->out->via[t] == SIZE_MAX && t != w->out->reset)
		w->out->via[t] = from;
	return push(list, n, t, w->err);
}

/* Where f copies the section, when it does: the index of its last reference to the load
 * address (the copy reads from there), or with no load address known, to any bound. f copies
 * when it refers to where the section loads and where it runs (or, no telling, to two distinct
 * bounds). SIZE_MAX when f does not copy. */
static size_t copy_ref(const bwalk *w, const insns *is)
{
	uint64_t first = 0;
	int distinct = 0, run = 0, load = 0, any = 0;
	size_t last = SIZE_MAX, last_load = SIZE_MAX;
	for (size_t i = 0; i < is->n; i++)
		for (size_t k = 0; k < is->v[i].nrefs; k++) {
			uint64_t v = is->v[i].ref_words[k];
			int kind = bound_kind(w->b, v);
			if (kind < 0)
				continue;
			if (!distinct)
				first = v;
			distinct += distinct == 0 || (distinct == 1 && v != first);
			run |= kind == BOUND_RUN;
			any |= kind == BOUND_ANY;
			if (kind == BOUND_LOAD) {
				load = 1;
				last_load = i;
			}
			last = i;
		}
	if (any ? distinct < 2 : !(run && load))
		return SIZE_MAX;
	return load ? last_load : last;
}

/* The copier f: its callees up to the copy (the copying call included) run before it. */
static int split_copier(bwalk *w, size_t f, const insns *is, size_t last)
{
	rp_boot *o = w->out;
	o->copy_found = 1;
	o->copier = f;
	o->copy_site = is->v[last].addr;
	int window = 1, rc = 0;
	for (size_t i = 0; !rc && i < is->n; i++) {
		const rp_insn *in = &is->v[i];
		size_t t = callee_at(w, in, f);
		int pre = i <= last;
		if (i > last && window && t != SIZE_MAX) {
			pre = 1;
			window = 0;
		} else if (i > last && t == SIZE_MAX && in->kind != RP_INSN_OTHER && in->has_target && in->target <= in->addr)
			window = 0;   /* a loop: the copy was inline */
		if (t != SIZE_MAX)
			rc = pre ? reach(w, &o->pre, &o->npre, t, f) : push(&o->post, &o->npost, t, w->err);
	}
	return rc;
}

static int walk(bwalk *w, size_t f, unsigned depth, int *status);

/* f does not copy: its callees in order, each walked until one turns out to be the way to the
 * copy (or to main); those before run before the copy, those after it are free. */
static int walk_callees(bwalk *w, size_t f, const insns *is, unsigned depth, int *status)
{
	rp_boot *o = w->out;
	int rc = 0;
	for (size_t i = 0; !rc && i < is->n; i++) {
		size_t t = callee_at(w, &is->v[i], f);
		if (t == SIZE_MAX || w->state[t] == 1)
			continue;   /* nothing, or a function on the way down already (recursion) */
		if (*status != W_NONE) {
			rc = push(&o->post, &o->npost, t, w->err);
			continue;
		}
		if (strcmp(w->img->funcs[t].name, "main") == 0 && !w->img->funcs[t].is_local) {
			o->main_func = t;
			*status = W_MAIN;
			rc = push(&o->post, &o->npost, t, w->err);
			continue;
		}
		int sub = W_NONE;
		size_t npre = o->npre;
		if (w->state[t] == 0 && depth < MAX_DEPTH)
			rc = walk(w, t, depth + 1, &sub);
		if (!rc && sub != W_NONE)
			*status = sub;
		if (!rc && sub == W_NONE)
			o->npre = npre;   /* what t's walk listed is in t's closure: t alone is the root */
		if (!rc)
			rc = sub != W_NONE ? reach(w, &o->path, &o->npath, t, f) : reach(w, &o->pre, &o->npre, t, f);
	}
	return rc;
}

static int walk(bwalk *w, size_t f, unsigned depth, int *status)
{
	rp_err local = RP_ERR_INIT;
	insns is = { NULL, 0, 0, &local };
	*status = W_NONE;
	w->state[f] = 1;
	int rc = rp_disasm_func(w->d, &w->img->funcs[f], keep_insn, &is, &local);
	if (rc == RP_EINPUT)
		rc = 0;   /* no file bytes: nothing seen, so nothing found */
	else if (rc)
		*w->err = local;
	size_t last = rc ? SIZE_MAX : copy_ref(w, &is);
	if (!rc && last != SIZE_MAX) {
		*status = W_COPY;
		rc = split_copier(w, f, &is, last);
	} else if (!rc) {
		rc = walk_callees(w, f, &is, depth, status);
	}
	free(is.v);
	w->state[f] = 2;
	return rc;
}

/* From the walk to the keep flags: the closure of what runs before the copy (or before main;
 * or, with neither found, of everything the reset handler reaches), the way down itself. */
static int settle(rp_boot *o, const rp_callgraph *cg, rp_err *err)
{
	o->keep[o->reset] = 1;
	for (size_t i = 0; i < o->npath; i++)
		o->keep[o->path[i]] = 1;
	for (size_t i = 0; !cg && i < o->npre; i++)   /* no call graph: the roots alone */
		o->keep[o->pre[i]] = 1;
	int rc = cg ? rp_callgraph_reach_via(cg, o->pre, o->npre, o->keep, o->via, err) : 0;
	if (!rc && cg && !o->copy_found && o->main_func == SIZE_MAX)
		rc = rp_callgraph_reach_via(cg, &o->reset, 1, o->keep, o->via, err);
	size_t n = 0;
	for (size_t i = 0; i < o->npost; i++)   /* called after the copy, but also before it */
		if (!o->keep[o->post[i]])
			o->post[n++] = o->post[i];
	o->npost = n;
	return rc;
}

int rp_boot_analyze(rp_boot *out, const rp_image *img, const rp_callgraph *cg, const char *const *outsecs,
		    size_t noutsecs, rp_err *err)
{
	size_t nf = img->nfuncs ? img->nfuncs : 1;
	memset(out, 0, sizeof(*out));
	out->reset = out->copier = out->main_func = SIZE_MAX;
	out->keep = calloc(nf, 1);
	out->via = malloc(nf * sizeof(size_t));
	if (!out->keep || !out->via) {
		rp_boot_release(out);
		return rp_err_nomem(err, "analysing the reset path");
	}
	for (size_t i = 0; i < nf; i++)
		out->via[i] = SIZE_MAX;
	const rp_func *reset = find_reset(img, out->found_by, sizeof(out->found_by));
	if (!reset)
		return 0;
	out->reset = (size_t)(reset - img->funcs);
	rp_elfsyms syms;
	bounds b = { .n = 0 };
	int rc = rp_elfsyms_load(&syms, img, err);
	if (!rc) {
		collect_bounds(&b, img, &syms, outsecs, noutsecs);
		rp_elfsyms_release(&syms);
	}
	bwalk w = { img, &b, NULL, out, calloc(nf, 1), err };
	if (!rc && !w.state)
		rc = rp_err_nomem(err, "analysing the reset path");
	rp_disasm *own = NULL;   /* the call graph's decoder when it has one for this image */
	w.d = cg && cg->img == img ? cg->disasm : NULL;
	if (!rc && !w.d)
		rc = rp_disasm_new(&own, img, err);
	if (!w.d)
		w.d = own;
	int status = W_NONE;
	if (!rc)
		rc = walk(&w, out->reset, 0, &status);
	rp_disasm_free(own);
	free(w.state);
	if (!rc)
		rc = settle(out, cg, err);
	for (size_t i = 0; !rc && i < img->nfuncs; i++)
		out->nkeep += out->keep[i];
	if (rc)
		rp_boot_release(out);
	return rc;
}

void rp_boot_release(rp_boot *b)
{
	free(b->pre);
	free(b->path);
	free(b->post);
	free(b->keep);
	free(b->via);
	memset(b, 0, sizeof(*b));
	b->reset = b->copier = b->main_func = SIZE_MAX;
}

void rp_boot_chain(const rp_boot *b, const rp_image *img, size_t f, char *buf, size_t n)
{
	size_t chain[16], k = 0, x = f;
	for (; x != SIZE_MAX && x < img->nfuncs && k < 16; x = b->via ? b->via[x] : SIZE_MAX)
		chain[k++] = x;
	if (!n)
		return;
	buf[0] = '\0';
	if (x != SIZE_MAX && x < img->nfuncs)   /* longer than 16: its head left out */
		snprintf(buf, n, "%s -> ... -> ", b->reset < img->nfuncs ? img->funcs[b->reset].name : "?");
	while (k-- > 0) {
		size_t len = strlen(buf);
		snprintf(buf + len, n - len, "%s%s", img->funcs[chain[k]].name, k ? " -> " : "");
	}
}
