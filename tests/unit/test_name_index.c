/* test_name_index.c: the name index (util.h rp_name_index) against a scan of the same records:
 * random records with many duplicate names and subs (NULL among them), every lookup, with and
 * without the second key, finds the first record in (sub, index) order, and rp_name_index_next
 * walks exactly that name's records in that order; names that are absent, and an empty index,
 * find nothing. And rp_sort_keyed, the radix sort under the index, leaves records in exactly the
 * order rp_sort gives them, for keys narrow and full-width, with many ties, at every size around
 * its switch to the comparison sort. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ramplace/util.h"

#include "../support/xorshift64.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void)
{
	return xorshift64(&rng_state);
}

enum { NNAMES = 400, NSUBS = 6, NREC = 6000 };
static char names[NNAMES + 1][16];
static char subs[NSUBS][16];

static int cmp_opt(const char *a, const char *b)
{
	if (!a || !b)
		return a ? 1 : b ? -1 : 0;
	return strcmp(a, b);
}

/* does record j come before record i in (sub, index) order */
static int before(const rp_name_entry *rec, size_t j, size_t i)
{
	int c = cmp_opt(rec[j].sub, rec[i].sub);
	return c < 0 || (c == 0 && j < i);
}

/* the scan: the first record of name (and of sub with match_sub) in (sub, index) order */
static const rp_name_entry *scan(const rp_name_entry *rec, size_t n, const char *name, const char *sub, int match_sub)
{
	const rp_name_entry *best = NULL;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rec[i].name, name) && (!match_sub || !cmp_opt(rec[i].sub, sub)) &&
		    (!best || before(rec, i, best->index)))
			best = &rec[i];
	return best;
}

static void test_matches_scan(void **state)
{
	(void)state;
	for (int i = 0; i <= NNAMES; i++)
		snprintf(names[i], sizeof names[i], "f%d", i * 7919 % 100003);
	for (int i = 0; i < NSUBS; i++)
		snprintf(subs[i], sizeof subs[i], "file%d.c", NSUBS - i);
	rp_name_entry *rec = malloc(NREC * sizeof *rec);
	assert_non_null(rec);
	rp_name_index ix;
	rp_err err = { 0 };
	assert_int_equal(rp_name_index_init(&ix, NREC, &err), 0);
	for (size_t i = 0; i < NREC; i++) {
		/* heavy-tailed: a few names (static helpers of many files) hold most records */
		size_t k = rng() % 3 ? rng() % 8 : rng() % NNAMES;
		size_t s = rng() % (NSUBS + 1);
		rec[i] = (rp_name_entry){ names[k], s == NSUBS ? NULL : subs[s], i, 0 };
		ix.e[i] = rec[i];
	}
	rp_name_index_sort(&ix);
	for (size_t k = 0; k <= NNAMES; k++) {   /* names[NNAMES] is in no record */
		const rp_name_entry *want = scan(rec, NREC, names[k], NULL, 0);
		const rp_name_entry *got = rp_name_index_find(&ix, names[k], NULL, 0);
		assert_true(!want == !got);
		if (!want)
			continue;
		assert_int_equal(got->index, want->index);
		/* next: every record of the name once, in (sub, index) order */
		size_t count = 0, total = 0;
		for (size_t i = 0; i < NREC; i++)
			total += !strcmp(rec[i].name, names[k]);
		for (const rp_name_entry *e = got, *prev = NULL; e; prev = e, e = rp_name_index_next(&ix, e), count++) {
			assert_string_equal(e->name, names[k]);
			if (prev)
				assert_true(before(rec, prev->index, e->index));
		}
		assert_int_equal(count, total);
		for (size_t s = 0; s <= NSUBS; s++) {
			const char *sub = s == NSUBS ? NULL : subs[s];
			want = scan(rec, NREC, names[k], sub, 1);
			got = rp_name_index_find(&ix, names[k], sub, 1);
			assert_true(!want == !got);
			if (want)
				assert_int_equal(got->index, want->index);
		}
		assert_null(rp_name_index_find(&ix, names[k], "absent.c", 1));
	}
	assert_null(rp_name_index_find(&ix, "", NULL, 0));
	rp_name_index_release(&ix);
	assert_null(ix.e);
	free(rec);
}

static void test_empty(void **state)
{
	(void)state;
	rp_name_index none = { 0 };
	assert_null(rp_name_index_find(&none, "main", NULL, 0));
	rp_name_index ix;
	rp_err err = { 0 };
	assert_int_equal(rp_name_index_init(&ix, 0, &err), 0);
	rp_name_index_sort(&ix);
	assert_null(rp_name_index_find(&ix, "main", NULL, 0));
	assert_null(rp_name_index_find(&ix, "main", NULL, 1));
	rp_name_index_release(&ix);
}

typedef struct keyed_rec {
	uint64_t key;
	uint32_t second;
	uint32_t serial;
} keyed_rec;

static uint64_t rec_key(const void *a)
{
	return ((const keyed_rec *)a)->key;
}

static int rec_cmp(const void *a, const void *b)
{
	const keyed_rec *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->second != y->second)
		return x->second < y->second ? -1 : 1;
	return x->serial < y->serial ? -1 : x->serial > y->serial;
}

static void test_sort_keyed_as_sort(void **state)
{
	(void)state;
	static const size_t sizes[] = { 0, 1, 2, 255, 256, 257, 5000 };
	/* keys: few distinct (ties), addresses below 1 MiB, full 64-bit hashes, only high bits */
	static const uint64_t masks[] = { 0x7, 0xfffff, ~0ull, 0xff00000000000000ull };
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
		for (size_t mi = 0; mi < sizeof(masks) / sizeof(masks[0]); mi++) {
			size_t n = sizes[si];
			keyed_rec *a = calloc(n ? n : 1, sizeof(keyed_rec)), *b = calloc(n ? n : 1, sizeof(keyed_rec));
			assert_non_null(a);
			assert_non_null(b);
			for (size_t i = 0; i < n; i++)
				a[i] = (keyed_rec){ rng() & masks[mi], (uint32_t)(rng() % 3), (uint32_t)i };
			memcpy(b, a, n * sizeof(keyed_rec));
			rp_sort(a, n, sizeof(keyed_rec), rec_cmp);
			rp_sort_keyed(b, n, sizeof(keyed_rec), rec_key, rec_cmp);
			assert_memory_equal(a, b, (n ? n : 1) * sizeof(keyed_rec));
			for (size_t i = 1; i < n; i++)
				assert_true(rec_cmp(&b[i - 1], &b[i]) < 0);
			free(a);
			free(b);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matches_scan),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_sort_keyed_as_sort),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
