/* util_sort.c: sorting (rp_sort, rp_sort_r, and rp_sort_keyed's radix sort for large arrays)
 * and the name index built on it (util.h). No state of its own. Workload: arrays of up to a
 * few hundred thousand records (a firmware's functions, a map's input sections), sorted or
 * indexed once per command. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/util.h"

void rp_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

void rp_sort_r(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *, void *), void *arg)
{
	if (n > 1)
		qsort_r(base, n, size, cmp, arg);
}

/* rp_sort_keyed: an LSD radix sort of (key, position) pairs, 11 bits a pass, passes over digits
 * that every key shares skipped (addresses below 1 MiB need two), then the records moved once
 * and each run of equal keys put in cmp's order. glibc's merge sort called cmp n log n times,
 * a fifth of `place` at 50,000 functions. */
typedef struct keyed_pos {
	uint64_t key;
	size_t at;
} keyed_pos;

#define RADIX_BITS 11
#define RADIX_SIZE (1u << RADIX_BITS)

static void radix_pass(keyed_pos *from, keyed_pos *to, size_t n, unsigned shift, size_t *count)
{
	memset(count, 0, RADIX_SIZE * sizeof(size_t));
	for (size_t i = 0; i < n; i++)
		count[(from[i].key >> shift) & (RADIX_SIZE - 1)]++;
	for (size_t d = 0, sum = 0; d < RADIX_SIZE; d++) {
		size_t c = count[d];
		count[d] = sum;
		sum += c;
	}
	for (size_t i = 0; i < n; i++)
		to[count[(from[i].key >> shift) & (RADIX_SIZE - 1)]++] = from[i];
}

/* Sorts pairs by key; returns the buffer holding the result (pairs or tmp). */
static keyed_pos *radix_sort(keyed_pos *pairs, keyed_pos *tmp, size_t n, size_t *count)
{
	uint64_t all_or = 0, all_and = ~(uint64_t)0;
	for (size_t i = 0; i < n; i++) {
		all_or |= pairs[i].key;
		all_and &= pairs[i].key;
	}
	for (unsigned shift = 0; shift < 64; shift += RADIX_BITS) {
		if ((((all_or ^ all_and) >> shift) & (RADIX_SIZE - 1)) == 0)
			continue;   /* every key has this digit */
		radix_pass(pairs, tmp, n, shift, count);
		keyed_pos *swap = pairs;
		pairs = tmp;
		tmp = swap;
	}
	return pairs;
}

/* Puts record sorted[i].at at position i, in place, one cycle of the permutation at a time
 * through hold (one record): a copy of the whole array was as large as the array (200,000 map
 * sections: 20 MB, each page of it a fault). Marks a placed position by setting its .at to i. */
static void permute(char *b, size_t n, size_t size, keyed_pos *sorted, char *hold)
{
	for (size_t i = 0; i < n; i++) {
		if (sorted[i].at == i)
			continue;
		memcpy(hold, b + i * size, size);
		size_t j = i;
		while (sorted[j].at != i) {
			size_t from = sorted[j].at;
			memcpy(b + j * size, b + from * size, size);
			sorted[j].at = j;
			j = from;
		}
		memcpy(b + j * size, hold, size);
		sorted[j].at = j;
	}
}

/* Whether n records are already in cmp's order: a run of equal keys often is (the radix sort
 * is stable, and records made in order, as an object's 200,000 sections are, stay so), and a
 * merge sort of it was a twentieth of `place`. */
static int in_order(const char *b, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	for (size_t i = 1; i < n; i++)
		if (cmp(b + (i - 1) * size, b + i * size) > 0)
			return 0;
	return 1;
}

void rp_sort_keyed(void *base, size_t n, size_t size, uint64_t (*key)(const void *),
		   int (*cmp)(const void *, const void *))
{
	keyed_pos *pairs = n >= 256 ? malloc(n * sizeof(keyed_pos)) : NULL;
	keyed_pos *tmp = pairs ? malloc(n * sizeof(keyed_pos)) : NULL;
	size_t *count = tmp ? malloc(RADIX_SIZE * sizeof(size_t)) : NULL;
	char *hold = count ? malloc(size) : NULL;
	if (!hold) {   /* small, or no memory for the buffers: the comparison sort */
		free(pairs);
		free(tmp);
		free(count);
		rp_sort(base, n, size, cmp);
		return;
	}
	char *b = base;
	for (size_t i = 0; i < n; i++)
		pairs[i] = (keyed_pos){ key(b + i * size), i };
	keyed_pos *sorted = radix_sort(pairs, tmp, n, count);
	permute(b, n, size, sorted, hold);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && sorted[j].key == sorted[i].key; j++)
			;
		if (j - i > 1 && !in_order(b + i * size, j - i, size, cmp))
			rp_sort(b + i * size, j - i, size, cmp);
	}
	free(pairs);
	free(tmp);
	free(count);
	free(hold);
}

/* The name index: the entries sorted by (hash of name, name, sub, index), so that one name's
 * entries are contiguous and in (sub, index) order, plus an open-addressing table from a name to
 * its run of entries. A lookup hashes the name once and compares strings only on a hash match
 * (the sorted-array binary search it replaces spent its time in strcmp at 50,000 functions).
 * NULL sub sorts before every string; equal keys keep their records' order through the index
 * tiebreak. */
static int cmp_opt(const char *a, const char *b)
{
	if (!a || !b)
		return a ? 1 : b ? -1 : 0;
	return strcmp(a, b);
}

/* FNV-1a, 64 bits: names are short and this is called once per entry and per lookup. */
uint64_t rp_str_hash(const char *s)
{
	uint64_t h = 1469598103934665603u;
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

static uint64_t name_entry_key(const void *a)
{
	return ((const rp_name_entry *)a)->hash;
}

static int name_entry_cmp(const void *a, const void *b)
{
	const rp_name_entry *x = a, *y = b;
	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	int c = strcmp(x->name, y->name);
	if (!c)
		c = cmp_opt(x->sub, y->sub);
	if (!c && x->index != y->index)
		c = x->index < y->index ? -1 : 1;
	return c;
}

int rp_name_index_init(rp_name_index *ix, size_t n, rp_err *err)
{
	*ix = (rp_name_index){ 0 };
	if (n > SIZE_MAX / 4 / sizeof(rp_name_entry))
		return rp_err_nomem(err, "indexing names");
	ix->e = malloc((n ? n : 1) * sizeof(rp_name_entry));
	/* the table: a power of two at least twice the entries, so that probe runs stay short */
	size_t nslot = 16;
	while (nslot < n * 2)
		nslot *= 2;
	ix->slot = calloc(nslot, sizeof *ix->slot);
	if (!ix->e || !ix->slot) {
		rp_name_index_release(ix);
		return rp_err_nomem(err, "indexing names");
	}
	ix->n = n;
	ix->nslot = nslot;
	return 0;
}

void rp_name_index_sort(rp_name_index *ix)
{
	for (size_t i = 0; i < ix->n; i++)
		ix->e[i].hash = rp_str_hash(ix->e[i].name);
	rp_sort_keyed(ix->e, ix->n, sizeof(rp_name_entry), name_entry_key, name_entry_cmp);
	/* one slot per name: the start of its run (+1, 0 marks a free slot) and the run's length */
	for (size_t i = 0, len; i < ix->n; i += len) {
		for (len = 1; i + len < ix->n && ix->e[i + len].hash == ix->e[i].hash &&
		     !strcmp(ix->e[i + len].name, ix->e[i].name); len++)
			;
		size_t s = (size_t)ix->e[i].hash & (ix->nslot - 1);
		while (ix->slot[s].start)
			s = (s + 1) & (ix->nslot - 1);
		ix->slot[s] = (rp_name_slot){ i + 1, len };
	}
}

/* The run of entries named name: its slot, or NULL. */
static const rp_name_slot *name_run(const rp_name_index *ix, const char *name)
{
	if (!ix->nslot)
		return NULL;
	uint64_t h = rp_str_hash(name);
	for (size_t s = (size_t)h & (ix->nslot - 1); ix->slot[s].start; s = (s + 1) & (ix->nslot - 1)) {
		const rp_name_entry *e = &ix->e[ix->slot[s].start - 1];
		if (e->hash == h && !strcmp(e->name, name))
			return &ix->slot[s];
	}
	return NULL;
}

const rp_name_entry *rp_name_index_find(const rp_name_index *ix, const char *name, const char *sub, int match_sub)
{
	const rp_name_slot *run = name_run(ix, name);
	if (!run)
		return NULL;
	const rp_name_entry *e = &ix->e[run->start - 1];
	if (!match_sub)
		return e;
	/* the first entry of sub within the run, which is sorted by (sub, index) */
	size_t lo = 0, hi = run->len;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp_opt(e[mid].sub, sub) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < run->len && !cmp_opt(e[lo].sub, sub) ? &e[lo] : NULL;
}

const rp_name_entry *rp_name_index_next(const rp_name_index *ix, const rp_name_entry *e)
{
	if (!e || (size_t)(e - ix->e) + 1 >= ix->n || e[1].hash != e->hash || strcmp(e[1].name, e->name) != 0)
		return NULL;
	return e + 1;
}

void rp_name_index_release(rp_name_index *ix)
{
	free(ix->e);
	free(ix->slot);
	*ix = (rp_name_index){ 0 };
}
