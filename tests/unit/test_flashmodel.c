/* test_flashmodel.c: every flash model (flashmodel.h) against access sequences worked out by
 * hand in the comments (docs/cost-models.md states the rules), and the parser's refusals. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ramplace/flashmodel.h"

typedef struct step {
	uint64_t addr;
	unsigned size;
	rp_fm_op op;
	uint64_t stall;   /* expected */
} step;

static rp_fm *model(const char *spec)
{
	rp_fm_cfg cfg;
	char why[200];
	if (rp_fm_parse(&cfg, spec, why, sizeof(why)))
		fail_msg("%s", why);
	rp_fm *m = rp_fm_new(&cfg);
	assert_non_null(m);
	return m;
}

static void run(const char *spec, const step *steps, size_t n, uint64_t misses)
{
	rp_fm *m = model(spec);
	uint64_t total = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t s = rp_fm_access(m, steps[i].addr, steps[i].size, steps[i].op);
		if (s != steps[i].stall)
			fail_msg("%s: step %zu (0x%llx): %llu stall cycles, expected %llu", spec, i,
				 (unsigned long long)steps[i].addr, (unsigned long long)s, (unsigned long long)steps[i].stall);
		total += s;
	}
	rp_fm_stats st;
	rp_fm_get_stats(m, &st);
	assert_int_equal(st.stall, total);
	assert_int_equal(st.misses, misses);
	rp_fm_reset(m);   /* the same stream again from reset gives the same answer */
	for (size_t i = 0; i < n; i++)
		assert_int_equal(rp_fm_access(m, steps[i].addr, steps[i].size, steps[i].op), steps[i].stall);
	rp_fm_free(m);
}

#define F RP_FM_FETCH
#define R RP_FM_READ
#define N(a) (sizeof(a) / sizeof((a)[0]))

/* 5 wait states, 4-byte words. A demand read stalls 5; the next word was prefetched while the
 * fetches of the current one ran (one cycle each), so it stalls 5 - (fetches served). */
static void test_ws(void **state)
{
	(void)state;
	static const step seq[] = {
		{ 0x100, 2, F, 5 },   /* demand */
		{ 0x102, 2, F, 0 },   /* same word */
		{ 0x104, 2, F, 3 },   /* next word: 2 fetches served meanwhile, 5 - 2 */
		{ 0x106, 4, F, 4 },   /* 0x104 held; 0x108 next, 1 fetch served: 5 - 1 */
		{ 0x200, 2, F, 5 },   /* a branch: demand */
		{ 0x300, 4, R, 5 },   /* data: no prefetch */
		{ 0x300, 4, R, 0 },
		{ 0x304, 4, R, 5 },
	};
	run("ws:5", seq, N(seq), 4);
	static const step nopf[] = {
		{ 0x100, 2, F, 5 }, { 0x102, 2, F, 0 }, { 0x104, 2, F, 5 }, { 0x106, 4, F, 5 }, { 0x200, 2, F, 5 },
	};
	run("ws:5,prefetch=0", nopf, N(nopf), 4);
	static const step wide[] = {   /* 16-byte words: one read covers eight Thumb instructions */
		{ 0x100, 2, F, 2 }, { 0x102, 2, F, 0 }, { 0x10e, 2, F, 0 }, { 0x110, 4, F, 0 }, { 0x120, 2, F, 1 },
	};
	run("ws:2,width=16", wide, N(wide), 1);
	static const step zero[] = { { 0x100, 4, F, 0 }, { 0x400, 4, R, 0 } };
	run("ws:0", zero, N(zero), 2);
}

/* Accelerator, 16-byte lines, two lines held. */
static void test_art(void **state)
{
	(void)state;
	static const step nopf[] = {
		{ 0x100, 2, F, 5 },   /* line 0x10 filled */
		{ 0x110, 2, F, 5 },   /* line 0x11 */
		{ 0x100, 2, F, 0 },   /* hit; 0x11 is now the older */
		{ 0x120, 2, F, 5 },   /* evicts 0x11 */
		{ 0x110, 2, F, 5 },   /* evicts 0x10 */
		{ 0x120, 2, F, 0 },
	};
	run("art:ws=5,line=16,lines=2,prefetch=0", nopf, N(nopf), 4);
	static const step pf[] = {
		{ 0x100, 2, F, 5 },   /* demand; 0x11 prefetched */
		{ 0x110, 2, F, 4 },   /* 1 fetch served meanwhile: 5 - 1 */
		{ 0x100, 2, F, 0 },   /* hit */
		{ 0x120, 2, F, 3 },   /* the line after 0x11, 2 fetches served: 5 - 2 */
		{ 0x110, 2, F, 5 },   /* evicted (0x10 and 0x12 newer): demand */
		{ 0x120, 2, F, 0 },
		{ 0x500, 4, R, 5 },   /* data lines apart from instruction lines */
		{ 0x504, 4, R, 0 },
		{ 0x100, 2, F, 5 },   /* evicted by 0x11 */
	};
	run("art:ws=5,line=16,lines=2", pf, N(pf), 4);
	static const step bare[] = { { 0x0, 4, F, 7 }, { 0x4, 4, F, 0 } };
	run("art:7", bare, N(bare), 1);
}

/* 64-byte cache, 2 ways of 16-byte lines: 2 sets, set = line % 2. */
static void test_cache(void **state)
{
	(void)state;
	static const step seq[] = {
		{ 0x00, 2, F, 10 },   /* line 0, set 0 */
		{ 0x20, 2, F, 10 },   /* line 2, set 0 */
		{ 0x40, 2, F, 10 },   /* line 4 evicts line 0 (LRU) */
		{ 0x20, 2, F, 0 },
		{ 0x00, 2, F, 10 },   /* evicts line 4 */
		{ 0x10, 2, F, 10 },   /* line 1, set 1 */
		{ 0x0e, 4, F, 0 },    /* spans lines 0 and 1: both held */
		{ 0x44, 4, R, 10 },   /* data shares the cache: line 4 evicts line 2 */
		{ 0x20, 2, F, 10 },
	};
	run("cache:size=64,ways=2,line=16,penalty=10", seq, N(seq), 7);
	static const step nod[] = { { 0x00, 4, R, 9 }, { 0x00, 4, R, 9 }, { 0x00, 2, F, 9 }, { 0x02, 2, F, 0 } };
	run("cache:size=64,ways=2,line=16,penalty=9,dcache=0", nod, N(nod), 3);
	/* an 8 KiB loop in a 16 KiB 2-way cache of 8-byte lines: one line per set, only the first pass misses */
	rp_fm *m = model("cache:rp2040");
	uint64_t stall = 0;
	for (int pass = 0; pass < 3; pass++)
		for (uint64_t a = 0; a < 8192; a += 2)
			stall += rp_fm_access(m, 0x10000000 + a, 2, F);
	assert_int_equal(stall, 1024 * 56);
	rp_fm_free(m);
}

/* rp_fm_window's tally, cache:size=64,ways=2,line=16 (two sets of two lines). Before any
 * window (a boot copy reading lines 0 and 2 of set 0) nothing is tallied, and those lines
 * leave set 0 without making it crowded. In the windows: set 0 takes lines 4 and 6 (evicting
 * the copy's), set 1 line 1 in a warm-up, then line 3: no set has evicted a line the windows
 * used, so every miss is cold: 30 counted, 40 with the warm-up's. Line 8 in set 0 then evicts
 * line 6: set 0's misses are no longer cold, set 1's (10 counted, 20 all) still are. */
static void test_cold_tally(void **state)
{
	(void)state;
	rp_fm *m = model("cache:size=64,ways=2,line=16,penalty=10");
	uint64_t counted, all;
	assert_int_equal(rp_fm_access(m, 0x00, 4, R), 10);
	assert_int_equal(rp_fm_access(m, 0x20, 4, R), 10);
	rp_fm_cold(m, &counted, &all);
	assert_int_equal(all, 0);
	rp_fm_window(m);
	assert_int_equal(rp_fm_access(m, 0x40, 2, F), 10);   /* evicts line 0: the copy's */
	assert_int_equal(rp_fm_access(m, 0x60, 2, F), 10);   /* evicts line 2 */
	rp_fm_set_warm(m, 1);
	assert_int_equal(rp_fm_access(m, 0x10, 2, F), 10);
	rp_fm_set_warm(m, 0);
	rp_fm_window(m);
	assert_int_equal(rp_fm_access(m, 0x30, 2, F), 10);
	assert_int_equal(rp_fm_access(m, 0x40, 2, F), 0);
	rp_fm_cold(m, &counted, &all);
	assert_int_equal(counted, 30);
	assert_int_equal(all, 40);
	assert_int_equal(rp_fm_access(m, 0x80, 2, F), 10);   /* line 8 evicts line 6 (LRU) */
	rp_fm_cold(m, &counted, &all);
	assert_int_equal(counted, 10);
	assert_int_equal(all, 20);
	rp_fm_reset(m);
	rp_fm_cold(m, &counted, &all);
	assert_int_equal(all, 0);
	assert_int_equal(rp_fm_access(m, 0x40, 2, F), 10);   /* no window since the reset: not tallied */
	rp_fm_cold(m, &counted, &all);
	assert_int_equal(all, 0);
	rp_fm_free(m);
}

/* rp_fm_first_touch, cache:size=64,ways=2,line=16 (set 0: lines 0, 2, 4, 6, 8): each line's
 * first miss is tallied once, from the first window on; a line first read before it (the boot
 * copy's line 8) is known but not tallied, and a miss after an eviction never is. Lines 0, 2
 * and 4 in a window (2 evicts line 8, 4 evicts 0), then 0 again (not its first: 30 counted);
 * line 6 in a warm-up (all 40, counted 30); line 8 again after it left (known: nothing). */
static void test_first_touch(void **state)
{
	(void)state;
	rp_fm *m = model("cache:size=64,ways=2,line=16,penalty=10");
	uint64_t counted, all;
	assert_int_equal(rp_fm_first_touch(m, 16), 0);
	assert_int_equal(rp_fm_access(m, 0x80, 4, R), 10);
	rp_fm_window(m);
	assert_int_equal(rp_fm_access(m, 0x00, 2, F), 10);
	assert_int_equal(rp_fm_access(m, 0x20, 2, F), 10);
	assert_int_equal(rp_fm_access(m, 0x40, 2, F), 10);   /* evicts line 0 */
	assert_int_equal(rp_fm_access(m, 0x00, 2, F), 10);
	rp_fm_cold(m, &counted, &all);
	assert_int_equal(counted, 30);
	assert_int_equal(all, 30);
	rp_fm_set_warm(m, 1);
	assert_int_equal(rp_fm_access(m, 0x60, 2, F), 10);
	rp_fm_set_warm(m, 0);
	assert_int_equal(rp_fm_access(m, 0x80, 2, F), 10);
	rp_fm_cold(m, &counted, &all);
	assert_int_equal(counted, 30);
	assert_int_equal(all, 40);
	rp_fm_reset(m);   /* forgets the lines too */
	rp_fm_window(m);
	assert_int_equal(rp_fm_access(m, 0x00, 2, F), 10);
	rp_fm_cold(m, &counted, &all);
	assert_int_equal(all, 10);
	rp_fm_free(m);
}

static void test_parse(void **state)
{
	(void)state;
	rp_fm_cfg c;
	char why[200];
	assert_int_equal(rp_fm_parse(&c, "cache:rp2040", why, sizeof(why)), 0);
	assert_int_equal(c.size, 16384);
	assert_int_equal(c.ways, 2);
	assert_int_equal(c.line, 8);
	assert_string_equal(c.name, "cache:rp2040");
	assert_int_equal(rp_fm_parse(&c, "cache:fe310,penalty=40", why, sizeof(why)), 0);
	assert_int_equal(c.line, 32);
	assert_int_equal(c.penalty, 40);
	assert_int_equal(c.dcache, 0);
	assert_int_equal(rp_fm_parse(&c, "cache:esp32", why, sizeof(why)), 0);
	assert_int_equal(c.size, 32768);
	assert_int_equal(rp_fm_parse(&c, "ws:5", why, sizeof(why)), 0);
	assert_true(rp_fm_fetch_estimate(&c) == 5.0);
	rp_fm_describe(&c, why, sizeof(why));
	assert_string_equal(why, "5 wait states");
	static const struct {
		const char *spec, *why;
	} bad[] = {
		{ "ws", "flash model 'ws': parameters missing after the kind (e.g. ws:5, cache:rp2040)" },
		{ "flash:5", "flash model 'flash:5': unknown kind (ws:N, art:ws=N,..., cache:PRESET or cache:size=..,ways=..,line=..,penalty=..)" },
		{ "cache:pico", "flash model 'cache:pico': unknown cache preset (rp2040, fe310, esp32) or missing '='" },
		{ "ws:5,line=8", "flash model 'ws:5,line=8': 'line' is not a parameter of this model (or out of range)" },
		{ "ws:5,", "flash model 'ws:5,': trailing comma" },
		{ "art:ws=x", "flash model 'art:ws=x': a value is not a number" },
		{ "ws:-1", "flash model 'ws:-1': a value is not a number" },
		{ "ws:5,width=3", "flash model 'ws:5,width=3': width must be a power of two from 1 to 64 bytes" },
		{ "cache:size=100,ways=2,line=16,penalty=1", "flash model 'cache:size=100,ways=2,line=16,penalty=1': size must be a multiple of line x ways (at most 64 MiB), ways from 1 to 64" },
		{ "cache:line=16", "flash model 'cache:line=16': size must be a multiple of line x ways (at most 64 MiB), ways from 1 to 64" },
		{ "ws:99999999999", "flash model 'ws:99999999999': a value is not a whole number up to 1e9" },
	};
	for (size_t i = 0; i < N(bad); i++) {
		why[0] = 0;
		assert_int_equal(rp_fm_parse(&c, bad[i].spec, why, sizeof(why)), -1);
		if (strcmp(why, bad[i].why) != 0)
			fail_msg("expected '%s'\n     got '%s'", bad[i].why, why);
	}
}

/* Runs iters iterations of the loop (fetch addresses) through spec, skipping the addresses in
 * ram (moved there: no access); returns the stall cycles of the fetches at addr `of` and adds
 * each eviction record's stall into ev_sum[by_index][victim_index] (indices into loop). */
static uint64_t conflict_run(const char *spec, const uint64_t *loop, size_t n, int iters, const uint64_t *ram,
			     size_t nram, uint64_t of, uint64_t ev_sum[4][4])
{
	rp_fm *m = model(spec);
	uint64_t stall_of = 0;
	for (int it = 0; it < iters; it++)
		for (size_t i = 0; i < n; i++) {
			int moved = 0;
			for (size_t r = 0; r < nram; r++)
				moved |= loop[i] == ram[r];
			if (moved)
				continue;
			uint64_t s = rp_fm_access(m, loop[i], 4, F);
			if (loop[i] == of)
				stall_of += s;
			const rp_fm_evict *ev;
			size_t ne = rp_fm_last_evictions(m, &ev);
			assert_true(ne <= 1);
			for (size_t k = 0; k < ne && ev_sum; k++) {
				size_t b = 0, v = 0;
				while (b < n && loop[b] != ev[k].by)
					b++;
				while (v < n && loop[v] != ev[k].victim)
					v++;
				assert_true(b < n && v < n);
				assert_int_equal(ev[k].victim, loop[i]);
				assert_int_equal(ev[k].stall, s);
				ev_sum[b][v] += ev[k].stall;
			}
		}
	rp_fm_free(m);
	return stall_of;
}

/* Two loops conflicting in one set: a 64-byte 2-way cache of 16-byte lines has two sets, and
 * lines 0, 2, 4 (addresses 0x00, 0x20, 0x40) all fall in set 0. Victim V runs at 0x00, the
 * evictor E at 0x20 and 0x40, in turn, three times. Every access misses (three lines cycle
 * through two ways, LRU): iteration 1 cold; from iteration 2 on, 0x00 misses on the line 0x40
 * evicted, 0x20 on the line 0x00 evicted, 0x40 on the line 0x20 evicted. So E (0x40) is charged
 * V's two warm misses, 2 x 10 cycles, and with E in RAM V misses once (cold): moving the
 * evictor saves exactly what it was charged. The same loop through an accelerator of two lines
 * (fully associative, LRU, no prefetch) charges 5 a miss. */
static void test_conflict(void **state)
{
	(void)state;
	static const uint64_t loop0[] = { 0x00, 0x20, 0x40 }, e0_in_ram[] = { 0x20, 0x40 };
	static const struct { const char *spec; uint64_t miss; } models[] = {
		{ "cache:size=64,ways=2,line=16,penalty=10", 10 },
		{ "art:ws=5,line=16,lines=2,prefetch=0", 5 },
	};
	/* and the same in set 1 (0x10, 0x30, 0x50) */
	static const uint64_t loop1[] = { 0x10, 0x30, 0x50 }, e1_in_ram[] = { 0x30, 0x50 };
	for (size_t k = 0; k < 2 * N(models); k++) {
		const uint64_t *loop = k < N(models) ? loop0 : loop1, *e_in_ram = k < N(models) ? e0_in_ram : e1_in_ram;
		uint64_t ev[4][4];
		memset(ev, 0, sizeof(ev));
		uint64_t v_before = conflict_run(models[k % N(models)].spec, loop, 3, 3, NULL, 0, loop[0], ev);
		assert_int_equal(v_before, 3 * models[k % N(models)].miss);
		assert_int_equal(ev[2][0], 2 * models[k % N(models)].miss);   /* E (0x40) evicted V's line twice */
		assert_int_equal(ev[0][1], 2 * models[k % N(models)].miss);   /* V evicted E's 0x20 line twice */
		assert_int_equal(ev[1][2], 2 * models[k % N(models)].miss);   /* E's own lines evict each other */
		assert_int_equal(ev[0][0] + ev[1][0] + ev[0][2] + ev[1][1] + ev[2][1] + ev[2][2], 0);
		uint64_t v_after = conflict_run(models[k % N(models)].spec, loop, 3, 3, e_in_ram, 2, loop[0], NULL);
		assert_int_equal(v_after, models[k % N(models)].miss);        /* one cold miss */
		assert_int_equal(v_before - v_after, ev[2][0] + ev[1][0]);
	}
	/* cold misses evict nothing; wait states have no lines to evict */
	static const uint64_t two[] = { 0x00, 0x10 };
	uint64_t ev[4][4];
	memset(ev, 0, sizeof(ev));
	conflict_run("cache:size=64,ways=2,line=16,penalty=10", two, 2, 5, NULL, 0, 0, ev);
	conflict_run("ws:5", loop0, 3, 3, NULL, 0, 0, ev);
	for (int b = 0; b < 4; b++)
		for (int v = 0; v < 4; v++)
			assert_int_equal(ev[b][v], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ws),
		cmocka_unit_test(test_art),
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_conflict),
		cmocka_unit_test(test_cold_tally),
		cmocka_unit_test(test_first_touch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
