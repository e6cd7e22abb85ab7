/* samples.c: the per-run PC histogram (open-addressing hash keyed by pc) and the list of sampled
 * arcs (see samples.h). Assumes up to a few million distinct PCs; grows at 50 % load. */
#include <stdlib.h>
#include <string.h>

#include "ramplace/samples.h"
#include "ramplace/util.h"

void rp_samples_init(rp_samples *s)
{
	memset(s, 0, sizeof(*s));
}

void rp_samples_release(rp_samples *s)
{
	free(s->pcs);
	free(s->arcs);
	memset(s, 0, sizeof(*s));
}

static size_t slot_of(uint64_t pc, size_t cap)
{
	uint64_t h = pc * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 17) & (cap - 1);
}

static rp_pc_count *find_slot(rp_pc_count *table, size_t cap, uint64_t pc)
{
	size_t i = slot_of(pc, cap);
	while (table[i].count && table[i].pc != pc)
		i = (i + 1) & (cap - 1);
	return &table[i];
}

static int rehash(rp_samples *s, rp_err *err)
{
	size_t newcap = s->pcs_cap ? s->pcs_cap * 2 : 1024;
	rp_pc_count *table = calloc(newcap, sizeof(*table));
	if (!table)
		return rp_err_nomem(err, "growing the sample table");
	for (size_t i = 0; i < s->pcs_cap; i++)
		if (s->pcs[i].count)
			*find_slot(table, newcap, s->pcs[i].pc) = s->pcs[i];
	free(s->pcs);
	s->pcs = table;
	s->pcs_cap = newcap;
	return 0;
}

int rp_samples_add(rp_samples *s, uint64_t pc, uint64_t count, rp_err *err)
{
	if (count == 0)
		return 0;
	/* profile.db stores counts as SQLite's int64: a total past that would wrap on the way in */
	uint64_t total = s->total;
	if (rp_count_add(&total, count))
		return rp_err_set(err, RP_EINPUT, "%llu more samples make the total more than %llu (the most profile.db can count)",
				  (unsigned long long)count, (unsigned long long)RP_COUNT_MAX);
	if ((s->pcs_used + 1) * 2 > s->pcs_cap) {
		int rc = rehash(s, err);
		if (rc)
			return rc;
	}
	rp_pc_count *slot = find_slot(s->pcs, s->pcs_cap, pc);
	if (!slot->count) {
		slot->pc = pc;
		s->pcs_used++;
	}
	slot->count += count;
	s->total += count;
	return 0;
}

int rp_samples_add_arc(rp_samples *s, uint64_t from_pc, uint64_t self_pc, uint64_t count, rp_err *err)
{
	int rc = rp_grow((void **)&s->arcs, &s->arcs_cap, s->narcs + 1, sizeof(*s->arcs), err);
	if (rc)
		return rc;
	s->arcs[s->narcs++] = (rp_arc_count){ from_pc, self_pc, count };
	return 0;
}

int rp_samples_merge(rp_samples *dst, const rp_samples *src, const char *name, rp_err *err)
{
	uint64_t ds = dst->scale ? dst->scale : 1, ss = src->scale ? src->scale : 1;
	int empty = dst->total == 0 && dst->narcs == 0 && dst->taken == 0;
	if (!empty && ds != ss)
		return rp_err_set(err, RP_EINPUT, "%s: counts in units of 1/%llu sample cannot join a run counted in units of 1/%llu "
				  "(histograms of another scale, or another format): import it as its own run",
				  name, (unsigned long long)ss, (unsigned long long)ds);
	uint64_t dt = dst->taken ? dst->taken : dst->total / ds, st = src->taken ? src->taken : src->total / ss;
	int keep_taken = dst->taken || src->taken;
	for (size_t i = 0; i < src->pcs_cap; i++)
		if (src->pcs[i].count && rp_samples_add(dst, src->pcs[i].pc, src->pcs[i].count, err))
			return err->code;
	for (size_t i = 0; i < src->narcs; i++)
		if (rp_samples_add_arc(dst, src->arcs[i].from_pc, src->arcs[i].self_pc, src->arcs[i].count, err))
			return err->code;
	dst->scale = ss;
	if (keep_taken && rp_count_add(&dt, st))
		return rp_err_set(err, RP_EINPUT, "%s: the samples taken make a total more than %llu (the most profile.db can count)",
				  name, (unsigned long long)RP_COUNT_MAX);
	dst->taken = keep_taken ? dt : 0;
	return 0;
}
