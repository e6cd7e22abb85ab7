/* gdb_record.h: `ramplace record` (PC sampling through a gdbserver) as a library call
 * (gdb_record.c): connect, sample until a stop condition (rp_sampler_run), and store what was
 * gathered as one run whose notes say why it stopped, the slowdown its halts caused and whether
 * it covered the target's whole run. The database is opened only when there are samples. The
 * caller owns the signals (the sampler's and the connection's stop flags). */
#ifndef RAMPLACE_GDB_RECORD_H
#define RAMPLACE_GDB_RECORD_H

#include <stdint.h>
#include "ramplace/error.h"
#include "ramplace/image.h"
#include "ramplace/rsp.h"
#include "ramplace/sampler.h"

typedef struct rp_gdb_record_opts {
	const char *host;
	int port;
	rp_rsp_opts rsp;              /* timeouts and the cancel flag; the target from the image */
	rp_sampler_opts sampler;      /* rate, limits, stop flag, progress */
	const char *db_path;
} rp_gdb_record_opts;

typedef struct rp_gdb_record_result {
	rp_sampler_result res;        /* what the sampling did (filled whenever it ran) */
	int sampled;                  /* the sampler ran, and its run is stored (when it has samples) */
	int sampling_failed;          /* it ended on an error; its samples were stored all the same */
	char server[300];             /* the gdbserver's name (host:port) */
	int is_qemu;                  /* the gdbserver is QEMU's (halting samples biased) */
	int64_t run_id;               /* 0: nothing stored */
} rp_gdb_record_result;

/* Records; out says what. The sampling's error, if any, is returned after its samples are
 * stored; a failure to store is returned before it. */
int rp_gdb_record(const rp_image *img, const rp_gdb_record_opts *o, rp_gdb_record_result *out, rp_err *err);

#endif
