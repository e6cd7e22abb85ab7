/* rate_control.c: the automatic rate of the halting sampler (see rate_control.h).
 *
 * Why a median and not an average: an exponential average moving 1/8 per halt took about 35
 * halts to forget one slow first halt, and at the low rate that halt itself set, those halts
 * took seconds (one 3-6 s run got 35 samples). The median of the last 15 forgets a single
 * outlier at once and follows a real change (a gdbserver that got slower) within 8 halts.
 * What the estimate misses is caught by the totals: every halt's measured time is summed, and
 * a run over the aim pauses until it is paid back, so the bound holds on what really happened.
 *
 * Owns nothing beyond the struct the caller holds; the workload is one call per halt and run,
 * a sort of at most 15 numbers per planned interval. */
#include <string.h>

#include "ramplace/rate_control.h"
#include "ramplace/util.h"

#define MIN_COST_NS 1000 /* a halt costs at least a round trip: never plan on less than 1 us */

void rp_ratectl_init(rp_ratectl *c, double max_slowdown)
{
	memset(c, 0, sizeof(*c));
	c->max_slowdown = max_slowdown;
}

void rp_ratectl_halted(rp_ratectl *c, int64_t ns, int sample)
{
	if (ns <= 0)
		return;
	c->halted_ns += ns;
	if (sample) {
		c->recent[c->halts % RP_RATECTL_WINDOW] = ns;
		c->halts++;
	}
}

void rp_ratectl_ran(rp_ratectl *c, int64_t ns)
{
	if (ns > 0)
		c->ran_ns += ns;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

int64_t rp_ratectl_halt_cost_ns(const rp_ratectl *c)
{
	if (!c->halts)
		return 0;
	int64_t v[RP_RATECTL_WINDOW];
	size_t n = c->halts < RP_RATECTL_WINDOW ? (size_t)c->halts : RP_RATECTL_WINDOW;
	memcpy(v, c->recent, n * sizeof(v[0]));
	rp_sort(v, n, sizeof(v[0]), cmp_i64);
	/* the lower middle of an even count: after one slow first halt and one normal one, plan on
	 * the normal one; the totals pay for the slow one */
	int64_t h = v[(n - 1) / 2];
	return h < MIN_COST_NS ? MIN_COST_NS : h;
}

static double aim(const rp_ratectl *c)
{
	return c->max_slowdown * RP_RATECTL_AIM;
}

double rp_ratectl_rate_hz(const rp_ratectl *c)
{
	if (!c->halts)
		return RP_RATECTL_START_HZ;
	double s = aim(c);
	return s / ((double)rp_ratectl_halt_cost_ns(c) * 1e-9 * (1 + s));
}

int64_t rp_ratectl_owed_ns(const rp_ratectl *c)
{
	double s = aim(c);
	if (s <= 0)
		return 0;
	double owed = (double)c->halted_ns / s - (double)c->ran_ns;
	if (owed <= 0)
		return 0;
	/* rounded up: after running the owed time the totals are within the aim, not a ns over */
	return owed >= RP_RATECTL_OWED_CAP_NS ? RP_RATECTL_OWED_CAP_NS : (int64_t)owed + 1;
}

double rp_ratectl_slowdown(const rp_ratectl *c)
{
	return c->ran_ns > 0 ? (double)c->halted_ns / (double)c->ran_ns : 0.0;
}
