/* boot.c: the reset path analysis (see boot.h). Owns the callee lists and the keep flags.
 * Heuristic by necessity, and conservative where it guesses: a call after the copy counts as
 * the copy itself (so stays in flash) when nothing branches between the last reference to the
 * section bounds and the call, which is how GCC emits memcpy(__ramtext_start, ...). */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/boot.h"
#include "ramplace/disasm.h"
#include "ramplace/elfsyms.h"
#include "ramplace/util.h"

typedef struct bounds {
	uint64_t v[64];
	size_t n;
} bounds;

static void add_bound(bounds *b, uint64_t v)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->v[i] == v)
			return;
	if (b->n < sizeof(b->v) / sizeof(b->v[0]))
		b->v[b->n++] = v;
}

static int is_bound(const bounds *b, uint64_t v)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->v[i] == v)
			return 1;
	return 0;
}

/* Linker symbols naming the section (__ramtext_start, _sramtext, ramtext_load...) and the
 * section's own addresses when it has contents. */
static void collect_bounds(bounds *b, const rp_image *img, const rp_elfsyms *syms, const char *const *outsecs,
			   size_t n)
{
	for (size_t k = 0; k < n; k++) {
		const char *base = outsecs[k][0] == '.' ? outsecs[k] + 1 : outsecs[k];
		for (size_t i = 0; *base && i < syms->nsyms; i++) {
			const rp_elfsym *s = &syms->syms[i];
			if (s->type != STT_FUNC && s->type != STT_SECTION && s->type != STT_FILE && strstr(s->name, base))
				add_bound(b, s->value);
		}
		const rp_section *sec = rp_image_section(img, outsecs[k]);
		if (sec && sec->size) {
			add_bound(b, sec->vma);
			add_bound(b, sec->vma + sec->size);
			add_bound(b, sec->lma);
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

typedef struct walk {
	const rp_image *img;
	const bounds *b;
	size_t self;
	rp_insn *insns;
	size_t n, cap;
	rp_err *err;
} walk;

static int keep_insn(void *p, const rp_insn *in)
{
	walk *w = p;
	if (rp_grow((void **)&w->insns, &w->cap, w->n + 1, sizeof(rp_insn), w->err))
		return w->err->code;
	w->insns[w->n++] = *in;
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

static size_t callee_of(const rp_image *img, const rp_insn *in)
{
	if (in->kind == RP_INSN_OTHER || !in->has_target)
		return SIZE_MAX;
	const rp_func *f = rp_image_func_at(img, in->target);
	return f && f->addr == in->target ? (size_t)(f - img->funcs) : SIZE_MAX;
}

/* Splits the reset handler's direct callees at the copy. */
static int split_callees(rp_boot *out, walk *w, rp_err *err)
{
	size_t last_ref = SIZE_MAX;
	for (size_t i = 0; i < w->n; i++)
		for (size_t k = 0; k < w->insns[i].nrefs; k++)
			if (is_bound(w->b, w->insns[i].ref_words[k]))
				last_ref = i;
	out->copy_found = last_ref != SIZE_MAX;
	if (out->copy_found)
		out->copy_site = w->insns[last_ref].addr;
	int branched = 0, copy_call_seen = 0;
	for (size_t i = 0; i < w->n; i++) {
		const rp_insn *in = &w->insns[i];
		size_t t = callee_of(w->img, in);
		int pre;
		if (!out->copy_found || i <= last_ref)
			pre = 1;
		else
			pre = !branched && !copy_call_seen && in->kind == RP_INSN_CALL;
		if (i > last_ref && out->copy_found && in->kind != RP_INSN_OTHER) {
			if (in->kind == RP_INSN_CALL && !branched)
				copy_call_seen = 1;
			branched |= in->kind != RP_INSN_CALL;
		}
		if (t == SIZE_MAX || t == w->self)
			continue;
		int rc = pre ? push(&out->pre, &out->npre, t, err) : push(&out->post, &out->npost, t, err);
		if (rc)
			return rc;
	}
	return 0;
}

int rp_boot_analyze(rp_boot *out, const rp_image *img, const rp_callgraph *cg, const char *const *outsecs,
		    size_t noutsecs, rp_err *err)
{
	memset(out, 0, sizeof(*out));
	out->reset = SIZE_MAX;
	out->keep = calloc(img->nfuncs ? img->nfuncs : 1, 1);
	if (!out->keep)
		return rp_err_nomem(err, "analysing the reset path");
	const rp_func *reset = find_reset(img, out->found_by, sizeof(out->found_by));
	if (!reset)
		return 0;
	out->reset = (size_t)(reset - img->funcs);
	rp_elfsyms syms;
	bounds b = { { 0 }, 0 };
	rp_disasm *d = NULL;
	walk w = { img, &b, out->reset, NULL, 0, 0, err };
	int rc = rp_elfsyms_load(&syms, img, err);
	if (rc)
		return rc;
	collect_bounds(&b, img, &syms, outsecs, noutsecs);
	rp_elfsyms_release(&syms);
	rc = rp_disasm_new(&d, img, err);
	if (!rc) {
		rc = rp_disasm_func(d, reset, keep_insn, &w, err);
		if (rc == RP_EINPUT)
			rc = 0;
	}
	rp_disasm_free(d);
	if (!rc)
		rc = split_callees(out, &w, err);
	free(w.insns);
	/* found: what runs before the copy keeps its whole closure in flash; not found: the old
	 * rule, the direct callees only (their closure would pin most of the program) */
	if (!rc && out->copy_found)
		rc = rp_callgraph_reach(cg, out->pre, out->npre, out->keep, err);
	for (size_t i = 0; !rc && !out->copy_found && i < out->npre; i++)
		out->keep[out->pre[i]] = 1;
	if (!rc)
		out->keep[out->reset] = 1;
	for (size_t i = 0; !rc && i < img->nfuncs; i++)
		out->nkeep += out->keep[i];
	if (rc)
		rp_boot_release(out);
	return rc;
}

void rp_boot_release(rp_boot *b)
{
	free(b->pre);
	free(b->post);
	free(b->keep);
	memset(b, 0, sizeof(*b));
	b->reset = SIZE_MAX;
}
