/* bench_knapsack.c: solve time of the exact knapsack on a generated firmware-like instance
 * (n functions, sizes spread like real code, samples concentrated Zipf-like on few functions)
 * against GLPK's glpsol on the same instance written as CPLEX LP; both optima must agree.
 * Also prints the value of greedy-by-density and top-N-by-samples baselines.
 *   bench_knapsack [N [BUDGET]]      default 12000 functions, 96K */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ramplace/knapsack.h"
#include "ramplace/util.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double uniform(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (double)(rng_state >> 11) / 9007199254740992.0;
}

static void generate(rp_ks_item *items, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		/* log-uniform size 8 B .. 8 KiB, rounded to the 4-byte unit */
		uint64_t size = (uint64_t)exp(log(8.0) + uniform() * (log(8192.0) - log(8.0)));
		items[i].weight = (size + 3) / 4 * 4;
		/* Zipf-like heat over a random order: a few functions hold most samples */
		double rank = 1.0 + uniform() * (double)n;
		items[i].value = uniform() < 0.6 ? 0 : (uint64_t)(1e6 / pow(rank, 1.1)) + 1;
	}
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int write_lp(const char *path, const rp_ks_item *items, size_t n, uint64_t cap)
{
	FILE *fp = fopen(path, "w");
	if (!fp)
		return -1;
	fprintf(fp, "Maximize\n obj:");
	for (size_t i = 0; i < n; i++)
		if (items[i].value)
			fprintf(fp, " + %llu x%zu%s", (unsigned long long)items[i].value, i, i % 8 == 7 ? "\n" : "");
	fprintf(fp, "\nSubject To\n budget:");
	for (size_t i = 0; i < n; i++)
		if (items[i].value)
			fprintf(fp, " + %llu x%zu%s", (unsigned long long)items[i].weight, i, i % 8 == 7 ? "\n" : "");
	fprintf(fp, " <= %llu\nBinary\n", (unsigned long long)cap);
	for (size_t i = 0; i < n; i++)
		if (items[i].value)
			fprintf(fp, " x%zu\n", i);
	fprintf(fp, "End\n");
	return fclose(fp);
}

/* Runs glpsol; returns its optimum (or -1) and the wall time in *secs. */
static double run_glpsol(const char *lp, double *secs)
{
	char cmd[512], out[256];
	snprintf(out, sizeof(out), "%s.sol", lp);
	snprintf(cmd, sizeof(cmd), "glpsol --lp %s --tmlim 300 -o %s >/dev/null 2>&1", lp, out);
	double t0 = now();
	int rc = system(cmd);
	*secs = now() - t0;
	if (rc != 0)
		return -1;
	FILE *fp = fopen(out, "r");
	char line[256];
	double obj = -1;
	while (fp && fgets(line, sizeof(line), fp))
		if (sscanf(line, "Objective: obj = %lf", &obj) == 1)
			break;
	if (fp)
		fclose(fp);
	unlink(out);
	return obj;
}

static int by_density(const void *a, const void *b, void *ctx)
{
	const rp_ks_item *items = ctx;
	const rp_ks_item *x = &items[*(const size_t *)a], *y = &items[*(const size_t *)b];
	double dx = (double)x->value / (double)x->weight, dy = (double)y->value / (double)y->weight;
	return dx < dy ? 1 : dx > dy ? -1 : 0;
}

static int by_value(const void *a, const void *b, void *ctx)
{
	const rp_ks_item *items = ctx;
	uint64_t x = items[*(const size_t *)a].value, y = items[*(const size_t *)b].value;
	return x < y ? 1 : x > y ? -1 : 0;
}

static uint64_t greedy(const rp_ks_item *items, size_t n, uint64_t cap,
		       int (*order)(const void *, const void *, void *))
{
	size_t *idx = malloc(n * sizeof(size_t));
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof(size_t), order, (void *)items);
	uint64_t used = 0, value = 0;
	for (size_t k = 0; k < n; k++) {
		const rp_ks_item *it = &items[idx[k]];
		if (used + it->weight <= cap) {
			used += it->weight;
			value += it->value;
		} else if (order == by_value) {
			break;   /* top-N: the hottest that fit in order, stopping at the first miss */
		}
	}
	free(idx);
	return value;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? (size_t)atol(argv[1]) : 12000;
	uint64_t cap = 96 * 1024;
	rp_err err = RP_ERR_INIT;
	if (argc > 2 && rp_parse_size(&cap, argv[2], "budget", &err)) {
		fprintf(stderr, "bench_knapsack: %s\n", err.msg);
		return 2;
	}
	rp_ks_item *items = malloc(n * sizeof(*items));
	unsigned char *chosen = malloc(n);
	generate(items, n);
	rp_ks_result res;
	double t0 = now();
	if (rp_knapsack_solve(items, n, cap, chosen, &res, &err)) {
		fprintf(stderr, "bench_knapsack: %s\n", err.msg);
		return 2;
	}
	double ours = now() - t0;
	char lp[] = "/tmp/rp-bench-XXXXXX";
	int fd = mkstemp(lp);
	close(fd);
	write_lp(lp, items, n, cap);
	double glp_secs;
	double glp_obj = run_glpsol(lp, &glp_secs);
	unlink(lp);
	uint64_t g_density = greedy(items, n, cap, by_density), g_top = greedy(items, n, cap, by_value);
	printf("knapsack n=%zu budget=%llu: optimum %llu in %.3f s (%zu chosen, %llu bytes)\n", n,
	       (unsigned long long)cap, (unsigned long long)res.value, ours, res.nchosen,
	       (unsigned long long)res.weight);
	if (glp_obj < 0)
		printf("glpsol: failed or not installed (apt-get install glpk-utils)\n");
	else
		printf("glpsol: optimum %.0f in %.3f s -> ramplace is %.1fx faster; optima %s\n", glp_obj, glp_secs,
		       glp_secs / ours, (uint64_t)glp_obj == res.value ? "agree" : "DIFFER");
	printf("greedy by density: %.4f of optimum; top-N by samples: %.4f of optimum\n",
	       (double)g_density / (double)res.value, (double)g_top / (double)res.value);
	free(items);
	free(chosen);
	return glp_obj >= 0 && (uint64_t)glp_obj != res.value ? 1 : 0;
}
