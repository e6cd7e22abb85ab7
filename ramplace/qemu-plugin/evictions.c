/* evictions.c: the QEMU plugin's (evictor, victim) table for model= (import format "qemu"
 * version 4, docs/import-formats.md): per pair of the access that evicted a cache line and the
 * access that later missed on it, the stall cycles of those misses. Owns the table until
 * evictions_free. Workload: one insertion per miss on an evicted line, a few thousand distinct
 * pairs per run; open addressing, grown at half load. One vCPU, as the model itself. */
#include <inttypes.h>
#include <stdlib.h>

#include "evictions.h"

typedef struct evict_slot {
	uint64_t by, victim, stall;
	uint8_t ops;             /* bit 0: evictor was a data read, bit 1: victim was; bit 7: used */
} evict_slot;

static struct {
	evict_slot *slots;
	size_t cap, used;
	uint64_t stall;
} ev_tab;

static evict_slot *evict_find(evict_slot *slots, size_t cap, uint64_t by, uint64_t victim, uint8_t ops)
{
	size_t i = (size_t)(((by * 0x9e3779b97f4a7c15ull) ^ (victim * 0xc2b2ae3d27d4eb4full) ^ ops) >> 20) & (cap - 1);
	while (slots[i].ops && (slots[i].by != by || slots[i].victim != victim || slots[i].ops != ops))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static int evict_grow(void)
{
	size_t cap = ev_tab.cap ? ev_tab.cap * 2 : 4096;
	evict_slot *bigger = calloc(cap, sizeof(evict_slot));
	if (!bigger)
		return -1;
	for (size_t i = 0; i < ev_tab.cap; i++)
		if (ev_tab.slots[i].ops)
			*evict_find(bigger, cap, ev_tab.slots[i].by, ev_tab.slots[i].victim, ev_tab.slots[i].ops) = ev_tab.slots[i];
	free(ev_tab.slots);
	ev_tab.slots = bigger;
	ev_tab.cap = cap;
	return 0;
}

int evictions_record(const rp_fm_evict *ev, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if ((ev_tab.used + 1) * 2 > ev_tab.cap && evict_grow() != 0)
			return -1;
		uint8_t ops = (uint8_t)(0x80 | (ev[i].by_op == RP_FM_READ) | (ev[i].victim_op == RP_FM_READ) << 1);
		evict_slot *s = evict_find(ev_tab.slots, ev_tab.cap, ev[i].by, ev[i].victim, ops);
		if (!s->ops) {
			*s = (evict_slot){ ev[i].by, ev[i].victim, 0, ops };
			ev_tab.used++;
		}
		s->stall += ev[i].stall;
		ev_tab.stall += ev[i].stall;
	}
	return 0;
}

static int cmp_evict(const void *a, const void *b)
{
	const evict_slot *x = a, *y = b;
	if (x->by != y->by)
		return x->by < y->by ? -1 : 1;
	if (x->victim != y->victim)
		return x->victim < y->victim ? -1 : 1;
	return x->ops < y->ops ? -1 : x->ops > y->ops;
}

/* Version 4's "e" lines: "e XY BY VICTIM STALL", X and Y F (fetch) or R (data read) for the
 * evictor and the victim, sorted. */
void evictions_write(FILE *fp)
{
	size_t n = 0;
	for (size_t i = 0; i < ev_tab.cap; i++)
		if (ev_tab.slots[i].ops)
			ev_tab.slots[n++] = ev_tab.slots[i];
	if (n)
		qsort(ev_tab.slots, n, sizeof(evict_slot), cmp_evict);
	fprintf(fp, "# evictions %zu\n", n);
	for (size_t k = 0; k < n; k++) {
		const evict_slot *e = &ev_tab.slots[k];
		fprintf(fp, "e %c%c %" PRIx64 " %" PRIx64 " %" PRIu64 "\n", e->ops & 1 ? 'R' : 'F', e->ops & 2 ? 'R' : 'F',
			e->by, e->victim, e->stall);
	}
}

uint64_t evictions_stall(void)
{
	return ev_tab.stall;
}

void evictions_free(void)
{
	free(ev_tab.slots);
	ev_tab.slots = NULL;
	ev_tab.cap = ev_tab.used = 0;
}
