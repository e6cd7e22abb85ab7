/* layout_assign.c: a candidate layout's addresses (rp_layout_arrange): the flash blocks laid
 * again with the moved sections gone, the ordered sections first in the text, the stub blocks
 * where GNU ld puts them (layout_veneers.c), the RAM section's load image, and RISC-V's lt_growth
 * (layout_relax.c). Owns the addresses it computes. Workload: a few hundred times per search. */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout_internal.h"
#include "ramplace/callgraph.h"
#include "ramplace/util.h"

/* A stretch of flash: an output section's input sections (by address), or the RAM section's
 * load image. */
typedef struct block {
	uint64_t start, end;      /* old */
	size_t first, last;       /* input sections [first, last) */
	uint64_t align;
	int is_text, is_load;
} block;

/* The flash blocks in address order: runs of input sections of one output section outside the
 * RAM output section, with the load image at its load address when known. */
static int collect_blocks(const rp_layout_trace *t, const rp_layout_link *link, block **out, size_t *n, rp_err *err)
{
	const rp_map *map = t->map;
	block *b = NULL;
	size_t nb = 0, cap = 0;
	for (size_t i = 0; i < map->ninsecs; i++) {
		const rp_map_insec *s = &map->insecs[i];
		if (!s->outsec || strcmp(s->outsec, link->ram_outsec) == 0 || s->addr < link->flash_lo ||
		    s->addr >= link->flash_hi)   /* RAM keeps its addresses */
			continue;
		if (nb && b[nb - 1].last == i && strcmp(map->insecs[b[nb - 1].first].outsec, s->outsec) == 0) {
			b[nb - 1].last = i + 1;
			b[nb - 1].end = s->addr + s->size > b[nb - 1].end ? s->addr + s->size : b[nb - 1].end;
			if (lt_piece_align(s) > b[nb - 1].align)
				b[nb - 1].align = lt_piece_align(s);
			continue;
		}
		if (rp_grow((void **)&b, &cap, nb + 2, sizeof(*b), err)) {
			free(b);
			return err->code;
		}
		const rp_map_outsec *o = rp_map_outsec_find(map, s->outsec);
		b[nb++] = (block){ o && o->addr <= s->addr ? o->addr : s->addr, s->addr + s->size, i, i + 1, lt_piece_align(s),
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
		memmove(b + at + 1, b + at, (nb - at) * sizeof(*b));
		b[at] = (block){ link->ram_lma, link->ram_lma + link->ram_base_size, 0, 0, 4, 0, 1 };
		nb++;
	}
	*out = b;
	*n = nb;
	return 0;
}

/* The veneers of block b: its group's, when b is the group's last block (an output section the
 * map shows in pieces gets them once, in its last piece). */
static size_t block_veneers(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_addrs *a,
			    const block *b, size_t *lo)
{
	uint32_t g = link->group[b->first];
	if (b->last < t->npieces && link->group[b->last] == g) {
		*lo = 0;
		return 0;
	}
	return lt_group_veneers(a, g, lo);
}

/* Lays out block b's veneers from cur (aligned to the veneer block's alignment), after its
 * group's last code section link_sec (SIZE_MAX: unknown); returns the end. */
static uint64_t lay_veneers(const rp_layout_trace *t, const rp_layout_link *link, rp_layout_addrs *a, const block *b,
			    uint64_t cur, size_t link_sec)
{
	size_t lo, hi = block_veneers(t, link, a, b, &lo);
	if (lo == hi)
		return cur;
	cur = lt_align_up(cur, link->veneer_block_align);
	/* ld's table key is led by the id of the group's last code section; unknown where that is
	 * an empty one */
	uint32_t id = link_sec < t->npieces && !(link->code[link_sec] & 2) ? t->map->insecs[link_sec].bfd_id : 0;
	lt_stub_order(link, a, lo, hi, id);
	for (size_t k = lo; k < hi; k++, cur += link->veneer_size)
		a->veneer_addr[lo + (uint32_t)a->veneer_slot[k - lo]] = cur;
	return cur;
}


/* The RAM section's load image: the moved sections at their alignment, the RAM-side veneers. */
static uint64_t load_size(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
			  const int64_t *grow, uint64_t ram_veneer_bytes)
{
	uint64_t size = link->ram_base_size;   /* what the section already holds (attributes) */
	/* by alignment, the largest first, as the fragment orders its units (place_plan.c; within
	 * an alignment, and for a unit of mixed alignments, a few bytes of padding may differ):
	 * the padding between them depends on it */
	for (uint64_t al = UINT64_MAX, next; lp->in_ram && al > 0; al = next) {
		next = 0;
		for (size_t i = 0; i < t->npieces; i++) {
			uint64_t a = lt_piece_align(&t->map->insecs[i]);
			if (!lp->in_ram[i] || a > al)
				continue;
			if (a == al)
				size = lt_align_up(size, a) + lt_grown(t, grow, i);
			else if (a > next)
				next = a;   /* the next alignment down */
		}
	}
	if (!size)
		return 0;
	/* the RAM side's stub block is aligned like the flash side's (phasevm: 4 bytes of fill
	 * that shifted everything after the load image) */
	if (ram_veneer_bytes)
		size = lt_align_up(size, link->veneer_block_align) + ram_veneer_bytes;
	return lt_align_up(size, 4);
}

/* Lays section i from *cur: at its alignment, or, when it starts inside what the sections laid
 * before it held in the old link (ld's map gives a merged string section the address of the
 * copy it shares), by the shift of the one laid last. *laid: the last one laid (SIZE_MAX: none),
 * *old_end: the furthest old end laid so far. */
static void lay_one(const rp_layout_trace *t, const int64_t *grow, size_t i, uint64_t *cur, size_t *laid,
		    uint64_t *old_end, rp_layout_addrs *a)
{
	const rp_map_insec *s = &t->map->insecs[i];
	if (*laid != SIZE_MAX && s->addr < *old_end) {
		const rp_map_insec *p = &t->map->insecs[*laid];
		a->addr[i] = a->addr[*laid] + (s->addr - p->addr);
	} else {
		a->addr[i] = lt_align_up(*cur, lt_piece_align(s));
	}
	uint64_t end = a->addr[i] + lt_grown(t, grow, i);
	*cur = end > *cur ? end : *cur;
	*old_end = s->addr + s->size > *old_end ? s->addr + s->size : *old_end;
	*laid = i;
}

/* Where block b's veneer block goes among the sections left in flash (not placed, not moved):
 * before section i, returned (b->last: at the end). GNU ld puts an output section's stubs after
 * its last code section, so the strings and tables after that follow the stubs; ld.lld's are
 * laid at the text's end. */
static size_t veneers_after(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
			    const block *b, const unsigned char *placed)
{
	if (!link->per_section_veneers)
		return b->last;
	size_t at = b->first;   /* no code left but ordered sections: right after them */
	for (size_t i = b->first; i < b->last && i < t->npieces; i++)
		if (link->code[i] && !(placed && placed[i]) && !(lp->in_ram && lp->in_ram[i]))
			at = i + 1;
	return at;
}

/* The last of the plan's ordered sections in block b (SIZE_MAX: none), after which ld puts the
 * stubs when no other code section is left in it. */
static size_t last_ordered(const rp_layout_trace *t, const rp_layout_plan *lp, const block *b)
{
	size_t last = SIZE_MAX;
	for (size_t k = 0; k < lp->norder; k++) {
		size_t i = lp->order[k];
		if (i >= b->first && i < b->last && i < t->npieces && !(lp->in_ram && lp->in_ram[i]))
			last = i;
	}
	return last;
}

/* The unordered sections of the text block from cur (the ordered ones' end) after pad (the
 * fragment's `. += pad` after the ordered sections), the veneer block after the last code
 * section: before the pad when that is an ordered one (ld inserts the stubs right after it);
 * returns the end. *rest_align: the largest alignment the pad moves (what it must be a
 * multiple of to move them all by itself). */
static uint64_t lay_rest(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
			 const int64_t *grow, const block *b, uint64_t cur, uint64_t pad, const unsigned char *placed,
			 rp_layout_addrs *a, uint64_t *rest_align)
{
	const rp_map *map = t->map;
	uint64_t last_old_end = b->start;
	*rest_align = 1;
	size_t laid = SIZE_MAX, stubs_after = veneers_after(t, link, lp, b, placed);
	uint64_t laid_old_end = 0;
	size_t lo, hi = block_veneers(t, link, a, b, &lo);
	int stubs_first = stubs_after == b->first && hi > lo;
	if (!stubs_first)
		cur += pad;
	for (size_t i = b->first; i <= b->last; i++) {
		if (i == stubs_after && hi > lo) {
			a->veneer_base = lt_align_up(cur, link->veneer_block_align);
			cur = lay_veneers(t, link, a, b, cur, stubs_first ? last_ordered(t, lp, b) : stubs_after - 1);
			if (stubs_first)
				cur += pad;
			else
				*rest_align = link->veneer_block_align > *rest_align ? link->veneer_block_align : *rest_align;
		}
		if (i == b->last)
			break;
		const rp_map_insec *s = &map->insecs[i];
		last_old_end = s->addr + s->size > last_old_end ? s->addr + s->size : last_old_end;
		if (placed[i] || (lp->in_ram && lp->in_ram[i]))
			continue;
		lay_one(t, grow, i, &cur, &laid, &laid_old_end, a);
		*rest_align = lt_piece_align(s) > *rest_align ? lt_piece_align(s) : *rest_align;
	}
	return cur + (b->end - last_old_end);
}

/* The text output section: ordered sections first, the rest in the old order, the veneers
 * after the last code section; with tail_line, a pad after the ordered sections so that what
 * follows the text keeps its offset within a line (as near as the rest's alignment allows). */
static uint64_t lay_text(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
			 const int64_t *grow, const block *b, uint64_t start, unsigned char *placed, rp_layout_addrs *a)
{
	const rp_map *map = t->map;
	uint64_t cur = lt_align_up(start + (map->insecs[b->first].addr - b->start), lp->text_align);
	for (size_t k = 0; k < lp->norder; k++) {
		size_t i = lp->order[k];
		if (i < b->first || i >= b->last || placed[i] || (lp->in_ram && lp->in_ram[i]))
			continue;
		uint64_t al = lt_piece_align(&map->insecs[i]);
		a->addr[i] = lt_align_up(cur, lp->order_align > al ? lp->order_align : al);
		cur = a->addr[i] + lt_grown(t, grow, i);
		placed[i] = 1;
	}
	uint64_t rest_align, end = lay_rest(t, link, lp, grow, b, cur, 0, placed, a, &rest_align);
	a->tail_pad = 0;
	if (lp->tail_line > 1 && rest_align <= lp->tail_line) {
		uint64_t off = (b->end % lp->tail_line + lp->tail_line - end % lp->tail_line) % lp->tail_line;
		a->tail_pad = lt_align_up(off, rest_align) % lp->tail_line;
		if (a->tail_pad)
			end = lay_rest(t, link, lp, grow, b, cur, a->tail_pad, placed, a, &rest_align);
	}
	return end;
}

/* Another output section's block from start: as it was, or, when some of its sections moved
 * to RAM or grow (RISC-V), the rest closed up at their alignment; the veneers of its calls into
 * RAM after its last code section (GNU ld's stub section, 8-aligned, which aligns the output
 * section too), what follows them closed up behind; returns its end. */
static uint64_t lay_other(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
			  const int64_t *grow, const block *b, uint64_t start, rp_layout_addrs *out)
{
	const rp_map *map = t->map;
	int changed = 0;
	for (size_t i = b->first; i < b->last; i++)
		changed |= (lp->in_ram && lp->in_ram[i]) || (grow && grow[i]);
	uint64_t cur = start + (map->insecs[b->first].addr - b->start), last_old_end = b->start, laid_old_end = 0;
	size_t laid = SIZE_MAX, stubs_after = veneers_after(t, link, lp, b, NULL);
	for (size_t i = b->first; i <= b->last; i++) {
		if (i == stubs_after) {
			uint64_t end = lay_veneers(t, link, out, b, cur, stubs_after > b->first ? stubs_after - 1 : SIZE_MAX);
			changed |= end != cur;   /* what follows the stubs is laid after them */
			cur = end;
		}
		if (i == b->last)
			break;
		const rp_map_insec *s = &map->insecs[i];
		last_old_end = s->addr + s->size > last_old_end ? s->addr + s->size : last_old_end;
		if (!changed) {
			out->addr[i] = s->addr - b->start + start;
			cur = out->addr[i] + s->size > cur ? out->addr[i] + s->size : cur;
			laid = i;   /* merged strings after the stubs keep their overlap with it */
			laid_old_end = s->addr + s->size > laid_old_end ? s->addr + s->size : laid_old_end;
		} else if (!lp->in_ram || !lp->in_ram[i]) {
			lay_one(t, grow, i, &cur, &laid, &laid_old_end, out);
		}
	}
	return cur + (b->end - last_old_end);
}

/* Whether nothing is left of a block in flash: every input section moved to RAM, they spanned
 * the whole output section (no fill or assignment of its own) and it calls nothing across. ld
 * drops the empty output section (a script leaving .text.* orphans has one per function). */
static int emptied(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp, const block *b,
		   const rp_layout_addrs *a)
{
	if (b->is_load || !lp->in_ram || t->map->insecs[b->first].addr != b->start)
		return 0;
	uint64_t end = b->start;
	for (size_t i = b->first; i < b->last; i++) {
		const rp_map_insec *s = &t->map->insecs[i];
		if (!lp->in_ram[i])
			return 0;
		end = s->addr + s->size > end ? s->addr + s->size : end;
	}
	size_t lo, hi = block_veneers(t, link, a, b, &lo);
	return end >= b->end && hi == lo;
}

/* A block's alignment under the plan: the largest of the sections that stay in it (ld aligns
 * an output section to its input sections' largest alignment; the RISC-V example's .text was
 * 16-aligned by memcpy's, and laid 12 bytes late once memcpy had moved to RAM). */
static uint64_t block_align(const rp_layout_trace *t, const rp_layout_plan *lp, const block *b)
{
	if (b->is_load || !lp->in_ram)
		return b->align;
	uint64_t al = 0;
	for (size_t i = b->first; i < b->last; i++)
		if (!lp->in_ram[i] && lt_piece_align(&t->map->insecs[i]) > al)
			al = lt_piece_align(&t->map->insecs[i]);
	return al ? al : b->align;
}

/* One pass over the flash blocks with the sections' lt_growth; fills out's addresses. */
static void lay_blocks(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
		       const int64_t *grow, const block *b, size_t nb, unsigned char *placed, rp_layout_addrs *out)
{
	uint64_t old_end = 0, new_end = 0;
	int text_seen = 0;
	memset(placed, 0, t->npieces + 1);
	for (size_t k = 0; k < nb; k++) {
		if (k && emptied(t, link, lp, &b[k], out)) {
			old_end = b[k].end > old_end ? b[k].end : old_end;
			continue;
		}
		/* the gap before a block stays when it is more than alignment padding */
		uint64_t gap = k && b[k].start > old_end ? b[k].start - old_end : 0;
		size_t lo = 0, hi = b[k].is_load ? 0 : block_veneers(t, link, out, &b[k], &lo);
		uint64_t balign = block_align(t, lp, &b[k]);
		uint64_t al = hi > lo && link->veneer_block_align > balign ? link->veneer_block_align : balign;
		uint64_t start = k ? lt_align_up(new_end + (gap >= b[k].align ? gap : 0), al) : b[k].start;
		if (b[k].is_load) {
			out->load_addr = start;
			new_end = start + out->load_size;
		} else if (b[k].is_text && !text_seen) {
			text_seen = 1;
			new_end = lay_text(t, link, lp, grow, &b[k], start, placed, out);
		} else {
			new_end = lay_other(t, link, lp, grow, &b[k], start, out);
		}
		old_end = b[k].end > old_end ? b[k].end : old_end;
	}
	if (!link->ram_lma_known)   /* after everything in flash */
		out->load_addr = new_end;
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
	lt_growth g = { NULL, NULL, 0, 0 };
	int rc = lt_assign_veneers(t, link, lp, out, &ram_veneer_bytes, err);
	if (!rc)
		rc = lt_relax_growth(t, link, lp, NULL, NULL, 0, &g, err);
	if (!rc)
		rc = collect_blocks(t, link, &b, &nb, err);
	if (!rc) {
		out->load_size = load_size(t, link, lp, g.by, ram_veneer_bytes);
		lay_blocks(t, link, lp, g.by, b, nb, placed, out);
	}
	/* RVC: which calls stay c.jal depends on the distances just laid out; a second pass with
	 * those sizes (the linker iterates further; one pass takes the bulk) */
	if (!rc && link->rvc_reach && link->nrelax) {
		uint64_t *ram = NULL, ram_slack = 0;
		rc = lt_ram_addrs(t, link, lp, g.by, &ram, &ram_slack, err);
		lt_growth_release(&g);
		if (!rc)
			rc = lt_relax_growth(t, link, lp, out->addr, ram, ram_slack, &g, err);
		free(ram);
		if (!rc) {
			out->load_size = load_size(t, link, lp, g.by, ram_veneer_bytes);
			lay_blocks(t, link, lp, g.by, b, nb, placed, out);
		}
	}
	if (!rc)
		rc = lt_keep_shifts(t, &g, out, err);
	free(b);
	free(placed);
	lt_growth_release(&g);
	if (rc)
		rp_layout_addrs_release(out);
	return rc;
}

void rp_layout_addrs_release(rp_layout_addrs *a)
{
	free(a->addr);
	free(a->veneer_key);
	free(a->veneer_addr);
	free(a->veneer_slot);
	free(a->shift);
	free(a->shift_first);
	memset(a, 0, sizeof(*a));
}

