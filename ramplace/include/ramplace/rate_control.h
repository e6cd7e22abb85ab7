/* rate_control.h: the automatic rate of a halting sampler (`ramplace record --rate auto` under
 * --max-slowdown), as a pure controller the sampler feeds with measured times and asks for the
 * next rate and pause; no clock, no I/O, so that a unit test can drive it with made-up halts.
 *
 * Two parts, kept apart on purpose:
 *  - the estimate of what one halt costs: the median of the last RP_RATECTL_WINDOW sample halts,
 *    so one slow halt (a host stall, a slow first halt) does not set the rate for seconds;
 *  - the bound: the real totals of every halt and every run, whatever the estimate said. A run
 *    whose measured halted / ran went over the aim pauses until it is paid back, so an estimate
 *    that is too low (halts costlier than their median) can never undercount the slowdown.
 * The workload: a few to ~10,000 halts per second, each 10 us to 1 s. */
#ifndef RAMPLACE_RATE_CONTROL_H
#define RAMPLACE_RATE_CONTROL_H

#include <stdint.h>

#define RP_RATECTL_WINDOW 15        /* halts the cost estimate is the median of */
#define RP_RATECTL_START_HZ 50.0    /* the rate before the first halt was timed */
#define RP_RATECTL_AIM 0.8          /* aim at this share of max_slowdown */
#define RP_RATECTL_OWED_CAP_NS 250000000 /* the longest single pause that pays back a run over the aim */

typedef struct rp_ratectl {
	double max_slowdown;     /* the bound on halted / ran */
	int64_t halted_ns;       /* every halt's measured time, summed */
	int64_t ran_ns;          /* every run's measured time, summed */
	uint64_t halts;          /* sample halts timed (those feeding the estimate) */
	int64_t recent[RP_RATECTL_WINDOW]; /* the last sample halts' costs, a ring at halts % WINDOW */
} rp_ratectl;

/* Starts a controller with nothing measured. */
void rp_ratectl_init(rp_ratectl *c, double max_slowdown);

/* The target was halted for ns (counted in the total); a sample's halt (sample != 0) also feeds
 * the cost estimate, other halts (the DWT probe's, the final one) count in the total only. */
void rp_ratectl_halted(rp_ratectl *c, int64_t ns, int sample);

/* The target ran for ns. */
void rp_ratectl_ran(rp_ratectl *c, int64_t ns);

/* The cost of one halt the rate is planned on: the median of the recent sample halts (the lower
 * one of an even count), at least 1 us; 0 before the first. */
int64_t rp_ratectl_halt_cost_ns(const rp_ratectl *c);

/* The mean rate for the next interval: the period P with h / P = s / (1 + s) for the estimate h
 * and the aimed slowdown s, so that halted / ran = s; RP_RATECTL_START_HZ before the first halt. */
double rp_ratectl_rate_hz(const rp_ratectl *c);

/* How long the target must run before the next halt to bring the measured totals back to the
 * aim (0 when they are within it), at most RP_RATECTL_OWED_CAP_NS at a time: a long stall is
 * paid back over several pauses, each followed by a halt that is counted too. */
int64_t rp_ratectl_owed_ns(const rp_ratectl *c);

/* The slowdown so far, halted / ran (0 before anything ran). */
double rp_ratectl_slowdown(const rp_ratectl *c);

#endif
