/* sampler.h: statistical PC sampling by halting a target over RSP: continue, wait a randomized
 * interval, interrupt, wait for the stop, read pc (and lr/ra), repeat.
 *
 * The sampler owns nothing: it drives the caller's rp_rsp and fills the caller's rp_samples.
 * Whatever ends the run (duration, sample count, target exit, a stop flag set by a signal
 * handler, a dead or stalled gdbserver), the samples gathered so far stay in the rp_samples and
 * the result says why it ended, so that the caller can store them. */
#ifndef RAMPLACE_SAMPLER_H
#define RAMPLACE_SAMPLER_H

#include <signal.h>
#include <stdint.h>
#include "ramplace/error.h"
#include "ramplace/rsp.h"
#include "ramplace/samples.h"

typedef enum rp_sampler_stop {
	RP_SAMPLER_DURATION,    /* --duration reached */
	RP_SAMPLER_COUNT,       /* --samples reached */
	RP_SAMPLER_EXITED,      /* the target exited (W) or was killed (X) */
	RP_SAMPLER_INTERRUPTED, /* the stop flag was set */
	RP_SAMPLER_FAILED       /* the gdbserver died, stalled or sent garbage */
} rp_sampler_stop;

typedef struct rp_sampler_stats {
	uint64_t samples;
	double elapsed_s;
	double rate_hz;          /* samples / elapsed_s */
} rp_sampler_stats;

typedef struct rp_sampler_opts {
	double duration_s;       /* stop after this long; 0: no limit */
	uint64_t max_samples;    /* stop after this many; 0: no limit */
	double rate_hz;          /* mean sampling rate; 0: as fast as possible */
	uint64_t seed;           /* PRNG seed for the randomized intervals */
	int callers;             /* also record (lr/ra -> pc) arcs when the register is known */
	const volatile sig_atomic_t *stop_flag; /* ends the run when set; may be NULL */
	void (*progress)(void *ctx, const rp_sampler_stats *st); /* about 4 times a second; may be NULL */
	void *progress_ctx;
} rp_sampler_opts;

#define RP_SAMPLER_OPTS_INIT { 0.0, 0, 0.0, 1, 1, NULL, NULL, NULL }

typedef struct rp_sampler_result {
	rp_sampler_stop stop;
	rp_sampler_stats stats;
	int exit_code;           /* exit status (W) or signal (X) when stop is RP_SAMPLER_EXITED */
	char reason[160];        /* "duration", "samples", "target exited (status 0)", "interrupted",
				    "gdbserver stopped answering after 2000 ms", ... */
} rp_sampler_result;

/* Samples the halted, connected target into s until a stop condition; res is filled in every
 * case. Returns 0 for duration, count or target exit, RP_EINTERRUPT when the stop flag ended it
 * (err says so), or a negative code with err "host:port: <what> (kept N samples)" when the
 * gdbserver failed. On duration, count and interruption the target is detached and runs on. */
int rp_sampler_run(rp_rsp *rsp, rp_samples *s, const rp_sampler_opts *opts, rp_sampler_result *res,
		   rp_err *err);

/* The next value of a splitmix64 generator; the state advances. */
uint64_t rp_sampler_prng(uint64_t *state);

/* A randomized wait in nanoseconds around the period of rate_hz: uniform in [0.5, 1.5] x period,
 * or 0 when rate_hz is 0. */
int64_t rp_sampler_interval_ns(uint64_t *state, double rate_hz);

#endif
