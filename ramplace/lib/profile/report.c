/* report.c: the profile model behind every report (rp_profile_build) and the text tables in
 * gprof's and iprof's layouts (see report.h). The model borrows names from the totals and arcs
 * it was built from, but owns those of the functions that "<unknown>" samples past their end
 * were credited to, as gprof credits them. Times propagate along arcs like gprof's (a callee's
 * time is shared among its callers in proportion to the calls), in reverse topological order;
 * arcs that close a cycle carry no time (gprof would collapse the cycle into one node instead). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/report.h"
#include "ramplace/util.h"

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

static int key_cmp(const char *an, const char *af, const char *bn, const char *bf)
{
	int c = strcmp(an, bn);
	return c ? c : strcmp(or_empty(af), or_empty(bf));
}

/* The functions being collected, with an open-addressing hash of (name, file) over p->fns, so
 * that a profile of 50,000 functions builds in linear time (a linear search made it quadratic:
 * minutes for the HTML report of such a firmware). */
typedef struct fn_table {
	size_t cap;               /* of p->fns */
	size_t *slots;            /* index + 1 into p->fns, 0 empty */
	size_t nslots;            /* a power of two, at least twice p->nfns */
} fn_table;

static size_t key_hash(const char *name, const char *file)
{
	size_t h = 14695981039346656037u;
	for (const unsigned char *s = (const unsigned char *)name; *s; s++)
		h = (h ^ *s) * 1099511628211u;
	for (const unsigned char *s = (const unsigned char *)or_empty(file); *s; s++)
		h = (h ^ *s) * 1099511628211u;
	return h;
}

static size_t *slot_of(const rp_profile *p, const fn_table *t, const char *name, const char *file)
{
	size_t i = key_hash(name, file) & (t->nslots - 1);
	while (t->slots[i] && key_cmp(p->fns[t->slots[i] - 1].name, p->fns[t->slots[i] - 1].file, name, file) != 0)
		i = (i + 1) & (t->nslots - 1);
	return &t->slots[i];
}

static int rehash(const rp_profile *p, fn_table *t, rp_err *err)
{
	size_t n = t->nslots ? t->nslots * 2 : 64;
	size_t *slots = calloc(n, sizeof(size_t));
	if (!slots)
		return rp_err_nomem(err, "building the profile");
	free(t->slots);
	t->slots = slots;
	t->nslots = n;
	for (size_t k = 0; k < p->nfns; k++)
		*slot_of(p, t, p->fns[k].name, p->fns[k].file) = k + 1;
	return 0;
}

/* Index of (name, file) in p->fns, adding it when missing; SIZE_MAX on allocation failure. */
static size_t fn_index(rp_profile *p, fn_table *t, const char *name, const char *file, rp_err *err)
{
	if ((p->nfns + 1) * 2 > t->nslots && rehash(p, t, err))
		return SIZE_MAX;
	size_t *slot = slot_of(p, t, name, file);
	if (*slot)
		return *slot - 1;
	if (rp_grow((void **)&p->fns, &t->cap, p->nfns + 1, sizeof(*p->fns), err))
		return SIZE_MAX;
	memset(&p->fns[p->nfns], 0, sizeof(*p->fns));
	p->fns[p->nfns].name = name;
	p->fns[p->nfns].file = file;
	*slot = p->nfns + 1;
	return p->nfns++;
}

static int is_unknown(const char *name)
{
	return strcmp(name, "<unknown>") == 0;
}

static int cmp_flat(const void *a, const void *b)
{
	const rp_prof_fn *x = a, *y = b;
	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return key_cmp(x->name, x->file, y->name, y->file);
}

/* Depth-first post-order over callee arcs: callees before callers. */
static void visit(const rp_profile *p, size_t f, unsigned char *state, size_t *order, size_t *n,
		  unsigned char *back)
{
	state[f] = 1;
	for (size_t i = 0; i < p->narcs; i++) {
		const rp_prof_arc *a = &p->arcs[i];
		if (a->caller != f || a->callee == f)
			continue;
		if (state[a->callee] == 1)
			back[i] = 1;
		else if (state[a->callee] == 0)
			visit(p, a->callee, state, order, n, back);
	}
	state[f] = 2;
	order[(*n)++] = f;
}

static int propagate(rp_profile *p, rp_err *err)
{
	unsigned char *state = calloc(p->nfns + 1, 1), *back = calloc(p->narcs + 1, 1);
	size_t *order = calloc(p->nfns + 1, sizeof(size_t)), n = 0;
	if (!state || !back || !order) {
		free(state);
		free(back);
		free(order);
		return rp_err_nomem(err, "building the call graph");
	}
	for (size_t f = 0; f < p->nfns; f++)
		if (!state[f])
			visit(p, f, state, order, &n, back);
	for (size_t k = 0; k < n; k++) {
		size_t f = order[k];   /* every callee of f is final by now (but for back arcs) */
		for (size_t i = 0; i < p->narcs; i++) {
			rp_prof_arc *a = &p->arcs[i];
			if (a->caller != f || a->callee == f || back[i] || !p->fns[a->callee].calls)
				continue;
			const rp_prof_fn *c = &p->fns[a->callee];
			double share = (double)a->count / (double)c->calls;
			a->self = c->self * share;
			a->child = c->child * share;
			p->fns[f].child += a->self + a->child;
		}
	}
	free(state);
	free(back);
	free(order);
	return 0;
}

static int add_arcs(rp_profile *p, fn_table *cap, const rp_arc_total *arcs, size_t narcs, rp_err *err)
{
	size_t acap = 0;
	for (size_t i = 0; i < narcs; i++) {
		/* like gprof, an arc with an end outside every function is not a call */
		if (is_unknown(arcs[i].caller) || is_unknown(arcs[i].callee))
			continue;
		size_t from = fn_index(p, cap, arcs[i].caller, arcs[i].caller_file, err);
		size_t to = from == SIZE_MAX ? SIZE_MAX : fn_index(p, cap, arcs[i].callee, arcs[i].callee_file, err);
		if (to == SIZE_MAX || rp_grow((void **)&p->arcs, &acap, p->narcs + 1, sizeof(*p->arcs), err))
			return err->code;
		p->arcs[p->narcs++] = (rp_prof_arc){ from, to, arcs[i].count, 0, 0 };
		if (from == to)
			p->fns[to].self_calls += arcs[i].count;
		else
			p->fns[to].calls += arcs[i].count;
	}
	return 0;
}

/* Sorting moves the functions: arcs follow through a permutation. */
static int sort_fns(rp_profile *p, rp_err *err)
{
	size_t *where = malloc((p->nfns + 1) * sizeof(size_t));
	if (!where)
		return rp_err_nomem(err, "sorting the profile");
	for (size_t i = 0; i < p->nfns; i++)
		p->fns[i].index = (int)i;  /* old position, temporarily */
	if (p->nfns)   /* rp_sort(NULL, 0, ...) is undefined */
		rp_sort(p->fns, p->nfns, sizeof(*p->fns), cmp_flat);
	for (size_t i = 0; i < p->nfns; i++)
		where[p->fns[i].index] = i;
	for (size_t i = 0; i < p->narcs; i++) {
		p->arcs[i].caller = where[p->arcs[i].caller];
		p->arcs[i].callee = where[p->arcs[i].callee];
	}
	free(where);
	return 0;
}

/* gprof numbers call-graph entries by total time (self + children), then name. */
static int by_total(const void *a, const void *b, void *arg)
{
	const rp_prof_fn *f = &((const rp_prof_fn *)arg)[*(const size_t *)a], *g = &((const rp_prof_fn *)arg)[*(const size_t *)b];
	double tf = f->self + f->child, tg = g->self + g->child;
	if (tf != tg)
		return tf > tg ? -1 : 1;
	return key_cmp(f->name, f->file, g->name, g->file);
}

static int by_name(const void *a, const void *b, void *arg)
{
	const rp_prof_fn *fns = arg;
	return strcmp(fns[*(const size_t *)a].name, fns[*(const size_t *)b].name);
}

/* Call-graph indexes by total time, and show_file where a name is shared: by sorting, not by
 * comparing every pair (50,000 functions). */
static int number_fns(rp_profile *p, rp_err *err)
{
	size_t *order = malloc((p->nfns ? p->nfns : 1) * sizeof(size_t));
	if (!order)
		return rp_err_nomem(err, "building the profile");
	for (size_t i = 0; i < p->nfns; i++)
		order[i] = i;
	rp_sort_r(order, p->nfns, sizeof(size_t), by_total, p->fns);
	for (size_t k = 0; k < p->nfns; k++)
		p->fns[order[k]].index = (int)k + 1;
	rp_sort_r(order, p->nfns, sizeof(size_t), by_name, p->fns);
	for (size_t k = 1; k < p->nfns; k++)
		if (strcmp(p->fns[order[k]].name, p->fns[order[k - 1]].name) == 0)
			p->fns[order[k]].show_file = p->fns[order[k - 1]].show_file = 1;
	free(order);
	return 0;
}

/* For an "<unknown>" row that names the function below its samples: that function's name and
 * file (kept in p->names), and 1; else 0 and the row's own, or a negative code. */
static int after_names(rp_profile *p, const rp_func_total *ft, const char **name, const char **file, rp_err *err)
{
	char *n = NULL, *f = NULL;
	int rc = rp_db_unknown_after(ft, &n, &f, err);
	if (rc <= 0)
		return rc;
	if (rp_grow((void **)&p->names, &p->names_cap, p->nnames + 2, sizeof(*p->names), err)) {
		free(n);
		free(f);
		return err->code;
	}
	p->names[p->nnames++] = n;
	if (f)
		p->names[p->nnames++] = f;
	*name = n;
	*file = f;
	return 1;
}

int rp_profile_build(rp_profile *p, const rp_db_totals *t, const rp_arc_total *arcs, size_t narcs, rp_err *err)
{
	fn_table cap = { 0 };
	memset(p, 0, sizeof(*p));
	p->rate_hz = t->rate_hz;
	p->sampled_arcs = t->sampled_arcs;
	p->unit = t->rate_hz > 0 ? "seconds" : "samples";
	p->total = t->rate_hz > 0 ? t->taken_seconds : t->taken;
	p->total_count = t->taken_count;
	for (size_t i = 0; i < t->nfuncs; i++) {
		const rp_func_total *ft = &t->funcs[i];
		const char *name = ft->func, *file = ft->file;
		/* gprof's symbols reach up to the next one: what lies past a function's end (the PLT
		 * after _init) is that function's */
		int outside = after_names(p, ft, &name, &file, err);
		if (outside < 0)
			goto fail;
		size_t k = fn_index(p, &cap, name, file, err);
		if (k == SIZE_MAX)
			goto fail;
		double v = t->rate_hz > 0 ? ft->seconds : ft->samples;
		p->fns[k].self += v;
		if (rp_count_add(&p->fns[k].count, ft->count))   /* within the checked sum of them all */
			p->fns[k].count = RP_COUNT_MAX;
		if (outside)
			p->fns[k].outside += v;
	}
	if (add_arcs(p, &cap, arcs, narcs, err) || propagate(p, err) || sort_fns(p, err) || number_fns(p, err))
		goto fail;
	free(cap.slots);
	return 0;
fail:
	free(cap.slots);
	rp_profile_release(p);
	return err->code;
}

void rp_profile_release(rp_profile *p)
{
	for (size_t i = 0; i < p->nnames; i++)
		free(p->names[i]);
	free(p->names);
	free(p->fns);
	free(p->arcs);
	memset(p, 0, sizeof(*p));
}

static void print_name(FILE *out, const rp_prof_fn *f)
{
	fputs(f->name, out);
	if (f->show_file && f->file)
		fprintf(out, " (%s)", f->file);
}

/* gprof scales per-call times so the largest lands in [1, 1000): s, ms, us, ns ... */
static void per_call_unit(const rp_profile *p, double *scale, char *prefix)
{
	static const struct { char prefix; double scale; } si[] = {
		{ 'T', 1e-12 }, { 'G', 1e-9 }, { 'M', 1e-6 }, { 'K', 1e-3 }, { ' ', 1 }, { 'm', 1e3 },
		{ 'u', 1e6 }, { 'n', 1e9 }, { 'p', 1e12 }, { 'f', 1e15 }, { 'a', 1e18 }
	};
	double top = 0;
	size_t k = 0;
	*scale = 1;
	*prefix = ' ';
	if (p->rate_hz <= 0)
		return;
	for (size_t i = 0; i < p->nfns; i++)
		if (p->fns[i].calls && (p->fns[i].self + p->fns[i].child) / (double)p->fns[i].calls > top)
			top = (p->fns[i].self + p->fns[i].child) / (double)p->fns[i].calls;
	if (top <= 0)
		return;
	for (k = 0; k < sizeof(si) / sizeof(si[0]); k++)
		if (si[k].scale * top >= 1.0 && si[k].scale * top < 1000.0)
			break;
	if (k == sizeof(si) / sizeof(si[0]))
		return;
	*scale = si[k].scale;
	*prefix = si[k].prefix;
}

/* Digits for sample counts: none when every one is whole (sampled or counted, no rate), else
 * gprof's two, as for seconds or for shares of split histogram bins. */
static int count_digits(const rp_profile *p)
{
	if (p->rate_hz > 0)
		return 2;
	for (size_t i = 0; i < p->nfns; i++)
		if (p->fns[i].self != floor(p->fns[i].self))
			return 2;
	return 0;
}

/* A share of whole samples, from the exact counts: a double would round counts past 2^53 (and
 * their sum), a long double holds every uint64_t; no product can overflow it. */
static long double count_share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0L * (long double)part / (long double)whole : 0.0L;
}

/* "% time", cumulative and self of one flat row: in whole samples from the exact counts, else
 * (seconds, split bins) from the doubles with two digits. */
static void print_flat_times(FILE *out, const rp_profile *p, const rp_prof_fn *f, int digits, double total,
			     double accum, uint64_t accum_count)
{
	if (digits == 0 && p->rate_hz <= 0)
		fprintf(out, "%6.2Lf %9llu %8llu", count_share(f->count, p->total_count ? p->total_count : 1),
			(unsigned long long)accum_count, (unsigned long long)f->count);
	else
		fprintf(out, "%6.2f %9.*f %8.*f", 100 * f->self / total, digits, accum, digits, f->self);
}

void rp_report_flat(FILE *out, const rp_profile *p, long limit)
{
	double scale, accum = 0, total = p->total > 0 ? p->total : 1.0, outside = 0;
	uint64_t accum_count = 0;
	char prefix, unit[16];
	int digits = count_digits(p);
	per_call_unit(p, &scale, &prefix);
	if (p->rate_hz > 0)
		fprintf(out, "\nEach sample counts as %g seconds.\n", 1.0 / p->rate_hz);
	else if (p->exact)
		fprintf(out, "\nEach sample counts as 1 executed instruction (exact counts)%s.\n",
			p->stall ? "; \"flash stall\" is the cycles its fetches and literal reads waited on flash" : "");
	else
		fprintf(out, "\nEach sample counts as 1 sample (no sampling rate known).\n");
	/* sampled arcs count samples whose return address lay in the caller, not calls: no
	 * per-call times from them */
	if (p->sampled_arcs)
		unit[0] = '\0';
	else
		snprintf(unit, sizeof(unit), p->rate_hz > 0 ? "%cs/call" : "smp/call", prefix);
	if (p->total <= 0)
		fprintf(out, " no time accumulated\n\n");
	fprintf(out, "%5.5s %10.10s %8.8s", "%  ", "cumulative", "self  ");
	if (p->stall)
		fprintf(out, " %12.12s", "flash stall");
	fprintf(out, " %8.8s %8.8s %8.8s  %-8.8s\n", "", p->sampled_arcs ? "" : "self  ", p->sampled_arcs ? "" : "total ", "");
	fprintf(out, "%5.5s %9.9s  %8.8s", "time", p->unit, p->unit);
	if (p->stall)
		fprintf(out, " %12.12s", "cycles");
	fprintf(out, " %8.8s %8.8s %8.8s  %-8.8s\n", p->sampled_arcs ? "arcs" : "calls", unit, unit, "name");
	long shown = 0;
	for (size_t i = 0; i < p->nfns && (limit < 0 || shown < limit); i++) {
		const rp_prof_fn *f = &p->fns[i];
		if (f->self == 0 && f->calls == 0)
			continue;
		shown++;
		accum += f->self;
		if (rp_count_add(&accum_count, f->count))
			accum_count = RP_COUNT_MAX;
		outside += f->outside;
		print_flat_times(out, p, f, digits, total, accum, accum_count);
		if (p->stall)
			fprintf(out, " %12llu", (unsigned long long)p->stall[i]);
		if (f->calls && !p->sampled_arcs)
			fprintf(out, " %8llu %8.2f %8.2f  ", (unsigned long long)f->calls,
				scale * f->self / (double)f->calls, scale * (f->self + f->child) / (double)f->calls);
		else if (f->calls)
			fprintf(out, " %8llu %8.8s %8.8s  ", (unsigned long long)f->calls, "", "");
		else
			fprintf(out, " %8.8s %8.8s %8.8s  ", "", "", "");
		print_name(out, f);
		fputc('\n', out);
	}
	if (outside > 0)
		fprintf(out, "\n%.*f of these %s lie past a function's end where no function is (such as the PLT)\n"
			"and are counted to the function before them, as gprof does.\n", digits, outside, p->unit);
}

static void print_ref(FILE *out, const rp_prof_fn *f)
{
	print_name(out, f);
	fprintf(out, " [%d]\n", f->index);
}

/* One line for a parent or child arc, in gprof's columns. */
static void print_arc(FILE *out, const rp_profile *p, const rp_prof_arc *a, size_t other, uint64_t of)
{
	if (a->caller == a->callee)
		fprintf(out, "%6s %5s %7s %7s %7llu %7s     ", "", "", "", "", (unsigned long long)a->count, "");
	else
		fprintf(out, "%6s %5s %7.2f %7.2f %7llu/%-7llu     ", "", "", a->self, a->child,
			(unsigned long long)a->count, (unsigned long long)of);
	print_ref(out, &p->fns[other]);
}

/* gprof lists parents by increasing time, children by decreasing (ties: count, name). */
static int arc_before(const rp_profile *p, const rp_prof_arc *a, const rp_prof_arc *b, int parents)
{
	double ta = a->self + a->child, tb = b->self + b->child;
	if (ta != tb)
		return parents ? ta < tb : ta > tb;
	if (a->count != b->count)
		return parents ? a->count < b->count : a->count > b->count;
	size_t ea = parents ? a->caller : a->callee, eb = parents ? b->caller : b->callee;
	return strcmp(p->fns[ea].name, p->fns[eb].name) < 0;
}

/* The arcs into (parents) or out of k, in gprof's order; returns how many (ix has narcs slots). */
static size_t sorted_arcs(const rp_profile *p, size_t k, int parents, size_t *ix)
{
	size_t n = 0;
	for (size_t i = 0; i < p->narcs; i++) {
		if ((parents ? p->arcs[i].callee : p->arcs[i].caller) != k)
			continue;
		size_t j = n++;
		while (j > 0 && arc_before(p, &p->arcs[i], &p->arcs[ix[j - 1]], parents)) {
			ix[j] = ix[j - 1];
			j--;
		}
		ix[j] = i;
	}
	return n;
}

static void print_entry(FILE *out, const rp_profile *p, size_t k, double total, size_t *ix)
{
	const rp_prof_fn *f = &p->fns[k];
	int parents = 0;
	for (size_t i = 0; i < p->narcs; i++)
		if (p->arcs[i].callee == k && p->arcs[i].caller != k)
			parents++;
	if (!parents)
		fprintf(out, "%6s %5s %7s %7s %7s %7s     <spontaneous>\n", "", "", "", "", "", "");
	size_t n = sorted_arcs(p, k, 1, ix);
	for (size_t i = 0; i < n; i++)
		print_arc(out, p, &p->arcs[ix[i]], p->arcs[ix[i]].caller, f->calls);
	char idx[16];
	snprintf(idx, sizeof(idx), "[%d]", f->index);
	fprintf(out, "%-6.6s %5.1f %7.2f %7.2f", idx, 100 * (f->self + f->child) / total, f->self, f->child);
	if (f->calls && f->self_calls)
		fprintf(out, " %7llu+%-7llu ", (unsigned long long)f->calls, (unsigned long long)f->self_calls);
	else if (f->calls || f->self_calls)
		fprintf(out, " %7llu %7s ", (unsigned long long)(f->calls + f->self_calls), "");
	else
		fprintf(out, " %7s %7s ", "", "");
	print_ref(out, f);
	n = sorted_arcs(p, k, 0, ix);
	for (size_t i = 0; i < n; i++)
		print_arc(out, p, &p->arcs[ix[i]], p->arcs[ix[i]].callee, p->fns[p->arcs[ix[i]].callee].calls);
	fprintf(out, "-----------------------------------------------\n");
}

void rp_report_callgraph(FILE *out, const rp_profile *p)
{
	/* gprof's percentages here are of the time it credited to functions */
	double total = 0;
	for (size_t k = 0; k < p->nfns; k++)
		total += p->fns[k].self;
	size_t *ix = malloc((p->narcs + 1) * sizeof(size_t));
	if (!ix)
		return;
	if (total <= 0)
		total = 1.0;
	fprintf(out, "\t\t\tCall graph\n\n\nindex %% time    self  children    %-6s     name\n",
		p->sampled_arcs ? "arcs" : "called");
	for (int idx = 1; idx <= (int)p->nfns; idx++)
		for (size_t k = 0; k < p->nfns; k++) {
			const rp_prof_fn *f = &p->fns[k];
			if (f->index != idx)
				continue;
			/* gprof lists functions that took time or were called */
			if (f->self + f->child > 0 || f->calls || f->self_calls)
				print_entry(out, p, k, total, ix);
		}
	free(ix);
}

void rp_report_addresses(FILE *out, const rp_profile *p, const rp_image *img, long limit)
{
	double total = 0, cum = 0;
	uint64_t total_count = 0, cum_count = 0;
	int exact = p->rate_hz <= 0;   /* cycles are whole samples: print the exact counts */
	for (size_t i = 0; i < p->nfns; i++) {
		total += p->fns[i].self;
		if (rp_count_add(&total_count, p->fns[i].count))
			total_count = RP_COUNT_MAX;
	}
	fprintf(out, "--------------------------------------------------------------\n");
	if (img)
		fprintf(out, "%s\n\n", img->path);
	fprintf(out, "%8s %9s %8s  %10s %s\n", "cycles", "%", "cum%", "addr", "function");
	long shown = 0;
	for (size_t i = 0; i < p->nfns && (limit < 0 || shown < limit); i++) {
		const rp_prof_fn *f = &p->fns[i];
		if (f->self <= 0)
			continue;
		shown++;
		cum += f->self;
		cum_count += f->count;   /* within total_count */
		const rp_func *fn = img && !is_unknown(f->name) ? rp_image_func_by_name(img, f->name, f->file) : NULL;
		char addr[24] = "         -";
		if (fn)
			snprintf(addr, sizeof(addr), "0x%08llx", (unsigned long long)fn->addr);
		if (exact)
			fprintf(out, "%8llu %8.2Lf%% %7.2Lf%%  %10s ", (unsigned long long)f->count,
				count_share(f->count, total_count), count_share(cum_count, total_count), addr);
		else
			fprintf(out, "%8.0f %8.2f%% %7.2f%%  %10s ", f->self, total > 0 ? 100 * f->self / total : 0.0,
				total > 0 ? 100 * cum / total : 0.0, addr);
		print_name(out, f);
		fputc('\n', out);
	}
	if (exact)
		fprintf(out, "%8llu    Total\n", (unsigned long long)total_count);
	else
		fprintf(out, "%8.0f    Total\n", total);
	fprintf(out, "--------------------------------------------------------------\n");
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

void rp_report_by_image(FILE *out, const rp_run_row *runs, size_t nruns)
{
	double total = 0, cum = 0;
	size_t nimg = 0;
	const rp_run_row **first = calloc(nruns + 1, sizeof(*first));
	double *sum = calloc(nruns + 1, sizeof(*sum));
	if (!first || !sum) {
		free(first);
		free(sum);
		return;
	}
	for (size_t i = 0; i < nruns; i++) {
		size_t k = 0;
		while (k < nimg && strcmp(first[k]->build_id, runs[i].build_id) != 0)
			k++;
		if (k == nimg)
			first[nimg++] = &runs[i];
		sum[k] += runs[i].samples;
		total += runs[i].samples;
	}
	/* most samples first (a selection sort: a handful of images) */
	for (size_t i = 0; i < nimg; i++)
		for (size_t j = i + 1; j < nimg; j++)
			if (sum[j] > sum[i]) {
				double ts = sum[i];
				const rp_run_row *tr = first[i];
				sum[i] = sum[j], first[i] = first[j];
				sum[j] = ts, first[j] = tr;
			}
	fprintf(out, "--------------------------------------------------------------\n");
	fprintf(out, "%8s %9s %8s  %s\n", "cycles", "%", "cum%", "image");
	for (size_t i = 0; i < nimg; i++) {
		cum += sum[i];
		fprintf(out, "%8.0f %8.2f%% %7.2f%%  %s\n", sum[i], total > 0 ? 100 * sum[i] / total : 0.0,
			total > 0 ? 100 * cum / total : 0.0, base_name(first[i]->image_path));
	}
	fprintf(out, "%8.0f       Total\n", total);
	fprintf(out, "--------------------------------------------------------------\n");
	free(first);
	free(sum);
}
