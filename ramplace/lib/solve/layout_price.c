/* layout_price.c: a candidate layout's addresses (a model of the link) and its price (the
 * trace's runs, or the whole trace, replayed through flashmodel.c); layout.h says the rules.
 * Owns the addresses it computes. Workload: called a few hundred times per search on a trace
 * of a few hundred thousand runs, so pricing allocates only the model. */
#include <stdlib.h>
#include <string.h>

#include "layout_internal.h"
#include "ramplace/callgraph.h"
#include "ramplace/util.h"

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

static uint64_t piece_align(const rp_map_insec *s)
{
	return s->align ? s->align : 4;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* link->direct from the image's call graph (none when it cannot be disassembled). */
static int direct_pairs(rp_layout_link *link, const rp_image *img, const rp_map *map, rp_err *err)
{
	rp_callgraph *cg = NULL;
	rp_err cg_err = RP_ERR_INIT;
	if (rp_callgraph_build(&cg, img, &cg_err)) {
		if (cg_err.code == RP_ENOMEM)
			return rp_err_nomem(err, "laying out");
		link->all_direct = 1;
		return 0;
	}
	size_t cap = 0;
	int rc = 0;
	for (size_t e = 0; !rc && e < cg->nedges; e++) {
		const rp_map_insec *a = rp_map_insec_at(map, img->funcs[cg->edges[e].from].addr);
		const rp_map_insec *b = rp_map_insec_at(map, img->funcs[cg->edges[e].to].addr);
		if (!a || !b || a == b)
			continue;
		rc = rp_grow((void **)&link->direct, &cap, link->ndirect + 1, sizeof(uint64_t), err);
		if (!rc)
			link->direct[link->ndirect++] = (uint64_t)(a - map->insecs) << 32 | (uint64_t)(b - map->insecs);
	}
	rp_callgraph_free(cg);
	if (link->ndirect)
		qsort(link->direct, link->ndirect, sizeof(uint64_t), by_u64);
	return rc;
}

int rp_layout_is_direct(const rp_layout_link *link, uint32_t from, uint32_t to)
{
	uint64_t key = (uint64_t)from << 32 | to;
	if (link->all_direct)
		return 1;
	return link->direct && bsearch(&key, link->direct, link->ndirect, sizeof(uint64_t), by_u64) != NULL;
}

void rp_layout_link_release(rp_layout_link *link)
{
	free(link->direct);
	link->direct = NULL;
	link->ndirect = 0;
}

int rp_layout_link_init(rp_layout_link *link, const rp_image *img, const rp_map *map, const rp_layout_trace *t,
			const char *ram_outsec, rp_err *err)
{
	memset(link, 0, sizeof(*link));
	link->ram_outsec = ram_outsec;
	link->veneer_size = img->veneer_size;
	link->veneer_block_align = img->veneer_block_align ? img->veneer_block_align : 1;
	/* ldr.w pc, [pc] is one instruction; v6-M's push/ldr/mov/pop/bx five */
	link->veneer_insns = img->veneer_size == 0 ? 0 : img->veneer_size > 8 ? 5 : 1;
	uint64_t best = 0;
	for (size_t i = 0; i < t->npieces; i++)
		if (t->piece_fetches[i] > best && map->insecs[i].outsec) {
			best = t->piece_fetches[i];
			link->text_outsec = map->insecs[i].outsec;
		}
	if (!link->text_outsec)
		return rp_err_set(err, RP_EINPUT, "%s: no fetch of the trace falls in an input section of the map: "
				  "the trace is of another build", map->path ? map->path : "the map");
	const rp_map_outsec *o = rp_map_outsec_find(map, ram_outsec);
	if (o && o->lma != o->addr) {
		link->ram_lma = o->lma;
		link->ram_lma_known = 1;
	}
	return link->veneer_size ? direct_pairs(link, img, map, err) : 0;
}

/* A stretch of flash: an output section's input sections (by address), or the RAM section's
 * load image. */
typedef struct block {
	uint64_t start, end;      /* old */
	size_t first, last;       /* input sections [first, last) */
	uint64_t align;
	int is_text, is_load;
} block;

static const rp_map_outsec *outsec_of(const rp_map *map, const char *name)
{
	return name ? rp_map_outsec_find(map, name) : NULL;
}

/* The flash blocks in address order: runs of input sections of one output section outside the
 * RAM output section, with the load image at its load address when known. */
static int collect_blocks(const rp_layout_trace *t, const rp_layout_link *link, block **out, size_t *n, rp_err *err)
{
	const rp_map *map = t->map;
	block *b = NULL;
	size_t nb = 0, cap = 0;
	for (size_t i = 0; i < map->ninsecs; i++) {
		const rp_map_insec *s = &map->insecs[i];
		if (!s->outsec || strcmp(s->outsec, link->ram_outsec) == 0)
			continue;
		if (nb && b[nb - 1].last == i && strcmp(map->insecs[b[nb - 1].first].outsec, s->outsec) == 0) {
			b[nb - 1].last = i + 1;
			b[nb - 1].end = s->addr + s->size > b[nb - 1].end ? s->addr + s->size : b[nb - 1].end;
			if (piece_align(s) > b[nb - 1].align)
				b[nb - 1].align = piece_align(s);
			continue;
		}
		if (rp_grow((void **)&b, &cap, nb + 2, sizeof(*b), err)) {
			free(b);
			return err->code;
		}
		const rp_map_outsec *o = outsec_of(map, s->outsec);
		b[nb++] = (block){ o && o->addr <= s->addr ? o->addr : s->addr, s->addr + s->size, i, i + 1, piece_align(s),
				   strcmp(s->outsec, link->text_outsec) == 0, 0 };
		if (o && o->addr + o->size > b[nb - 1].end && o->addr <= s->addr)
			b[nb - 1].end = o->addr + o->size;
	}
	if (link->ram_lma_known) {
		size_t at = 0;
		while (at < nb && b[at].start < link->ram_lma)
			at++;
		if (rp_grow((void **)&b, &cap, nb + 1, sizeof(*b), err)) {
			free(b);
			return err->code;
		}
		const rp_map_outsec *o = outsec_of(map, link->ram_outsec);
		memmove(b + at + 1, b + at, (nb - at) * sizeof(*b));
		b[at] = (block){ link->ram_lma, link->ram_lma + (o ? o->size : 0), 0, 0, 4, 0, 1 };
		nb++;
	}
	*out = b;
	*n = nb;
	return 0;
}

/* Veneers: a slot per RAM section called from flash; the bytes of the RAM side's veneers. */
int lt_assign_veneers(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
			  rp_layout_addrs *a, uint64_t *ram_veneer_bytes, rp_err *err)
{
	size_t np = t->npieces;
	unsigned char *ram_calls = calloc(np + 1, 1);
	a->veneer_slot = malloc((np + 1) * sizeof(uint32_t));
	if (!ram_calls || !a->veneer_slot) {
		free(ram_calls);
		return rp_err_nomem(err, "laying out");
	}
	for (size_t i = 0; i <= np; i++)
		a->veneer_slot[i] = UINT32_MAX;
	size_t nram_callees = 0;
	for (size_t r = 0; lp->in_ram && link->veneer_size && r < t->nruns; r++) {
		const rp_layout_run *run = &t->runs[r];
		if (run->from == UINT32_MAX || !rp_layout_is_direct(link, run->from, run->piece))
			continue;
		int to_ram = run->piece < np && lp->in_ram[run->piece];
		int from_ram = run->from < np && lp->in_ram[run->from];
		if (to_ram && !from_ram && a->veneer_slot[run->piece] == UINT32_MAX)
			a->veneer_slot[run->piece] = (uint32_t)a->nveneers++;
		else if (from_ram && !to_ram && !ram_calls[run->piece]) {
			ram_calls[run->piece] = 1;
			nram_callees++;
		}
	}
	free(ram_calls);
	*ram_veneer_bytes = nram_callees * link->veneer_size;
	return 0;
}

/* The RAM section's load image: the moved sections at their alignment, the RAM-side veneers. */
static uint64_t load_size(const rp_layout_trace *t, const rp_layout_plan *lp, uint64_t ram_veneer_bytes)
{
	uint64_t size = 0;
	for (size_t i = 0; lp->in_ram && i < t->npieces; i++)
		if (lp->in_ram[i])
			size = align_up(size, piece_align(&t->map->insecs[i])) + t->map->insecs[i].size;
	if (!size)
		return 0;
	return align_up(size + ram_veneer_bytes, 4);
}

/* The text output section: ordered sections first, the rest in the old order, the veneers. */
static uint64_t lay_text(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
			 const block *b, uint64_t start, unsigned char *placed, rp_layout_addrs *a)
{
	const rp_map *map = t->map;
	uint64_t cur = align_up(start + (map->insecs[b->first].addr - b->start), lp->text_align);
	for (size_t k = 0; k < lp->norder; k++) {
		size_t i = lp->order[k];
		if (i < b->first || i >= b->last || placed[i] || (lp->in_ram && lp->in_ram[i]))
			continue;
		uint64_t al = piece_align(&map->insecs[i]);
		a->addr[i] = align_up(cur, lp->order_align > al ? lp->order_align : al);
		cur = a->addr[i] + map->insecs[i].size;
		placed[i] = 1;
	}
	uint64_t last_old_end = b->start;
	for (size_t i = b->first; i < b->last; i++) {
		const rp_map_insec *s = &map->insecs[i];
		last_old_end = s->addr + s->size > last_old_end ? s->addr + s->size : last_old_end;
		if (placed[i] || (lp->in_ram && lp->in_ram[i]))
			continue;
		a->addr[i] = align_up(cur, piece_align(s));
		cur = a->addr[i] + s->size;
	}
	if (a->nveneers) {
		cur = align_up(cur, link->veneer_block_align);
		a->veneer_base = cur;
		cur += a->nveneers * link->veneer_size;
	}
	return cur + (b->end - last_old_end);
}

int rp_layout_arrange(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
		      rp_layout_addrs *out, rp_err *err)
{
	memset(out, 0, sizeof(*out));
	const rp_map *map = t->map;
	block *b = NULL;
	size_t nb = 0;
	uint64_t ram_veneer_bytes = 0;
	unsigned char *placed = calloc(t->npieces + 1, 1);
	out->addr = malloc((t->npieces + 1) * sizeof(uint64_t));
	if (!placed || !out->addr) {
		free(placed);
		rp_layout_addrs_release(out);
		return rp_err_nomem(err, "laying out");
	}
	for (size_t i = 0; i < t->npieces; i++)
		out->addr[i] = map->insecs[i].addr;
	out->addr[t->npieces] = 0;
	if (lt_assign_veneers(t, link, lp, out, &ram_veneer_bytes, err) || collect_blocks(t, link, &b, &nb, err)) {
		free(placed);
		rp_layout_addrs_release(out);
		return err->code;
	}
	out->load_size = load_size(t, lp, ram_veneer_bytes);
	uint64_t old_end = 0, new_end = 0;
	int text_seen = 0;
	for (size_t k = 0; k < nb; k++) {
		/* the gap before a block stays when it is more than alignment padding */
		uint64_t gap = k && b[k].start > old_end ? b[k].start - old_end : 0;
		uint64_t start = k ? align_up(new_end + (gap >= b[k].align ? gap : 0), b[k].align) : b[k].start;
		if (b[k].is_load) {
			out->load_addr = start;
			new_end = start + out->load_size;
		} else if (b[k].is_text && !text_seen) {
			text_seen = 1;
			new_end = lay_text(t, link, lp, &b[k], start, placed, out);
		} else {
			for (size_t i = b[k].first; i < b[k].last; i++)
				if (!(lp->in_ram && lp->in_ram[i]))
					out->addr[i] = map->insecs[i].addr - b[k].start + start;
			new_end = b[k].end - b[k].start + start;
		}
		old_end = b[k].end > old_end ? b[k].end : old_end;
	}
	if (!link->ram_lma_known)   /* after everything in flash */
		out->load_addr = new_end;
	free(b);
	free(placed);
	return 0;
}

void rp_layout_addrs_release(rp_layout_addrs *a)
{
	free(a->addr);
	free(a->veneer_slot);
	free(a->veneer_addr);
	memset(a, 0, sizeof(*a));
}

/* Pricing state shared by the runs' and the full trace's replays. */
typedef struct pricer {
	const rp_layout_trace *t;
	const rp_layout_link *link;
	const rp_layout_plan *lp;
	const rp_layout_addrs *a;
	rp_fm *m;
	uint64_t stall, extra;         /* of the runs (scaled at the end) */
	uint64_t copy_stall, copy_extra;   /* of the boot copy */
} pricer;

static int in_ram(const pricer *p, uint32_t piece)
{
	return p->lp->in_ram && piece < p->t->npieces && p->lp->in_ram[piece];
}

static void boot_copy(pricer *p)
{
	if (!p->a->load_size)
		return;
	p->copy_stall = rp_fm_access_run(p->m, p->a->load_addr, p->a->load_size, p->a->load_size / 4, 0, RP_FM_READ);
	p->copy_extra = p->a->load_size;   /* ldr, str, compare, branch per word */
}

/* A fetch entering piece from another: the veneer it runs when they end up apart. Returns 1 when
 * the access itself is in RAM (not fed to the model). */
static int cross(pricer *p, uint32_t piece, uint32_t from, rp_fm_op op)
{
	int to_ram = in_ram(p, piece);
	if (op != RP_FM_FETCH || from == UINT32_MAX || to_ram == in_ram(p, from) ||
	    !rp_layout_is_direct(p->link, from, piece))
		return to_ram;
	const rp_layout_link *l = p->link;
	p->extra += l->veneer_insns;
	if (to_ram && l->veneer_size && p->a->veneer_slot[piece] != UINT32_MAX) {
		uint32_t slot = p->a->veneer_slot[piece];
		uint64_t v = p->a->veneer_addr ? p->a->veneer_addr[slot] : p->a->veneer_base + (uint64_t)slot * l->veneer_size;
		/* ldr.w pc, [pc] is one fetch; v6-M's five instructions are spread by bytes */
		p->stall += rp_fm_access_run(p->m, v, l->veneer_size - 4, l->veneer_insns, l->veneer_insns == 1, RP_FM_FETCH);
		p->stall += rp_fm_access_run(p->m, v + l->veneer_size - 4, 4, 1, 0, RP_FM_READ);
	}
	return to_ram;
}

static uint64_t new_addr(const pricer *p, uint32_t piece, uint32_t off)
{
	return piece < p->t->npieces ? p->a->addr[piece] + off : off;
}

static int pricer_start(pricer *p, const rp_fm_cfg *cfg, rp_err *err)
{
	if (!(p->m = rp_fm_new(cfg)))
		return rp_err_nomem(err, "pricing a layout");
	boot_copy(p);
	return 0;
}

static void pricer_finish(pricer *p, rp_layout_cost *out)
{
	rp_fm_stats st;
	rp_fm_get_stats(p->m, &st);
	double k = p->t->scale > 0 ? p->t->scale : 1.0;
	out->stall = p->copy_stall + (uint64_t)((double)p->stall * k + 0.5);
	out->extra_insns = p->copy_extra + (uint64_t)((double)p->extra * k + 0.5);
	out->misses = (uint64_t)((double)st.misses * k + 0.5);
	out->cycles = out->stall + out->extra_insns;
	rp_fm_free(p->m);
}

int rp_layout_price(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
		    const rp_layout_addrs *a, const rp_fm_cfg *cfg, rp_layout_cost *out, rp_err *err)
{
	pricer p = { t, link, lp, a, NULL, 0, 0, 0, 0 };
	if (pricer_start(&p, cfg, err))
		return err->code;
	for (size_t r = 0; r < t->nruns; r++) {
		const rp_layout_run *run = &t->runs[r];
		if (cross(&p, run->piece, run->from, (rp_fm_op)run->op))
			continue;
		p.stall += rp_fm_access_run(p.m, new_addr(&p, run->piece, run->off), run->len, run->n, run->starts,
					     (rp_fm_op)run->op);
	}
	pricer_finish(&p, out);
	return 0;
}

static int full_visit(void *ctx, const lt_access *a, rp_err *err)
{
	(void)err;
	pricer *p = ctx;
	if (!cross(p, a->piece, a->from, a->op))
		p->stall += rp_fm_access(p->m, new_addr(p, a->piece, a->off), a->size, a->op);
	return 0;
}

int rp_layout_price_full(const char *path, const rp_image *img, const rp_layout_trace *t, const rp_layout_link *link,
			 const rp_layout_plan *lp, const rp_layout_addrs *a, const rp_fm_cfg *cfg, rp_layout_cost *out,
			 rp_err *err)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return rp_err_set(err, RP_EINPUT, "%s: cannot open the trace", path);
	pricer p = { t, link, lp, a, NULL, 0, 0, 0, 0 };
	lt_meta meta;
	int rc = pricer_start(&p, cfg, err);
	if (!rc)
		rc = lt_walk(f, path, t->map, img, full_visit, &p, &meta, err);
	fclose(f);
	if (p.m)
		pricer_finish(&p, out);
	return rc;
}
