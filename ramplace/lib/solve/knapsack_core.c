/* knapsack_core.c: the expanding-core algorithm for the exact 0/1 knapsack (Pisinger's
 * minknap, 1997), the default solver behind rp_knapsack_solve.
 *
 * Items are sorted by value density; the greedy "break solution" takes every item before the
 * first one that does not fit. A list of undominated partial solutions (weight, value) starts
 * from it, and the core around the break item grows one item at a time, alternately on the
 * right (adding a cheaper item) and on the left (removing a denser one). After each step every
 * state whose LP bound cannot beat the best feasible value found so far is dropped; when the
 * list is empty the best value is proven optimal. On firmware profiles (few hot functions) the
 * list stays tiny and the core small; on Pisinger's hard classes (strongly correlated,
 * subset-sum, spanner) the list is still bounded by the distinct weights, as a DP would be, but
 * only over the items the bounds cannot decide.
 *
 * The tie-break (fewest bytes among optimal sets) is folded into the objective: each item is
 * valued v*(C+1) - w with C the capacity, which orders solutions by (value, -weight) exactly
 * and keeps the structure of the classes (subset-sum stays subset-sum). Values are 128-bit;
 * instances whose sums could overflow are handed back (RP_KS_CORE_OVERFLOW) for the DP.
 *
 * Owns its state lists and the history of decisions (one 32-bit predecessor per state and
 * step) used to rebuild the chosen set; both are freed before returning. */
#include <stdlib.h>
#include <string.h>

#include "knapsack_core.h"
#include "ramplace/util.h"

typedef unsigned __int128 u128;

/* the history holds at most this many entries (1 GiB) before the solver gives up */
#define MAX_HISTORY (1ull << 28)

typedef struct kitem {
	uint64_t w;      /* scaled by the gcd */
	u128 p;          /* v*(C+1) - w */
	size_t idx;      /* caller's index */
} kitem;

typedef struct state {
	uint64_t w;
	u128 p;
	uint32_t id;     /* index of this state in its history layer */
} state;

typedef struct solver {
	kitem *it;
	size_t m;
	uint64_t cap;
	state *cur, *next;
	size_t ncur, states_cap;
	uint32_t *hist;          /* per layer: predecessor index, bit 31 = item flipped */
	size_t nhist, hist_cap;
	size_t *layer_start;     /* first history entry of each layer */
	size_t *layer_item;      /* sorted item index flipped by each layer */
	size_t nlayers, layers_cap, items_cap;
	u128 z;                  /* best feasible objective */
	size_t z_layer;
	uint32_t z_id;
	uint64_t max_states;
} solver;

uint64_t rp_ks_gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

static int bitlen(u128 x)
{
	int n = 0;
	while (x) {
		n++;
		x >>= 1;
	}
	return n;
}

/* denser first (exact: cross products of the caller's values and weights), then by index */
static int by_density(const void *a, const void *b, void *ctx)
{
	const rp_ks_item *items = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	u128 lx = (u128)items[i].value * items[j].weight, ly = (u128)items[j].value * items[i].weight;
	if (lx != ly)
		return lx > ly ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* Whether a state can still beat z: its LP bound with items >= t addable and items <= s
 * removable, both at most as dense as the items t and s themselves. */
static int promising(const solver *sv, const state *st, size_t s_plus1, size_t t)
{
	u128 need;
	if (st->w <= sv->cap) {
		if (t >= sv->m)
			return st->p > sv->z;
		const kitem *k = &sv->it[t];
		/* floor(p + (C - w) * pt / wt) > z  <=>  p*wt + (C-w)*pt >= (z+1)*wt */
		need = (sv->z + 1) * k->w;
		return st->p * k->w + (u128)(sv->cap - st->w) * k->p >= need;
	}
	if (s_plus1 == 0)
		return 0;
	const kitem *k = &sv->it[s_plus1 - 1];
	/* p - (w - C) * ps / ws > z  <=>  p*ws >= (z+1)*ws + (w-C)*ps */
	need = (sv->z + 1) * k->w + (u128)(st->w - sv->cap) * k->p;
	return st->p * k->w >= need;
}

static int push_layer(solver *sv, size_t item, rp_err *err)
{
	if (rp_grow((void **)&sv->layer_start, &sv->layers_cap, sv->nlayers + 1, sizeof(size_t), err))
		return err->code;
	if (rp_grow((void **)&sv->layer_item, &sv->items_cap, sv->nlayers + 1, sizeof(size_t), err))
		return err->code;
	sv->layer_start[sv->nlayers] = sv->nhist;
	sv->layer_item[sv->nlayers] = item;
	sv->nlayers++;
	return 0;
}

static int ensure_room(solver *sv, size_t nstates, rp_err *err)
{
	if (sv->nhist + nstates > MAX_HISTORY)
		return rp_err_set(err, RP_ENOMEM, "knapsack: more than %llu partial solutions; the instance is too hard for the 1 GiB limit",
				  (unsigned long long)MAX_HISTORY);
	if (rp_grow((void **)&sv->hist, &sv->hist_cap, sv->nhist + nstates, sizeof(uint32_t), err))
		return err->code;
	if (nstates <= sv->states_cap)
		return 0;
	size_t cap = sv->states_cap * 2 > nstates ? sv->states_cap * 2 : nstates;
	state *a = realloc(sv->cur, cap * sizeof(state));
	if (a)
		sv->cur = a;
	state *b = a ? realloc(sv->next, cap * sizeof(state)) : NULL;
	if (!b)
		return rp_err_nomem(err, "solving the knapsack");
	sv->next = b;
	sv->states_cap = cap;
	return 0;
}

/* Offers a state to the new layer. It is dropped when the last kept one dominates it (the list
 * is sorted by weight with values strictly rising) or when its bound cannot beat z; a feasible
 * state better than z becomes z and gets a history entry even when it is not kept. */
static void emit(solver *sv, size_t *n, uint64_t w, u128 p, uint32_t pred_flag, size_t s_plus1, size_t t)
{
	if (*n && sv->next[*n - 1].p >= p)
		return;
	state st = { w, p, 0 };
	int best = w <= sv->cap && p > sv->z;
	if (best)
		sv->z = p;
	int keep = promising(sv, &st, s_plus1, t);
	if (!best && !keep)
		return;
	st.id = (uint32_t)(sv->nhist - sv->layer_start[sv->nlayers - 1]);
	sv->hist[sv->nhist++] = pred_flag;
	if (best) {
		sv->z_layer = sv->nlayers - 1;
		sv->z_id = st.id;
	}
	if (!keep)
		return;
	if (*n && sv->next[*n - 1].w == w)
		(*n)--;   /* same weight, more value: replaces it */
	sv->next[(*n)++] = st;
}

/* One core step: every state either keeps item k as it is or flips it (adds it when sign > 0,
 * removes it when sign < 0). The two sorted lists are merged, dominated states dropped. */
static int step(solver *sv, size_t k, int sign, size_t s_plus1, size_t t, rp_err *err)
{
	if (ensure_room(sv, 2 * sv->ncur, err) || push_layer(sv, k, err))
		return err->code;
	const kitem *it = &sv->it[k];
	size_t i = 0, j = 0, n = 0;
	while (i < sv->ncur || j < sv->ncur) {
		uint64_t wj = 0;
		u128 pj = 0;
		if (j < sv->ncur) {
			wj = sign > 0 ? sv->cur[j].w + it->w : sv->cur[j].w - it->w;
			pj = sign > 0 ? sv->cur[j].p + it->p : sv->cur[j].p - it->p;
		}
		/* the unchanged list first on equal weight: a tie keeps the item as it was */
		int take_i = i < sv->ncur && (j >= sv->ncur || sv->cur[i].w < wj ||
					      (sv->cur[i].w == wj && sv->cur[i].p >= pj));
		if (take_i) {
			emit(sv, &n, sv->cur[i].w, sv->cur[i].p, sv->cur[i].id, s_plus1, t);
			i++;
		} else {
			emit(sv, &n, wj, pj, sv->cur[j].id | 0x80000000u, s_plus1, t);
			j++;
		}
	}
	state *tmp = sv->cur;
	sv->cur = sv->next;
	sv->next = tmp;
	sv->ncur = n;
	if (n > sv->max_states)
		sv->max_states = n;
	return 0;
}

static void solver_release(solver *sv)
{
	free(sv->it);
	free(sv->cur);
	free(sv->next);
	free(sv->hist);
	free(sv->layer_start);
	free(sv->layer_item);
}

/* Walks the history back from z's state: each flipped item toggles the break solution. */
static void rebuild(const solver *sv, size_t b, unsigned char *in)
{
	for (size_t k = 0; k < sv->m; k++)
		in[k] = k < b;
	size_t layer = sv->z_layer;
	uint32_t id = sv->z_id;
	while (layer > 0) {
		uint32_t h = sv->hist[sv->layer_start[layer] + id];
		if (h & 0x80000000u)
			in[sv->layer_item[layer]] ^= 1;
		id = h & 0x7fffffffu;
		layer--;
	}
}

/* Sorts, scales and values the candidates; returns RP_KS_CORE_OVERFLOW when 128 bits might not
 * hold the bound arithmetic. */
static int prepare(solver *sv, const rp_ks_item *items, const size_t *cand, size_t ncand, uint64_t capacity,
		   rp_err *err)
{
	size_t *order = malloc((ncand ? ncand : 1) * sizeof(size_t));
	sv->it = malloc((ncand ? ncand : 1) * sizeof(kitem));
	if (!order || !sv->it) {
		free(order);
		return rp_err_nomem(err, "solving the knapsack");
	}
	memcpy(order, cand, ncand * sizeof(size_t));
	rp_sort_r(order, ncand, sizeof(size_t), by_density, (void *)items);
	uint64_t g = 0;
	for (size_t k = 0; k < ncand; k++)
		g = rp_ks_gcd64(g, items[cand[k]].weight);
	g = g ? g : 1;
	sv->cap = capacity / g;
	u128 sum_v = 0, sum_w = 0;
	for (size_t k = 0; k < ncand; k++) {
		sum_v += items[order[k]].value;
		sum_w += items[order[k]].weight / g;
	}
	/* every product in the bounds is at most (sum p' + 1) * (sum w + C + 1) */
	if (sum_v >> 64 || sum_w >> 64 || bitlen(sum_v * ((u128)sv->cap + 1) + 1) + bitlen(sum_w + sv->cap + 1) > 126) {
		free(order);
		return RP_KS_CORE_OVERFLOW;
	}
	for (size_t k = 0; k < ncand; k++) {
		const rp_ks_item *src = &items[order[k]];
		uint64_t w = src->weight / g;
		sv->it[k] = (kitem){ w, (u128)src->value * (sv->cap + 1) - w, order[k] };
	}
	sv->m = ncand;
	free(order);
	return 0;
}

static int expand_core(solver *sv, size_t b, uint64_t w0, u128 p0, rp_err *err)
{
	if (ensure_room(sv, 1, err) || push_layer(sv, SIZE_MAX, err))
		return err->code;
	sv->cur[0] = (state){ w0, p0, 0 };
	sv->hist[sv->nhist++] = 0;
	sv->ncur = 1;
	sv->z = p0;
	sv->z_layer = 0;
	sv->z_id = 0;
	size_t s_plus1 = b, t = b;   /* items < s_plus1 may still be removed, items >= t added */
	while (sv->ncur > 0 && (t < sv->m || s_plus1 > 0)) {
		if (t < sv->m) {
			t++;
			if (step(sv, t - 1, +1, s_plus1, t, err))
				return err->code;
		}
		if (sv->ncur > 0 && s_plus1 > 0) {
			s_plus1--;
			if (step(sv, s_plus1, -1, s_plus1, t, err))
				return err->code;
		}
	}
	return 0;
}

int rp_ks_core_solve(const rp_ks_item *items, const size_t *cand, size_t ncand, uint64_t capacity,
		     unsigned char *chosen, rp_ks_core_stats *stats, rp_err *err)
{
	solver sv;
	memset(&sv, 0, sizeof(sv));
	int rc = prepare(&sv, items, cand, ncand, capacity, err);
	if (rc) {
		solver_release(&sv);
		return rc;
	}
	uint64_t w0 = 0;
	u128 p0 = 0;
	size_t b = 0;
	while (b < sv.m && w0 + sv.it[b].w <= sv.cap) {
		w0 += sv.it[b].w;
		p0 += sv.it[b].p;
		b++;
	}
	unsigned char *in = calloc(sv.m ? sv.m : 1, 1);
	if (!in)
		rc = rp_err_nomem(err, "solving the knapsack");
	else if (b == sv.m)
		memset(in, 1, sv.m);
	else if (!(rc = expand_core(&sv, b, w0, p0, err)))
		rebuild(&sv, b, in);
	for (size_t k = 0; !rc && k < sv.m; k++)
		chosen[sv.it[k].idx] = in[k];
	if (stats) {
		stats->layers = sv.nlayers ? sv.nlayers - 1 : 0;
		stats->max_states = sv.max_states;
		stats->history = sv.nhist;
	}
	free(in);
	solver_release(&sv);
	return rc;
}
