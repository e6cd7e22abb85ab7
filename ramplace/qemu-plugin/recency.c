/* recency.c: for a sampled trace (trace-window=N,trace-period=M), what the flash held when each
 * window starts. A window replayed from a cold or stale cache misses lines the run had kept,
 * and those misses, scaled by the sampling, priced the FreeRTOS demo's layouts 5 to 12 % off
 * (docs/layout.md). The plugin therefore keeps, for every 2-byte granule of flash touched so
 * far, the index of its last access and whether it was a fetch or a read; before each window
 * (and at the end, for what was first touched after the last one) it writes them all, oldest
 * first, as "f|r hex-address bytes" lines. Replaying those through an LRU cache of any
 * geometry, at any layout of the sections, leaves each set holding the lines the run had last
 * used there: the window starts where the run was, whatever the layout. Owns one hash table
 * of granules. Workload: a few tens of thousands of granules (the code and constants a
 * firmware touches), updated at every access, written a thousand times or so. */
#include <stdlib.h>
#include <string.h>

#include "recency.h"

typedef struct granule {
	uint64_t addr1;    /* granule address (addr / 2) + 1; 0: an empty slot */
	uint64_t stamp;    /* its last access's index */
	int is_read;
} granule;

static granule *slots;
static size_t nslots, nused;

static size_t slot_of(uint64_t addr1)
{
	return (size_t)((addr1 * 0x9e3779b97f4a7c15ull) >> 20) & (nslots - 1);
}

static int grow(void)
{
	size_t n = nslots ? nslots * 2 : 4096;
	granule *old = slots, *s = calloc(n, sizeof(*s));
	if (!s)
		return -1;
	size_t oldn = nslots;
	slots = s, nslots = n;
	for (size_t i = 0; i < oldn; i++)
		if (old[i].addr1) {
			size_t k = slot_of(old[i].addr1);
			while (slots[k].addr1)
				k = (k + 1) & (nslots - 1);
			slots[k] = old[i];
		}
	free(old);
	return 0;
}

int recency_touch(uint64_t addr, unsigned size, int is_read, uint64_t stamp)
{
	for (uint64_t g = addr / 2; g <= (addr + (size ? size : 1) - 1) / 2; g++) {
		if ((nused + 1) * 2 > nslots && grow() != 0)
			return -1;
		size_t k = slot_of(g + 1);
		while (slots[k].addr1 && slots[k].addr1 != g + 1)
			k = (k + 1) & (nslots - 1);
		if (!slots[k].addr1) {
			slots[k].addr1 = g + 1;
			nused++;
		}
		slots[k].stamp = stamp;
		slots[k].is_read = is_read;
	}
	return 0;
}

static int oldest_first(const void *a, const void *b)
{
	const granule *x = a, *y = b;
	if (x->stamp != y->stamp)
		return x->stamp < y->stamp ? -1 : 1;
	return (x->addr1 > y->addr1) - (x->addr1 < y->addr1);
}

/* Granules in stamp order, those that follow one another in flash and in time (a fetch's two,
 * a block's instructions) merged into one line of up to 4,096 bytes. */
int recency_write(FILE *fp)
{
	granule *g = malloc((nused ? nused : 1) * sizeof(*g));
	if (!g)
		return -1;
	size_t n = 0;
	for (size_t i = 0; i < nslots; i++)
		if (slots[i].addr1)
			g[n++] = slots[i];
	qsort(g, n, sizeof(*g), oldest_first);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && g[j].addr1 == g[j - 1].addr1 + 1 && g[j].is_read == g[i].is_read && j - i < 2048)
			j++;
		fprintf(fp, "%c %llx %zu\n", g[i].is_read ? 'r' : 'f', (unsigned long long)(g[i].addr1 - 1) * 2,
			(j - i) * 2);
		i = j;
	}
	free(g);
	return 0;
}

void recency_free(void)
{
	free(slots);
	slots = NULL;
	nslots = nused = 0;
}
