/* boot.c: the reset path analysis (see boot.h): the walk from the reset handler
 * (boot_vectors.c) down to the copier (boot_bounds.c says what names a copied section), the copy
 * points and what runs after them. Owns the function lists, the keep flags and the chain
 * links. Heuristic by necessity, and conservative where it guesses:
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
#include "ramplace/cfg.h"
#include "ramplace/disasm.h"
#include "ramplace/elfsyms.h"
#include "ramplace/util.h"
#include "boot_internal.h"

#define MAX_DEPTH 32

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
	unsigned char *returns; /* per function: 0 not known yet, 1 may return, 2 never returns */
	rp_err *err;
	boot_symaddrs symaddrs; /* every symbol's address, sorted on first use: where a table ends */
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
/* Records the walk's judgement of the call at addr (caller -> callee). */
static int note_site(bwalk *w, uint64_t addr, size_t caller, size_t callee, rp_boot_site_kind kind)
{
	rp_boot *o = w->out;
	rp_boot_site *bigger = realloc(o->sites, (o->nsites + 1) * sizeof(*bigger));
	if (!bigger)
		return rp_err_nomem(w->err, "analysing the reset path");
	o->sites = bigger;
	o->sites[o->nsites++] = (rp_boot_site){ addr, caller, callee, kind };
	return 0;
}

static int reach(bwalk *w, size_t **list, size_t *n, size_t t, size_t from)
{
	if (w->out->via[t] == SIZE_MAX && t != w->out->reset)
		w->out->via[t] = from;
	return push(list, n, t, w->err);
}

static int is_main(const bwalk *w, size_t t)
{
	return t != SIZE_MAX && strcmp(w->img->funcs[t].name, "main") == 0 && !w->img->funcs[t].is_local;
}

/* The C library's functions that the standard declares never to return: the compiler lays other
 * code after a call to them (at -Os, a reset handler's loop bodies after its `bl exit`). */
static int standard_noreturn(const rp_func *fn)
{
	static const char *const names[] = { "exit", "_exit", "_Exit", "abort", "quick_exit" };
	for (size_t k = 0; !fn->is_local && k < sizeof(names) / sizeof(names[0]); k++)
		if (strcmp(fn->name, names[k]) == 0)
			return 1;
	return 0;
}

static int is_nop(const rp_insn *in)
{
	return strcmp(in->mnemonic, "nop") == 0 || strcmp(in->mnemonic, "nop.w") == 0 ||
	       strcmp(in->mnemonic, "c.nop") == 0;
}

/* Whether function t may return to its caller: it has a return or an indirect jump, leaves
 * itself by a jump (a tail call), or runs off its end; a function with none of these (main's
 * endless loop, a scheduler that never comes back, exit) does not, and the instructions after a
 * call to it are not where the call goes on (GCC lays other code there). A call that is the last
 * instruction but padding does not run off the end: the compiler put nothing after it because
 * the callee does not return (newlib's exit ends in `bl _exit; nop`, _exit in `bl _kill_shared;
 * nop`). Unreadable: it may. */
static int may_return(bwalk *w, size_t t)
{
	if (w->returns[t])
		return w->returns[t] == 1;
	const rp_func *fn = &w->img->funcs[t];
	if (standard_noreturn(fn)) {
		w->returns[t] = 2;
		return 0;
	}
	uint64_t end = fn->addr + rp_image_func_extent(w->img, fn);
	rp_err local = RP_ERR_INIT;
	insns is = { NULL, 0, 0, &local };
	rp_cfg cfg;
	unsigned char *reached = NULL;
	/* what the entry reaches decides: the padding after an endless loop runs off the end but
	 * never runs */
	int returns = rp_disasm_func(w->d, fn, keep_insn, &is, &local) != 0 || is.n == 0 ||
		      !(reached = malloc(is.n)) || rp_cfg_build(&cfg, is.v, is.n, NULL, &local) != 0;
	if (!returns && rp_cfg_reach(&cfg, NULL, reached, &local) != 0)
		returns = 1;
	size_t last = is.n;   /* the last instruction that is not padding */
	while (last > 0 && is_nop(&is.v[last - 1]))
		last--;
	for (size_t i = 0; i < is.n && !returns; i++) {
		const rp_insn *in = &is.v[i];
		int leaves = (in->kind == RP_INSN_JUMP || in->kind == RP_INSN_CONDJUMP) &&
			     (!in->has_target || in->target < fn->addr || in->target >= end);
		int off_end = last ? i + 1 == last && !in->no_fallthrough && in->kind != RP_INSN_CALL : i + 1 == is.n;
		returns = reached[i] && (leaves || (in->no_fallthrough && in->kind != RP_INSN_JUMP) || off_end);
	}
	if (reached)
		rp_cfg_release(&cfg);
	free(reached);
	free(is.v);
	w->returns[t] = returns ? 1 : 2;
	return returns;
}

/* The flow graph of f, a call to a function that never returns ending its block. */
static int flow_graph(bwalk *w, size_t f, const insns *is, rp_cfg *cfg)
{
	unsigned char *noreturn = calloc(is->n ? is->n : 1, 1);
	if (!noreturn)
		return rp_err_nomem(w->err, "analysing the reset path");
	for (size_t i = 0; i < is->n; i++) {
		size_t t = callee_at(w, &is->v[i], f);
		noreturn[i] = is->v[i].kind == RP_INSN_CALL && t != SIZE_MAX && !may_return(w, t);
	}
	int rc = rp_cfg_build(cfg, is->v, is->n, noreturn, w->err);
	free(noreturn);
	return rc;
}

/* Where the copy is done, seen from a reference to the load address at instruction r: what
 * control reaches from r before any call — the loops it enters (an inline copy: done when the
 * last of them is left) or, with no loop, the calls it meets (a memcpy(__ramtext_start, ...)).
 * A call to main is never the copy. Each point is added to *points as a set of instructions
 * (per instruction, non-zero inside); past eight, the analysis gives up (conservative). */
typedef struct copy_points {
	unsigned char *sets[8];
	size_t n;
	int overflow;   /* more distinct points than sets: no call can be proven after them all */
} copy_points;

/* Adds set (ninsns flags, owned by cp from here on) unless an equal point is there already:
 * several references to the load address (-O0 reloads it in the loop) lead to the same loop. */
static void add_point(copy_points *cp, unsigned char *set, size_t ninsns)
{
	for (size_t k = 0; k < cp->n; k++)
		if (memcmp(cp->sets[k], set, ninsns) == 0) {
			free(set);
			return;
		}
	if (cp->n == sizeof(cp->sets) / sizeof(cp->sets[0])) {
		cp->overflow = 1;
		free(set);
		return;
	}
	cp->sets[cp->n++] = set;
}

static int find_copy_points(bwalk *w, size_t f, const rp_cfg *cfg, size_t r, copy_points *cp)
{
	/* expanded once each, queued at most twice each (two successors) and once from r */
	size_t n = cfg->ninsns, *work = malloc((2 * n + 1) * sizeof(size_t)), nw = 0, nloops = 0, ncalls = 0;
	int calls_over = 0;
	unsigned char *seen = calloc(n, 1);
	const rp_cfg_loop *loops[8];
	size_t calls[8];
	if (!work || !seen) {
		free(work);
		free(seen);
		return rp_err_nomem(w->err, "analysing the reset path");
	}
	work[nw++] = r;
	while (nw) {
		size_t i = work[--nw];
		if (seen[i])
			continue;
		seen[i] = 1;
		const rp_cfg_loop *l = rp_cfg_loop_of(cfg, cfg->block_of[i]);
		size_t k = 0;
		while (l && k < nloops && loops[k] != l)
			k++;
		if (l && k == nloops && nloops < 8)
			loops[nloops++] = l;
		else if (l && k == nloops)
			cp->overflow = 1;   /* more loops than counted: the points are not all known */
		const rp_insn *in = &cfg->insns[i];
		size_t t = callee_at(w, in, f);
		int leaves = in->kind == RP_INSN_CALL || (t != SIZE_MAX && in->kind != RP_INSN_OTHER);
		if (leaves && t != SIZE_MAX) {   /* the path stops at a call; main is never the copy */
			if (!is_main(w, t) && ncalls < 8)
				calls[ncalls++] = i;
			else if (!is_main(w, t))
				calls_over = 1;   /* matters only when no loop copies */
			continue;
		}
		if (leaves)
			continue;
		size_t next[2];
		for (unsigned s = 0, nn = rp_cfg_next(cfg, i, next); s < nn; s++)
			work[nw++] = next[s];
	}
	cp->overflow |= !nloops && calls_over;
	int rc = 0;
	for (size_t k = 0; !rc && k < (nloops ? nloops : ncalls); k++) {
		unsigned char *set = calloc(n ? n : 1, 1);
		if (!set) {
			rc = rp_err_nomem(w->err, "analysing the reset path");
			break;
		}
		for (size_t i = 0; nloops && i < n; i++)
			set[i] = loops[k]->body[cfg->block_of[i]];
		if (!nloops)
			set[calls[k]] = 1;
		add_point(cp, set, n);
	}
	free(work);
	free(seen);
	return rc;
}

/* Widens a copy point to the copy as a whole: every instruction on a way from a reference to
 * the section's bounds (is_bound) to the point. At -O2 GCC guards the loop (start < end) and
 * the guard's other edge skips straight past it: the guard is part of the copy, so what only
 * the guard's skip or the loop's exit reach is after it. */
static int widen_point(const rp_cfg *cfg, const unsigned char *is_bound, unsigned char *set, rp_err *err)
{
	size_t n = cfg->ninsns;
	unsigned char *to_point = calloc(n ? n : 1, 1), *seen = calloc(n ? n : 1, 1);
	/* an instruction is expanded once but may be queued by each way into it: 3n is enough */
	size_t *work = malloc((3 * n + 1) * sizeof(size_t)), nw = 0;
	if (!to_point || !seen || !work) {
		free(to_point);
		free(seen);
		free(work);
		return rp_err_nomem(err, "analysing the reset path");
	}
	/* the instructions from which the point can be reached (a call does not end a block, so
	 * this is per instruction: what follows the copying call in its block comes after it) */
	for (int changed = 1; changed;) {
		changed = 0;
		for (size_t b = cfg->nblocks; b-- > 0;) {
			const rp_cfg_block *bl = &cfg->blocks[b];
			int r = 0;
			for (unsigned k = 0; k < bl->nsucc; k++)
				r |= to_point[cfg->blocks[bl->succ[k]].first];
			for (size_t i = bl->last + 1; i-- > bl->first;) {
				r |= set[i] == 1;
				if (r && !to_point[i]) {
					to_point[i] = 1;
					changed = 1;
				}
			}
		}
	}
	for (size_t i = 0; i < n; i++)   /* forward from each reference, up to the point */
		if (is_bound[i] && to_point[i])
			work[nw++] = i;
	while (nw) {
		size_t i = work[--nw];
		if (seen[i] || set[i] == 1 || !to_point[i])
			continue;
		seen[i] = 1;
		size_t next[2];
		for (unsigned s = 0, nn = rp_cfg_next(cfg, i, next); s < nn; s++)
			work[nw++] = next[s];
	}
	for (size_t i = 0; i < n; i++)
		if (seen[i] && !set[i])
			set[i] = 2;   /* on the way to the point: part of the copy, not the point itself */
	free(to_point);
	free(seen);
	free(work);
	return 0;
}

/* after[i] = 1 for each instruction that runs only after every copy point has run: reachable
 * from the entry, in no point, and unreachable once any one point is avoided. */
static int after_points(const rp_cfg *cfg, const copy_points *cp, unsigned char *after, rp_err *err)
{
	size_t n = cfg->ninsns;
	unsigned char *r = malloc(n ? n : 1);
	int rc = r ? rp_cfg_reach(cfg, NULL, after, err) : rp_err_nomem(err, "analysing the reset path");
	for (size_t k = 0; !rc && k < cp->n; k++) {
		rc = rp_cfg_reach(cfg, cp->sets[k], r, err);
		for (size_t i = 0; !rc && i < n; i++)
			after[i] = after[i] && !cp->sets[k][i] && !r[i];
	}
	if (!rc && (cp->n == 0 || cp->overflow))
		memset(after, 0, n);   /* no point known (or not all of them): nothing is proven after */
	free(r);
	return rc;
}

/* The copier f: a call in f is after the copy when every path from f's entry to it has left
 * the copy behind (dominance, not address order); any other call, the copying one included,
 * runs before. With no copy point found (the reference leads nowhere), every call but main
 * runs before. */
static int split_copier(bwalk *w, size_t f, const insns *is, const unsigned char *is_ref,
			const unsigned char *is_bound)
{
	rp_boot *o = w->out;
	rp_cfg cfg;
	copy_points cp = { .n = 0 };
	unsigned char *after = calloc(is->n ? is->n : 1, 1);
	int rc = after ? flow_graph(w, f, is, &cfg) : rp_err_nomem(w->err, "analysing the reset path");
	if (rc) {
		free(after);
		return rc;
	}
	for (size_t i = 0; !rc && i < is->n; i++)
		if (is_ref[i])
			rc = find_copy_points(w, f, &cfg, i, &cp);
	for (size_t k = 0; !rc && k < cp.n; k++)
		rc = widen_point(&cfg, is_bound, cp.sets[k], w->err);
	if (!rc)
		rc = after_points(&cfg, &cp, after, w->err);
	o->copy_found = 1;
	o->copier = f;
	o->copy_site = is->v[0].addr;
	for (size_t i = 0; !rc && i < is->n && cp.n; i++)
		if (cp.sets[0][i] == 1) {
			o->copy_site = is->v[i].addr;
			break;
		}
	for (size_t i = 0; !rc && i < is->n; i++) {
		size_t t = callee_at(w, &is->v[i], f);
		if (t != SIZE_MAX)
			rc = after[i] ? push(&o->post, &o->npost, t, w->err) : reach(w, &o->pre, &o->npre, t, f);
		if (!rc && t != SIZE_MAX)
			rc = note_site(w, is->v[i].addr, f, t, after[i] ? RP_BOOT_SITE_AFTER : RP_BOOT_SITE_BEFORE);
	}
	for (size_t k = 0; k < cp.n; k++)
		free(cp.sets[k]);
	free(after);
	rp_cfg_release(&cfg);
	return rc;
}

static int walk(bwalk *w, size_t f, unsigned depth, int *status);

/* f does not copy: its callees in control-flow order (reverse post-order), each walked until
 * one turns out to be the way to the copy (or is main); then a callee runs after the copy when
 * every path from f's entry to its call passes that call (dominance), else before it. */
static int walk_callees(bwalk *w, size_t f, const insns *is, unsigned depth, int *status)
{
	rp_boot *o = w->out;
	rp_cfg cfg;
	int rc = flow_graph(w, f, is, &cfg);
	if (rc)
		return rc;
	size_t way = SIZE_MAX;   /* the instruction calling the way to the copy, or main */
	for (size_t k = 0; !rc && way == SIZE_MAX && k < cfg.nrpo; k++) {
		const rp_cfg_block *b = &cfg.blocks[cfg.rpo[k]];
		for (size_t i = b->first; !rc && way == SIZE_MAX && i <= b->last; i++) {
			size_t t = callee_at(w, &is->v[i], f);
			if (t == SIZE_MAX || w->state[t] == 1)
				continue;   /* nothing, or a function on the way down already (recursion) */
			if (is_main(w, t)) {
				o->main_func = t;
				*status = W_MAIN;
				way = i;
				rc = push(&o->post, &o->npost, t, w->err);
				if (!rc)
					rc = note_site(w, is->v[i].addr, f, t, RP_BOOT_SITE_MAIN);
				continue;
			}
			int sub = W_NONE;
			size_t npre = o->npre, nsites = o->nsites;
			if (w->state[t] == 0 && depth < MAX_DEPTH)
				rc = walk(w, t, depth + 1, &sub);
			if (!rc && sub == W_NONE) {
				o->npre = npre;   /* what t's walk listed is in t's closure: t alone is the root */
				o->nsites = nsites;
			}
			if (!rc && sub != W_NONE) {
				*status = sub;
				way = i;
				rc = reach(w, &o->path, &o->npath, t, f);
				if (!rc)
					rc = note_site(w, is->v[i].addr, f, t, RP_BOOT_SITE_WAY);
			}
		}
	}
	unsigned char *avoid = calloc(is->n ? is->n : 1, 1), *all = malloc(is->n ? is->n : 1),
		      *past = malloc(is->n ? is->n : 1);
	if (!rc && (!avoid || !all || !past))
		rc = rp_err_nomem(w->err, "analysing the reset path");
	if (!rc && way != SIZE_MAX)
		avoid[way] = 1;
	if (!rc)
		rc = rp_cfg_reach(&cfg, NULL, all, w->err);
	if (!rc)
		rc = rp_cfg_reach(&cfg, avoid, past, w->err);
	for (size_t i = 0; !rc && i < is->n; i++) {
		size_t t = callee_at(w, &is->v[i], f);
		if (t == SIZE_MAX || i == way || w->state[t] == 1)
			continue;
		int after = way != SIZE_MAX && all[i] && !past[i];
		rc = after ? push(&o->post, &o->npost, t, w->err) : reach(w, &o->pre, &o->npre, t, f);
		if (!rc)
			rc = note_site(w, is->v[i].addr, f, t, after ? RP_BOOT_SITE_AFTER : RP_BOOT_SITE_BEFORE);
	}
	free(avoid);
	free(all);
	free(past);
	rp_cfg_release(&cfg);
	return rc;
}

/* A function decoded, and whether (and with which instructions) it copies a code section. */
typedef struct decoded {
	rp_err local;
	insns is;                 /* is.err points at local: decoded is filled in place */
	unsigned char *is_ref, *is_bound;
	int copies;
} decoded;

static int decode(bwalk *w, size_t f, decoded *d)
{
	d->local = (rp_err)RP_ERR_INIT;
	d->is = (insns){ NULL, 0, 0, &d->local };
	d->is_ref = d->is_bound = NULL;
	d->copies = 0;
	int rc = rp_disasm_func(w->d, &w->img->funcs[f], keep_insn, &d->is, &d->local);
	if (rc == RP_EINPUT)
		rc = 0;   /* no file bytes: nothing seen, so nothing found */
	else if (rc)
		*w->err = d->local;
	if (!rc && (!(d->is_ref = calloc(d->is.n ? d->is.n : 1, 1)) || !(d->is_bound = calloc(d->is.n ? d->is.n : 1, 1))))
		rc = rp_err_nomem(w->err, "analysing the reset path");
	if (!rc)
		d->copies = boot_copy_refs(&(boot_refs){ w->img, w->b, &w->symaddrs }, &d->is, d->is_ref, d->is_bound);
	if (!rc && w->symaddrs.built < 0)   /* the table's end unknown: no judgement on too little */
		rc = rp_err_nomem(w->err, "analysing the reset path");
	return rc;
}

static void decoded_release(decoded *d)
{
	free(d->is_ref);
	free(d->is_bound);
	free(d->is.v);
}

static int walk(bwalk *w, size_t f, unsigned depth, int *status)
{
	decoded d;
	*status = W_NONE;
	w->state[f] = 1;
	int rc = decode(w, f, &d);
	if (!rc && d.copies) {
		*status = W_COPY;
		rc = split_copier(w, f, &d.is, d.is_ref, d.is_bound);
	} else if (!rc) {
		rc = walk_callees(w, f, &d.is, depth, status);
	}
	decoded_release(&d);
	w->state[f] = 2;
	return rc;
}

/* Whether function f, which the walk did not decode, copies a code section. */
static int copies(bwalk *w, size_t f, int *yes)
{
	decoded d;
	int rc = decode(w, f, &d);
	*yes = !rc && d.copies;
	decoded_release(&d);
	return rc;
}

/* A copy the walk did not find may be done by a function it cannot reach: a constructor that
 * picolibc's or newlib's crt0 runs from .init_array before main, a hook in a table. Moved,
 * that function would jump into the RAM it has not filled yet; so each address-taken function
 * the walk did not decode that copies a code section stays in flash with its closure. */
static int keep_unreached_copiers(bwalk *w, const rp_callgraph *cg)
{
	rp_boot *o = w->out;
	int rc = 0;
	for (size_t i = 0; !rc && cg && cg->img == w->img && i < w->img->nfuncs; i++) {
		int yes = 0;
		if (!cg->address_taken[i] || w->state[i] || (rc = copies(w, i, &yes)) || !yes)
			continue;
		if (!(rc = push(&o->unreached, &o->nunreached, i, w->err)))
			rc = push(&o->pre, &o->npre, i, w->err);
	}
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
	/* read once: the vector table by symbol, the section's bounds, where tables end */
	const rp_elfsyms *syms = NULL;
	rp_err syms_err = RP_ERR_INIT;
	int have_syms = rp_image_syms(img, &syms, &syms_err) == 0;
	const rp_func *reset = boot_find_reset(img, have_syms ? syms : NULL, out->found_by, sizeof(out->found_by));
	if (!reset)
		return 0;
	out->reset = (size_t)(reset - img->funcs);
	bounds b = { .n = 0 };
	bwalk w = { img, &b, NULL, out, calloc(nf, 1), calloc(nf, 1), err, { syms, NULL, 0, 0 } };
	int rc = 0;
	if (!have_syms) {
		*err = syms_err;
		rc = err->code;
	} else {
		boot_collect_bounds(&b, img, syms, outsecs, noutsecs);
	}
	if (!rc && (!w.state || !w.returns))
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
	if (!rc && !out->copy_found)
		rc = keep_unreached_copiers(&w, cg);
	rp_disasm_free(own);
	free(w.state);
	free(w.returns);
	boot_symaddrs_release(&w.symaddrs);
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
	free(b->sites);
	free(b->unreached);
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
