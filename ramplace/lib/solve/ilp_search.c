/* ilp_search.c: the placement ILP's primal heuristics (see ilp_search.h). Owns the incremental
 * assignment state: per region the bytes used and, per callee, how many calls from that region
 * reach it, so that a move knows in O(calls of the item) which veneers appear or go away. GLPK
 * proves bounds well on this model but finds good assignments slowly; these moves give it an
 * incumbent close to the optimum, which also lets reduced costs fix most binaries. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ilp_search.h"
#include "ramplace/util.h"

struct rp_ils {
	const rp_ilp_problem *pb;
	size_t n, R, T;
	int *region;
	uint64_t *used;          /* R: bytes, veneers included */
	uint32_t *callers;       /* R x T: calls from items in region r to callee t */
	size_t *call_first;      /* n + 1: the calls of item i are call_of[call_first[i] .. call_first[i+1]) */
	size_t *call_of;         /* indices into pb->calls */
	size_t *arc_first;       /* n + 1: the arcs touching item i are arc_of[arc_first[i] ..) */
	size_t *arc_of;
	double *arc_sum;         /* n: cycles of the arcs touching i (bounds a swap's gain) */
	size_t *tgt_first, *tgt_of; /* callee ids in item i: tgt_of[tgt_first[i] .. tgt_first[i+1]) (a
				       unit holds several called functions: foo and foo.part.0) */
	size_t *target_item;     /* T: item of callee t, SIZE_MAX for flash-only callees */
	unsigned *stamp;         /* R x T: dedupes the (region, callee) pairs one move touches */
	unsigned stamp_now;
	size_t *touched;         /* pairs of the current move and their veneer need before it */
	unsigned char *need_before;
	size_t ntouched;
	size_t must_out;         /* must-items in flash */
	double obj;
};

#define TGT(s, k) ((s)->pb->calls[(s)->call_of[k]].target)

const size_t *rp_ils_calls_of(const rp_ils *s, size_t i, size_t *count)
{
	*count = s->call_first[i + 1] - s->call_first[i];
	return s->call_of + s->call_first[i];
}

double rp_ils_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double gain(const rp_ils *s, int r)
{
	return r < 0 ? 0.0 : s->pb->regions[r].gain;
}

static int loc_of_target(const rp_ils *s, size_t t)
{
	size_t i = s->target_item[t];
	return i == SIZE_MAX ? -1 : s->region[i];
}

static int needs_veneer(const rp_ils *s, size_t r, size_t t)
{
	return s->callers[r * s->T + t] > 0 && loc_of_target(s, t) != (int)r;
}

/* Counting sort of (key, value) pairs by key into first[] (n + 1) and vals[]; -1: no memory. */
static int bucket(size_t n, size_t m, const size_t *keys, const size_t *vals, size_t *first, size_t *out)
{
	memset(first, 0, (n + 1) * sizeof(size_t));
	for (size_t k = 0; k < m; k++)
		first[keys[k] + 1]++;
	for (size_t i = 0; i < n; i++)
		first[i + 1] += first[i];
	size_t *next = malloc((n ? n : 1) * sizeof(size_t));
	if (!next)
		return -1;
	memcpy(next, first, (n ? n : 1) * sizeof(size_t));
	for (size_t k = 0; k < m; k++)
		out[next[keys[k]]++] = vals[k];
	free(next);
	return 0;
}

static int index_calls_and_arcs(rp_ils *s)
{
	const rp_ilp_problem *pb = s->pb;
	size_t nc = pb->veneer_bytes ? pb->ncalls : 0, na2 = 2 * pb->narcs;
	size_t most = (nc + na2 > s->T ? nc + na2 : s->T) + 1;
	size_t *keys = malloc(most * sizeof(size_t)), *vals = malloc(most * sizeof(size_t));
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -1;
	}
	for (size_t k = 0; k < nc; k++) {
		keys[k] = pb->calls[k].from;
		vals[k] = k;
		if (pb->calls[k].to != SIZE_MAX)
			s->target_item[pb->calls[k].target] = pb->calls[k].to;
	}
	int rc = bucket(s->n, nc, keys, vals, s->call_first, s->call_of);
	size_t m = 0;
	for (size_t t = 0; t < s->T; t++)
		if (s->target_item[t] != SIZE_MAX) {
			keys[m] = s->target_item[t];
			vals[m++] = t;
		}
	rc = rc ? rc : bucket(s->n, m, keys, vals, s->tgt_first, s->tgt_of);
	m = 0;
	for (size_t a = 0; a < pb->narcs; a++) {
		if (pb->arcs[a].b == pb->arcs[a].a)
			continue;   /* a self-arc never crosses */
		keys[m] = pb->arcs[a].a;
		vals[m++] = a;
		if (pb->arcs[a].b != SIZE_MAX) {
			keys[m] = pb->arcs[a].b;
			vals[m++] = a;
		}
		s->arc_sum[pb->arcs[a].a] += fabs(pb->arcs[a].cycles);
		if (pb->arcs[a].b != SIZE_MAX)
			s->arc_sum[pb->arcs[a].b] += fabs(pb->arcs[a].cycles);
	}
	rc = rc ? rc : bucket(s->n, m, keys, vals, s->arc_first, s->arc_of);
	free(keys);
	free(vals);
	return rc;
}

rp_ils *rp_ils_new(const rp_ilp_problem *pb, rp_err *err)
{
	rp_ils *s = calloc(1, sizeof(*s));
	if (!s) {
		rp_err_nomem(err, "the placement search");
		return NULL;
	}
	size_t n = pb->nitems, R = pb->nregions, T = pb->ntargets, n1 = n ? n : 1, RT = R * T + 1;
	size_t maxdeg = 2 * (pb->ncalls + T + 1) + 2 * R;
	*s = (rp_ils){ .pb = pb, .n = n, .R = R, .T = T };
	s->region = malloc(n1 * sizeof(int));
	s->used = calloc(R ? R : 1, sizeof(uint64_t));
	s->callers = calloc(RT, sizeof(uint32_t));
	s->call_first = calloc(n + 1, sizeof(size_t));
	s->call_of = malloc((pb->ncalls + 1) * sizeof(size_t));
	s->arc_first = calloc(n + 1, sizeof(size_t));
	s->arc_of = malloc((2 * pb->narcs + 1) * sizeof(size_t));
	s->arc_sum = calloc(n1, sizeof(double));
	s->tgt_first = calloc(n + 1, sizeof(size_t));
	s->tgt_of = malloc((T ? T : 1) * sizeof(size_t));
	s->target_item = malloc((T ? T : 1) * sizeof(size_t));
	s->stamp = calloc(RT, sizeof(unsigned));
	s->touched = malloc(maxdeg * sizeof(size_t));
	s->need_before = malloc(maxdeg);
	if (!s->region || !s->used || !s->callers || !s->call_first || !s->call_of || !s->arc_first || !s->arc_of ||
	    !s->arc_sum || !s->tgt_first || !s->tgt_of || !s->target_item || !s->stamp || !s->touched || !s->need_before)
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		s->region[i] = -1;
		s->must_out += pb->items[i].must != 0;
	}
	for (size_t t = 0; t < T; t++)
		s->target_item[t] = SIZE_MAX;
	if (index_calls_and_arcs(s))
		goto nomem;
	s->obj = rp_ilp_evaluate(pb, s->region, NULL);
	return s;
nomem:
	rp_ils_free(s);
	rp_err_nomem(err, "the placement search");
	return NULL;
}

void rp_ils_free(rp_ils *s)
{
	if (!s)
		return;
	free(s->region);
	free(s->used);
	free(s->callers);
	free(s->call_first);
	free(s->call_of);
	free(s->arc_first);
	free(s->arc_of);
	free(s->arc_sum);
	free(s->tgt_first);
	free(s->tgt_of);
	free(s->target_item);
	free(s->stamp);
	free(s->touched);
	free(s->need_before);
	free(s);
}

static void touch(rp_ils *s, int r, size_t t)
{
	if (r < 0 || t == SIZE_MAX)
		return;
	size_t p = (size_t)r * s->T + t;
	if (s->stamp[p] == s->stamp_now)
		return;
	s->stamp[p] = s->stamp_now;
	s->need_before[s->ntouched] = (unsigned char)needs_veneer(s, (size_t)r, t);
	s->touched[s->ntouched++] = p;
}

/* Records the veneer need of every (region, callee) pair that moving i between a and b changes. */
static void touch_pairs(rp_ils *s, size_t i, int a, int b)
{
	if (++s->stamp_now == 0) {
		memset(s->stamp, 0, s->R * s->T * sizeof(unsigned));
		s->stamp_now = 1;
	}
	s->ntouched = 0;
	for (size_t k = s->call_first[i]; k < s->call_first[i + 1]; k++) {
		touch(s, a, TGT(s, k));
		touch(s, b, TGT(s, k));
	}
	for (size_t k = s->tgt_first[i]; k < s->tgt_first[i + 1]; k++) {
		touch(s, a, s->tgt_of[k]);
		touch(s, b, s->tgt_of[k]);
	}
}

static double arcs_delta(const rp_ils *s, size_t i, int from, int to)
{
	double d = 0;
	for (size_t k = s->arc_first[i]; k < s->arc_first[i + 1]; k++) {
		const rp_ilp_arc *arc = &s->pb->arcs[s->arc_of[k]];
		size_t other = arc->a == i ? arc->b : arc->a;
		int lo = other == SIZE_MAX ? -1 : s->region[other];
		d -= arc->cycles * ((to != lo) - (from != lo));
	}
	return d;
}

double rp_ils_move(rp_ils *s, size_t i, int to)
{
	const rp_ilp_problem *pb = s->pb;
	int from = s->region[i];
	if (from == to)
		return 0.0;
	int veneers = pb->veneer_bytes != 0;
	if (veneers)
		touch_pairs(s, i, from, to);
	double delta = (gain(s, to) - gain(s, from)) * pb->items[i].value + arcs_delta(s, i, from, to);
	if (from >= 0) {
		s->used[from] -= pb->items[i].size;
		for (size_t k = s->call_first[i]; veneers && k < s->call_first[i + 1]; k++)
			s->callers[(size_t)from * s->T + TGT(s, k)]--;
	}
	s->region[i] = to;
	if (to >= 0) {
		s->used[to] += pb->items[i].size;
		for (size_t k = s->call_first[i]; veneers && k < s->call_first[i + 1]; k++)
			s->callers[(size_t)to * s->T + TGT(s, k)]++;
	}
	for (size_t k = 0; veneers && k < s->ntouched; k++) {
		size_t p = s->touched[k], r = p / s->T, t = p % s->T;
		int after = needs_veneer(s, r, t);
		s->used[r] += (uint64_t)(after - s->need_before[k]) * pb->veneer_bytes;   /* wraps back when negative */
	}
	if (pb->items[i].must)
		s->must_out += (to < 0) - (from < 0);
	s->obj += delta;
	return delta;
}

double rp_ils_load(rp_ils *s, const int *region)
{
	for (size_t i = 0; i < s->n; i++)
		rp_ils_move(s, i, region[i]);
	s->obj = rp_ilp_evaluate(s->pb, s->region, NULL);   /* no drift from the sums of deltas */
	return s->obj;
}

int rp_ils_feasible(const rp_ils *s)
{
	if (s->must_out)
		return 0;
	for (size_t r = 0; r < s->R; r++)
		if (s->used[r] > s->pb->regions[r].budget)
			return 0;
	return 1;
}

double rp_ils_objective(const rp_ils *s)
{
	return s->obj;
}

uint64_t rp_ils_used(const rp_ils *s, size_t r)
{
	return s->used[r];
}

const int *rp_ils_region(const rp_ils *s)
{
	return s->region;
}

static int by_density(const void *x, const void *y, void *ctx)
{
	const rp_ilp_problem *pb = ctx;
	const rp_ilp_item *a = &pb->items[*(const size_t *)x], *b = &pb->items[*(const size_t *)y];
	if (a->must != b->must)
		return a->must ? -1 : 1;
	double da = a->value / (double)(a->size ? a->size : 1), db = b->value / (double)(b->size ? b->size : 1);
	if (da != db)
		return da > db ? -1 : 1;
	return *(const size_t *)x < *(const size_t *)y ? -1 : 1;
}

size_t *rp_ils_density_order(const rp_ils *s)
{
	size_t *order = malloc((s->n ? s->n : 1) * sizeof(size_t));
	if (!order)
		return NULL;
	for (size_t i = 0; i < s->n; i++)
		order[i] = i;
	rp_sort_r(order, s->n, sizeof(size_t), by_density, (void *)s->pb);
	return order;
}

/* Moves i to r when that keeps r within its budget; true when it did. */
static int place_if_fits(rp_ils *s, size_t i, int r)
{
	rp_ils_move(s, i, r);
	if (s->used[r] <= s->pb->regions[r].budget)
		return 1;
	rp_ils_move(s, i, -1);
	return 0;
}

/* The cheapest item to take out of region r: least objective lost per byte freed (veneers
 * included), one that frees nothing only when no other is left; SIZE_MAX when only
 * must-items are. */
static size_t cheapest_to_remove(rp_ils *s, int r)
{
	size_t pick = SIZE_MAX;
	double pick_cost = INFINITY;
	for (size_t i = 0; i < s->n; i++) {
		if (s->region[i] != r || s->pb->items[i].must)
			continue;
		uint64_t before = s->used[r];
		double lost = -rp_ils_move(s, i, -1);
		uint64_t after = s->used[r];
		rp_ils_move(s, i, r);
		/* a callee smaller than a veneer frees nothing: its callers left in r need one to it */
		double cost = after < before ? lost / (double)(before - after) : INFINITY;
		if (pick == SIZE_MAX || cost < pick_cost) {
			pick = i;
			pick_cost = cost;
		}
	}
	return pick;
}

/* Loads start whole, then takes items out of each region over its budget, cheapest first. Adding
 * the items one by one instead would refuse a caller whose callees are not in yet: its veneers
 * for them count until they arrive. Must-items that still overflow go to flash for the fill. */
static void load_within_budgets(rp_ils *s, const int *start)
{
	rp_ils_load(s, start);
	for (size_t r = 0; r < s->R; r++)
		while (s->used[r] > s->pb->regions[r].budget) {
			size_t i = cheapest_to_remove(s, (int)r);
			if (i == SIZE_MAX)
				for (i = 0; i < s->n && s->region[i] != (int)r; i++)
					;
			rp_ils_move(s, i, -1);
		}
}

double rp_ils_greedy(rp_ils *s, const int *start)
{
	for (size_t i = 0; i < s->n; i++)
		rp_ils_move(s, i, -1);
	size_t *order = rp_ils_density_order(s);
	int *rorder = malloc((s->R ? s->R : 1) * sizeof(int));
	double obj = -INFINITY;
	if (!order || !rorder)
		goto out;
	for (size_t r = 0; r < s->R; r++) {   /* fastest region first */
		size_t b = r;
		for (; b > 0 && gain(s, rorder[b - 1]) < gain(s, (int)r); b--)
			rorder[b] = rorder[b - 1];
		rorder[b] = (int)r;
	}
	if (start)
		load_within_budgets(s, start);
	for (size_t k = 0; k < s->n; k++) {
		size_t i = order[k];
		if (s->region[i] >= 0 || (s->pb->items[i].value <= 0 && !s->pb->items[i].must))
			continue;
		for (size_t q = 0; q < s->R && !place_if_fits(s, i, rorder[q]); q++)
			;
		if (s->pb->items[i].must && s->region[i] < 0)
			goto out;   /* a must-item that fits nowhere */
	}
	obj = s->obj;
out:
	free(order);
	free(rorder);
	return obj;
}

static double eps_of(const rp_ils *s)
{
	return 1e-9 * (fabs(s->obj) > 1 ? fabs(s->obj) : 1);
}

/* Single moves: every item to every other location, kept when feasible and better. */
static int improve_moves(rp_ils *s)
{
	int improved = 0;
	for (size_t i = 0; i < s->n; i++)
		for (int to = -1; to < (int)s->R; to++) {
			int from = s->region[i];
			if (to == from || (to < 0 && s->pb->items[i].must))
				continue;
			double d = rp_ils_move(s, i, to);
			if (d > eps_of(s) && rp_ils_feasible(s))
				improved = 1;
			else
				rp_ils_move(s, i, from);
		}
	return improved;
}

/* Whether swapping i into r (and j out of r) can gain at all: value bounds with the arcs. */
static int swap_may_gain(const rp_ils *s, size_t i, size_t j, int r, double g_other)
{
	const rp_ilp_item *a = &s->pb->items[i], *b = &s->pb->items[j];
	double bound = (gain(s, r) - gain(s, s->region[i])) * a->value - (gain(s, r) - g_other) * b->value;
	return bound + s->arc_sum[i] + s->arc_sum[j] > eps_of(s);
}

/* Tries to take j out of region r (to any other location) and put i there. */
static int try_swap(rp_ils *s, size_t i, size_t j, int r)
{
	int from_i = s->region[i];
	uint64_t room = s->pb->regions[r].budget - s->used[r] + s->pb->items[j].size +
			s->pb->veneer_bytes * (s->call_first[j + 1] - s->call_first[j] + 1);
	if (s->pb->items[i].size > room)
		return 0;
	for (int dest = -1; dest < (int)s->R; dest++) {
		if (dest == r || (dest < 0 && s->pb->items[j].must))
			continue;
		double d = rp_ils_move(s, j, dest) + rp_ils_move(s, i, r);
		if (d > eps_of(s) && rp_ils_feasible(s))
			return 1;
		rp_ils_move(s, i, from_i);
		rp_ils_move(s, j, r);
	}
	return 0;
}

static int improve_swaps(rp_ils *s, double deadline)
{
	int improved = 0;
	double g_max = 0;
	for (size_t r = 0; r < s->R; r++)
		g_max = gain(s, (int)r) > g_max ? gain(s, (int)r) : g_max;
	for (size_t j = 0; j < s->n; j++) {
		int r = s->region[j];
		if (r < 0)
			continue;
		if (rp_ils_now() > deadline)
			break;
		double g_other = 0;   /* the best gain j can keep elsewhere */
		for (size_t q = 0; q < s->R; q++)
			if ((int)q != r && gain(s, (int)q) > g_other)
				g_other = gain(s, (int)q);
		for (size_t i = 0; i < s->n && s->region[j] == r; i++)
			if (s->region[i] != r && swap_may_gain(s, i, j, r, g_other) && try_swap(s, i, j, r))
				improved = 1;
	}
	return improved;
}

double rp_ils_improve(rp_ils *s, double deadline)
{
	if (!rp_ils_feasible(s))
		return s->obj;
	while (rp_ils_now() < deadline) {
		int improved = improve_moves(s);
		improved |= improve_swaps(s, deadline);
		if (!improved)
			break;
	}
	s->obj = rp_ilp_evaluate(s->pb, s->region, NULL);
	return s->obj;
}
