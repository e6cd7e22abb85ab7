/* knapsack.c: exact 0/1 knapsack by dynamic programming over capacity (see knapsack.h).
 *
 * Weights are divided by their greatest common divisor with the capacity first (function sizes
 * rounded to 4-byte units shrink the table 4x). The table keeps one decision bit per item and
 * capacity, so a 96 KiB budget with 12,000 candidates needs about 37 MB and a few hundred
 * million steps. Items with no value or that cannot fit are never taken. */
#include <stdlib.h>
#include <string.h>

#include "ramplace/knapsack.h"

#define RP_KS_MAX_TABLE_BITS (1ull << 33)

typedef struct cell {
	uint64_t value;
	uint64_t weight;  /* in scaled units */
} cell;

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

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

int rp_knapsack_solve(const rp_ks_item *items, size_t n, uint64_t capacity,
		      unsigned char *chosen, rp_ks_result *res, rp_err *err)
{
	memset(res, 0, sizeof(*res));
	memset(chosen, 0, n);
	size_t *cand = malloc((n ? n : 1) * sizeof(size_t));
	if (!cand)
		return rp_err_nomem(err, "solving the knapsack");
	size_t ncand = 0;
	uint64_t total_weight = 0, unit = 0;
	for (size_t i = 0; i < n; i++) {
		if (items[i].value == 0 || items[i].weight > capacity)
			continue;
		cand[ncand++] = i;
		total_weight += items[i].weight;
		unit = gcd64(unit, items[i].weight);
	}
	int rc = 0;
	if (total_weight <= capacity) {
		take_all(items, n, cand, ncand, chosen, res);
	} else {
		/* zero-weight items always fit; the gcd then comes from the others */
		rc = dp_solve(items, cand, ncand, capacity, unit ? unit : 1, chosen, res, err);
	}
	free(cand);
	return rc;
}
