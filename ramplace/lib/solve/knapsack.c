/* knapsack.c: exact 0/1 knapsack (see knapsack.h): the entry points, the candidate filter they
 * share, and the dynamic programme over capacity used as oracle and fallback; the default
 * expanding-core algorithm is in knapsack_core.c.
 *
 * Weights are divided by their greatest common divisor with the capacity first (function sizes
 * rounded to 4-byte units shrink the table 4x). The table keeps one decision bit per item and
 * capacity, so a 96 KiB budget with 12,000 candidates needs about 37 MB and a few hundred
 * million steps. Before it runs, the Dembo-Hammer reduction fixes every item whose LP bound
 * proves it in (or out of) all optimal sets, so the table usually covers a small core only.
 * Items with no value or that cannot fit are never taken. */
#include <stdlib.h>
#include <string.h>

#include "ramplace/knapsack.h"
#include "knapsack_core.h"
#include "ramplace/util.h"

#define RP_KS_MAX_TABLE_BITS (1ull << 33)

typedef struct cell {
	uint64_t value;
	uint64_t weight;  /* in scaled units */
} cell;

/* better: more value, or as much value in fewer bytes */
static int better(uint64_t value, uint64_t weight, const cell *than)
{
	return value > than->value || (value == than->value && weight < than->weight);
}

static void take_all(const rp_ks_item *items, size_t n, const size_t *cand, size_t ncand,
		     unsigned char *chosen, rp_ks_result *res)
{
	(void)n;
	for (size_t k = 0; k < ncand; k++) {
		chosen[cand[k]] = 1;
		res->value += items[cand[k]].value;
		res->weight += items[cand[k]].weight;
		res->nchosen++;
	}
}

static int dp_solve(const rp_ks_item *items, const size_t *cand, size_t ncand, uint64_t cap,
		    uint64_t unit, unsigned char *chosen, rp_ks_result *res, rp_err *err)
{
	uint64_t slots = cap / unit + 1;
	if (slots > RP_KS_MAX_TABLE_BITS / (ncand ? ncand : 1))
		return rp_err_set(err, RP_ENOMEM, "knapsack: %zu candidates x %llu capacity steps exceed the 1 GiB table limit",
				  ncand, (unsigned long long)slots);
	size_t row_bytes = (size_t)((slots + 7) / 8);
	cell *dp = calloc(slots, sizeof(cell));
	unsigned char *keep = calloc(ncand, row_bytes);
	if (!dp || !keep) {
		free(dp);
		free(keep);
		return rp_err_nomem(err, "solving the knapsack");
	}
	for (size_t k = 0; k < ncand; k++) {
		uint64_t w = items[cand[k]].weight / unit, v = items[cand[k]].value;
		unsigned char *row = keep + k * row_bytes;
		for (uint64_t c = slots - 1; c + 1 > w; c--) {
			const cell *from = &dp[c - w];
			if (better(from->value + v, from->weight + w, &dp[c])) {
				dp[c].value = from->value + v;
				dp[c].weight = from->weight + w;
				row[c >> 3] |= (unsigned char)(1u << (c & 7));
			}
			if (c == 0)
				break;
		}
	}
	uint64_t c = slots - 1;
	for (size_t k = ncand; k-- > 0;) {
		if (keep[k * row_bytes + (c >> 3)] & (1u << (c & 7))) {
			chosen[cand[k]] = 1;
			c -= items[cand[k]].weight / unit;
			res->value += items[cand[k]].value;
			res->weight += items[cand[k]].weight;
			res->nchosen++;
		}
	}
	free(dp);
	free(keep);
	return 0;
}

typedef struct reduction {
	uint64_t fixed_weight, fixed_value;   /* items proven to be in every optimum */
} reduction;

static int by_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

static int by_density(const void *a, const void *b, void *ctx)
{
	const rp_ks_item *items = ctx;
	const rp_ks_item *x = &items[*(const size_t *)a], *y = &items[*(const size_t *)b];
	unsigned __int128 lx = (unsigned __int128)x->value * y->weight;
	unsigned __int128 ly = (unsigned __int128)y->value * x->weight;
	if (lx != ly)
		return lx > ly ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* Dembo-Hammer: with break item b (density vb/wb) and LP bound U, excluding a greedy item j
 * bounds the value by U - vj + wj*vb/wb; including a later item by U + vj - wj*vb/wb. When that
 * bound is below a known solution's value L, every optimum decides j the greedy way. All in
 * integers scaled by wb. Returns the number of core items written to core[]. */
static size_t reduce(const rp_ks_item *items, size_t *cand, size_t ncand, uint64_t cap,
		     reduction *red, size_t *core, unsigned char *chosen)
{
	rp_sort_r(cand, ncand, sizeof(size_t), by_density, (void *)items);
	uint64_t w = 0, v = 0;
	size_t b = 0;
	while (b < ncand && w + items[cand[b]].weight <= cap) {
		w += items[cand[b]].weight;
		v += items[cand[b]].value;
		b++;
	}
	uint64_t lower = v, room = cap - w;
	for (size_t k = b; k < ncand; k++)   /* greedy fill: the known solution L */
		if (items[cand[k]].weight <= room) {
			room -= items[cand[k]].weight;
			lower += items[cand[k]].value;
		}
	const rp_ks_item *brk = &items[cand[b]];
	__int128 wb = (__int128)brk->weight, vb = (__int128)brk->value;
	__int128 upper_scaled = wb * (__int128)v + (__int128)(cap - w) * vb;   /* wb * U */
	__int128 lower_scaled = wb * (__int128)lower;
	size_t ncore = 0;
	for (size_t k = 0; k < ncand; k++) {
		const rp_ks_item *it = &items[cand[k]];
		__int128 gap = (__int128)it->value * wb - (__int128)it->weight * vb;
		if (k < b && upper_scaled - gap < lower_scaled) {
			chosen[cand[k]] = 1;
			red->fixed_weight += it->weight;
			red->fixed_value += it->value;
		} else if (k > b && upper_scaled + gap < lower_scaled) {
			continue;
		} else {
			core[ncore++] = cand[k];
		}
	}
	/* the DP breaks ties by item order: restore the caller's order in the core */
	rp_sort(core, ncore, sizeof(size_t), by_index);
	return ncore;
}

static int filter(const rp_ks_item *items, size_t n, uint64_t capacity, unsigned char *chosen,
		  rp_ks_result *res, size_t **cand, size_t *ncand, uint64_t *total_weight, rp_err *err)
{
	memset(res, 0, sizeof(*res));
	if (n)
		memset(chosen, 0, n);
	*cand = malloc((n ? n : 1) * sizeof(size_t));
	if (!*cand)
		return rp_err_nomem(err, "solving the knapsack");
	*ncand = 0;
	*total_weight = 0;
	for (size_t i = 0; i < n; i++) {
		if (items[i].value == 0 || items[i].weight > capacity)
			continue;
		(*cand)[(*ncand)++] = i;
		*total_weight += items[i].weight;
	}
	return 0;
}

static void tally(const rp_ks_item *items, size_t n, const unsigned char *chosen, rp_ks_result *res)
{
	res->value = res->weight = 0;
	res->nchosen = 0;
	for (size_t i = 0; i < n; i++)
		if (chosen[i]) {
			res->value += items[i].value;
			res->weight += items[i].weight;
			res->nchosen++;
		}
}

int rp_knapsack_solve(const rp_ks_item *items, size_t n, uint64_t capacity,
		      unsigned char *chosen, rp_ks_result *res, rp_err *err)
{
	size_t *cand, ncand;
	uint64_t total_weight;
	int rc = filter(items, n, capacity, chosen, res, &cand, &ncand, &total_weight, err);
	if (rc)
		return rc;
	if (total_weight <= capacity) {
		take_all(items, n, cand, ncand, chosen, res);
		free(cand);
		return 0;
	}
	/* zero-weight items always fit and have no density: take them first */
	size_t m = 0;
	for (size_t k = 0; k < ncand; k++) {
		if (items[cand[k]].weight == 0)
			chosen[cand[k]] = 1;
		else
			cand[m++] = cand[k];
	}
	rp_ks_core_stats st = { 0, 0, 0 };
	rc = rp_ks_core_solve(items, cand, m, capacity, chosen, &st, err);
	free(cand);
	if (rc == RP_KS_CORE_OVERFLOW)
		return rp_knapsack_solve_dp(items, n, capacity, chosen, res, err);
	if (rc)
		return rc;
	tally(items, n, chosen, res);
	res->core_steps = st.layers;
	res->max_states = st.max_states;
	return 0;
}

int rp_knapsack_solve_dp(const rp_ks_item *items, size_t n, uint64_t capacity,
			 unsigned char *chosen, rp_ks_result *res, rp_err *err)
{
	size_t *cand, ncand;
	uint64_t total_weight;
	int rc = filter(items, n, capacity, chosen, res, &cand, &ncand, &total_weight, err);
	if (rc)
		return rc;
	res->used_dp = 1;
	if (total_weight <= capacity) {
		take_all(items, n, cand, ncand, chosen, res);
	} else {
		reduction red = { 0, 0 };
		size_t *core = malloc(ncand * sizeof(size_t));
		if (!core) {
			free(cand);
			return rp_err_nomem(err, "solving the knapsack");
		}
		size_t ncore = reduce(items, cand, ncand, capacity, &red, core, chosen);
		/* zero-weight items always fit; the gcd then comes from the others */
		uint64_t core_unit = 0;
		for (size_t k = 0; k < ncore; k++)
			core_unit = rp_ks_gcd64(core_unit, items[core[k]].weight);
		rc = dp_solve(items, core, ncore, capacity - red.fixed_weight, core_unit ? core_unit : 1,
			      chosen, res, err);
		tally(items, n, chosen, res);
		res->used_dp = 1;
		free(core);
	}
	free(cand);
	return rc;
}
