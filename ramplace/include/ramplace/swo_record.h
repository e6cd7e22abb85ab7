/* swo_record.h: `ramplace record --swo` as a library call (swo_record.c): with a gdbserver,
 * DWT/ITM/TPIU configured through it and the target let run once the SWO stream is connected;
 * the stream read and decoded as it comes until a limit, its end, silence or the caller's
 * signal flag; the samples stored as one run with method "swo". The caller owns the signals. */
#ifndef RAMPLACE_SWO_RECORD_H
#define RAMPLACE_SWO_RECORD_H

#include <stdint.h>
#include "ramplace/error.h"
#include "ramplace/image.h"
#include "ramplace/rsp.h"
#include "ramplace/swo.h"

typedef struct rp_swo_record_opts {
	const char *swo_host;        /* the SWO stream's server */
	int swo_port;
	const char *host;            /* the gdbserver; port 0: the target is left alone */
	int port;
	rp_rsp_opts rsp;             /* timeouts; the target is filled in from the image */
	rp_swo_config cfg;           /* what to write unless no_config */
	int no_config;
	rp_swo_framing framing;
	rp_swo_live_opts live;       /* the read's limits; its stop_flag is taken from interrupted */
	const char *db_path;         /* created or changed only when there are samples */
	volatile sig_atomic_t *interrupted; /* set by the caller's signal handler: stop, keep what came */
} rp_swo_record_opts;

typedef struct rp_swo_record_result {
	int read;                    /* the stream was read and what came is stored: stats hold */
	rp_swo_stats stats;
	rp_swo_live_result live;     /* how long, and why it stopped */
	char note[600];              /* what configuring said */
	char reason[1024];           /* the run's stop reason: why, and the stream's health */
	int64_t run_id;              /* 0: nothing stored (no samples) */
} rp_swo_record_result;

/* Records; out says what. No samples (without the flag set) is RP_EINPUT, nothing stored. */
int rp_swo_record(const rp_image *img, const rp_swo_record_opts *o, rp_swo_record_result *out, rp_err *err);

#endif
