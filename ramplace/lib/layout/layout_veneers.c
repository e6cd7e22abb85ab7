/* layout_veneers.c: which veneers the linker writes for a layout, and GNU ld's order of them
 * within a stub block. ld writes one per symbol a call names, per calling stub group (GNU ld)
 * or once (ld.lld): so per callee function, not per callee section (libc's fflush.o holds
 * _fflush_r and __sflush_r, two veneers). Owns the link's callee table and the keys in it,
 * and fills a layout's veneer keys. Workload: the table once per link model (a few thousand
 * callees); the keys per candidate layout, a few hundred times a search. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout_internal.h"
#include "ramplace/util.h"

/* ld's stub type of a Thumb call's long branch (elf32-arm.c's enum): v7-M and v8-M mainline's
 * ldr.w pc, [pc, #-0] (8 bytes), v6-M's push/ldr/mov/pop/bx. */
#define STUB_THUMB2_ONLY 22
#define STUB_THUMB_ONLY 3

/* Whether the link keys its veneers as GNU ld's stub table does (lt_stub_order): GNU ld's
 * veneers (ARM's; RISC-V has none). */
static int wants_stub_keys(const rp_layout_link *link)
{
	return link->per_section_veneers && link->veneer_size;
}

/* *out: the key of calls to func (at the start of section sec or inside it): ld names a stub
 * by the symbol the call's relocation names, a global by its name, a local by its section's id
 * and its index in the object's symbols (map_ids.c, known for a section's entry only); NULL
 * where unknown. */
static int stub_key(const rp_layout_link *link, const rp_func *func, const rp_map_insec *sec, char **out, rp_err *err)
{
	int type = link->veneer_size > 8 ? STUB_THUMB_ONLY : STUB_THUMB2_ONLY;
	char key[64];
	*out = NULL;
	if (!func->is_local) {
		size_t n = strlen(func->name) + 16;
		if (!(*out = malloc(n)))
			return rp_err_nomem(err, "laying out");
		snprintf(*out, n, "%s+0_%d", func->name, type);
		return 0;
	}
	if (!sec->bfd_id || !sec->entry_sym || func->addr != sec->addr)
		return 0;
	snprintf(key, sizeof(key), "%x:%x+0_%d", sec->bfd_id, sec->entry_sym, type);
	return rp_strdup(out, key, err);
}

static int add_callee(rp_layout_link *link, lt_callees *b, uint64_t at, const rp_func *f, const rp_map_insec *sec,
		      rp_err *err)
{
	if (rp_grow((void **)&link->callees, &b->callees_cap, link->ncallees + 1, sizeof(*link->callees), err))
		return err->code;
	struct rp_layout_callee *c = &link->callees[link->ncallees++];
	*c = (struct rp_layout_callee){ at, NULL };
	return f && wants_stub_keys(link) ? stub_key(link, f, sec, &c->stub_key, err) : 0;
}

int lt_callee_note(rp_layout_link *link, lt_callees *b, uint32_t from, uint32_t to, const rp_func *f,
		   const rp_map_insec *sec, rp_err *err)
{
	uint64_t at = (uint64_t)to << 32 | (uint32_t)(f->addr - sec->addr);
	if (rp_grow((void **)&b->pairs, &b->pairs_cap, 2 * (b->npairs + 1), sizeof(uint64_t), err))
		return err->code;
	b->pairs[2 * b->npairs] = from;
	b->pairs[2 * b->npairs++ + 1] = at;
	/* a cheap skip of a repeat (a function's calls to one callee); the sort drops the rest */
	if (link->ncallees && link->callees[link->ncallees - 1].at == at)
		return 0;
	return add_callee(link, b, at, f, sec, err);
}

/* By entry; of one entry, one with a key first (an edge's, the name its call used). */
static int by_callee(const void *x, const void *y)
{
	const struct rp_layout_callee *a = x, *b = y;
	if (a->at != b->at)
		return a->at < b->at ? -1 : 1;
	if (!a->stub_key || !b->stub_key)
		return !a->stub_key - !b->stub_key;
	return strcmp(a->stub_key, b->stub_key);
}

/* The first callee at or past at. */
static size_t callee_from(const rp_layout_link *link, uint64_t at)
{
	return RP_COUNT_BELOW(link->callees, link->ncallees, at, at);
}

uint32_t lt_callee_index(const rp_layout_link *link, uint32_t piece, uint32_t off)
{
	uint64_t at = (uint64_t)piece << 32 | off;
	size_t k = callee_from(link, at);
	if (k < link->ncallees && link->callees[k].at == at)
		return (uint32_t)k;
	/* not an entry of the table: the section's first callee, when it has one */
	k = callee_from(link, (uint64_t)piece << 32);
	return k < link->ncallees && link->callees[k].at >> 32 == piece ? (uint32_t)k : UINT32_MAX;
}

/* The trace's entries into a section from another: callees too (a call through a pointer
 * costs no veneer, but without a call graph each counts as direct), keyed once sorted. */
static int add_trace_entries(rp_layout_link *link, lt_callees *b, const rp_layout_trace *t, rp_err *err)
{
	for (size_t r = 0; r < t->nruns; r++) {
		const rp_layout_run *run = &t->runs[r];
		if (run->from == UINT32_MAX || run->piece >= t->npieces || run->from == run->piece)
			continue;
		uint64_t at = (uint64_t)run->piece << 32 | run->off;
		if (link->ncallees && link->callees[link->ncallees - 1].at == at)
			continue;   /* a loop's calls: a cheap skip, the sort drops the rest */
		if (add_callee(link, b, at, NULL, NULL, err))
			return err->code;
	}
	return 0;
}

/* The keys of callees only the trace named: from the function starting there. */
static int key_trace_entries(rp_layout_link *link, const rp_image *img, const rp_map *map, rp_err *err)
{
	for (size_t k = 0; img && wants_stub_keys(link) && k < link->ncallees; k++) {
		struct rp_layout_callee *c = &link->callees[k];
		const rp_map_insec *sec = &map->insecs[(uint32_t)(c->at >> 32)];
		const rp_func *f = c->stub_key ? NULL : rp_image_func_at(img, sec->addr + (uint32_t)c->at);
		if (f && f->addr == sec->addr + (uint32_t)c->at && stub_key(link, f, sec, &c->stub_key, err))
			return err->code;
	}
	return 0;
}

/* link->callees sorted, one per entry. */
static void sort_callees(rp_layout_link *link)
{
	if (link->ncallees)
		qsort(link->callees, link->ncallees, sizeof(*link->callees), by_callee);
	size_t n = 0;
	for (size_t k = 0; k < link->ncallees; k++)
		if (!n || link->callees[n - 1].at != link->callees[k].at)
			link->callees[n++] = link->callees[k];
		else
			free(link->callees[k].stub_key);
	link->ncallees = n;
}

/* link->direct_callees from the edges' pairs. */
static int pair_callees(rp_layout_link *link, const lt_callees *b, rp_err *err)
{
	if (!(link->direct_callees = malloc((b->npairs ? b->npairs : 1) * sizeof(uint64_t))))
		return rp_err_nomem(err, "laying out");
	for (size_t k = 0; k < b->npairs; k++) {
		uint64_t at = b->pairs[2 * k + 1];
		uint32_t callee = lt_callee_index(link, (uint32_t)(at >> 32), (uint32_t)at);
		link->direct_callees[k] = b->pairs[2 * k] << 32 | callee;
	}
	if (b->npairs)
		qsort(link->direct_callees, b->npairs, sizeof(uint64_t), lt_by_u64);
	size_t n = 0;
	for (size_t k = 0; k < b->npairs; k++)
		if (!n || link->direct_callees[n - 1] != link->direct_callees[k])
			link->direct_callees[n++] = link->direct_callees[k];
	link->ndirect_callees = n;
	return 0;
}

int lt_callees_finish(rp_layout_link *link, lt_callees *b, const rp_image *img, const rp_layout_trace *t,
		      rp_err *err)
{
	if (link->veneer_size && add_trace_entries(link, b, t, err))
		return err->code;
	sort_callees(link);
	if (key_trace_entries(link, img, t->map, err))
		return err->code;
	return pair_callees(link, b, err);
}

int lt_is_direct_callee(const rp_layout_link *link, uint32_t from, uint32_t piece, uint32_t off)
{
	if (link->all_direct)
		return 1;
	uint64_t key = (uint64_t)from << 32 | lt_callee_index(link, piece, off);
	return link->direct_callees &&
	       bsearch(&key, link->direct_callees, link->ndirect_callees, sizeof(uint64_t), lt_by_u64) != NULL;
}

void lt_callees_release(lt_callees *b)
{
	free(b->pairs);
	memset(b, 0, sizeof(*b));
}

void lt_callee_table_free(rp_layout_link *link)
{
	for (size_t i = 0; i < link->ncallees; i++)
		free(link->callees[i].stub_key);
	free(link->callees);
	free(link->direct_callees);
	link->callees = NULL;
	link->direct_callees = NULL;
	link->ncallees = link->ndirect_callees = 0;
}

/* One call from section from to callee (in section to): a flash veneer (keyed by the caller's
 * group) for a RAM callee called from flash, a RAM-side veneer (counted once per callee in
 * ram_calls) for a flash callee. */
static int note_veneer(const rp_layout_link *link, const rp_layout_plan *lp, size_t np, uint32_t from, uint32_t callee,
		       rp_layout_addrs *a, size_t *cap, unsigned char *ram_calls, size_t *nram_callees, rp_err *err)
{
	if (callee >= link->ncallees)
		return 0;
	uint32_t to = (uint32_t)(link->callees[callee].at >> 32);
	int to_ram = to < np && lp->in_ram[to];
	int from_ram = from < np && lp->in_ram[from];
	if (to_ram && !from_ram && from < np) {
		if (rp_grow((void **)&a->veneer_key, cap, a->nveneers + 1, sizeof(uint64_t), err))
			return err->code;
		uint64_t group = link->per_section_veneers ? link->group[from] : link->text_group;
		a->veneer_key[a->nveneers++] = group << 32 | callee;
	} else if (from_ram && !to_ram && to < np && !ram_calls[callee]) {
		ram_calls[callee] = 1;
		(*nram_callees)++;
	}
	return 0;
}

/* Veneers: one in flash per RAM function called from each output section; the bytes of the RAM
 * side's. ld writes one for every direct call across, executed or not: from the static call
 * graph's pairs (a sampled trace sees few of the calls), from the trace's calls only without
 * one. Their addresses are unknown (UINT64_MAX) until laid out. */
int lt_assign_veneers(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
		      rp_layout_addrs *a, uint64_t *ram_veneer_bytes, rp_err *err)
{
	size_t np = t->npieces, cap = 0, nram_callees = 0;
	unsigned char *ram_calls = calloc(link->ncallees + 1, 1);
	if (!ram_calls)
		return rp_err_nomem(err, "laying out");
	int rc = 0;
	int any = lp->in_ram && link->veneer_size;
	for (size_t k = 0; !rc && any && !link->all_direct && k < link->ndirect_callees; k++)
		rc = note_veneer(link, lp, np, (uint32_t)(link->direct_callees[k] >> 32), (uint32_t)link->direct_callees[k],
				 a, &cap, ram_calls, &nram_callees, err);
	for (size_t r = 0; !rc && any && link->all_direct && r < t->nruns; r++)
		if (t->runs[r].from != UINT32_MAX && t->runs[r].from != t->runs[r].piece)
			rc = note_veneer(link, lp, np, t->runs[r].from, lt_callee_index(link, t->runs[r].piece, t->runs[r].off),
					 a, &cap, ram_calls, &nram_callees, err);
	free(ram_calls);
	if (rc)
		return rc;
	size_t n = 0;   /* distinct keys */
	if (a->nveneers)
		qsort(a->veneer_key, a->nveneers, sizeof(uint64_t), lt_by_u64);
	for (size_t k = 0; k < a->nveneers; k++)
		if (!n || a->veneer_key[n - 1] != a->veneer_key[k])
			a->veneer_key[n++] = a->veneer_key[k];
	a->nveneers = n;
	a->nstubs = n + nram_callees;
	if (!(a->veneer_addr = malloc((n ? n : 1) * sizeof(uint64_t))) ||
	    !(a->veneer_slot = malloc((n ? n : 1) * sizeof(uint64_t))))
		return rp_err_nomem(err, "laying out");
	for (size_t k = 0; k < n; k++)
		a->veneer_addr[k] = UINT64_MAX;
	*ram_veneer_bytes = nram_callees * link->veneer_size;
	return 0;
}

size_t lt_group_veneers(const rp_layout_addrs *a, uint32_t g, size_t *lo)
{
	size_t l = 0, h = a->nveneers;
	while (l < h) {   /* the first key of group g or above */
		size_t m = l + (h - l) / 2;
		if (a->veneer_key[m] >> 32 < g)
			l = m + 1;
		else
			h = m;
	}
	*lo = l;
	while (h < a->nveneers && a->veneer_key[h] >> 32 == g)
		h++;
	return h;
}

/* bfd_hash_hash (bfd/hash.c) of "%08x_" id then key, with the 64-bit unsigned long of the
 * hosts ld runs on. */
static uint64_t stub_hash(uint32_t id, const char *key)
{
	char prefix[16];
	snprintf(prefix, sizeof(prefix), "%08x_", id);
	uint64_t h = 0, len = 0;
	for (const char *parts[2] = { prefix, key }, **p = parts; p < parts + 2; p++)
		for (const unsigned char *c = (const unsigned char *)*p; *c; c++, len++) {
			h += *c + ((uint64_t)*c << 17);
			h ^= h >> 2;
		}
	h += len + (len << 17);
	h ^= h >> 2;
	return h;
}

#define STUB_TABLE_SIZE 4051u

/* GNU ld builds stubs by walking its stub hash table bucket by bucket (elf32_arm_build_stubs),
 * so a block's veneers lie in the order of their keys' buckets: the table's 4,051 (it grows
 * past 3/4 full, which no order here follows), the key led by the id of the group's last code
 * section (id). Where a key or that id is unknown they lie in the order of their callees.
 * Within a bucket the newest comes first; the callees' order stands in for that. */
void lt_stub_order(const rp_layout_link *link, rp_layout_addrs *a, size_t lo, size_t hi, uint32_t id)
{
	int known = id != 0 && a->nstubs <= STUB_TABLE_SIZE * 3 / 4;
	for (size_t k = lo; known && k < hi; k++) {
		uint32_t callee = (uint32_t)a->veneer_key[k];
		known = callee < link->ncallees && link->callees[callee].stub_key;
	}
	for (size_t k = lo; k < hi; k++) {
		uint64_t bucket = known ? stub_hash(id, link->callees[(uint32_t)a->veneer_key[k]].stub_key) % STUB_TABLE_SIZE
					: 0;
		a->veneer_slot[k - lo] = bucket << 32 | (k - lo);
	}
	if (known && hi - lo > 1)
		qsort(a->veneer_slot, hi - lo, sizeof(uint64_t), lt_by_u64);
}
