/* costs.c: the flash-model cost histograms of one run (costs.h). Owns its three histograms, its
 * list of eviction records and its handler entries' measurements. */
#include <stdlib.h>
#include <string.h>

#include "ramplace/costs.h"
#include "ramplace/util.h"

void rp_costs_init(rp_costs *c)
{
	memset(c, 0, sizeof(*c));
	rp_samples_init(&c->fetch_stall);
	rp_samples_init(&c->data_reads);
	rp_samples_init(&c->data_stall);
}

void rp_costs_release(rp_costs *c)
{
	rp_samples_release(&c->fetch_stall);
	rp_samples_release(&c->data_reads);
	rp_samples_release(&c->data_stall);
	free(c->evict);
	free(c->entries);
	memset(c, 0, sizeof(*c));
}

int rp_costs_add_evict(rp_costs *c, const rp_evict *e, rp_err *err)
{
	if (rp_grow((void **)&c->evict, &c->evict_cap, c->nevict + 1, sizeof(rp_evict), err))
		return err->code;
	c->evict[c->nevict++] = *e;
	return 0;
}

int rp_costs_merge_evict(rp_costs *into, const rp_costs *from, rp_err *err)
{
	for (size_t i = 0; i < from->nevict; i++)
		if (rp_costs_add_evict(into, &from->evict[i], err))
			return err->code;
	return 0;
}

int rp_costs_add_entry(rp_costs *c, const rp_entry_stall *e, rp_err *err)
{
	if (rp_grow((void **)&c->entries, &c->entries_cap, c->nentries + 1, sizeof(rp_entry_stall), err))
		return err->code;
	c->entries[c->nentries++] = *e;
	return 0;
}

int rp_costs_merge_entries(rp_costs *into, const rp_costs *from, rp_err *err)
{
	for (size_t i = 0; i < from->nentries; i++)
		if (rp_costs_add_entry(into, &from->entries[i], err))
			return err->code;
	return 0;
}
