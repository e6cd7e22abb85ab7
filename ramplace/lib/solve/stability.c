/* stability.c: bootstrap resampling of a profile (stability.h): multinomial resamples of the
 * per-item sample counts at several sample counts, each re-solved by the exact knapsack, and
 * the verdict sentence. Owns the working arrays of one run and the per-item results it returns.
 * Workload: up to a few thousand sampled items, 50-2000 resamples per scale (RP_STAB_MAX_WORK
 * bounds items x resamples), a dozen scales at most; the knapsack on a resample of a few hundred
 * items takes tens of microseconds, so a verdict costs well under a second. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/knapsack.h"
#include "ramplace/stability.h"
#include "ramplace/util.h"

/* splitmix64: small, fast and seedable; no global state, so runs are reproducible. */
static uint64_t next_u64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double uniform(uint64_t *s)   /* in (0, 1) */
{
	return ((double)(next_u64(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static double normal(uint64_t *s)    /* Box-Muller, one of the pair */
{
	return sqrt(-2.0 * log(uniform(s))) * cos(6.283185307179586 * uniform(s));
}

/* Binomial(m, p). Below 30 expected successes by inversion (exact); above, the normal
 * approximation rounded, whose error (a fraction of a sample) is far below the noise measured. */
static uint64_t binomial(uint64_t *s, uint64_t m, double p)
{
	if (m == 0 || p <= 0.0)
		return 0;
	if (p >= 1.0)
		return m;
	if (p > 0.5)
		return m - binomial(s, m, 1.0 - p);
	double mean = (double)m * p;
	if (mean < 30.0) {
		double q = 1.0 - p, ratio = p / q, u = uniform(s);
		double r = exp((double)m * log1p(-p));   /* P(X = 0) = q^m, at least e^-60 here */
		uint64_t x = 0;
		while (u > r && x < m) {
			u -= r;
			x++;
			r *= ((double)(m - x + 1) / (double)x) * ratio;
			if (r <= 0.0)
				break;
		}
		return x;
	}
	double x = floor(mean + sqrt(mean * (1.0 - p)) * normal(s) + 0.5);
	return x <= 0.0 ? 0 : x >= (double)m ? m : (uint64_t)x;
}

typedef struct work {
	const rp_stab_item *items;
	size_t n;
	uint64_t rest, total, capacity;
	size_t *order;            /* items by count, largest first: the sequential draw ends early */
	rp_ks_item *ks;
	unsigned char *pick;
	double *values, *shares;  /* per resample */
	uint64_t seed;
} work;

/* One multinomial resample of m draws into ks[].value, by conditional binomials. */
static void resample(work *w, uint64_t *rng, uint64_t m)
{
	uint64_t left = m, mass = w->total;
	for (size_t k = 0; k < w->n; k++) {
		size_t i = w->order[k];
		uint64_t c = w->items[i].count;
		uint64_t x = left && mass ? binomial(rng, left, (double)c / (double)mass) : 0;
		w->ks[i].value = x;
		left -= x;
		mass -= c;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double percentile(double *v, unsigned n, double q)
{
	rp_sort(v, n, sizeof(double), cmp_double);
	size_t k = (size_t)floor(q * (double)(n - 1) + 0.5);
	return v[k < n ? k : n - 1];
}

/* The set chosen from one resample against the reference: same, Jaccard, kept value. */
static void compare(const work *w, const rp_stability *s, double *same, double *jac, double *kept)
{
	size_t both = 0, either = 0;
	uint64_t v = 0;
	for (size_t i = 0; i < w->n; i++) {
		both += w->pick[i] && s->chosen[i];
		either += w->pick[i] || s->chosen[i];
		if (w->pick[i])
			v += w->items[i].count;
	}
	*same = both == either;
	*jac = either ? (double)both / (double)either : 1.0;
	*kept = s->value ? (double)v / (double)s->value : 1.0;
}

static int run_level(work *w, rp_stability *s, const rp_stab_opts *o, unsigned R, double scale, size_t li,
		     rp_err *err)
{
	rp_stab_level *lv = &s->levels[s->nlevels];
	uint64_t rng = w->seed ^ (0x632be59bd9b4e019ull * (li + 1));
	double m_real = floor(scale * (double)w->total + 0.5);
	uint64_t m = m_real < 1.0 ? 1 : m_real > (double)RP_COUNT_MAX ? RP_COUNT_MAX : (uint64_t)m_real;
	double same = 0, jac = 0;
	memset(lv, 0, sizeof(*lv));
	for (unsigned r = 0; r < R; r++) {
		rp_ks_result res;
		resample(w, &rng, m);
		if (rp_knapsack_solve(w->ks, w->n, w->capacity, w->pick, &res, err))
			return err->code;
		double sm, jc;
		compare(w, s, &sm, &jc, &w->values[r]);
		same += sm;
		jac += jc;
		if (scale == 1.0) {
			uint64_t in = 0;
			for (size_t i = 0; i < w->n; i++) {
				s->inclusion[i] += w->pick[i];
				in += s->chosen[i] ? w->ks[i].value : 0;
			}
			w->shares[r] = (double)in / (double)m;
		}
	}
	*lv = (rp_stab_level){ scale, R, same / R, jac / R, percentile(w->values, R, 0.05), percentile(w->values, R, 0.5), 0 };
	lv->stable = lv->same >= o->same_goal || lv->value_p05 >= o->value_goal;
	if (scale == 1.0) {
		for (size_t i = 0; i < w->n; i++)
			s->inclusion[i] /= R;
		s->share_lo = percentile(w->shares, R, 0.05);
		s->share_hi = percentile(w->shares, R, 0.95);
		s->at_one = s->nlevels;
		s->stable = lv->stable;
	}
	s->nlevels++;
	return 0;
}

static int by_count_desc(const void *a, const void *b, void *arg)
{
	const rp_stab_item *it = arg;
	uint64_t x = it[*(const size_t *)a].count, y = it[*(const size_t *)b].count;
	if (x != y)
		return x > y ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static unsigned bounded_resamples(const rp_stab_opts *o, size_t n)
{
	unsigned R = o->resamples ? o->resamples : 1;
	if (R > RP_STAB_MAX_RESAMPLES)
		R = RP_STAB_MAX_RESAMPLES;
	if (n && (uint64_t)R * n > RP_STAB_MAX_WORK)
		R = (unsigned)(RP_STAB_MAX_WORK / n);
	return R < RP_STAB_MIN_RESAMPLES ? RP_STAB_MIN_RESAMPLES : R;
}

static int setup(work *w, rp_stability *s, const rp_stab_item *items, size_t n, unsigned R, rp_err *err)
{
	size_t nn = n ? n : 1;
	w->order = malloc(nn * sizeof(size_t));
	w->ks = malloc(nn * sizeof(rp_ks_item));
	w->pick = malloc(nn);
	w->values = malloc(R * sizeof(double));
	w->shares = malloc(R * sizeof(double));
	s->chosen = calloc(nn, 1);
	s->inclusion = calloc(nn, sizeof(double));
	if (!w->order || !w->ks || !w->pick || !w->values || !w->shares || !s->chosen || !s->inclusion)
		return rp_err_nomem(err, "resampling the profile");
	for (size_t i = 0; i < n; i++) {
		w->order[i] = i;
		w->ks[i] = (rp_ks_item){ items[i].weight, items[i].count };
		if (rp_count_add(&w->total, items[i].count))
			return rp_err_set(err, RP_EINPUT, "resampling the profile: the sample counts overflow");
	}
	if (rp_count_add(&w->total, w->rest))
		return rp_err_set(err, RP_EINPUT, "resampling the profile: the sample counts overflow");
	rp_sort_r(w->order, n, sizeof(size_t), by_count_desc, (void *)items);
	return 0;
}

/* Scales: (n/4, n/2,) n; when n is not enough, doubling until stable or max_scale, then one step
 * back by sqrt(2) to halve the estimate's error. */
static int run_levels(work *w, rp_stability *s, const rp_stab_opts *o, unsigned R, rp_err *err)
{
	size_t li = 0;
	if (o->fractions && (run_level(w, s, o, R, 0.25, li++, err) || run_level(w, s, o, R, 0.5, li++, err)))
		return err->code;
	if (run_level(w, s, o, R, 1.0, li++, err))
		return err->code;
	if (s->stable) {
		s->need_scale = 1.0;
		return 0;
	}
	double k = 2.0;
	for (; k <= o->max_scale && s->nlevels < RP_STAB_MAX_LEVELS - 1; k *= 2.0) {
		if (run_level(w, s, o, R, k, li++, err))
			return err->code;
		if (s->levels[s->nlevels - 1].stable)
			break;
	}
	if (!s->levels[s->nlevels - 1].stable)
		return 0;   /* need_scale stays 0: more than max_scale */
	s->need_scale = k;
	if (k >= 2.0 * 1.0) {
		rp_stab_level last = s->levels[s->nlevels - 1];
		s->nlevels--;   /* keep the levels in increasing scale */
		if (run_level(w, s, o, R, k / M_SQRT2, li++, err))
			return err->code;
		if (s->levels[s->nlevels - 1].stable)
			s->need_scale = k / M_SQRT2;
		s->levels[s->nlevels++] = last;
	}
	return 0;
}

int rp_stability_run(rp_stability *out, const rp_stab_item *items, size_t n, uint64_t rest,
		     uint64_t capacity, const rp_stab_opts *opts, rp_err *err)
{
	rp_stab_opts dflt = RP_STAB_OPTS_INIT;
	const rp_stab_opts *o = opts ? opts : &dflt;
	work w = { items, n, rest, 0, capacity, NULL, NULL, NULL, NULL, NULL, o->seed };
	unsigned R = bounded_resamples(o, n);
	rp_ks_result res;
	memset(out, 0, sizeof(*out));
	out->capacity = capacity;
	out->nitems = n;
	int rc = setup(&w, out, items, n, R, err);
	if (!rc)
		rc = rp_knapsack_solve(w.ks, n, capacity, out->chosen, &res, err);
	if (!rc) {
		out->samples = w.total;
		out->value = res.value;
		out->nchosen = res.nchosen;
		rc = run_levels(&w, out, o, R, err);
	}
	free(w.order);
	free(w.ks);
	free(w.pick);
	free(w.values);
	free(w.shares);
	return rc;
}

void rp_stability_release(rp_stability *s)
{
	free(s->chosen);
	free(s->inclusion);
	memset(s, 0, sizeof(*s));
}

/* "4 KiB", "1.5 KiB", "600 bytes" */
static void budget_text(char *buf, size_t size, uint64_t bytes)
{
	if (bytes >= 1024 && bytes % 1024 == 0)
		snprintf(buf, size, "%llu KiB", (unsigned long long)(bytes / 1024));
	else if (bytes >= 1024)
		snprintf(buf, size, "%.1f KiB", (double)bytes / 1024.0);
	else
		snprintf(buf, size, "%llu-byte", (unsigned long long)bytes);
}

/* How much more to record, from the smallest stable scale k: (k - 1) times what was recorded;
 * in whole runs when every run already went to the program's exit (a longer --duration then
 * gives nothing: a 2 s program recorded for 10 s is a 2 s profile). */
static void more_text(char *buf, size_t size, const rp_stability *s, const rp_stab_basis *basis)
{
	if (s->need_scale <= 0.0) {
		snprintf(buf, size, "even %.0fx the samples do not settle it (near-ties); use exact counts or a smaller "
			 "budget", s->levels[s->nlevels - 1].scale);
		return;
	}
	double more = s->need_scale - 1.0;
	if (basis && basis->whole_runs && basis->runs > 0) {
		double runs = ceil(more * (double)basis->runs);
		snprintf(buf, size, "record about %.0f more whole run%s into the same profile.db (each run so far went "
			 "to the program's exit, so only more runs add samples; runs add up: %.1fx the %llu samples)",
			 runs, runs == 1 ? "" : "s", s->need_scale, (unsigned long long)s->samples);
	} else if (basis && basis->seconds > 0)
		snprintf(buf, size, "record about %.0f s more (%.1fx the %llu samples)", ceil(more * basis->seconds),
			 s->need_scale, (unsigned long long)s->samples);
	else
		snprintf(buf, size, "record about %.0f more samples (%.1fx the %llu)", ceil(more * (double)s->samples),
			 s->need_scale, (unsigned long long)s->samples);
}

void rp_stability_verdict(char *buf, size_t size, const rp_stability *s, const rp_stab_basis *basis)
{
	char b[64], more[320];
	const rp_stab_level *lv = &s->levels[s->at_one];
	budget_text(b, sizeof(b), s->capacity);
	if (s->nlevels == 0) {
		snprintf(buf, size, "no stability estimate for the %s choice", b);
		return;
	}
	if (s->stable && lv->same >= 0.995)
		snprintf(buf, size, "the %s choice is stable: %.0f %% of %u resamples pick the same functions", b,
			 100.0 * lv->same, lv->resamples);
	else if (s->stable)   /* the sets differ only where it does not matter: near-ties, rare functions */
		snprintf(buf, size, "the %s choice is stable: 95 %% of %u resamples keep >= %.2f %% of its value (%.0f %% "
			 "pick exactly the same functions; the others differ in near-ties)", b, lv->resamples,
			 100.0 * lv->value_p05, 100.0 * lv->same);
	else {
		more_text(more, sizeof(more), s, basis);
		snprintf(buf, size, "too few samples for a %s decision (%.0f %% of %u resamples pick the same functions; "
			 "1 in 20 keeps < %.1f %% of its value): %s", b, 100.0 * lv->same, lv->resamples,
			 100.0 * lv->value_p05, more);
	}
}
