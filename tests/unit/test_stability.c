/* test_stability.c: the profile-stability bootstrap (stability.h) with its fixed seed: a profile
 * with a clear winner is stable, a near-tie at few samples is flagged and its estimate of the
 * samples still needed grows when the same profile is thinned out, the answer is reproducible,
 * the gain's spread brackets the truth, and the verdict says it in words. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "ramplace/stability.h"

/* Samples still needed beyond n, by the estimate (0 when n is enough, huge when nothing tried is). */
static double more_needed(const rp_stability *s)
{
	if (s->stable)
		return 0;
	return s->need_scale > 0 ? (s->need_scale - 1.0) * (double)s->samples : 1e300;
}

static void clear_winner_is_stable(void **state)
{
	(void)state;
	/* at 1 KiB only one of three fits, and the first has 5x the second's samples */
	rp_stab_item items[] = { { 1024, 5000, "hot" }, { 1024, 1000, "warm" }, { 1024, 200, "cool" } };
	rp_stability s;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_stability_run(&s, items, 3, 800, 1024, NULL, &err), 0);
	assert_true(s.stable);
	assert_int_equal(s.nchosen, 1);
	assert_int_equal(s.chosen[0], 1);
	assert_int_equal(s.value, 5000);
	assert_int_equal(s.samples, 7000);
	assert_true(s.levels[s.at_one].same == 1.0);
	assert_true(s.inclusion[0] == 1.0 && s.inclusion[1] == 0.0);
	/* the gain's spread brackets the true share 5000/7000 = 0.714 and is narrow (sd ~ 0.005) */
	assert_true(s.share_lo < 0.7143 && s.share_hi > 0.7143);
	assert_true(s.share_hi - s.share_lo < 0.04);
	char line[512];
	rp_stab_basis ten = { 10.0, 1, 0 };
	rp_stability_verdict(line, sizeof(line), &s, &ten);
	assert_non_null(strstr(line, "the 1 KiB choice is stable: 100 % of 200 resamples pick the same functions"));
	rp_stability_release(&s);
}

/* A 52:48 near-tie between two 1 KiB functions: 100 samples cannot tell them apart, and the
 * same shares with 10x fewer samples need 10x more recording. */
static void near_tie_is_flagged_and_thinning_needs_more(void **state)
{
	(void)state;
	rp_stab_item full[] = { { 1024, 5200, "a" }, { 1024, 4800, "b" }, { 4096, 3000, "big" } };
	rp_stab_item thin[] = { { 1024, 52, "a" }, { 1024, 48, "b" }, { 4096, 30, "big" } };
	rp_stability sf, st;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_stability_run(&st, thin, 3, 20, 1024, NULL, &err), 0);
	assert_int_equal(rp_stability_run(&sf, full, 3, 2000, 1024, NULL, &err), 0);
	assert_false(st.stable);
	assert_true(st.levels[st.at_one].same < 0.8);
	assert_true(st.need_scale > 1.0);
	assert_true(sf.stable);
	assert_true(more_needed(&st) > more_needed(&sf));
	/* the levels tried grow in scale and end with a stable one */
	for (size_t k = 1; k < st.nlevels; k++)
		assert_true(st.levels[k].scale > st.levels[k - 1].scale);
	assert_true(st.levels[st.nlevels - 1].stable);
	char line[512];
	rp_stab_basis two = { 2.0, 1, 0 }, unknown = { 0.0, 1, 0 }, whole = { 2.0, 3, 1 };
	rp_stability_verdict(line, sizeof(line), &st, &two);
	assert_non_null(strstr(line, "too few samples for a 1 KiB decision"));
	char want[64];
	snprintf(want, sizeof(want), "record about %.0f s more", ceil((st.need_scale - 1.0) * 2.0));
	assert_non_null(strstr(line, want));
	rp_stability_verdict(line, sizeof(line), &st, &unknown);
	assert_non_null(strstr(line, "more samples"));
	assert_null(strstr(line, " s more"));
	/* three runs that each went to the program's exit: more time adds nothing, more runs do */
	rp_stability_verdict(line, sizeof(line), &st, &whole);
	snprintf(want, sizeof(want), "record about %.0f more whole runs into the same profile.db",
		 ceil((st.need_scale - 1.0) * 3.0));
	assert_non_null(strstr(line, want));
	assert_null(strstr(line, " s more"));
	rp_stability_verdict(line, sizeof(line), &st, NULL);
	assert_non_null(strstr(line, "more samples"));
	rp_stability_release(&st);
	rp_stability_release(&sf);
}

/* The estimate of how much more to record is about what is really needed: a profile drawn with
 * need_scale x n samples of the same shares is stable (or nearly so). */
static void estimate_is_consistent(void **state)
{
	(void)state;
	rp_stab_item thin[] = { { 1024, 55, "a" }, { 1024, 45, "b" }, { 2048, 50, "c" } };
	rp_stability s, big;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_stability_run(&s, thin, 3, 50, 1024, NULL, &err), 0);
	assert_false(s.stable);
	assert_true(s.need_scale > 1.0 && s.need_scale < 64.0);
	double k = s.need_scale * 1.5;
	rp_stab_item more[3];
	for (size_t i = 0; i < 3; i++)
		more[i] = (rp_stab_item){ thin[i].weight, (uint64_t)(thin[i].count * k), thin[i].name };
	assert_int_equal(rp_stability_run(&big, more, 3, (uint64_t)(50 * k), 1024, NULL, &err), 0);
	assert_true(big.stable);
	rp_stability_release(&s);
	rp_stability_release(&big);
}

static void reproducible_with_fixed_seed(void **state)
{
	(void)state;
	rp_stab_item items[] = { { 300, 90, "a" }, { 500, 120, "b" }, { 200, 40, "c" }, { 700, 160, "d" }, { 100, 15, "e" } };
	rp_stab_opts o = RP_STAB_OPTS_INIT;
	o.fractions = 1;
	rp_stability x, y;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_stability_run(&x, items, 5, 30, 1000, &o, &err), 0);
	assert_int_equal(rp_stability_run(&y, items, 5, 30, 1000, &o, &err), 0);
	assert_int_equal(x.nlevels, y.nlevels);
	assert_true(x.levels[0].scale == 0.25 && x.levels[1].scale == 0.5 && x.at_one == 2);
	assert_memory_equal(x.levels, y.levels, x.nlevels * sizeof(rp_stab_level));
	assert_memory_equal(x.inclusion, y.inclusion, 5 * sizeof(double));
	/* fewer samples never look more stable than more of them, here */
	assert_true(x.levels[0].jaccard <= x.levels[x.at_one].jaccard + 0.05);
	o.seed = 7;
	rp_stability z;
	assert_int_equal(rp_stability_run(&z, items, 5, 30, 1000, &o, &err), 0);
	assert_true(memcmp(x.inclusion, z.inclusion, 5 * sizeof(double)) != 0);
	rp_stability_release(&x);
	rp_stability_release(&y);
	rp_stability_release(&z);
}

static void edge_cases(void **state)
{
	(void)state;
	rp_stab_item items[] = { { 64, 10, "a" }, { 64, 5, "b" } };
	rp_stability s;
	rp_err err = RP_ERR_INIT;
	/* nothing fits: the empty choice is trivially stable */
	assert_int_equal(rp_stability_run(&s, items, 2, 0, 16, NULL, &err), 0);
	assert_true(s.stable && s.nchosen == 0 && s.value == 0);
	rp_stability_release(&s);
	/* everything fits */
	assert_int_equal(rp_stability_run(&s, items, 2, 0, 4096, NULL, &err), 0);
	assert_true(s.stable && s.nchosen == 2);
	rp_stability_release(&s);
	/* no items at all */
	assert_int_equal(rp_stability_run(&s, NULL, 0, 100, 4096, NULL, &err), 0);
	assert_true(s.stable);
	rp_stability_release(&s);
	/* counts that overflow */
	rp_stab_item huge[] = { { 64, UINT64_MAX / 2, "a" }, { 64, UINT64_MAX / 2, "b" } };
	assert_int_equal(rp_stability_run(&s, huge, 2, 0, 64, NULL, &err), RP_EINPUT);
	rp_stability_release(&s);
}

/* The resample bound: many items get fewer resamples, never under the floor. */
static void resamples_are_bounded(void **state)
{
	(void)state;
	enum { N = 4000 };
	static rp_stab_item items[N];
	for (size_t i = 0; i < N; i++)
		items[i] = (rp_stab_item){ 16 + i % 64, 1000 + (i * 7919) % 5000, "f" };
	rp_stability s;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_stability_run(&s, items, N, 0, 8192, NULL, &err), 0);
	assert_true(s.levels[s.at_one].resamples == RP_STAB_MAX_WORK / N);
	rp_stability_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(clear_winner_is_stable),
		cmocka_unit_test(near_tie_is_flagged_and_thinning_needs_more),
		cmocka_unit_test(estimate_is_consistent),
		cmocka_unit_test(reproducible_with_fixed_seed),
		cmocka_unit_test(edge_cases),
		cmocka_unit_test(resamples_are_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
