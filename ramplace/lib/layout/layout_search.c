/* layout_search.c: the RAM set and the flash order chosen together by pricing candidates on the
 * trace (layout.h). The placement's units come in the order it values them; moving only a
 * prefix of them is tried (on a cache that already holds the hot code, the copy and the veneers
 * can cost more than the misses they save), and for each, the hot sections that stay in flash
 * laid first: by fetches per byte, and as call chains (Pettis-Hansen: the heaviest call arcs
 * joined first); then the best is improved by moving single sections while that pays, and by
 * line alignment of the ordered sections and the load image. The number of evaluations, and
 * of trace runs priced, is bounded (not the time), so the same inputs give the same layout on
 * any machine. Owns the
 * choice's order. Workload: tens of units, a few hundred hot sections, a few hundred
 * evaluations of a few hundred thousand runs. */
#include <stdlib.h>
#include <string.h>

#include "layout_link.h"
#include "ramplace/layout.h"
#include "ramplace/util.h"

typedef struct search {
	const rp_layout_trace *t;
	const rp_layout_link *link;
	const rp_layout_units *units;
	const rp_fm_cfg *cfg;
	unsigned char *in_ram;
	size_t evaluations;
} search;

/* The cost of moving units [0, k) with this order; fills *out. */
/* The alignments of a candidate: of the ordered sections, of the text's start, and the line
 * what follows the text keeps its offset in. */
typedef struct shape {
	uint64_t order_align, text_align, tail_line;
} shape;

static const shape plain = { 0, 0, 0 };

/* s->in_ram: the sections of units [0, k). */
static void mark_ram(const search *s, size_t k)
{
	const rp_layout_units *u = s->units;
	memset(s->in_ram, 0, s->t->npieces + 1);
	for (size_t i = 0; i < k; i++)
		for (size_t j = u->first[i]; j < u->first[i + 1]; j++)
			s->in_ram[u->secs[j]] = 1;
}

static int evaluate(search *s, size_t k, const size_t *order, size_t norder, const shape *sh,
		    rp_layout_cost *out, rp_err *err)
{
	mark_ram(s, k);
	rp_layout_plan lp = { s->in_ram, order, norder, sh->order_align, sh->text_align, sh->tail_line, s->units->secs,
			    s->units->first[k] };
	rp_layout_addrs a;
	if (rp_layout_arrange(s->t, s->link, &lp, &a, err))
		return err->code;
	int rc = rp_layout_price(s->t, s->link, &lp, &a, s->cfg, out, err);
	rp_layout_addrs_release(&a);
	s->evaluations++;
	return rc;
}

/* Hot sections of the text output section that stay in flash when units [0, k) move. */
static size_t hot_sections(const search *s, size_t k, size_t *out)
{
	const rp_layout_trace *t = s->t;
	mark_ram(s, k);
	size_t n = 0;
	for (size_t i = 0; i < t->npieces; i++)
		if (t->piece_fetches[i] && !s->in_ram[i] && t->map->insecs[i].outsec &&
		    strcmp(t->map->insecs[i].outsec, s->link->text_outsec) == 0)
			out[n++] = i;
	return n;
}

typedef struct ranked {
	double density;           /* fetches per byte */
	size_t sec;
} ranked;

static int by_density(const void *a, const void *b)
{
	const ranked *x = a, *y = b;
	if (x->density != y->density)
		return x->density > y->density ? -1 : 1;
	return x->sec < y->sec ? -1 : x->sec > y->sec;
}

/* hot[] by fetches per byte, densest first. */
static int sort_by_density(const rp_layout_trace *t, size_t *hot, size_t nhot, rp_err *err)
{
	ranked *r = malloc((nhot ? nhot : 1) * sizeof(*r));
	if (!r)
		return rp_err_nomem(err, "ordering sections");
	for (size_t i = 0; i < nhot; i++) {
		uint64_t size = t->map->insecs[hot[i]].size;
		r[i] = (ranked){ (double)t->piece_fetches[hot[i]] / (double)(size ? size : 1), hot[i] };
	}
	qsort(r, nhot, sizeof(*r), by_density);
	for (size_t i = 0; i < nhot; i++)
		hot[i] = r[i].sec;
	free(r);
	return 0;
}

/* A call arc between hot sections, with the number of calls. */
typedef struct arc {
	size_t from, to;
	uint64_t count;
} arc;

static int by_count(const void *a, const void *b)
{
	const arc *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->from != y->from ? (x->from < y->from ? -1 : 1) : (x->to > y->to) - (x->to < y->to);
}

static int by_pair(const void *a, const void *b)
{
	const arc *x = a, *y = b;
	return x->from != y->from ? (x->from < y->from ? -1 : 1) : (x->to > y->to) - (x->to < y->to);
}

/* The distinct call arcs between sections of hot[] (pos: section -> position + 1 in hot). */
static int call_arcs(const search *s, const size_t *pos, arc **out, size_t *nout, rp_err *err)
{
	arc *arcs = NULL;
	size_t n = 0, cap = 0;
	for (size_t r = 0; r < s->t->nruns; r++) {
		const rp_layout_run *run = &s->t->runs[r];
		if (run->from == UINT32_MAX || run->from >= s->t->npieces || !pos[run->from] || !pos[run->piece])
			continue;
		if (rp_grow((void **)&arcs, &cap, n + 1, sizeof(*arcs), err)) {
			free(arcs);
			return err->code;
		}
		arcs[n++] = (arc){ run->from, run->piece, 1 };
	}
	if (n)
		qsort(arcs, n, sizeof(*arcs), by_pair);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (m && arcs[m - 1].from == arcs[i].from && arcs[m - 1].to == arcs[i].to)
			arcs[m - 1].count++;
		else
			arcs[m++] = arcs[i];
	}
	if (m)
		qsort(arcs, m, sizeof(*arcs), by_count);
	*out = arcs;
	*nout = m;
	return 0;
}

/* Pettis-Hansen chains: each arc, heaviest first, joins the chain ending in its caller to the
 * chain starting with its callee; chains then follow in the order of their first section in
 * hot[] (by density). hot[] is rewritten in the chains' order. */
static int chain_order(const search *s, size_t *hot, size_t nhot, rp_err *err)
{
	size_t np = s->t->npieces;
	size_t *pos = calloc(np + 1, sizeof(size_t)), *next = malloc(nhot * sizeof(size_t));
	size_t *head = malloc(nhot * sizeof(size_t)), *tail = malloc(nhot * sizeof(size_t));
	size_t *out = malloc(nhot * sizeof(size_t));
	arc *arcs = NULL;
	size_t narcs = 0;
	int rc = !pos || !next || !head || !tail || !out ? rp_err_nomem(err, "ordering sections") : 0;
	for (size_t i = 0; !rc && i < nhot; i++) {
		pos[hot[i]] = i + 1;
		next[i] = SIZE_MAX, head[i] = tail[i] = i;
	}
	if (!rc)
		rc = call_arcs(s, pos, &arcs, &narcs, err);
	for (size_t k = 0; !rc && k < narcs; k++) {
		size_t a = pos[arcs[k].from] - 1, b = pos[arcs[k].to] - 1;
		size_t ha = head[a], hb = head[b];
		if (ha == hb || tail[ha] != a || hb != b)   /* a ends its chain, b starts another */
			continue;
		next[a] = b;
		tail[ha] = tail[hb];
		for (size_t x = b; x != SIZE_MAX; x = next[x])
			head[x] = ha;
	}
	size_t n = 0;
	for (size_t i = 0; !rc && i < nhot; i++)
		if (head[i] == i)
			for (size_t x = i; x != SIZE_MAX; x = next[x])
				out[n++] = hot[x];
	if (!rc)
		memcpy(hot, out, nhot * sizeof(size_t));
	free(arcs);
	free(pos);
	free(next);
	free(head);
	free(tail);
	free(out);
	return rc;
}

typedef struct cand {
	size_t k;
	size_t *order;
	size_t norder;
	shape sh;
	rp_layout_cost cost;
} cand;

/* Keeps (k, order, ...) in best when it costs less (ties: fewer units moved, then no order). */
static int consider(cand *best, size_t k, const size_t *order, size_t norder, const shape *sh,
		    const rp_layout_cost *c, rp_err *err)
{
	if (best->order && (c->cycles > best->cost.cycles || (c->cycles == best->cost.cycles &&
							      (k > best->k || (k == best->k && norder >= best->norder)))))
		return 0;
	size_t *copy = malloc((norder ? norder : 1) * sizeof(size_t));
	if (!copy)
		return rp_err_nomem(err, "ordering sections");
	if (norder)
		memcpy(copy, order, norder * sizeof(size_t));
	free(best->order);
	*best = (cand){ k, copy, norder, *sh, *c };
	return 0;
}

/* Single moves of the best order: each section in turn to the front, or one place earlier,
 * kept when the total falls; then line alignment; until the evaluations run out. */
static int improve(search *s, cand *best, uint64_t line, size_t limit, rp_err *err)
{
	size_t n = best->norder;
	size_t *o = malloc((n ? n : 1) * sizeof(size_t));
	if (!o)
		return rp_err_nomem(err, "ordering sections");
	rp_layout_cost c;
	int rc = 0;
	/* line alignment of the ordered sections; the text's start at a line or at a way (what
	 * follows the load image then keeps its lines or its sets however much moved); what follows
	 * the text kept at its offset in a line */
	uint64_t way = s->cfg->kind == RP_FM_CACHE ? s->cfg->size / s->cfg->ways : line;
	for (int which = 0; !rc && line > 4 && which < 4; which++) {
		shape sh = best->sh;
		if (which == 0)
			sh.order_align = line;
		else if (which == 3)
			sh.tail_line = line;
		else
			sh.text_align = which == 1 ? line : way;
		rc = evaluate(s, best->k, best->order, n, &sh, &c, err);
		if (!rc && c.cycles < best->cost.cycles)
			rc = consider(best, best->k, best->order, n, &sh, &c, err);
	}
	for (int pass = 0; !rc && pass < 2 && s->evaluations < limit; pass++)
		for (size_t i = 1; !rc && i < n && s->evaluations < limit; i++) {
			memcpy(o, best->order, n * sizeof(size_t));
			size_t to = pass == 0 ? 0 : i - 1, moved = o[i];
			memmove(o + to + 1, o + to, (i - to) * sizeof(size_t));
			o[to] = moved;
			rc = evaluate(s, best->k, o, n, &best->sh, &c, err);
			if (!rc && c.cycles < best->cost.cycles)
				rc = consider(best, best->k, o, n, &best->sh, &c, err);
		}
	free(o);
	return rc;
}

/* The best of the link's order, by density and as call chains, for units [0, k): into *out
 * (and into *best when better). */
static int best_for_k(search *s, size_t k, int ordered, size_t *hot, cand *out, cand *best, rp_err *err)
{
	rp_layout_cost c;
	int rc = evaluate(s, k, NULL, 0, &plain, &c, err);
	if (!rc)
		rc = consider(out, k, NULL, 0, &plain, &c, err);
	size_t nhot = ordered && !rc ? hot_sections(s, k, hot) : 0;
	for (int how = 0; !rc && nhot && how < 2; how++) {
		rc = sort_by_density(s->t, hot, nhot, err);
		if (!rc && how == 1)
			rc = chain_order(s, hot, nhot, err);
		if (!rc)
			rc = evaluate(s, k, hot, nhot, &plain, &c, err);
		if (!rc)
			rc = consider(out, k, hot, nhot, &plain, &c, err);
	}
	if (!rc)
		rc = consider(best, out->k, out->order, out->norder, &out->sh, &out->cost, err);
	return rc;
}

/* Moves cand into the choice. */
static void choose(rp_layout_choice *out, cand *c)
{
	out->nunits_kept = c->k;
	out->order = c->order, c->order = NULL;
	out->norder = c->norder;
	out->order_align = c->sh.order_align;
	out->text_align = c->sh.text_align;
	out->tail_line = c->sh.tail_line;
	out->tail_pad = c->cost.pad;
	out->chosen = c->cost;
}

/* The link model's addresses match the relinks of the bundled firmware (ARM, and RISC-V since
 * it sizes each relaxed call as GNU ld does) and of the FreeRTOS demo, but a sampled trace
 * prices 8 to 48 % off: a layout must beat the simpler one by RP_LAYOUT_MARGIN of the run's
 * cycles (instructions fetched plus stall) there, by RP_LAYOUT_MARGIN_EXACT traced whole, to
 * be chosen. Simpler: nothing moved and the link's order, then the placement as the solver
 * made it. */
static int keep_simple(search *s, const rp_layout_units *units, const rp_layout_choice *c, cand *best, rp_err *err)
{
	double margin = rp_layout_margin(s->t, &c->flash_only);
	const rp_layout_cost *simple = &c->flash_only;
	size_t k = 0;
	int placed_pays = (double)c->as_placed.cycles + margin < (double)c->flash_only.cycles;
	if (units->min_kept > 0 || placed_pays) {
		simple = &c->as_placed;   /* a required unit, or the placement pays by itself */
		k = units->nunits;
	}
	/* beat the simple one and, when moving is allowed at all, the solver's placement too */
	double bar = (double)simple->cycles;
	if (k == 0 && (double)c->as_placed.cycles < bar)
		bar = (double)c->as_placed.cycles;
	if ((best->k == k && best->norder == 0 && !best->sh.text_align && !best->sh.tail_line) ||
	    (double)best->cost.cycles + margin < bar)
		return 0;
	free(best->order);
	best->order = NULL;
	return consider(best, k, NULL, 0, &plain, simple, err);
}

/* The run's cycles the margins are shares of: the trace's fetches, scaled, plus the flash-only
 * stall. */
static double run_cycles(const rp_layout_trace *t, const rp_layout_cost *flash_only)
{
	double fetches = t->accesses ? (double)t->fetches * (double)t->total / (double)t->accesses : 0.0;
	return fetches + (double)flash_only->cycles;
}

double rp_layout_margin(const rp_layout_trace *t, const rp_layout_cost *flash_only)
{
	double share = t->windows ? RP_LAYOUT_MARGIN : RP_LAYOUT_MARGIN_EXACT;
	return share * run_cycles(t, flash_only);
}

double rp_layout_margin_between(const rp_layout_cost *a, const rp_layout_cost *b)
{
	return RP_LAYOUT_MARGIN_BETWEEN * (double)(a->cycles < b->cycles ? a->cycles : b->cycles);
}

int rp_layout_search(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_units *units,
		     const rp_fm_cfg *cfg, int ordered, rp_layout_choice *out, rp_err *err)
{
	memset(out, 0, sizeof(*out));
	if (units->min_kept > units->nunits)
		return rp_err_set(err, RP_EUSAGE, "layout search: %zu units required of %zu", units->min_kept, units->nunits);
	double t0 = rp_seconds();
	search s = { t, link, units, cfg, calloc(t->npieces + 1, 1), 0 };
	size_t *hot = malloc((t->npieces + 1) * sizeof(size_t));
	/* improved from three starts: the best set, all of the placement's units, the fewest */
	cand best = { 0 }, start[3] = { { 0 }, { 0 }, { 0 } };
	int rc = !s.in_ram || !hot ? rp_err_nomem(err, "laying out") : 0;
	if (!rc)
		rc = evaluate(&s, 0, NULL, 0, &plain, &out->flash_only, err);
	if (!rc)
		rc = evaluate(&s, units->nunits, NULL, 0, &plain, &out->as_placed, err);
	for (size_t k = units->nunits + 1; !rc && k-- > units->min_kept;) {
		if (units->all_or_none && k != units->nunits && k != units->min_kept)
			continue;
		cand here = { 0 };
		rc = best_for_k(&s, k, ordered, hot, &here, &best, err);
		cand *keep = k == units->nunits ? &start[1] : k == units->min_kept ? &start[2] : NULL;
		if (!rc && keep)
			rc = consider(keep, here.k, here.order, here.norder, &here.sh, &here.cost, err);
		free(here.order);
	}
	if (!rc)
		rc = consider(&start[0], best.k, best.order, best.norder, &best.sh, &best.cost, err);
	uint64_t line = cfg->kind == RP_FM_WS ? cfg->width : cfg->line;
	/* the improvements' share of the work: what the prefixes left of RP_LAYOUT_MAX_RUNS_PRICED */
	uint64_t priced = (uint64_t)s.evaluations * (t->nruns ? t->nruns : 1);
	uint64_t affordable = priced < RP_LAYOUT_MAX_RUNS_PRICED ? (RP_LAYOUT_MAX_RUNS_PRICED - priced) / (t->nruns ? t->nruns : 1) : 0;
	size_t cap = s.evaluations + (affordable < RP_LAYOUT_MAX_EVALUATIONS ? (size_t)affordable : RP_LAYOUT_MAX_EVALUATIONS);
	if (cap > RP_LAYOUT_MAX_EVALUATIONS)
		cap = RP_LAYOUT_MAX_EVALUATIONS;
	for (int i = 0; !rc && ordered && i < 3; i++) {
		int again = start[i].norder == 0;
		for (int j = 0; j < i; j++)
			again |= start[j].norder && start[j].k == start[i].k;
		if (again)
			continue;
		size_t left = s.evaluations < cap ? cap - s.evaluations : 0;
		size_t limit = s.evaluations + left / (size_t)(3 - i);
		rc = improve(&s, &start[i], line, limit, err);
		if (!rc)
			rc = consider(&best, start[i].k, start[i].order, start[i].norder, &start[i].sh, &start[i].cost, err);
	}
	if (!rc)
		rc = keep_simple(&s, units, out, &best, err);
	if (!rc) {
		choose(out, &best);
		out->evaluations = s.evaluations;
		out->seconds = rp_seconds() - t0;
	}
	free(best.order);
	for (int i = 0; i < 3; i++)
		free(start[i].order);
	free(s.in_ram);
	free(hot);
	return rc;
}

void rp_layout_choice_release(rp_layout_choice *c)
{
	free(c->order);
	memset(c, 0, sizeof(*c));
}
