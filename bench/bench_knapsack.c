/* bench_knapsack.c: solve time of the exact knapsack on a generated firmware-like instance
 * (n functions, sizes spread like real code, samples concentrated Zipf-like on few functions)
 * against GLPK's glpsol on the same instance written as CPLEX LP; both optima must agree.
 * Also prints the value of greedy-by-density and top-N-by-samples baselines.
 *   bench_knapsack [N [BUDGET]]      default 12000 functions, 96K
 * and, on Pisinger's hard classes ("Where are the hard knapsack problems?", 2005), the time of
 * the expanding-core solver against the reduced DP and glpsol, with the optimum checked:
 *   bench_knapsack --class strong|subset|spanner N R   (weights 1..R, capacity half the sum) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ramplace/knapsack.h"
#include "ramplace/util.h"

#include "../tests/support/xorshift64.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double uniform(void)
{
	return (double)(xorshift64(&rng_state) >> 11) / 9007199254740992.0;
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
static double run_glpsol(const char *lp, int tmlim, double *secs)
{
	char cmd[512], out[256];
	snprintf(out, sizeof(out), "%s.sol", lp);
	snprintf(cmd, sizeof(cmd), "glpsol --lp %s --tmlim %d -o %s >/dev/null 2>&1", lp, tmlim, out);
	double t0 = now();
	int rc = system(cmd);
	*secs = now() - t0;
	if (rc != 0)
		return -1;   /* also when the time limit stopped it: no proven optimum */
	FILE *fp = fopen(out, "r");
	char line[256];
	double obj = -1;
	int optimal = 0;
	while (fp && fgets(line, sizeof(line), fp)) {
		if (strncmp(line, "Status:", 7) == 0)
			optimal = strstr(line, "INTEGER OPTIMAL") != NULL;
		if (sscanf(line, "Objective: obj = %lf", &obj) == 1)
			break;
	}
	if (!optimal)
		obj = -1;
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

typedef int (*solve_fn)(const rp_ks_item *, size_t, uint64_t, unsigned char *, rp_ks_result *, rp_err *);

/* Best wall time of a few runs (the first warms the caches); 0 on success. */
static int timed_solve(solve_fn fn, const rp_ks_item *items, size_t n, uint64_t cap, unsigned char *chosen,
		       rp_ks_result *res, double *secs)
{
	rp_err err = RP_ERR_INIT;
	*secs = 1e9;
	for (int round = 0; round < 5; round++) {
		double t0 = now();
		if (fn(items, n, cap, chosen, res, &err)) {
			fprintf(stderr, "bench_knapsack: %s\n", err.msg);
			return -1;
		}
		double t = now() - t0;
		*secs = t < *secs ? t : *secs;
		if (t > 1.0)
			break;   /* slow instances: one run says enough */
	}
	return 0;
}

static uint64_t rand_range(uint64_t lo, uint64_t hi)
{
	return lo + (uint64_t)(uniform() * (double)(hi - lo + 1));
}

/* Pisinger's classes, with weights 1..R; capacity is half the total weight. */
static uint64_t generate_hard(rp_ks_item *items, size_t n, uint64_t r, const char *cls)
{
	uint64_t sum = 0;
	if (strcmp(cls, "spanner") == 0) {
		/* spanner(2, 10) over strongly correlated spanner items */
		enum { V = 2, M = 10 };
		rp_ks_item span[V];
		for (int k = 0; k < V; k++) {
			uint64_t w = rand_range(1, r), p = w + r / 10;
			span[k].weight = (2 * w + M - 1) / M;
			span[k].value = (2 * p + M - 1) / M;
		}
		for (size_t i = 0; i < n; i++) {
			uint64_t a = rand_range(1, M);
			const rp_ks_item *sp = &span[rand_range(0, V - 1)];
			items[i].weight = a * sp->weight;
			items[i].value = a * sp->value;
		}
	} else {
		for (size_t i = 0; i < n; i++) {
			items[i].weight = rand_range(1, r);
			items[i].value = strcmp(cls, "subset") == 0 ? items[i].weight : items[i].weight + r / 10;
		}
	}
	for (size_t i = 0; i < n; i++)
		sum += items[i].weight;
	return sum / 2;
}

static int bench_hard(const char *cls, size_t n, uint64_t r)
{
	if (strcmp(cls, "strong") && strcmp(cls, "subset") && strcmp(cls, "spanner")) {
		fprintf(stderr, "bench_knapsack: --class: strong, subset or spanner\n");
		return 2;
	}
	rp_ks_item *items = malloc(n * sizeof(*items));
	unsigned char *chosen = malloc(n), *chosen_dp = malloc(n);
	uint64_t cap = generate_hard(items, n, r, cls);
	rp_ks_result res, dp;
	double ours, dp_secs;
	if (timed_solve(rp_knapsack_solve, items, n, cap, chosen, &res, &ours))
		return 2;
	printf("%-8s n=%-6zu R=%-6llu capacity %-9llu: core optimum %llu in %.4f s (proved: all partial solutions fathomed after %zu core steps, <= %zu states)\n",
	       cls, n, (unsigned long long)r, (unsigned long long)cap, (unsigned long long)res.value, ours,
	       res.core_steps, res.max_states);
	rp_err err = RP_ERR_INIT;
	double t0 = now();
	int dp_rc = rp_knapsack_solve_dp(items, n, cap, chosen_dp, &dp, &err);
	dp_secs = now() - t0;
	int bad = 0;
	if (dp_rc)
		printf("  reduced DP: %s\n", err.msg);
	else {
		bad |= dp.value != res.value || dp.weight != res.weight;
		printf("  reduced DP: optimum %llu in %.4f s -> core is %.1fx faster; optima %s (proof: two exact methods)\n",
		       (unsigned long long)dp.value, dp_secs, dp_secs / ours, bad ? "DIFFER" : "agree");
	}
	char lp[] = "/tmp/rp-bench-XXXXXX";
	int fd = mkstemp(lp);
	close(fd);
	write_lp(lp, items, n, cap);
	double glp_secs;
	double glp_obj = run_glpsol(lp, 10, &glp_secs);
	unlink(lp);
	if (glp_obj < 0)
		printf("  glpsol: no proven optimum within its 10 s limit\n");
	else {
		bad |= (uint64_t)glp_obj != res.value;
		printf("  glpsol: optimum %.0f in %.3f s -> core is %.0fx faster; optima %s\n", glp_obj, glp_secs,
		       glp_secs / ours, (uint64_t)glp_obj == res.value ? "agree" : "DIFFER");
	}
	free(items);
	free(chosen);
	free(chosen_dp);
	return bad;
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "--class") == 0)
		return bench_hard(argv[2], (size_t)atol(argv[3]), (uint64_t)atoll(argv[4]));
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
	double ours;
	if (timed_solve(rp_knapsack_solve, items, n, cap, chosen, &res, &ours))
		return 2;
	rp_ks_result dp;
	double dp_secs;
	if (timed_solve(rp_knapsack_solve_dp, items, n, cap, chosen, &dp, &dp_secs))
		return 2;
	char lp[] = "/tmp/rp-bench-XXXXXX";
	int fd = mkstemp(lp);
	close(fd);
	write_lp(lp, items, n, cap);
	double glp_secs;
	double glp_obj = run_glpsol(lp, 300, &glp_secs);
	unlink(lp);
	uint64_t g_density = greedy(items, n, cap, by_density), g_top = greedy(items, n, cap, by_value);
	printf("knapsack n=%zu budget=%llu: optimum %llu in %.2f ms (%zu chosen, %llu bytes; %zu core steps, <= %zu states)\n", n,
	       (unsigned long long)cap, (unsigned long long)res.value, ours * 1e3, res.nchosen,
	       (unsigned long long)res.weight, res.core_steps, res.max_states);
	printf("reduced DP (previous solver): optimum %llu in %.2f ms -> core is %.1fx faster; optima %s\n",
	       (unsigned long long)dp.value, dp_secs * 1e3, dp_secs / ours, dp.value == res.value ? "agree" : "DIFFER");
	if (glp_obj < 0)
		printf("glpsol: failed or not installed (apt-get install glpk-utils)\n");
	else
		printf("glpsol: optimum %.0f in %.3f s -> ramplace is %.0fx faster; optima %s\n", glp_obj, glp_secs,
		       glp_secs / ours, (uint64_t)glp_obj == res.value ? "agree" : "DIFFER");
	printf("greedy by density: %.4f of optimum; top-N by samples: %.4f of optimum\n",
	       (double)g_density / (double)res.value, (double)g_top / (double)res.value);
	free(items);
	free(chosen);
	return (glp_obj >= 0 && (uint64_t)glp_obj != res.value) || dp.value != res.value ? 1 : 0;
}
