/* bench_tvd.c: total variation distance between the per-function shares of two profile.db
 * files (half the sum over functions of |share_a - share_b|; 0 = the same distribution, 1 =
 * disjoint), read with rp_db_totals_load, "<unknown>" counted as one more function. Used by
 * bench/bench_methods.sh to compare each collection method with exact counts, and by the
 * runtime integration test for a generous bound.
 *   bench_tvd reference.db other.db [TOP]   prints "tvd X" and the TOP functions (default 5)
 *                                           of the reference with both shares */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/profiledb.h"

static int load(rp_db_totals *t, const char *path)
{
	rp_db *db = NULL;
	rp_err err = RP_ERR_INIT;
	if (rp_db_open_existing(&db, path, &err) < 0 || rp_db_totals_load(db, t, &err) < 0) {
		fprintf(stderr, "bench_tvd: %s\n", err.msg);
		rp_db_close(db);
		return -1;
	}
	rp_db_close(db);
	return 0;
}

static double share(const rp_db_totals *t, const rp_func_total *f)
{
	double total = 0;
	for (size_t i = 0; i < t->nfuncs; i++)
		total += (double)t->funcs[i].count;
	return total > 0 ? (double)f->count / total : 0;
}

static const rp_func_total *find(const rp_db_totals *t, const rp_func_total *f)
{
	for (size_t i = 0; i < t->nfuncs; i++) {
		const rp_func_total *g = &t->funcs[i];
		if (strcmp(g->func, f->func) == 0 &&
		    (g->file == f->file || (g->file && f->file && strcmp(g->file, f->file) == 0)))
			return g;
	}
	return NULL;
}

/* Half the L1 distance: every function of either side once. */
static double tvd(const rp_db_totals *a, const rp_db_totals *b)
{
	double d = 0;
	for (size_t i = 0; i < a->nfuncs; i++) {
		const rp_func_total *g = find(b, &a->funcs[i]);
		d += __builtin_fabs(share(a, &a->funcs[i]) - (g ? share(b, g) : 0));
	}
	for (size_t i = 0; i < b->nfuncs; i++)
		if (!find(a, &b->funcs[i]))
			d += share(b, &b->funcs[i]);
	return d / 2;
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: bench_tvd reference.db other.db [TOP]\n");
		return 2;
	}
	int top = argc == 4 ? atoi(argv[3]) : 5;
	rp_db_totals a, b;
	if (load(&a, argv[1]) < 0)
		return 2;
	if (load(&b, argv[2]) < 0) {
		rp_db_totals_release(&a);
		return 2;
	}
	printf("tvd %.4f\n", tvd(&a, &b));
	for (int i = 0; i < top && (size_t)i < a.nfuncs; i++) {
		const rp_func_total *g = find(&b, &a.funcs[i]);
		printf("top %d %s %.4f %.4f\n", i + 1, a.funcs[i].func, share(&a, &a.funcs[i]),
		       g ? share(&b, g) : 0.0);
	}
	rp_db_totals_release(&a);
	rp_db_totals_release(&b);
	return 0;
}
