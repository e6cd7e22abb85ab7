/* sampler.h: statistical PC sampling of a target over RSP, by one of two methods:
 *  - halting: continue, wait a randomized interval (at least a minimum run window), interrupt,
 *    wait for the stop, read pc (and lr/ra), repeat;
 *  - DWT (Cortex-M): read the DWT PC sample register (0xE000101C) with memory reads while the
 *    target runs, never halting it; tried first when asked and the target is M-profile, with a
 *    fallback to halting when the register reads 0 or is absent, or when the gdbserver halts
 *    the target to serve memory reads (QEMU does).
 *
 * Halting runs measure their own intrusion (time halted against time run) and, by default,
 * choose the rate that keeps it under a bound; on Cortex-M they read the vector table once and
 * drop halts that stopped on an exception handler's entry (a pending interrupt taken at the
 * halt). DWT runs never halt.
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

typedef enum rp_sampler_method {
	RP_SAMPLER_METHOD_HALT,  /* always halt */
	RP_SAMPLER_METHOD_AUTO   /* DWT when it works, else halt */
} rp_sampler_method;

#define RP_SAMPLER_DWT_PCSR 0xE000101Cu
#define RP_SAMPLER_DEMCR 0xE000EDFCu
#define RP_SAMPLER_DEMCR_TRCENA (1u << 24)

/* rate_hz for "choose the rate": the fastest that keeps the target's slowdown (time halted
 * against time run, measured on every sample) under max_slowdown. */
#define RP_SAMPLER_RATE_AUTO (-1.0)

/* The default bound on the slowdown a halting run may cause: 5 %. */
#define RP_SAMPLER_MAX_SLOWDOWN 0.05

typedef struct rp_sampler_opts {
	double duration_s;       /* stop after this long; 0: no limit */
	uint64_t max_samples;    /* stop after this many; 0: no limit */
	double rate_hz;          /* mean sampling rate; 0: as fast as possible; RP_SAMPLER_RATE_AUTO:
				    chosen from the measured intrusion (halting), as fast as possible
				    (DWT, which never halts) */
	uint64_t seed;           /* PRNG seed for the randomized intervals */
	int callers;             /* also record (lr/ra -> pc) arcs when the register is known */
	const volatile sig_atomic_t *stop_flag; /* ends the run when set, to the number of the signal
						   that set it (it names it); may be NULL */
	void (*progress)(void *ctx, const rp_sampler_stats *st); /* about 4 times a second; may be NULL */
	void *progress_ctx;
	double min_run_us;       /* halting: the target runs at least this long between samples */
	rp_sampler_method method;
	double max_slowdown;     /* with RP_SAMPLER_RATE_AUTO: bound on halted time / run time */
} rp_sampler_opts;

/* The default minimum run window: against QEMU 7.2 on a 2-core machine, --rate 0 then gives
 * about 4,600 samples/s with the firmware taking about 1.9x its time alone; 0 gives about
 * 9,000 samples/s at 2-4x (docs/sampling.md). */
#define RP_SAMPLER_MIN_RUN_US 30.0

#define RP_SAMPLER_OPTS_INIT { .duration_s = 0.0, .max_samples = 0, .rate_hz = RP_SAMPLER_RATE_AUTO, .seed = 1, \
			       .callers = 1, .stop_flag = NULL, .progress = NULL, .progress_ctx = NULL, \
			       .min_run_us = RP_SAMPLER_MIN_RUN_US, .method = RP_SAMPLER_METHOD_AUTO, \
			       .max_slowdown = RP_SAMPLER_MAX_SLOWDOWN }

typedef struct rp_sampler_result {
	rp_sampler_stop stop;
	rp_sampler_stats stats;
	int exit_code;           /* exit status (W) or signal (X) when stop is RP_SAMPLER_EXITED */
	const char *method;      /* "halt" or "dwt": how the samples were taken */
	char method_note[160];   /* why DWT sampling was not used, "" when it was or not tried */
	uint64_t dwt_idle;       /* DWT reads of 0xFFFFFFFF (core halted or sleeping): no sample */
	char reason[160];        /* "duration", "samples", "target exited (status 0)", "interrupted"
				    (SIGINT), "stopped by SIGTERM", "gdbserver stopped answering
				    after 2000 ms", ... */
	/* The intrusion, measured on the host: halted is from each interrupt sent to the answers
	 * to the reads that went out with the next continue (the target resumes only after them;
	 * docs/sampling.md), ran is the rest of the run. A halting run took (1 + slowdown) times as long as the target alone would have;
	 * DWT sampling never halts (slowdown 0). */
	double halted_s;
	double ran_s;
	double slowdown;         /* halted_s / ran_s */
	uint64_t exc_entry;      /* halting samples dropped because the halt took a pending
				    interrupt first and stopped on its handler's first instruction
				    (Cortex-M: pc is an entry of the vector table, lr an EXC_RETURN) */
	char exc_note[120];      /* why that check was not made, "" when it was */
} rp_sampler_result;

/* Samples the halted, connected target into s until a stop condition; res is filled in every
 * case (res->method says which method took the samples). Returns 0 for duration, count or
 * target exit, RP_EINTERRUPT when the stop flag ended it (err "host:port: interrupted (kept N
 * samples)", or "stopped by SIGTERM ..."), or a negative code with err "host:port: <what> (kept
 * N samples)" when the gdbserver failed. On duration, count and interruption the target is
 * detached and runs on. Every wait is bounded: by the duration while the target runs, by the
 * reply timeout for a reply, and by RP_RSP_CANCEL_GRACE_MS after the stop flag is set (when
 * rsp's opts.cancel is the same flag), whatever the gdbserver sends. */
int rp_sampler_run(rp_rsp *rsp, rp_samples *s, const rp_sampler_opts *opts, rp_sampler_result *res,
		   rp_err *err);

/* The next value of a splitmix64 generator; the state advances. */
uint64_t rp_sampler_prng(uint64_t *state);

/* A randomized wait in nanoseconds around the period of rate_hz: uniform in [0.5, 1.5] x period,
 * or 0 when rate_hz is 0. */
int64_t rp_sampler_interval_ns(uint64_t *state, double rate_hz);

#endif
