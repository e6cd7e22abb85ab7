/* callgraph.c: static call graph from libopcodes disassembly (see callgraph.h). Owns the edge
 * list, its index, the address-taken flags and the decoder (kept for the reset-path walk).
 * Workload: every function of an image once, up to 200,000 functions: each branch target and
 * literal word is looked up in a hash of the function starts, never by a search. */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/callgraph.h"
#include "ramplace/disasm.h"
#include "ramplace/util.h"

typedef struct site {
	size_t from, to;
	int is_call;
	uint64_t addr;
	unsigned len;
	int wide;
	int cond;
} site;

/* The functions by start address, hashed: the walk asks for every branch target and literal
 * word whether a function starts there, and a binary search over the functions per question
 * was a tenth of `place` on 50,000 functions (issue 14 item 6). Each start maps to what
 * rp_image_func_at gives for it, so the answers are func_starting's. */
typedef struct start_slot {
	uint64_t addr;
	size_t fi;          /* index + 1 into img->funcs; 0: empty */
} start_slot;

typedef struct start_index {
	start_slot *slots;
	size_t mask;
	unsigned char *veneer;   /* per function in the index: its name has "_veneer" */
} start_index;

typedef struct build_ctx {
	rp_callgraph *cg;
	const rp_image *img;
	size_t self;
	uint64_t inner_lo, inner_hi;   /* (lo, hi): inside self, where no function starts; empty if one does */
	uint64_t self_end, tail_limit; /* self's .size end; where the next function (or its section) begins */
	site *sites;
	size_t nsites, cap;
	start_index starts;
	rp_err *err;
} build_ctx;

/* The function starting exactly at addr (Thumb bit: set in pointers to Thumb code). */
static const rp_func *func_starting(const rp_image *img, uint64_t addr, int pointer)
{
	uint64_t a = addr;
	if (img->machine == EM_ARM && pointer) {
		if (!(addr & 1))
			return NULL;   /* Cortex-M code pointers carry the Thumb bit */
		a = addr & ~1ull;
	}
	const rp_func *f = rp_image_func_at(img, a);
	return f && f->addr == a ? f : NULL;
}

/* A Cortex-M long-branch veneer at addr, as GNU ld writes them: ARMv7-M "ldr.w pc, [pc, #-0]"
 * and the target word; ARMv6-M/v8-M.base "push {r0}; ldr r0, [pc, #8]; mov ip, r0; pop {r0};
 * bx ip; nop" and the target word. Its target function, or NULL. Calls through veneers lead to
 * the real callee. */
static const rp_func *through_veneer(const rp_image *img, uint64_t addr)
{
	static const unsigned char v7m[4] = { 0x5f, 0xf8, 0x00, 0xf0 };
	static const unsigned char v6m[12] = { 0x01, 0xb4, 0x02, 0x48, 0x84, 0x46, 0x01, 0xbc, 0x60, 0x47, 0x00, 0xbf };
	unsigned char v[16];
	rp_err ignored = RP_ERR_INIT;
	if (img->machine != EM_ARM || img->code_big_endian || rp_image_read(img, addr, v, 8, &ignored))
		return NULL;
	size_t at = 0;
	if (memcmp(v, v7m, sizeof(v7m)) == 0)
		at = 4;
	else if (memcmp(v, v6m, 8) == 0 && !rp_image_read(img, addr, v, 16, &ignored) && memcmp(v, v6m, sizeof(v6m)) == 0)
		at = 12;
	else
		return NULL;
	return func_starting(img, rp_image_word32(img, v + at), 1);
}

const rp_func *rp_callgraph_entered(const rp_image *img, uint64_t target)
{
	const rp_func *t = func_starting(img, target, 0);
	if (!t || strstr(t->name, "_veneer")) {
		const rp_func *real = through_veneer(img, target);
		if (real)
			t = real;
	}
	return t;
}

static size_t start_hash(uint64_t addr, size_t mask)
{
	return (size_t)((addr * 0x9e3779b97f4a7c15ull) >> 29) & mask;
}

static int starts_build(start_index *ix, const rp_image *img, rp_err *err)
{
	size_t n = 16;
	while (n < 2 * img->nfuncs && n <= SIZE_MAX / 4 / sizeof(start_slot))
		n *= 2;
	ix->slots = n >= 2 * img->nfuncs ? calloc(n, sizeof(start_slot)) : NULL;
	ix->veneer = calloc(img->nfuncs ? img->nfuncs : 1, 1);
	if (!ix->slots || !ix->veneer)
		return rp_err_nomem(err, "building the call graph");
	ix->mask = n - 1;
	for (size_t i = 0, j; i < img->nfuncs; i = j) {
		uint64_t a = img->funcs[i].addr;
		for (j = i + 1; j < img->nfuncs && img->funcs[j].addr == a; j++)
			;
		/* what rp_image_func_at answers for a, without its search when the last symbol
		 * starting at a has a size (it then covers a): funcs is in address order */
		const rp_func *last = &img->funcs[j - 1];
		const rp_func *f = last->size > 0 ? last : rp_image_func_at(img, a);
		if (!f || f->addr != a)
			continue;   /* an alias already in, or not what a branch to a enters */
		size_t k = start_hash(a, ix->mask);
		while (ix->slots[k].fi && ix->slots[k].addr != a)
			k = (k + 1) & ix->mask;
		if (!ix->slots[k].fi) {
			ix->slots[k] = (start_slot){ a, (size_t)(f - img->funcs) + 1 };
			ix->veneer[f - img->funcs] = strstr(f->name, "_veneer") != NULL;
		}
	}
	return 0;
}

static void starts_release(start_index *ix)
{
	free(ix->slots);
	free(ix->veneer);
}

/* func_starting through the index. */
static const rp_func *start_at(const start_index *ix, const rp_image *img, uint64_t addr, int pointer)
{
	uint64_t a = addr;
	if (img->machine == EM_ARM && pointer) {
		if (!(addr & 1))
			return NULL;
		a = addr & ~1ull;
	}
	for (size_t k = start_hash(a, ix->mask); ix->slots[k].fi; k = (k + 1) & ix->mask)
		if (ix->slots[k].addr == a)
			return &img->funcs[ix->slots[k].fi - 1];
	return NULL;
}

/* rp_callgraph_entered through the index, each name asked for "_veneer" once, in order. A
 * branch inside its own function (a loop, a condition) is answered without the index, whose
 * probe misses the cache: no function starts there. */
static const rp_func *entered(build_ctx *b, uint64_t target)
{
	int inside = target > b->inner_lo && target < b->inner_hi;
	const rp_func *t = inside ? NULL : start_at(&b->starts, b->img, target, 0);
	if (!t || b->starts.veneer[t - b->img->funcs]) {
		const rp_func *real = through_veneer(b->img, target);
		if (real)
			t = real;
	}
	return t;
}

/* The open interval (start, end) of function i when no function starts inside it (the next
 * start in address order is at or past its end), else an empty one. */
static void set_inner(build_ctx *b, const rp_image *img, size_t i)
{
	const rp_func *f = &img->funcs[i];
	size_t j = i + 1;
	while (j < img->nfuncs && img->funcs[j].addr == f->addr)
		j++;   /* aliases at its own address */
	int alone = f->size > 0 && f->addr <= UINT64_MAX - f->size &&
		    (j == img->nfuncs || img->funcs[j].addr >= f->addr + f->size);
	b->inner_lo = alone ? f->addr : 0;
	b->inner_hi = alone ? f->addr + f->size : 0;
	const rp_section *sec = &img->sections[f->section];
	b->self_end = f->addr <= UINT64_MAX - f->size ? f->addr + f->size : UINT64_MAX;
	b->tail_limit = sec->vma <= UINT64_MAX - sec->size ? sec->vma + sec->size : UINT64_MAX;
	if (j < img->nfuncs && img->funcs[j].addr < b->tail_limit)
		b->tail_limit = img->funcs[j].addr;
}

/* A pc-relative load past the function's .size but before the next function reads data of its
 * own input section: an ARM literal pool after a naked function's code (its .size stops at the
 * last instruction). Without a map, that is the only sign that moving it moves those bytes. */
static void note_trailing(build_ctx *b, const rp_insn *in)
{
	if (!in->nrefs || b->img->machine != EM_ARM || in->kind != RP_INSN_OTHER)
		return;
	unsigned width = strncmp(in->mnemonic, "ldrd", 4) == 0 || strncmp(in->mnemonic, "vldr", 4) == 0 ? 8 : 4;
	for (size_t k = 0; k < in->nrefs; k++) {
		uint64_t a = in->refs[k];
		if (a < b->self_end || a >= b->tail_limit || b->tail_limit - a < width)
			continue;
		if (a + width - b->self_end > b->cg->trailing[b->self])
			b->cg->trailing[b->self] = a + width - b->self_end;
	}
}

static int on_insn(void *p, const rp_insn *in)
{
	build_ctx *b = p;
	if (in->kind != RP_INSN_OTHER && in->has_target) {
		const rp_func *t = entered(b, in->target);
		size_t ti = t ? (size_t)(t - b->img->funcs) : SIZE_MAX;
		if (t && ti != b->self) {
			if (rp_grow((void **)&b->sites, &b->cap, b->nsites + 1, sizeof(site), b->err))
				return b->err->code;
			b->sites[b->nsites++] = (site){ b->self, ti, in->kind == RP_INSN_CALL, in->addr, in->site_len,
							in->site_wide, in->kind == RP_INSN_CONDJUMP };
		}
	}
	note_trailing(b, in);
	for (size_t k = 0; k < in->nrefs; k++) {
		const rp_func *t = start_at(&b->starts, b->img, in->ref_words[k], b->img->machine == EM_ARM);
		if (t)
			b->cg->address_taken[t - b->img->funcs] = 1;
	}
	return 0;
}

static int by_site(const void *x, const void *y)
{
	const site *a = x, *b = y;
	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	if (a->to != b->to)
		return a->to < b->to ? -1 : 1;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* The sites come function by function (from ascending), so each function's few are sorted on
 * their own: the same order as one sort of them all (no two sites share an address), without
 * its n log n over every site of the image. */
static void sort_sites(site *sites, size_t n)
{
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && sites[j].from == sites[i].from; j++)
			;
		rp_sort(sites + i, j - i, sizeof(site), by_site);
	}
}

static int make_edges(rp_callgraph *cg, site *sites, size_t n, rp_err *err)
{
	sort_sites(sites, n);
	cg->edges = calloc(n ? n : 1, sizeof(rp_cg_edge));
	cg->first = calloc(cg->nfuncs + 1, sizeof(size_t));
	cg->sites = calloc(n ? n : 1, sizeof(rp_cg_site));
	if (!cg->edges || !cg->first || !cg->sites)
		return rp_err_nomem(err, "building the call graph");
	cg->nsites = n;
	for (size_t i = 0; i < n; i++) {
		rp_cg_edge *e = cg->nedges ? &cg->edges[cg->nedges - 1] : NULL;
		if (!e || e->from != sites[i].from || e->to != sites[i].to) {
			e = &cg->edges[cg->nedges++];
			*e = (rp_cg_edge){ sites[i].from, sites[i].to, 0, 0, sites[i].addr, 0, 0, 0, 0, 0, 0, i };
		}
		cg->sites[i] = (rp_cg_site){ sites[i].addr, (unsigned char)sites[i].len, (unsigned char)(sites[i].wide != 0),
					     (unsigned char)(sites[i].cond != 0) };
		e->sites2 += sites[i].len == 2;
		e->sites4 += sites[i].len == 4;
		e->sites8 += sites[i].len == 8;
		e->wide2 += sites[i].len == 2 && sites[i].wide;
		e->wide4 += sites[i].len == 4 && sites[i].wide;
		e->wide8 += sites[i].len == 8 && sites[i].wide;
		if (sites[i].is_call)
			e->ncalls++;
		else
			e->nbranches++;
	}
	size_t k = 0;
	for (size_t f = 0; f <= cg->nfuncs; f++) {
		while (k < cg->nedges && cg->edges[k].from < f)
			k++;
		cg->first[f] = k;
	}
	return 0;
}

/* Words in data sections (vector tables, handler tables, initializers) naming a function. */
static void scan_data_words(rp_callgraph *cg, const rp_image *img, const start_index *starts)
{
	unsigned wsize = img->elfclass == 64 ? 8 : 4;
	for (size_t s = 0; s < img->nsections; s++) {
		const rp_section *sec = &img->sections[s];
		if (!sec->is_alloc || sec->is_nobits || sec->is_exec || sec->file_offset > img->nbytes ||
		    sec->size > img->nbytes - sec->file_offset)
			continue;
		const unsigned char *p = img->bytes + sec->file_offset;
		for (uint64_t off = (wsize - sec->vma % wsize) % wsize; off + wsize <= sec->size; off += wsize) {
			uint64_t w = 0;
			for (unsigned i = 0; i < wsize; i++) {
				unsigned shift = img->big_endian ? 8 * (wsize - 1 - i) : 8 * i;
				w |= (uint64_t)p[off + i] << shift;
			}
			const rp_func *t = start_at(starts, img, w, img->machine == EM_ARM);
			if (t)
				cg->address_taken[t - img->funcs] = 1;
		}
	}
}

int rp_callgraph_build(rp_callgraph **out, const rp_image *img, rp_err *err)
{
	*out = NULL;
	rp_callgraph *cg = calloc(1, sizeof(*cg));
	if (!cg)
		return rp_err_nomem(err, "building the call graph");
	cg->img = img;
	cg->nfuncs = img->nfuncs;
	cg->address_taken = calloc(img->nfuncs ? img->nfuncs : 1, 1);
	cg->trailing = calloc(img->nfuncs ? img->nfuncs : 1, sizeof(uint64_t));
	rp_disasm *d = NULL;
	build_ctx b = { cg, img, 0, 0, 0, 0, 0, NULL, 0, 0, { NULL, 0, NULL }, err };
	int rc = cg->address_taken && cg->trailing ? starts_build(&b.starts, img, err) : rp_err_nomem(err, "building the call graph");
	if (!rc)
		rc = rp_disasm_new(&d, img, err);
	if (!rc)
		rp_disasm_set_branches_only(d, 1);   /* on_insn looks at nothing else */
	for (size_t i = 0; !rc && i < img->nfuncs; i++) {
		const rp_func *f = &img->funcs[i];
		if (f->section >= img->nsections || !img->sections[f->section].is_exec)
			continue;
		b.self = i;
		set_inner(&b, img, i);
		rc = rp_disasm_func(d, f, on_insn, &b, err);
		if (rc == RP_EINPUT)
			rc = 0;   /* no file bytes (NOBITS): nothing to decode */
	}
	if (d)
		rp_disasm_set_branches_only(d, 0);   /* the reset-path walk wants every instruction */
	cg->disasm = d;
	if (!rc) {
		scan_data_words(cg, img, &b.starts);
		rc = make_edges(cg, b.sites, b.nsites, err);
	}
	free(b.sites);
	starts_release(&b.starts);
	if (rc) {
		rp_callgraph_free(cg);
		return rc;
	}
	*out = cg;
	return 0;
}

void rp_callgraph_free(rp_callgraph *cg)
{
	if (!cg)
		return;
	free(cg->edges);
	free(cg->first);
	free(cg->sites);
	free(cg->address_taken);
	free(cg->trailing);
	rp_disasm_free(cg->disasm);
	free(cg);
}

int rp_callgraph_reach(const rp_callgraph *cg, const size_t *roots, size_t nroots, unsigned char *mark,
		       rp_err *err)
{
	return rp_callgraph_reach_via(cg, roots, nroots, mark, NULL, err);
}

int rp_callgraph_reach_names(const rp_callgraph *cg, const char *const *names, size_t n, unsigned char *mark,
			     rp_err *err)
{
	size_t *roots = malloc((n ? n : 1) * sizeof(size_t));
	if (!roots)
		return rp_err_nomem(err, "walking the call graph");
	int rc = 0;
	for (size_t i = 0; !rc && i < n; i++) {
		const rp_func *f = rp_image_func_by_name(cg->img, names[i], NULL);
		if (!f)
			rc = rp_err_set(err, RP_EUSAGE, "no function '%s' in %s", names[i], cg->img->path);
		else
			roots[i] = (size_t)(f - cg->img->funcs);
	}
	if (!rc)
		rc = rp_callgraph_reach(cg, roots, n, mark, err);
	free(roots);
	return rc;
}

/* Breadth first, so that the links name short chains. */
int rp_callgraph_reach_via(const rp_callgraph *cg, const size_t *roots, size_t nroots, unsigned char *mark,
			   size_t *via, rp_err *err)
{
	size_t *queue = malloc((cg->nfuncs ? cg->nfuncs : 1) * sizeof(size_t));
	unsigned char *seen = calloc(cg->nfuncs ? cg->nfuncs : 1, 1);
	if (!queue || !seen) {
		free(queue);
		free(seen);
		return rp_err_nomem(err, "walking the call graph");
	}
	size_t head = 0, tail = 0;
	for (size_t i = 0; i < nroots; i++)
		if (roots[i] < cg->nfuncs && !seen[roots[i]]) {
			seen[roots[i]] = 1;
			mark[roots[i]] = 1;
			queue[tail++] = roots[i];
		}
	while (head < tail) {
		size_t f = queue[head++];
		for (size_t k = cg->first[f]; k < cg->first[f + 1]; k++) {
			size_t t = cg->edges[k].to;
			if (seen[t])
				continue;
			seen[t] = 1;
			if (via && !mark[t])
				via[t] = f;
			mark[t] = 1;
			queue[tail++] = t;
		}
	}
	free(queue);
	free(seen);
	return 0;
}

static void put_name(FILE *fp, const rp_func *f, int quote)
{
	if (quote)
		fputc('"', fp);
	for (const char *p = f->name; *p; p++)
		if (!quote || (*p != '"' && *p != '\\'))
			fputc(*p, fp);
	if (f->file && f->is_local) {
		fputs(quote ? " (" : " (", fp);
		for (const char *p = f->file; *p; p++)
			if (!quote || (*p != '"' && *p != '\\'))
				fputc(*p, fp);
		fputc(')', fp);
	}
	if (quote)
		fputc('"', fp);
}

void rp_callgraph_write(const rp_callgraph *cg, FILE *fp, int dot, const unsigned char *only)
{
	const rp_func *fn = cg->img->funcs;
	if (dot)
		fputs("digraph callgraph {\n  node [shape=box, fontname=monospace];\n", fp);
	for (size_t i = 0; i < cg->nfuncs; i++) {
		if (only && !only[i])
			continue;
		if (dot && cg->address_taken[i]) {
			fputs("  ", fp);
			put_name(fp, &fn[i], 1);
			fputs(" [style=bold, tooltip=\"address taken\"];\n", fp);
		} else if (!dot && cg->address_taken[i]) {
			fputs("address-taken ", fp);
			put_name(fp, &fn[i], 0);
			fputc('\n', fp);
		}
		for (size_t k = cg->first[i]; k < cg->first[i + 1]; k++) {
			const rp_cg_edge *e = &cg->edges[k];
			if (dot) {
				fputs("  ", fp);
				put_name(fp, &fn[e->from], 1);
				fputs(" -> ", fp);
				put_name(fp, &fn[e->to], 1);
				fputs(e->ncalls ? ";\n" : " [style=dashed];\n", fp);
				continue;
			}
			put_name(fp, &fn[e->from], 0);
			fputs(" -> ", fp);
			put_name(fp, &fn[e->to], 0);
			if (e->ncalls)
				fprintf(fp, "  call x%u", e->ncalls);
			if (e->nbranches)
				fprintf(fp, "  %s x%u", e->ncalls ? "branch" : "tail", e->nbranches);
			fputc('\n', fp);
		}
	}
	if (dot)
		fputs("}\n", fp);
}
