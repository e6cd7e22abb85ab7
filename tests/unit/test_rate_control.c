/* test_rate_control.c: the automatic rate of the halting sampler (rate_control.h), driven the
 * way sampler.c drives it, on a simulated clock: each step waits the larger of the mean period
 * and the owed pause, then halts for a given cost. Checked: the steady rate is the one the
 * formula gives and the run lands just under the bound; one 20 ms halt among 100 us halts (the
 * first or in mid-run) is paid back in two pauses and the rate is back within 3 samples (an
 * average moving 1/8 per halt needed about 35 halts and seconds); halts costlier than their
 * median still keep the measured total within the bound (the estimate may be wrong, the totals
 * are not); a 400 ms stall is paid back in pauses of at most 250 ms; the estimate's edges. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ramplace/rate_control.h"

#define US 1000LL
#define MS 1000000LL
#define MAX_SLOWDOWN 0.05
#define AIM (MAX_SLOWDOWN * RP_RATECTL_AIM)

typedef struct sim {
	rp_ratectl c;
	int64_t t;               /* simulated time, ns */
	double rate[2048];       /* the planned rate before each halt */
	int64_t wait[2048];      /* the wait before each halt */
	size_t n;
} sim;

/* One sample: wait (the mean period, or the owed pause when longer, as next_wait does), then a
 * halt of cost ns. After the wait the totals must be within the aim unless the pause was cut at
 * its cap: that is the controller's promise. */
static void step(sim *s, int64_t cost)
{
	double hz = rp_ratectl_rate_hz(&s->c);
	int64_t wait = (int64_t)(1e9 / hz);
	int64_t owed = s->c.halts ? rp_ratectl_owed_ns(&s->c) : 0;
	if (owed > wait)
		wait = owed;
	rp_ratectl_ran(&s->c, wait);
	if (s->c.halts && owed < RP_RATECTL_OWED_CAP_NS)
		assert_true(rp_ratectl_slowdown(&s->c) <= AIM * (1 + 1e-9));
	rp_ratectl_halted(&s->c, cost, 1);
	s->rate[s->n] = hz;
	s->wait[s->n] = wait;
	s->n++;
	s->t += wait + cost;
}

static void sim_init(sim *s)
{
	memset(s, 0, sizeof(*s));
	rp_ratectl_init(&s->c, MAX_SLOWDOWN);
}

/* h / P = s / (1 + s) */
static double steady_hz(int64_t cost)
{
	return AIM / ((double)cost * 1e-9 * (1 + AIM));
}

static void test_steady(void **state)
{
	(void)state;
	static sim s;
	sim_init(&s);
	for (int i = 0; i < 1000; i++)
		step(&s, 100 * US);
	assert_true(s.rate[999] > steady_hz(100 * US) * 0.999 && s.rate[999] < steady_hz(100 * US) * 1.001);
	double sd = rp_ratectl_slowdown(&s.c);
	assert_true(sd <= MAX_SLOWDOWN);
	assert_true(sd >= AIM * 0.95); /* not needlessly slow either */
	assert_int_equal(s.c.halted_ns, 1000 * 100 * US);
}

/* How many samples after index i the wait takes to be back within 1.5 steady periods. */
static size_t recovery(const sim *s, size_t i, double steady)
{
	for (size_t k = i + 1; k < s->n; k++)
		if ((double)s->wait[k] <= 1.5e9 / steady)
			return k - i;
	return SIZE_MAX;
}

static void outlier_at(size_t at)
{
	static sim s;
	sim_init(&s);
	for (size_t i = 0; i < 400; i++)
		step(&s, i == at ? 20 * MS : 100 * US);
	double steady = steady_hz(100 * US);
	assert_true(recovery(&s, at, steady) <= 3);
	/* the slow halt is paid back, not ignored: 20 ms / aim = 500 ms in the next two waits (one
	 * period planned on that halt alone when it was the first, else two pauses of at most
	 * 250 ms), and the run ends within the bound on the real totals */
	int64_t paid = s.wait[at + 1] + s.wait[at + 2];
	assert_true(paid >= (int64_t)(20 * MS / AIM * 0.9)); /* less the slack the run had */
	assert_true(paid <= (int64_t)(20 * MS / AIM * 1.1));
	assert_true(s.rate[at + 2] >= steady * 2 / 3); /* the estimate forgot it after one halt */
	assert_true(rp_ratectl_slowdown(&s.c) <= MAX_SLOWDOWN);
	/* 400 samples take about the payback plus 400 steady periods, not seconds more */
	double ideal = 20.0 * MS / AIM + 400 * (1e9 / steady);
	assert_true((double)s.t < ideal * 1.3);
}

static void test_slow_first_halt(void **state)
{
	(void)state;
	outlier_at(0);
}

static void test_slow_halt_midway(void **state)
{
	(void)state;
	outlier_at(50);
}

/* One halt in three costs 1 ms among 100 us halts: the median says 100 us, the mean is 400 us.
 * The rate planned on the median would slow the target 4x the aim; the totals hold it. */
static void test_estimate_too_low_totals_hold(void **state)
{
	(void)state;
	static sim s;
	sim_init(&s);
	for (int i = 0; i < 900; i++)
		step(&s, i % 3 == 2 ? 1 * MS : 100 * US);
	assert_int_equal(rp_ratectl_halt_cost_ns(&s.c), 100 * US);
	double sd = rp_ratectl_slowdown(&s.c);
	assert_true(sd <= MAX_SLOWDOWN);
	assert_true(sd >= AIM * 0.9);
}

/* A 400 ms host stall: paid back in pauses of at most 250 ms, each followed by a halt, never a
 * silence of seconds; the halts in between count too. */
static void test_long_stall(void **state)
{
	(void)state;
	static sim s;
	sim_init(&s);
	for (int i = 0; i < 200; i++)
		step(&s, i == 20 ? 400 * MS : 100 * US);
	size_t capped = 0;
	for (size_t k = 0; k < s.n; k++) {
		assert_true(s.wait[k] <= RP_RATECTL_OWED_CAP_NS);
		capped += s.wait[k] == RP_RATECTL_OWED_CAP_NS;
	}
	assert_true(capped >= 39 && capped <= 42); /* 400 ms / 0.04 = 10 s in 250 ms pauses */
	assert_true(rp_ratectl_slowdown(&s.c) <= MAX_SLOWDOWN);
}

static void test_estimate_edges(void **state)
{
	(void)state;
	rp_ratectl c;
	rp_ratectl_init(&c, MAX_SLOWDOWN);
	assert_int_equal(rp_ratectl_halt_cost_ns(&c), 0);
	assert_true(rp_ratectl_rate_hz(&c) == RP_RATECTL_START_HZ);
	assert_int_equal(rp_ratectl_owed_ns(&c), 0);
	assert_true(rp_ratectl_slowdown(&c) == 0.0);
	/* a halt that is not a sample's counts in the total only */
	rp_ratectl_halted(&c, 50 * MS, 0);
	assert_int_equal(c.halts, 0);
	assert_int_equal(c.halted_ns, 50 * MS);
	rp_ratectl_halted(&c, 20 * MS, 1);
	rp_ratectl_halted(&c, 100 * US, 1);
	assert_int_equal(rp_ratectl_halt_cost_ns(&c), 100 * US); /* the lower middle of two */
	rp_ratectl_halted(&c, 300, 1);
	assert_int_equal(rp_ratectl_halt_cost_ns(&c), 100 * US);
	rp_ratectl_halted(&c, 300, 1);
	assert_int_equal(rp_ratectl_halt_cost_ns(&c), 1000); /* at least 1 us */
	/* the window forgets: 15 halts of 2 ms later the estimate is 2 ms */
	for (int i = 0; i < RP_RATECTL_WINDOW; i++)
		rp_ratectl_halted(&c, 2 * MS, 1);
	assert_int_equal(rp_ratectl_halt_cost_ns(&c), 2 * MS);
	assert_int_equal(rp_ratectl_owed_ns(&c), RP_RATECTL_OWED_CAP_NS);
	rp_ratectl_ran(&c, 1000000 * MS);
	assert_int_equal(rp_ratectl_owed_ns(&c), 0);
	rp_ratectl_halted(&c, -5, 1); /* a clock that went backwards adds nothing */
	assert_int_equal(rp_ratectl_halt_cost_ns(&c), 2 * MS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steady),
		cmocka_unit_test(test_slow_first_halt),
		cmocka_unit_test(test_slow_halt_midway),
		cmocka_unit_test(test_estimate_too_low_totals_hold),
		cmocka_unit_test(test_long_stall),
		cmocka_unit_test(test_estimate_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
