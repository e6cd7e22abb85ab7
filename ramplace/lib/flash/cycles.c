/* cycles.c: per-function weights in cycles for placement (cycles.h). Owns the weights it
 * builds (a copy of the profile's totals with counts in cycles). Workload: a profile of up to
 * tens of thousands of functions; the measured stall cycles are matched to the samples by
 * (name, file) through one sorted pass, not a search per function. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/cycles.h"
#include "ramplace/util.h"

/* Copying to RAM at boot: a load (a flash read, at its stall) and a store per word. */
double rp_cycles_copy_cost(const rp_fm_cfg *model, uint64_t bytes)
{
	double words = (double)(bytes + 3) / 4.0;
	return words * (2.0 + rp_fm_fetch_estimate(model) / (model->kind == RP_FM_CACHE ? 1.0 : 2.0));
}

/* The model of the flash range holding f (the first model when the image does not know f), or
 * NULL when f lies in no range: it is not in flash, so it stalls nothing and is not moved. */
static const rp_fm_cfg *model_of(const rp_cycles *c, const rp_func *fn)
{
	if (!fn)
		return &c->model;
	int r = rp_fm_map_find(&c->models, fn->addr);
	return r < 0 ? NULL : &c->models.r[r].cfg;
}

static int same(const char *a, const char *b)
{
	return (!a || !*a) ? (!b || !*b) : b && strcmp(a, b) == 0;
}

/* A function's measured saving if it alone moves to RAM: its own stall cycles, and the stall
 * cycles of other functions' misses on lines it had evicted (the cache would have kept them).
 * Two functions that evict each other are each credited the other's misses: moving both saves
 * them once, so the sum overstates a pair, never a single move. */
typedef struct keyed {
	const char *name, *file;
	uint64_t stall;
} keyed;

static int by_key(const void *a, const void *b)
{
	const keyed *x = a, *y = b;
	int r = strcmp(x->name, y->name);
	return r ? r : strcmp(x->file ? x->file : "", y->file ? y->file : "");
}

/* The measured stall cycles of (name, file), by binary search in the sorted list. */
static uint64_t stall_of(const keyed *k, size_t n, const char *name, const char *file)
{
	keyed want = { name, file, 0 };
	const keyed *hit = bsearch(&want, k, n, sizeof(keyed), by_key);
	return hit && same(hit->file, file) ? hit->stall : 0;
}

/* Its own stall cycles and those it caused by eviction. Splitting each conflict miss between
 * victim and evictor (stall - victim/2 + evicted/2) keeps the sum equal to the measured stall
 * but halves what moving either one alone saves; measured on bench/bench_models.sh the two
 * place alike (docs/cost-models.md), and the single move is what the knapsack mostly decides. */
static uint64_t attributed(const rp_cost_total *f)
{
	return f->stall + f->evicted;
}

static void choose_model(rp_cycles *c, const rp_fm_map *models, const rp_db_costs *costs)
{
	int have = costs && costs->nruns && strcmp(costs->model, "mixed") != 0;
	char why[200];
	c->model_default = !models;
	if (models)
		c->models = *models;
	else if (!have || rp_fm_map_parse(&c->models, costs->model, why, sizeof(why)) != 0)
		rp_fm_map_parse(&c->models, RP_CYCLES_DEFAULT_MODEL, why, sizeof(why));
	c->model = c->models.r[0].cfg;
	if (rp_fm_map_name(&c->models, c->model_name, sizeof(c->model_name)) != 0)
		snprintf(c->model_name, sizeof(c->model_name), "%s and %zu more", c->model.name, c->models.n - 1);
	c->measured = have && strcmp(costs->model, c->model_name) == 0;
	if (c->measured)
		return;
	char rate[64];   /* one model: its rate per sample; several: each function's range's */
	if (c->models.n > 1)
		snprintf(rate, sizeof(rate), "stall cycles per sample by each function's flash range");
	else
		snprintf(rate, sizeof(rate), "%.3g stall cycles per sample", rp_fm_fetch_estimate(&c->model));
	if (!costs || !costs->nruns)
		snprintf(c->estimated_why, sizeof(c->estimated_why), "estimated: %s (the profile has no stall cycles; the "
			 "QEMU plugin's model= measures them)", rate);
	else
		snprintf(c->estimated_why, sizeof(c->estimated_why), "estimated: %s (the profile's stall cycles are for %s, "
			 "not %s)", rate, costs->model, c->model_name);
}

int rp_cycles_prepare(rp_cycles *c, const rp_fm_map *models, const rp_db_totals *samples, const rp_db_costs *costs,
		      const rp_image *img, rp_err *err)
{
	memset(c, 0, sizeof(*c));
	choose_model(c, models, costs);
	c->per_sample = c->measured ? 0.0 : rp_fm_fetch_estimate(&c->model);
	keyed *k = calloc(c->measured && costs->nfuncs ? costs->nfuncs : 1, sizeof(keyed));
	c->weights = *samples;
	c->weights.funcs = calloc(samples->nfuncs ? samples->nfuncs : 1, sizeof(rp_func_total));
	/* the weights' rows are the samples' rows, in their order: the same binding holds */
	c->weights.func_of = samples->func_of ? malloc((samples->nfuncs ? samples->nfuncs : 1) * sizeof(size_t)) : NULL;
	if (!k || !c->weights.funcs || (samples->func_of && !c->weights.func_of)) {
		free(k);
		free(c->weights.funcs);
		free(c->weights.func_of);
		c->weights.funcs = NULL;
		c->weights.func_of = NULL;
		c->weights.bound_to = NULL;
		c->weights.nfuncs = 0;
		return rp_err_nomem(err, "weighing functions in cycles");
	}
	if (samples->func_of)
		memcpy(c->weights.func_of, samples->func_of, samples->nfuncs * sizeof(size_t));
	size_t nk = 0;
	for (size_t i = 0; c->measured && i < costs->nfuncs; i++)
		k[nk++] = (keyed){ costs->funcs[i].name, costs->funcs[i].file, attributed(&costs->funcs[i]) };
	rp_sort(k, nk, sizeof(keyed), by_key);
	c->insns = (double)samples->total;
	c->stall = c->measured ? (double)(costs->fetch_stall + costs->read_stall) : c->insns * c->per_sample;
	/* estimated: each function at its own range's model below; samples in no function known at
	 * the first model's per_sample */
	c->weights.total = 0;
	c->weights.nfuncs = 0;   /* counts the rows filled below, so a failure part-way frees only those */
	int rc = 0;
	for (size_t i = 0; !rc && i < samples->nfuncs; i++) {
		const rp_func_total *f = &samples->funcs[i];
		rp_func_total *w = &c->weights.funcs[c->weights.nfuncs];
		const rp_func *fn = rp_db_totals_func(samples, img, i);
		const rp_fm_cfg *m = model_of(c, fn);
		double est = m ? (double)f->count * rp_fm_fetch_estimate(m) : 0.0;
		double stall = c->measured ? (double)stall_of(k, nk, f->func, f->file) : est;
		double net = stall - (fn && m ? rp_cycles_copy_cost(m, fn->size) : 0.0);
		if (!c->measured)
			c->stall += est - (double)f->count * c->per_sample;
		if (f->count && net <= 0 && strcmp(f->func, "<unknown>") != 0) {
			c->nnot_worth++;
			c->not_worth_insns += f->count;
		}
		if ((rc = rp_strdup(&w->func, f->func, err)) || (f->file && (rc = rp_strdup(&w->file, f->file, err))))
			break;
		w->count = net > 0 ? (uint64_t)(net + 0.5) : 0;
		w->samples = (double)w->count;
		c->weights.total += w->count;
		c->weights.nfuncs++;
	}
	free(k);
	return rc;
}

double rp_cycles_before(const rp_cycles *c)
{
	return c->insns + c->stall;
}

void rp_cycles_release(rp_cycles *c)
{
	rp_db_totals_release(&c->weights);
	memset(c, 0, sizeof(*c));
}
