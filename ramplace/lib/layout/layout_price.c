/* layout_price.c: a candidate layout's price: the trace's runs (or the whole trace) replayed
 * through the flash model (flashmodel.c) at the addresses layout_assign.c gave, the veneers run
 * where calls cross, the boot copy; and what each function is credited (rp_layout_attribute).
 * layout.h says the rules. Workload: called a few hundred times per search on a trace of a few
 * hundred thousand runs, so pricing allocates only the model. */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout_internal.h"
#include "ramplace/callgraph.h"
#include "ramplace/util.h"

/* Pricing state shared by the runs' and the full trace's replays. */
typedef struct pricer {
	const rp_layout_trace *t;
	const rp_layout_link *link;
	const rp_layout_plan *lp;
	const rp_layout_addrs *a;
	rp_fm *m;
	uint64_t stall, extra;         /* of the runs (scaled at the end, less the cold misses) */
	int warm;                      /* the model is fed a warm-up */
	uint64_t copy_stall, copy_extra;   /* of the boot copy */
	size_t window;                 /* the full replay: the window it is in (SIZE_MAX: none yet) */
	uint64_t in_window;            /*   and accesses into it */
	const rp_image *img;           /* rp_layout_attribute: the functions credited, */
	double *per_func;              /*   per function of img, */
	struct by_new { uint64_t addr; uint32_t piece; } *flash;   /* the flash sections by new address */
	size_t nflash;
} pricer;

static int in_ram(const pricer *p, uint32_t piece)
{
	return p->lp->in_ram && piece < p->t->npieces && p->lp->in_ram[piece];
}

/* The copy of what moved: what the section already held is copied in the trace already. */
static void boot_copy(pricer *p)
{
	uint64_t base = lt_align_up(p->link->ram_base_size, 4);
	if (p->a->load_size <= base)
		return;
	uint64_t bytes = p->a->load_size - base;
	p->copy_stall = rp_fm_access_run(p->m, p->a->load_addr + base, bytes, bytes / 4, 0, RP_FM_READ);
	p->copy_extra = (bytes + 3) / 4 * p->link->copy_insns;
}

/* A fetch entering piece at off from another: the veneer it runs when they end up apart.
 * Returns 1 when the access itself is in RAM (not fed to the model). */
static int cross(pricer *p, uint32_t piece, uint32_t off, uint32_t from, rp_fm_op op)
{
	int to_ram = in_ram(p, piece);
	/* a veneer for a direct call; on RISC-V (no veneers) the auipc of a call the linker had
	 * relaxed to jal */
	int costs = p->link->veneer_size ? from < p->t->npieces && lt_is_direct_callee(p->link, from, piece, off)
					 : rp_layout_was_relaxed(p->link, from, piece);
	if (op != RP_FM_FETCH || from == UINT32_MAX || to_ram == in_ram(p, from) || !costs)
		return to_ram;
	const rp_layout_link *l = p->link;
	p->extra += l->veneer_insns;
	const uint64_t *at = NULL;
	if (to_ram && l->veneer_size >= 4 && from < p->t->npieces && p->a->nveneers) {
		/* the caller's block's veneer to the function entered (lt_assign_veneers' key) */
		uint64_t group = l->per_section_veneers ? l->group[from] : l->text_group;
		uint64_t key = group << 32 | lt_callee_index(l, piece, off);
		at = bsearch(&key, p->a->veneer_key, p->a->nveneers, sizeof(uint64_t), lt_by_u64);
	}
	uint64_t v = at ? p->a->veneer_addr[at - p->a->veneer_key] : UINT64_MAX;
	if (v != UINT64_MAX) {
		/* ldr.w pc, [pc] is one fetch; v6-M's five instructions are spread by bytes */
		p->stall += rp_fm_access_run(p->m, v, l->veneer_size - 4, l->veneer_insns, l->veneer_insns == 1, RP_FM_FETCH);
		p->stall += rp_fm_access_run(p->m, v + l->veneer_size - 4, 4, 1, 0, RP_FM_READ);
	}
	return to_ram;
}

/* What the flash held before a window (a warm run) left out the veneers: the flash-only build
 * has none. A call's veneer was last used when its site last ran, so the veneers of the calls
 * in a warm run's bytes are replayed with it (a short window that found them all evicted
 * would scale their misses as the steady state's: at 1 KiB under cache:esp32 the FreeRTOS
 * demo's relink priced 8 % high without them). */
static void warm_calls(pricer *p, const rp_layout_run *run)
{
	const rp_layout_link *l = p->link;
	if (!l->ncalls || !p->a->nveneers || run->piece >= p->t->npieces || in_ram(p, run->piece))
		return;
	size_t lo = 0, hi = l->ncalls;
	while (lo < hi) {   /* the first call at or past the run's start */
		size_t mid = lo + (hi - lo) / 2;
		const struct rp_layout_call *c = &l->calls[mid];
		if (c->from < run->piece || (c->from == run->piece && c->off < run->off))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < l->ncalls && l->calls[lo].from == run->piece && l->calls[lo].off < run->off + run->len; lo++)
		cross(p, l->calls[lo].to, l->calls[lo].to_off, run->piece, RP_FM_FETCH);
}

/* RISC-V: how far off moves within its section: the sites before it that relaxation resized. */
static int64_t shifted(const rp_layout_addrs *a, uint32_t piece, uint32_t off)
{
	int64_t by = 0;
	if (a->shift_first)
		for (size_t k = a->shift_first[piece]; k < a->shift_first[piece + 1] && a->shift[k].off < off; k++)
			by += a->shift[k].delta;
	return by;
}

static uint64_t new_addr(const pricer *p, uint32_t piece, uint32_t off)
{
	return piece < p->t->npieces ? p->a->addr[piece] + off + (uint64_t)shifted(p->a, piece, off) : off;
}

/* The bytes a run of len from off spans after the move (a resized site inside it). */
static uint64_t new_len(const pricer *p, uint32_t piece, uint32_t off, uint32_t len)
{
	if (!p->a->shift_first || piece >= p->t->npieces)
		return len;
	int64_t n = (int64_t)len + shifted(p->a, piece, off + len) - shifted(p->a, piece, off);
	return n > 0 ? (uint64_t)n : 1;
}

/* The most lines the layout can touch: the map's sections, the load image and the veneers,
 * each possibly straddling one more line (what the first-touch table is sized for). */
static size_t footprint_lines(const pricer *p, const rp_fm_cfg *cfg)
{
	uint64_t bytes = p->a->load_size + (uint64_t)p->a->nveneers * 16;
	for (size_t i = 0; i < p->t->npieces; i++)
		bytes += p->t->map->insecs[i].size;
	unsigned line = cfg->kind == RP_FM_WS ? 4 : cfg->line;
	uint64_t n = bytes / (line ? line : 4) + p->t->npieces + 4096;
	return n > ((uint64_t)1 << 25) ? (size_t)1 << 25 : (size_t)n;
}

static int pricer_start(pricer *p, const rp_fm_cfg *cfg, rp_err *err)
{
	if (!(p->m = rp_fm_new(cfg)))
		return rp_err_nomem(err, "pricing a layout");
	if (p->t->warmed && rp_fm_first_touch(p->m, footprint_lines(p, cfg))) {
		rp_fm_free(p->m);
		return rp_err_nomem(err, "pricing a layout");
	}
	boot_copy(p);
	return 0;
}

/* A scaled count as a whole number, saturated (2^63 cycles is no price anyone compares). */
static uint64_t scaled(double v)
{
	return v >= 9.2e18 ? (uint64_t)9.2e18 : (uint64_t)(v + 0.5);
}

static void pricer_finish(pricer *p, rp_layout_cost *out)
{
	rp_fm_stats st;
	rp_fm_get_stats(p->m, &st);
	double k = p->t->scale > 0 ? p->t->scale : 1.0;   /* about 2^20 at most (layout_trace.c) */
	/* a sampled trace's misses in sets that never evict are paid once (rp_fm_window), a
	 * warm-up's too: the run pays them somewhere; with what the flash held replayed, each
	 * line's first miss is (rp_fm_first_touch) */
	uint64_t cold_counted, cold_all;
	rp_fm_cold(p->m, &cold_counted, &cold_all);
	uint64_t rest = p->stall >= cold_counted ? p->stall - cold_counted : 0;
	out->stall = p->copy_stall + scaled((double)rest * k) + cold_all;
	out->extra_insns = p->copy_extra + scaled((double)p->extra * k);
	out->misses = st.misses;   /* of the replay: the runs' unscaled, with the copy's and the
				      warm-ups' */
	out->cycles = out->stall + out->extra_insns;
	rp_fm_free(p->m);
}

/* After a run or access fed from stall0/extra0: a warm-up's cost is not counted (the model's
 * tally of cold misses still sees it). */
static void settle(pricer *p, int warm, uint64_t stall0, uint64_t extra0)
{
	if (warm) {
		p->stall = stall0;
		p->extra = extra0;
	}
}

/* Feeds what follows as a window's warm-up or not. */
static void warm_up(pricer *p, int warm)
{
	if (warm != p->warm) {
		rp_fm_set_warm(p->m, warm);
		p->warm = warm;
	}
}

/* The function the trace's build has at section piece's offset off, or SIZE_MAX. */
static size_t func_of(const pricer *p, uint32_t piece, uint64_t off)
{
	if (piece >= p->t->npieces)
		return SIZE_MAX;
	const rp_func *f = rp_image_func_at(p->img, p->t->map->insecs[piece].addr + off);
	return f ? (size_t)(f - p->img->funcs) : SIZE_MAX;
}

/* The function whose code lies at new address addr in flash (an evictor), or SIZE_MAX. */
static size_t func_at_new(const pricer *p, uint64_t addr)
{
	size_t lo = RP_COUNT_AT_OR_BELOW(p->flash, p->nflash, addr, addr);   /* lo - 1: the last at or below addr */
	if (!lo)
		return SIZE_MAX;
	const struct by_new *s = &p->flash[lo - 1];
	uint64_t off = addr - s->addr;
	return off < p->t->map->insecs[s->piece].size ? func_of(p, s->piece, off) : SIZE_MAX;
}

/* rp_layout_attribute: a run's stall to its function, and each miss it had on a line another
 * access evicted to the evicting function (cycles.c's attributed()), scaled by the sampling. */
static void credit(pricer *p, const rp_layout_run *run, uint64_t stall)
{
	double k = p->t->scale > 0 ? p->t->scale : 1.0;
	size_t f = func_of(p, run->piece, run->off);
	if (f != SIZE_MAX)
		p->per_func[f] += (double)stall * k;
	const rp_fm_evict *ev;
	size_t n = rp_fm_last_evictions(p->m, &ev);
	for (size_t i = 0; i < n; i++)
		if ((f = func_at_new(p, ev[i].by)) != SIZE_MAX)
			p->per_func[f] += (double)ev[i].stall * k;
}

static void price_runs(pricer *p)
{
	const rp_layout_trace *t = p->t;
	for (size_t r = 0; r < t->nruns; r++) {
		const rp_layout_run *run = &t->runs[r];
		uint64_t stall = p->stall, extra = p->extra;
		if (run->window)
			rp_fm_window(p->m);
		warm_up(p, run->warm);
		if (!cross(p, run->piece, run->off, run->from, (rp_fm_op)run->op)) {
			uint64_t s = rp_fm_access_run(p->m, new_addr(p, run->piece, run->off),
						      new_len(p, run->piece, run->off, run->len), run->n, run->starts,
						      (rp_fm_op)run->op);
			p->stall += s;
			if (p->per_func && !run->warm)
				credit(p, run, s);
			if (run->warm && run->op == RP_FM_FETCH)
				warm_calls(p, run);
		}
		settle(p, run->warm, stall, extra);
	}
}

int rp_layout_price(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
		    const rp_layout_addrs *a, const rp_fm_cfg *cfg, rp_layout_cost *out, rp_err *err)
{
	pricer p = { t, link, lp, a, NULL, 0, 0, 0, 0, 0, SIZE_MAX, 0, NULL, NULL, NULL, 0 };
	if (pricer_start(&p, cfg, err))
		return err->code;
	price_runs(&p);
	pricer_finish(&p, out);
	out->pad = a->tail_pad;
	return 0;
}

static int by_new_addr(const void *a, const void *b)
{
	const struct by_new *x = a, *y = b;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

int rp_layout_attribute(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
			const rp_layout_addrs *a, const rp_fm_cfg *cfg, const rp_image *img, double *per_func,
			rp_err *err)
{
	pricer p = { t, link, lp, a, NULL, 0, 0, 0, 0, 0, SIZE_MAX, 0, img, per_func, NULL, 0 };
	memset(per_func, 0, (img->nfuncs ? img->nfuncs : 1) * sizeof(double));
	if (!(p.flash = malloc((t->npieces + 1) * sizeof(*p.flash))))
		return rp_err_nomem(err, "attributing stall cycles");
	for (size_t i = 0; i < t->npieces; i++)
		if (!(lp->in_ram && lp->in_ram[i]) && t->map->insecs[i].size)
			p.flash[p.nflash++] = (struct by_new){ a->addr[i], (uint32_t)i };
	qsort(p.flash, p.nflash, sizeof(*p.flash), by_new_addr);
	int rc = pricer_start(&p, cfg, err);
	if (!rc) {
		rp_layout_cost cost;
		price_runs(&p);
		pricer_finish(&p, &cost);
	}
	free(p.flash);
	return rc;
}

static int full_visit(void *ctx, const lt_access *a, rp_err *err)
{
	(void)err;
	pricer *p = ctx;
	if (a->window) {
		p->window++;   /* from SIZE_MAX to 0 at the first */
		p->in_window = 0;
		rp_fm_window(p->m);
	}
	/* the same warm-up as the runs': the window's first window_warm[] accesses */
	int warm = (p->window < p->t->nwindow_warm && p->in_window++ < p->t->window_warm[p->window]) || a->warm;
	uint64_t stall = p->stall, extra = p->extra;
	warm_up(p, warm);
	if (!cross(p, a->piece, a->off, a->from, a->op)) {
		p->stall += rp_fm_access(p->m, new_addr(p, a->piece, a->off), new_len(p, a->piece, a->off, a->size), a->op);
		if (a->warm && a->op == RP_FM_FETCH) {
			rp_layout_run run = { a->piece, a->off, a->size, 1, 0, UINT32_MAX, (uint8_t)a->op, 1, 0 };
			warm_calls(p, &run);
		}
	}
	settle(p, warm, stall, extra);
	return 0;
}

int rp_layout_price_full(const char *path, const rp_image *img, const rp_layout_trace *t, const rp_layout_link *link,
			 const rp_layout_plan *lp, const rp_layout_addrs *a, const rp_fm_cfg *cfg, rp_layout_cost *out,
			 rp_err *err)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return rp_err_set(err, RP_EINPUT, "%s: %s", path, strerror(errno));
	pricer p = { t, link, lp, a, NULL, 0, 0, 0, 0, 0, SIZE_MAX, 0, NULL, NULL, NULL, 0 };
	lt_meta meta;
	int rc = pricer_start(&p, cfg, err);
	if (!rc)
		rc = lt_walk(f, path, t->map, img, full_visit, &p, &meta, err);
	fclose(f);
	if (p.m)
		pricer_finish(&p, out);
	out->pad = a->tail_pad;
	return rc;
}

