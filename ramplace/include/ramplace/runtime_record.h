/* runtime_record.h: `ramplace record --runtime` as a library call (runtime_record.c): the
 * histogram the target-side sampling runtime keeps in RAM read through a gdbserver (after a
 * breakpoint at the function the firmware calls when its profile is complete, or at once),
 * turned into gmon.out bytes, imported as `import --format gmon` would a dumped file and
 * stored in profile.db as one run with method "runtime". The caller owns the signals: a flag
 * it sets (to the signal's number) stops the wait, and what was read is stored. */
#ifndef RAMPLACE_RUNTIME_RECORD_H
#define RAMPLACE_RUNTIME_RECORD_H

#include <signal.h>
#include <stdint.h>
#include "ramplace/error.h"
#include "ramplace/image.h"
#include "ramplace/rsp.h"

typedef struct rp_runtime_record_opts {
	const char *host;            /* the gdbserver */
	int port;
	rp_rsp_opts rsp;             /* timeouts; the target is filled in from the image */
	const char *at;              /* stop on this function, then read; NULL: read at once */
	double duration_s;           /* read after this long unless the breakpoint came first; 0: no limit */
	int reset;                   /* zero the histogram after reading it */
	const char *gmon_path;       /* also write the histogram here as gmon.out; NULL: no */
	const char *db_path;         /* the run goes here; created only when there is one */
	const volatile sig_atomic_t *interrupted; /* set by the caller's signal handler: read now */
} rp_runtime_record_opts;

typedef struct rp_runtime_record_result {
	uint64_t samples;
	uint32_t ticks, outside, saturated, bucket_bytes, rate_hz;
	char source[320];            /* "gdbserver HOST:PORT" */
	const char *why;             /* what stopped the target: the function, "duration", a signal, "now" */
	int64_t run_id;
} rp_runtime_record_result;

/* Checks before anything remote is touched: the image can hold the runtime (32-bit Arm or
 * RISC-V with its descriptor) and has the function to stop on. */
int rp_runtime_record_check(const rp_image *img, const rp_runtime_record_opts *o, rp_err *err);

/* Connects, reads, stores; out says what. An empty histogram is RP_EINPUT, nothing stored. */
int rp_runtime_record(const rp_image *img, const rp_runtime_record_opts *o, rp_runtime_record_result *out,
		      rp_err *err);

#endif
