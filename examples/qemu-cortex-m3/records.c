/* records.c: the sort/checksum stage. qsort (newlib, in flash) calls back into compare_records
 * thousands of times per round, so the profile links a library function to a hot local
 * callback in another object; memset, memcmp and strlen are exercised along the way. */
#include <stdlib.h>
#include <string.h>

#include "records.h"
#include "rng.h"

static void fill_tag(char *tag, uint32_t *rng)
{
	size_t len = 3 + rng_below(rng, RECORD_TAG_SIZE - 3);

	for (size_t i = 0; i < len; i++)
		tag[i] = (char)('a' + rng_below(rng, 6));	/* few letters: many ties on the prefix */
}

void records_fill(struct record *recs, size_t n, uint32_t *rng)
{
	/* Clearing first gives every tag its zero padding and NUL. */
	memset(recs, 0, n * sizeof *recs);
	for (size_t i = 0; i < n; i++) {
		recs[i].key = rng_next(rng);
		recs[i].group = (uint16_t)rng_below(rng, 8);
		fill_tag(recs[i].tag, rng);
	}
}

static int compare_records(const void *pa, const void *pb)
{
	const struct record *a = pa, *b = pb;
	int order;

	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	order = memcmp(a->tag, b->tag, sizeof a->tag);
	if (order != 0)
		return order;
	return a->key < b->key ? -1 : a->key > b->key;
}

void records_sort(struct record *recs, size_t n)
{
	qsort(recs, n, sizeof *recs, compare_records);
}

bool records_sorted(const struct record *recs, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (compare_records(&recs[i - 1], &recs[i]) > 0)
			return false;
	return true;
}

/* noinline: main.c has a different static fold(); keeping both as real local symbols with the
 * same name exercises how placement patterns tell same-named statics apart. */
__attribute__((noinline)) static uint32_t fold(uint32_t acc, uint32_t value)
{
	acc ^= value + 0x9e3779b9u + (acc << 6) + (acc >> 2);	/* boost::hash_combine */
	return acc;
}

uint32_t records_checksum(const struct record *recs, size_t n)
{
	uint32_t acc = 0;

	for (size_t i = 0; i < n; i++) {
		acc = fold(acc, recs[i].key);
		acc = fold(acc, (uint32_t)recs[i].group << 16 | (uint32_t)strlen(recs[i].tag));
	}
	return acc;
}
