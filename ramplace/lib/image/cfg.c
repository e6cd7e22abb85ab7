/* cfg.c: one function's control-flow graph (see cfg.h). Owns the blocks, the per-instruction
 * block index, the reverse post-order and the loop bodies. Workload: the functions on the reset
 * path, a few hundred instructions each, built once per analysis; nothing here is on the path
 * of a large image's call graph. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/cfg.h"
#include "ramplace/util.h"

/* The instruction index at address a, or SIZE_MAX (outside the function, or inside one). */
static size_t insn_at(const rp_insn *v, size_t n, uint64_t a)
{
	size_t lo = RP_COUNT_BELOW(v, n, addr, a);
	return lo < n && v[lo].addr == a ? lo : SIZE_MAX;
}

static int branches(const rp_insn *in)
{
	return in->kind == RP_INSN_JUMP || in->kind == RP_INSN_CONDJUMP;
}

/* Where control goes after instruction i: its branch target inside the function, the next
 * instruction, both, or neither. */
static unsigned successors(const rp_cfg *c, size_t i, const unsigned char *noreturn, size_t out[2])
{
	const rp_insn *in = &c->insns[i];
	unsigned n = 0;
	if (branches(in) && in->has_target) {
		size_t t = insn_at(c->insns, c->ninsns, in->target);
		if (t != SIZE_MAX)
			out[n++] = t;
	}
	int falls = !in->no_fallthrough && !(in->kind == RP_INSN_CALL && noreturn && noreturn[i]);
	if (falls && i + 1 < c->ninsns && (n == 0 || out[0] != i + 1))
		out[n++] = i + 1;
	return n;
}

static int make_blocks(rp_cfg *c, const unsigned char *noreturn, rp_err *err)
{
	size_t n = c->ninsns;
	unsigned char *leader = calloc(n, 1);
	if (!leader)
		return rp_err_nomem(err, "building a control-flow graph");
	leader[0] = 1;
	for (size_t i = 0; i < n; i++) {
		size_t s[2];
		unsigned ns = successors(c, i, noreturn, s);
		int ends = branches(&c->insns[i]) || c->insns[i].no_fallthrough || ns != 1 || s[0] != i + 1;
		for (unsigned k = 0; k < ns; k++)
			if (s[k] != i + 1 || ends)
				leader[s[k]] = 1;
		if (ends && i + 1 < n)
			leader[i + 1] = 1;
	}
	size_t nb = 0;
	for (size_t i = 0; i < n; i++)
		nb += leader[i];
	c->blocks = calloc(nb, sizeof(rp_cfg_block));
	if (!c->blocks) {
		free(leader);
		return rp_err_nomem(err, "building a control-flow graph");
	}
	for (size_t i = 0, b = SIZE_MAX; i < n; i++) {
		if (leader[i])
			c->blocks[++b].first = i;
		c->blocks[b].last = i;
		c->block_of[i] = b;
	}
	c->nblocks = nb;
	free(leader);
	for (size_t b = 0; b < nb; b++) {
		size_t s[2];
		rp_cfg_block *bl = &c->blocks[b];
		unsigned ns = successors(c, bl->last, noreturn, s);
		for (unsigned k = 0; k < ns; k++)
			bl->succ[bl->nsucc++] = c->block_of[s[k]];
	}
	return 0;
}

/* Reverse post-order of the blocks reachable from block 0, by an explicit-stack depth-first
 * walk (a deep recursion would do for real functions, not for hostile ones). */
static int order_blocks(rp_cfg *c, rp_err *err)
{
	size_t nb = c->nblocks;
	size_t *stack = malloc(nb * sizeof(size_t));
	unsigned *next = calloc(nb, sizeof(unsigned));
	unsigned char *seen = calloc(nb, 1);
	size_t *post = malloc(nb * sizeof(size_t));
	c->rpo = malloc(nb * sizeof(size_t));
	if (!stack || !next || !seen || !post || !c->rpo) {
		free(stack);
		free(next);
		free(seen);
		free(post);
		return rp_err_nomem(err, "building a control-flow graph");
	}
	size_t sp = 0, np = 0;
	stack[sp++] = 0;
	seen[0] = 1;
	while (sp) {
		size_t b = stack[sp - 1];
		if (next[b] < c->blocks[b].nsucc) {
			size_t s = c->blocks[b].succ[next[b]++];
			if (!seen[s]) {
				seen[s] = 1;
				stack[sp++] = s;
			}
		} else {
			post[np++] = b;
			sp--;
		}
	}
	for (size_t i = 0; i < np; i++)
		c->rpo[i] = post[np - 1 - i];
	c->nrpo = np;
	free(stack);
	free(next);
	free(seen);
	free(post);
	return 0;
}

/* Immediate dominators over the reachable blocks (Cooper, Harvey, Kennedy: "A Simple, Fast
 * Dominance Algorithm"); idom[b] = SIZE_MAX for an unreachable block. */
static size_t intersect(const size_t *idom, const size_t *rank, size_t a, size_t b)
{
	while (a != b) {
		while (rank[a] > rank[b])
			a = idom[a];
		while (rank[b] > rank[a])
			b = idom[b];
	}
	return a;
}

static int dominators(const rp_cfg *c, size_t *idom, size_t *rank, rp_err *err)
{
	size_t nb = c->nblocks;
	for (size_t b = 0; b < nb; b++)
		idom[b] = rank[b] = SIZE_MAX;
	for (size_t i = 0; i < c->nrpo; i++)
		rank[c->rpo[i]] = i;
	/* predecessors, flattened: the graph has at most two successors a block */
	size_t *pstart = calloc(nb + 1, sizeof(size_t)), *preds = malloc((2 * nb + 1) * sizeof(size_t));
	if (!pstart || !preds) {
		free(pstart);
		free(preds);
		return rp_err_nomem(err, "building a control-flow graph");
	}
	for (size_t b = 0; b < nb; b++)
		for (unsigned k = 0; k < c->blocks[b].nsucc; k++)
			pstart[c->blocks[b].succ[k] + 1]++;
	for (size_t b = 0; b < nb; b++)
		pstart[b + 1] += pstart[b];
	size_t *fill = calloc(nb, sizeof(size_t));
	if (!fill) {
		free(pstart);
		free(preds);
		return rp_err_nomem(err, "building a control-flow graph");
	}
	for (size_t b = 0; b < nb; b++)
		for (unsigned k = 0; k < c->blocks[b].nsucc; k++) {
			size_t s = c->blocks[b].succ[k];
			preds[pstart[s] + fill[s]++] = b;
		}
	free(fill);
	idom[0] = 0;
	for (int changed = 1; changed;) {
		changed = 0;
		for (size_t i = 1; i < c->nrpo; i++) {
			size_t b = c->rpo[i], nd = SIZE_MAX;
			for (size_t k = pstart[b]; k < pstart[b + 1]; k++) {
				size_t p = preds[k];
				if (idom[p] == SIZE_MAX)
					continue;
				nd = nd == SIZE_MAX ? p : intersect(idom, rank, p, nd);
			}
			if (nd != idom[b]) {
				idom[b] = nd;
				changed = 1;
			}
		}
	}
	free(pstart);
	free(preds);
	return 0;
}

static int dominates(const size_t *idom, size_t a, size_t b)
{
	for (;;) {
		if (a == b)
			return 1;
		if (b == 0 || idom[b] == SIZE_MAX || idom[b] == b)
			return 0;
		b = idom[b];
	}
}

/* The body of the back edge u -> h: h and every block that reaches u without passing h. */
static int add_loop_body(rp_cfg *c, size_t h, size_t u, rp_err *err)
{
	rp_cfg_loop *l = NULL;
	for (size_t i = 0; i < c->nloops; i++)
		if (c->loops[i].header == h)
			l = &c->loops[i];
	if (!l) {
		rp_cfg_loop *bigger = realloc(c->loops, (c->nloops + 1) * sizeof(rp_cfg_loop));
		if (!bigger)
			return rp_err_nomem(err, "building a control-flow graph");
		c->loops = bigger;
		l = &c->loops[c->nloops++];
		l->header = h;
		l->size = 1;
		if (!(l->body = calloc(c->nblocks, 1)))
			return rp_err_nomem(err, "building a control-flow graph");
		l->body[h] = 1;
	}
	size_t *work = malloc(c->nblocks * sizeof(size_t)), n = 0;
	if (!work)
		return rp_err_nomem(err, "building a control-flow graph");
	if (!l->body[u]) {
		l->body[u] = 1;
		l->size++;
		work[n++] = u;
	}
	while (n) {   /* predecessors by a scan: loops are rare and functions small here */
		size_t x = work[--n];
		for (size_t p = 0; p < c->nblocks; p++)
			for (unsigned k = 0; k < c->blocks[p].nsucc; k++)
				if (c->blocks[p].succ[k] == x && !l->body[p]) {
					l->body[p] = 1;
					l->size++;
					work[n++] = p;
				}
	}
	free(work);
	return 0;
}

static int find_loops(rp_cfg *c, rp_err *err)
{
	size_t *idom = malloc(c->nblocks * sizeof(size_t)), *rank = malloc(c->nblocks * sizeof(size_t));
	int rc = idom && rank ? dominators(c, idom, rank, err) : rp_err_nomem(err, "building a control-flow graph");
	for (size_t i = 0; !rc && i < c->nrpo; i++) {
		size_t u = c->rpo[i];
		for (unsigned k = 0; !rc && k < c->blocks[u].nsucc; k++) {
			size_t h = c->blocks[u].succ[k];
			if (dominates(idom, h, u))
				rc = add_loop_body(c, h, u, err);
		}
	}
	free(idom);
	free(rank);
	return rc;
}

int rp_cfg_build(rp_cfg *out, const rp_insn *insns, size_t n, const unsigned char *noreturn, rp_err *err)
{
	memset(out, 0, sizeof(*out));
	out->insns = insns;
	out->ninsns = n;
	if (n == 0)
		return 0;
	out->block_of = malloc(n * sizeof(size_t));
	int rc = out->block_of ? make_blocks(out, noreturn, err) : rp_err_nomem(err, "building a control-flow graph");
	if (!rc)
		rc = order_blocks(out, err);
	if (!rc)
		rc = find_loops(out, err);
	if (rc)
		rp_cfg_release(out);
	return rc;
}

void rp_cfg_release(rp_cfg *c)
{
	for (size_t i = 0; i < c->nloops; i++)
		free(c->loops[i].body);
	free(c->loops);
	free(c->blocks);
	free(c->block_of);
	free(c->rpo);
	memset(c, 0, sizeof(*c));
}

int rp_cfg_reach(const rp_cfg *c, const unsigned char *avoid, unsigned char *reached, rp_err *err)
{
	memset(reached, 0, c->ninsns);
	if (!c->nblocks)
		return 0;
	size_t *work = malloc(c->nblocks * sizeof(size_t)), n = 0;
	unsigned char *queued = calloc(c->nblocks, 1);
	if (!work || !queued) {
		free(work);
		free(queued);
		return rp_err_nomem(err, "walking a control-flow graph");
	}
	work[n++] = 0;
	queued[0] = 1;
	while (n) {
		const rp_cfg_block *b = &c->blocks[work[--n]];
		int blocked = 0;
		for (size_t i = b->first; i <= b->last && !blocked; i++) {
			blocked = avoid && avoid[i];
			reached[i] = !blocked;
		}
		for (unsigned k = 0; !blocked && k < b->nsucc; k++)
			if (!queued[b->succ[k]]) {
				queued[b->succ[k]] = 1;
				work[n++] = b->succ[k];
			}
	}
	free(work);
	free(queued);
	return 0;
}

unsigned rp_cfg_next(const rp_cfg *c, size_t i, size_t out[2])
{
	const rp_cfg_block *b = &c->blocks[c->block_of[i]];
	if (i < b->last) {
		out[0] = i + 1;
		return 1;
	}
	for (unsigned s = 0; s < b->nsucc; s++)
		out[s] = c->blocks[b->succ[s]].first;
	return b->nsucc;
}

const rp_cfg_loop *rp_cfg_loop_of(const rp_cfg *c, size_t b)
{
	const rp_cfg_loop *best = NULL;
	for (size_t i = 0; i < c->nloops; i++)
		if (c->loops[i].body[b] && (!best || c->loops[i].size < best->size))
			best = &c->loops[i];
	return best;
}
