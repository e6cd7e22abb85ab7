/* pipe_layout.c: place --trace: the RAM set and the order of what stays in flash chosen
 * together on the plugin's access trace (layout.h), after the placement and before its figures.
 * The plan keeps the units that pay under the model; the hot sections that stay in flash are
 * written, in order, to flashtext.ld (GNU ld: INCLUDEd at the start of the text output
 * section, ahead of its catch-all) and flashtext.order (ld.lld's --symbol-ordering-file)
 * beside the first fragment. Owns the trace, the choice and the written names. Workload: one
 * trace of a few million accesses, one search. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline_internal.h"
#include "ramplace/util.h"

static int refuse(rp_err *err, const char *why)
{
	return rp_err_set(err, RP_EUSAGE, "--trace: %s", why);
}

/* Plan units by value, the most first: the weight the solver placed them for (samples, or
 * stall cycles saved), ties by index. The plan itself lists them by alignment. */
static int by_value(const void *a, const void *b, void *arg)
{
	const rp_plan *plan = arg;
	const rp_plan_unit *x = &plan->units[*(const size_t *)a], *y = &plan->units[*(const size_t *)b];
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

static int value_order(const rp_plan *plan, size_t **order, rp_err *err)
{
	if (!(*order = malloc((plan->nunits ? plan->nunits : 1) * sizeof(size_t))))
		return rp_err_nomem(err, "laying out");
	for (size_t u = 0; u < plan->nunits; u++)
		(*order)[u] = u;
	rp_sort_r(*order, plan->nunits, sizeof(size_t), by_value, (void *)plan);
	return 0;
}

/* The input sections of each plan unit (its functions' sections, distinct), units in the order
 * given, as layout units. */
static int plan_sections(const rp_pipeline *p, const rp_plan *plan, const size_t *order, size_t **secs, size_t **first,
			 rp_err *err)
{
	size_t total = 0;
	for (size_t u = 0; u < plan->nunits; u++)
		total += plan->units[u].nfuncs;
	*secs = malloc((total ? total : 1) * sizeof(size_t));
	*first = malloc((plan->nunits + 1) * sizeof(size_t));
	if (!*secs || !*first)
		return rp_err_nomem(err, "laying out");
	size_t n = 0;
	for (size_t u = 0; u < plan->nunits; u++) {
		(*first)[u] = n;
		const rp_plan_unit *pu = &plan->units[order[u]];
		for (size_t k = 0; k < pu->nfuncs; k++) {
			const rp_plan_func *pf = &pu->funcs[k];
			const rp_func *f = rp_image_func_by_name(p->img, pf->name, pf->file);
			const rp_map_insec *s = f ? rp_map_insec_at(p->map, f->addr) : NULL;
			if (!s)
				continue;
			size_t i = (size_t)(s - p->map->insecs), dup = 0;
			for (size_t j = (*first)[u]; j < n; j++)
				dup |= (*secs)[j] == i;
			if (!dup)
				(*secs)[n++] = i;
		}
	}
	(*first)[plan->nunits] = n;
	return 0;
}

static int checks(const rp_pipeline *p, rp_err *err)
{
	if (!p->map)
		return refuse(err, "laying out flash needs the link map (--map FILE, or fw.map beside the ELF)");
	if (!p->cycles.have_model || p->cycles.models.n > 1)
		return refuse(err, "needs the one flash model the trace was recorded under (--flash-model SPEC)");
	if (p->placement.nplans != 1)
		return refuse(err, "lays out one region's placement (a config with several regions is not supported yet)");
	if (p->data.enabled)
		return refuse(err, "does not lay out read-only data yet: drop --data");
	return 0;
}

static int same_func(const char *name, const char *file, const char *name2, const char *file2)
{
	return strcmp(name, name2) == 0 && ((!file && !file2) || (file && file2 && strcmp(file, file2) == 0));
}

/* Whether the function (name, file) is one of the kept units' of plan (kept[0..k) index it). */
static int in_kept_units(const rp_plan *plan, const size_t *kept, size_t k, const char *name, const char *file)
{
	for (size_t u = 0; u < k; u++)
		for (size_t j = 0; j < plan->units[kept[u]].nfuncs; j++) {
			const rp_plan_func *pf = &plan->units[kept[u]].funcs[j];
			if (same_func(pf->name, pf->file, name, file))
				return 1;
		}
	return 0;
}

/* Places again with only the first k units' functions weighed, so that the plan, its veneers
 * and its padding are the placement's own for exactly that set (cutting the plan would leave
 * its accounting stale). */
static int replace_with_kept(rp_pipeline *p, const size_t *kept_units, size_t k, const rp_db_totals *w, rp_err *err)
{
	const rp_plan *plan = p->placement.plans[0];
	rp_db_totals kept = *w;
	if (!(kept.funcs = malloc((w->nfuncs ? w->nfuncs : 1) * sizeof(*kept.funcs))))
		return rp_err_nomem(err, "laying out");
	for (size_t i = 0; i < w->nfuncs; i++) {
		kept.funcs[i] = w->funcs[i];
		if (!in_kept_units(plan, kept_units, k, w->funcs[i].func, w->funcs[i].file))
			kept.funcs[i].count = 0, kept.funcs[i].samples = 0, kept.funcs[i].seconds = 0;
	}
	rp_placement again;
	memset(&again, 0, sizeof(again));
	int rc = rp_place(p->img, p->map, &kept, &p->opts, &again, err);
	free(kept.funcs);
	if (rc)
		return rc;
	/* the same units: as many, and each of the new plan's functions one of theirs */
	const rp_plan *now = again.plans[0];
	int same = now->nunits == k;
	for (size_t u = 0; same && u < now->nunits; u++)
		for (size_t j = 0; same && j < now->units[u].nfuncs; j++)
			same = in_kept_units(plan, kept_units, k, now->units[u].funcs[j].name, now->units[u].funcs[j].file);
	if (!same) {
		rp_placement_release(&again);
		return rp_err_set(err, RP_EINPUT, "--trace: placing the %zu unit(s) the layout kept gave another set: %s", k,
				  "please report it with the profile, the ELF, its map and the trace");
	}
	rp_placement_release(&p->placement);
	p->placement = again;
	return 0;
}

/* Units the options require in RAM (pins, closures, handlers): the search keeps all of them. */
static int options_require_units(const rp_place_opts *o)
{
	return o->npin || o->nclosure || o->nhandlers || o->all_handlers;
}

/* The search over one placement's units, by value; *order (owned by the caller) says which
 * plan unit each layout unit is. */
static int search_placement(rp_pipeline *p, const rp_placement *pl, rp_layout_choice *out, size_t **order, rp_err *err)
{
	const rp_plan *plan = pl->plans[0];
	size_t *secs = NULL, *first = NULL;
	int rc = value_order(plan, order, err);
	if (!rc)
		rc = plan_sections(p, plan, *order, &secs, &first, err);
	if (!rc) {
		int required = options_require_units(&p->opts);
		/* a sampled trace prices a layout 10 to 50 % off (docs/layout.md): too coarse to undo
		 * the solver's choice unit by unit; only all of it or none, by the margin */
		rp_layout_units units = { secs, first, plan->nunits, required ? plan->nunits : 0,
					  p->layout.trace->windows > 0 };
		rc = rp_layout_search(p->layout.trace, p->layout.link, &units, &p->cycles.model, !p->layout.no_order, out,
				      err);
	}
	free(secs);
	free(first);
	return rc;
}

/* Another placement, searched like the solver's and weighed against the choice. */
typedef struct rival {
	rp_placement placement;   /* made by the caller */
	rp_layout_choice choice;
	size_t *order;            /* layout unit -> plan unit */
} rival;

static int rival_search(rp_pipeline *p, rival *r, rp_err *err)
{
	return r->placement.nplans == 1 ? search_placement(p, &r->placement, &r->choice, &r->order, err) : 0;
}

/* Over a choice that beat flash only by the margin of any layout over a simpler one (layout.h),
 * by the margin between two placements (a share of the lower price): the two sets are priced
 * on one trace and model, with errors that mostly agree (the full margin kept sets measured 0.1
 * to 0.7 % slower on phasevm). Over any other (flash only, or a set required units forced,
 * never weighed against flash only), by the full margin. *between: whether the margin is the
 * one between placements. */
static double rival_margin(const rp_pipeline *p, const rival *r, int *between)
{
	const rp_pipe_layout *L = &p->layout;
	const rp_layout_cost *flash_only = &L->choice.flash_only;
	double margin = rp_layout_margin(L->trace, flash_only);
	*between = !options_require_units(&p->opts) && (double)L->choice.chosen.cycles + margin < (double)flash_only->cycles;
	return *between ? rp_layout_margin_between(&L->choice.chosen, &r->choice.chosen) : margin;
}

/* r replaces the choice, its placement and *order when eligible and lower by margin; returns 1
 * then. The layouts priced add up either way. */
static int rival_take(rp_pipeline *p, rival *r, int eligible, double margin, size_t **order)
{
	rp_pipe_layout *L = &p->layout;
	if (r->placement.nplans != 1 || !eligible || (double)r->choice.chosen.cycles + margin >= (double)L->choice.chosen.cycles) {
		L->choice.evaluations += r->choice.evaluations;
		L->choice.seconds += r->choice.seconds;
		return 0;
	}
	free(*order);
	*order = r->order;
	r->order = NULL;
	r->choice.evaluations += L->choice.evaluations;
	r->choice.seconds += L->choice.seconds;
	rp_layout_choice_release(&L->choice);
	L->choice = r->choice;
	memset(&r->choice, 0, sizeof(r->choice));
	rp_placement_release(&p->placement);
	p->placement = r->placement;
	memset(&r->placement, 0, sizeof(r->placement));
	return 1;
}

static void rival_release(rival *r)
{
	rp_layout_choice_release(&r->choice);
	rp_placement_release(&r->placement);
	free(r->order);
	r->order = NULL;
}

/* Placing in cycles, the placement by samples (instructions, for exact counts) is searched too:
 * its set can price lower once copies, veneers and the layout are counted (where misses are
 * few and spread, the most executed code can save more than the most stalled). Adopted when
 * it prices lower; *weights then says which weights made the plan. */
static int try_by_samples(rp_pipeline *p, const rp_db_totals **weights, size_t **order, rp_err *err)
{
	rp_pipe_layout *L = &p->layout;
	if (p->weights == &p->totals)
		return 0;
	rival r;
	memset(&r, 0, sizeof(r));
	int rc = rp_place(p->img, p->map, &p->totals, &p->opts, &r.placement, err);
	if (!rc)
		rc = rival_search(p, &r, err);
	if (!rc && r.placement.nplans == 1) {
		L->tried_by_samples = 1;
		L->by_samples_cycles = r.choice.chosen.cycles;
	}
	int between;
	double margin = rival_margin(p, &r, &between);
	L->by_samples_margin = !between;
	L->solver_cycles = L->choice.chosen.cycles;
	if (!rc && rival_take(p, &r, 1, margin, order)) {
		L->by_samples = 1;
		*weights = &p->totals;
	}
	rival_release(&r);
	return rc;
}

/* w: the weights with each function's the stall it costs under the choice's order with nothing
 * moved (rp_layout_attribute), less its copy. */
static int weigh_by_layout(rp_pipeline *p, const rp_db_totals *base, rp_db_totals *w, rp_err *err)
{
	rp_pipe_layout *L = &p->layout;
	const rp_layout_choice *c = &L->choice;
	rp_layout_plan lp = { NULL, c->order, c->norder, c->order_align, c->text_align, c->tail_line, NULL, 0 };
	rp_layout_addrs a;
	double *per_func = calloc(p->img->nfuncs ? p->img->nfuncs : 1, sizeof(double));
	*w = *base;
	w->funcs = malloc((base->nfuncs ? base->nfuncs : 1) * sizeof(*w->funcs));
	if (!per_func || !w->funcs) {
		free(per_func);
		free(w->funcs);
		w->funcs = NULL;
		return rp_err_nomem(err, "laying out");
	}
	int rc = rp_layout_arrange(L->trace, L->link, &lp, &a, err);
	if (!rc) {
		rc = rp_layout_attribute(L->trace, L->link, &lp, &a, &p->cycles.model, p->img, per_func, err);
		rp_layout_addrs_release(&a);
	}
	w->total = 0;
	for (size_t i = 0; !rc && i < base->nfuncs; i++) {
		rp_func_total *f = &w->funcs[i];
		*f = base->funcs[i];
		const rp_func *fn = rp_db_totals_func(base, p->img, i);
		double net = fn ? per_func[fn - p->img->funcs] - rp_cycles_copy_cost(&p->cycles.model, fn->size) : 0.0;
		f->count = net > 0 ? (uint64_t)(net + 0.5) : 0;
		f->samples = (double)f->count;
		w->total += f->count;
	}
	free(per_func);
	return rc;
}

/* Placing in cycles, the placement again with each function weighed by what it costs under the
 * chosen order (weigh_by_layout): the solver weighed the flash-only build's stall cycles, many
 * of them conflicts that the order removes, so the functions that still stall after it can be
 * others. Adopted when its best layout moves something and prices lower, by try_by_samples'
 * margins; *weights then says which weights made the plan. A trace traced whole only. */
static int try_by_layout(rp_pipeline *p, const rp_db_totals **weights, size_t **order, rp_err *err)
{
	rp_pipe_layout *L = &p->layout;
	/* a sampled trace scales a function's cold misses like the steady state's (the price counts
	 * them once only per set, pricer_finish): its weights would favour cold code */
	if (p->weights == &p->totals || !L->choice.norder || options_require_units(&p->opts) || L->trace->windows)
		return 0;
	rival r;
	memset(&r, 0, sizeof(r));
	int rc = weigh_by_layout(p, *weights, &L->layout_weights, err);
	if (!rc)
		rc = rp_place(p->img, p->map, &L->layout_weights, &p->opts, &r.placement, err);
	if (!rc)
		rc = rival_search(p, &r, err);
	if (!rc && r.placement.nplans == 1) {
		L->tried_by_layout = 1;
		L->by_layout_cycles = r.choice.chosen.cycles;
		L->before_by_layout = L->choice.chosen.cycles;
	}
	int between;
	double margin = rival_margin(p, &r, &between);
	if (!rc && rival_take(p, &r, r.choice.nunits_kept > 0, margin, order)) {
		L->by_layout = 1;
		*weights = &L->layout_weights;
	}
	rival_release(&r);
	return rc;
}

int pipe_layout_run(rp_pipeline *p, rp_err *err)
{
	rp_pipe_layout *L = &p->layout;
	if (!L->trace_path || !p->have_profile)
		return 0;
	if (checks(p, err))
		return err->code;
	const rp_db_totals *weights = p->weights;
	size_t *order = NULL;   /* layout unit -> plan unit */
	int rc = rp_strdup(&L->ram_outsec, p->placement.plans[0]->outsec, err);
	if (!rc)
		rc = rp_layout_trace_load(&L->trace, p->map, p->img, L->trace_path, err);
	if (!rc)   /* GNU ld's stub order, read only where the link is modeled */
		rc = rp_map_read_ids(p->map, err);
	if (!rc)
		rc = rp_layout_link_new(&L->link, p->img, p->map, L->trace, L->ram_outsec, err);
	if (!rc)
		rc = search_placement(p, &p->placement, &L->choice, &order, err);
	if (!rc)
		rc = try_by_samples(p, &weights, &order, err);
	if (!rc)
		rc = try_by_layout(p, &weights, &order, err);
	if (!rc) {
		L->nunits_before = p->placement.plans[0]->nunits;
		if (L->choice.nunits_kept < L->nunits_before)
			rc = replace_with_kept(p, order, L->choice.nunits_kept, weights, err);
	}
	free(order);
	L->done = !rc;
	return rc;
}

void pipe_layout_figures(const rp_pipeline *p, rp_pipe_figures *f)
{
	const rp_layout_choice *c = &p->layout.choice;
	if (!p->layout.done || !f->have)
		return;
	double saved = (double)c->flash_only.cycles - (double)c->chosen.cycles;
	f->after = f->before - saved > 0 ? f->before - saved : 0;
}

/* dir/name beside the first fragment. */
static int beside(char **out, const char *fragment, const char *name, rp_err *err)
{
	const char *slash = strrchr(fragment, '/');
	return slash ? rp_asprintf(out, err, "%.*s/%s", (int)(slash - fragment), fragment, name)
		     : rp_strdup(out, name, err);
}

/* The ordered sections as GNU ld patterns; a section no pattern can name stays where the
 * catch-all puts it (counted in L->nunnamed). */
static int write_fragment(rp_pipe_layout *L, const rp_map *map, const char *path, rp_err *err)
{
	rp_afile af;
	if (rp_afile_open(&af, path, err))
		return err->code;
	fprintf(af.fp, "/* flashtext.ld: the hot code that stays in flash, in the order `ramplace place --trace`\n"
		       " * chose under %s. INCLUDE it at the start of the text output section, before its\n"
		       " * catch-all (input section rules are first-match). */\n", L->model_name);
	if (L->choice.text_align > 1)
		fprintf(af.fp, ". = ALIGN(%llu);\n", (unsigned long long)L->choice.text_align);
	for (size_t k = 0; k < L->choice.norder; k++) {
		char *pat = NULL;
		rp_err perr = RP_ERR_INIT;
		if (rp_map_insec_pattern(&pat, &map->insecs[L->choice.order[k]], &perr)) {
			if (perr.code == RP_ENOMEM) {
				rp_afile_abort(&af);
				return rp_err_nomem(err, "writing flashtext.ld");
			}
			L->nunnamed++;
			continue;
		}
		if (L->choice.order_align > 1)
			fprintf(af.fp, ". = ALIGN(%llu); ", (unsigned long long)L->choice.order_align);
		fprintf(af.fp, "%s\n", pat);
		free(pat);
	}
	if (L->choice.tail_pad)   /* what follows the text keeps its offset in a line */
		fprintf(af.fp, ". += %llu;\n", (unsigned long long)L->choice.tail_pad);
	return rp_afile_commit(&af, err);
}

/* ld.lld's --symbol-ordering-file: the functions of the ordered sections, in order. */
static int write_order(const rp_pipe_layout *L, const rp_image *img, const rp_map *map, const char *path, rp_err *err)
{
	rp_afile af;
	if (rp_afile_open(&af, path, err))
		return err->code;
	for (size_t k = 0; k < L->choice.norder; k++) {
		const rp_map_insec *s = &map->insecs[L->choice.order[k]];
		for (size_t f = 0; f < img->nfuncs; f++)
			if (img->funcs[f].addr >= s->addr && img->funcs[f].addr - s->addr < s->size)
				fprintf(af.fp, "%s\n", img->funcs[f].name);
	}
	return rp_afile_commit(&af, err);
}

int pipe_layout_write(rp_pipeline *p, const char *first_fragment, rp_err *err)
{
	rp_pipe_layout *L = &p->layout;
	char *ld = NULL, *order = NULL;
	int rc = beside(&ld, first_fragment, "flashtext.ld", err);
	if (!rc)
		rc = beside(&order, first_fragment, "flashtext.order", err);
	if (!rc && L->done) {
		snprintf(L->model_name, sizeof(L->model_name), "%s", p->cycles.model.name);
		rc = write_fragment(L, p->map, ld, err);
		if (!rc)
			rc = write_order(L, p->img, p->map, order, err);
		if (!rc)
			rc = rp_strdup(&L->fragment_path, ld, err);
	} else if (!rc && access(ld, F_OK) == 0) {   /* an earlier order would outlive its trace */
		rp_afile af;
		rc = rp_afile_open(&af, ld, err);
		if (!rc) {
			fprintf(af.fp, "/* flashtext.ld: no order (place without --trace): flash keeps the link order */\n");
			rc = rp_afile_commit(&af, err);
		}
	}
	if (!rc && !L->done && access(order, F_OK) == 0) {   /* and ld.lld's list, empty */
		rp_afile af;
		if (!(rc = rp_afile_open(&af, order, err)))
			rc = rp_afile_commit(&af, err);
	}
	free(ld);
	free(order);
	return rc;
}

void pipe_layout_release(rp_pipe_layout *L)
{
	rp_layout_trace_free(L->trace);
	rp_layout_link_free(L->link);
	L->link = NULL;
	rp_layout_choice_release(&L->choice);
	free(L->fragment_path);
	free(L->ram_outsec);
	free(L->layout_weights.funcs);
	memset(&L->layout_weights, 0, sizeof(L->layout_weights));
	L->trace = NULL;
	L->fragment_path = NULL;
	L->ram_outsec = NULL;
	L->done = 0;
}
