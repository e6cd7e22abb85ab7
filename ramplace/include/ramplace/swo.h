/* swo.h: a streaming decoder of Cortex-M SWO captures: the ITM/DWT packet protocol (ARMv7-M
 * ARM Appendix D4), optionally wrapped in CoreSight TPIU formatter frames, as OpenOCD
 * (`tpiu ... -output FILE|:PORT`), orbuculum and J-Link write or serve it. It hands every DWT
 * PC sample to a callback and counts what else went by: sleeping samples, overflow packets
 * (the ITM dropped packets there), framing errors and the bytes skipped resynchronising.
 *
 * Fed in chunks of any size, it gives the same samples and counts as fed all at once: state
 * lives between calls byte by byte (the unit test splits streams at every offset). Whether a
 * capture is TPIU-framed is detected from its first RP_SWO_DETECT_BYTES bytes (a full frame
 * sync FF FF FF 7F), unless the options say. */
#ifndef RAMPLACE_SWO_H
#define RAMPLACE_SWO_H

#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include "ramplace/error.h"
#include "ramplace/rsp.h"

typedef enum rp_swo_framing {
	RP_SWO_FRAMING_AUTO = 0, /* TPIU when a full frame sync appears in the first bytes */
	RP_SWO_FRAMING_RAW,      /* plain ITM/DWT packets (OpenOCD with the formatter off, J-Link) */
	RP_SWO_FRAMING_TPIU      /* 16-byte TPIU formatter frames (orbuculum, OpenOCD -formatter 1) */
} rp_swo_framing;

/* Bytes held back to decide RP_SWO_FRAMING_AUTO; a shorter capture is decided at its end. */
#define RP_SWO_DETECT_BYTES 65536u

typedef struct rp_swo_opts {
	rp_swo_framing framing;
	unsigned stream_id;      /* TPIU source ID carrying the ITM (1..111); 0: the first one seen */
} rp_swo_opts;

#define RP_SWO_OPTS_INIT { .framing = RP_SWO_FRAMING_AUTO, .stream_id = 0 }

typedef struct rp_swo_stats {
	uint64_t bytes;          /* fed so far */
	uint64_t samples;        /* PC sample packets with a PC (0x17 + 4 bytes) */
	uint64_t sleeping;       /* PC sample packets saying the core slept (0x15 0x00) */
	uint64_t overflows;      /* overflow packets (0x70): packets were lost there */
	uint64_t syncs;          /* ITM synchronisation packets */
	uint64_t other_packets;  /* stimulus, timestamps, extension, event, exception, data trace */
	uint64_t frames;         /* TPIU frames decoded */
	uint64_t frame_syncs;    /* TPIU full frame syncs */
	uint64_t other_stream;   /* TPIU: bytes of other trace sources */
	uint64_t errors;         /* malformed packets, frames cut by a sync, reserved source IDs */
	uint64_t skipped;        /* bytes skipped waiting for a sync (after an error, before the
				    first TPIU sync) */
	uint64_t first_error;    /* input offset of the first error (when errors > 0) */
	int framed;              /* -1 undecided, 0 raw ITM, 1 TPIU frames */
	unsigned stream_id;      /* TPIU: the ID decoded, 0 while none was seen */
	int truncated;           /* after finish: the capture ends inside a packet or frame */
} rp_swo_stats;

/* Receives one PC sample; returns 0 or an rp_code (with err filled), which stops the decoder. */
typedef int (*rp_swo_pc_fn)(void *ctx, uint32_t pc, rp_err *err);

typedef struct rp_swo rp_swo;

/* A decoder with its options, calling on_pc(ctx, pc) per sample. Fails only for memory. */
int rp_swo_new(rp_swo **out, const rp_swo_opts *opts, rp_swo_pc_fn on_pc, void *ctx, rp_err *err);
void rp_swo_free(rp_swo *d);
/* Decodes len more bytes. Returns 0, or what on_pc returned. */
int rp_swo_feed(rp_swo *d, const void *buf, size_t len, rp_err *err);
/* The end of the capture: decides the framing if still open, decodes what was held back,
 * and marks a packet or frame cut short. Returns as rp_swo_feed. */
int rp_swo_finish(rp_swo *d, rp_err *err);
/* The counts so far (valid until rp_swo_free). */
const rp_swo_stats *rp_swo_get_stats(const rp_swo *d);

/* "raw", "tpiu", "auto" -> framing; RP_EUSAGE otherwise. */
int rp_swo_framing_parse(rp_swo_framing *out, const char *text, rp_err *err);

/* ---- live capture (swo_live.c): `ramplace record --swo` ---- */

/* The registers that make a Cortex-M stream DWT PC samples over SWO (ARMv7-M ARM C1.6, D4;
 * CoreSight TPIU), written through the gdbserver. */
typedef struct rp_swo_config {
	uint32_t cpu_clock_hz;   /* the trace clock TPIU_ACPR divides */
	uint32_t swo_clock_hz;   /* the SWO line's bit rate: ACPR = cpu / swo - 1 */
	uint32_t interval;       /* cycles between PC samples: 64 or 1024 (CYCTAP) x 1..16 (POSTPRESET+1) */
	int tpiu;                /* TPIU_FFCR.EnFCont: the formatter on (frames), else raw ITM */
} rp_swo_config;

/* What rp_swo_configure wrote: DEMCR.TRCENA; TPIU_CSPSR, ACPR, SPPR (NRZ), FFCR; ITM_LAR unlock,
 * ITM_TCR (ITMENA, SYNCENA, DWTENA, TraceBusID 1); DWT_CTRL (CYCCNTENA, POSTPRESET, CYCTAP,
 * SYNCTAP, PCSAMPLENA, keeping its other bits). Stops at the first write the target refuses
 * (QEMU models none of these): returns 1 and says which in note; 0 when all went in; a negative
 * code only when the connection failed. *interval gets the sampling interval set. */
int rp_swo_configure(rp_rsp *rsp, const rp_swo_config *cfg, uint32_t *interval, char *note, size_t notecap,
		     rp_err *err);

typedef struct rp_swo_live_opts {
	double duration_s;       /* stop after this long; 0: no limit */
	uint64_t max_samples;    /* stop after this many PC samples; 0: no limit */
	int silence_ms;          /* stop when no byte came for this long (a stream that stalls) */
	volatile sig_atomic_t *stop_flag;   /* set by a signal handler: stop, keep what came */
} rp_swo_live_opts;

typedef struct rp_swo_live_result {
	double elapsed_s;
	char reason[160];        /* "duration", "stream closed", "signal SIGINT", ... */
} rp_swo_live_result;

/* Connects to the SWO server at host:port (OpenOCD `tpiu ... -output :PORT`, orbuculum),
 * retrying a refused connection until connect_timeout_ms. */
int rp_swo_live_connect(int *fd, const char *host, int port, int connect_timeout_ms, rp_err *err);
/* Reads fd into the decoder until a limit in opts, the end of the stream or a signal; every
 * wait is bounded by opts->silence_ms. The decoder is finished on return. Returns 0 (the
 * reason is in res), or a decoder error. */
int rp_swo_live_read(int fd, rp_swo *dec, const rp_swo_live_opts *opts, rp_swo_live_result *res, rp_err *err);

#endif
