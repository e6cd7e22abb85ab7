/* rsp_internal.h: private interface between the pieces of the GDB remote serial protocol
 * client (public API in ramplace/rsp.h). Not installed: only rsp*.c include it.
 *
 * The pieces are layered, each calling only those below it:
 *   rsp_connect.c  handshake, feature discovery, connect/open/close, accessors
 *   rsp_run.c      run control: continue, interrupt, stop waits, pipelined reads, peek/poke
 *   rsp_regs.c     stop-reply and register decoding, `p`/`g` reads
 *   rsp.c          packet framing and transport: socket, receive buffer, acks, transact
 * (rsp_connect.c calls rsp_regs.c and rsp.c; rsp_run.c calls rsp_regs.c and rsp.c; rsp_regs.c
 * calls rsp.c; rsp.c calls none of them. rsp_tdesc.c and rsp_mem.c use only rsp.h.)
 *
 * The struct is shared whole because every piece reads the handshake's results from it; the
 * functions below are the few each piece needs from another, kept under the rp_rspi_ prefix so
 * that the installed static library exports no bare names like send_packet. */
#ifndef RAMPLACE_RSP_INTERNAL_H
#define RAMPLACE_RSP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "ramplace/rsp.h"
#include "ramplace/util.h"

#define EM_ARM_ 40
#define EM_RISCV_ 243
#define RSP_IN_CAP (RP_RSP_MAX_PACKET + 64)

enum read_mode { READ_P, READ_G };

struct rp_rsp {
	int fd;
	char name[300];
	rp_rsp_opts opts;
	int noack;
	int ack_due;           /* ack mode: a '+' is owed; it goes out with the next write */
	size_t unacked_len;    /* ack mode: a frame at out+1 sent without waiting for its '+' */
	int interrupted;       /* an interrupt followed that frame */
	char *in;              /* received bytes not yet consumed */
	size_t in_len;
	uint64_t in_pos;       /* stream offset of in[0], for messages */
	char *pkt;             /* last decoded packet, NUL-terminated */
	size_t pkt_len;
	char *out;             /* out[0]: room for an owed '+'; out+1: the outgoing frame */
	int has_xfer_features;
	int has_noack;
	int is_qemu;           /* answered qqemu.sstepbits */
	int m_profile;         /* the description names xpsr: an ARM M-profile core */
	int pipeline;          /* may send a register read and `c` in one write (see read_pipelined, rsp_run.c) */
	unsigned pc_regnum, ra_regnum;
	unsigned pc_bytes, ra_bytes;
	int64_t pc_goff, ra_goff; /* offsets in a `g` reply, -1 unknown */
	int ra_found;
	unsigned mtvec_regnum, mtvec_bytes; /* RISC-V trap vector CSR; mtvec_bytes 0: not described */
	enum read_mode mode;
	int64_t cancel_at;     /* when a wait first saw opts.cancel set, 0 before */
	unsigned late;         /* requests that timed out unanswered: a gdbserver such as pyOCD
				  answers them after the next stop reply */
};

/* One wait for bytes from the gdbserver, bounded by its deadline whatever arrives. Console
 * output (`O` packets) is activity, but counts only up to RP_RSP_MAX_CONSOLE bytes per wait. */
typedef struct rp_rspi_wait {
	int64_t deadline;
	int cancel_ok;         /* opts.cancel ends the wait at once (else: within the grace) */
	int polled;            /* past the deadline, one poll for what is there already, no more */
	size_t console;        /* bytes of console packets skipped so far */
} rp_rspi_wait;

/* ---------------------------------------------------------------- helpers (inline, every piece) */

static inline int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline int all_hex(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (rp_hex_digit((unsigned char)s[i]) < 0)
			return 0;
	return len > 0;
}

/* ---------------------------------------------------------------- rsp.c: transport */

/* Quotes untrusted bytes for a message: printable ASCII as is, the rest as \xNN, cut at 40. */
const char *rp_rspi_quote(char *buf, size_t cap, const char *data, size_t len);

/* Writes all of data within opts.timeout_ms; negative with a message on failure. */
int rp_rspi_write_all(rp_rsp *rsp, const char *data, size_t len, rp_err *err);

/* A wait of ns from now (-1: the reply timeout). */
rp_rspi_wait rp_rspi_wait_for(const rp_rsp *rsp, int64_t ns, int cancel_ok);

/* Receives one packet (skipping acks and notifications) into rsp->pkt, acknowledging it when
 * in ack mode. Returns 1, 0 at w's deadline (or on a signal, see rp_rspi_wait), or a negative
 * code. Bytes already received are read even past the deadline, but only by the first poll. */
int rp_rspi_recv_packet(rp_rsp *rsp, rp_rspi_wait *w, rp_err *err);

/* Counts the console packet in rsp->pkt against w; fails (waiting <waiting_for>) once a wait
 * has skipped more than RP_RSP_MAX_CONSOLE bytes of it. */
int rp_rspi_console(rp_rsp *rsp, rp_rspi_wait *w, const char *waiting_for, rp_err *err);

/* Sets the error of a wait that ended without its packet: "interrupted waiting <waiting_for>"
 * after a signal, else "stopped answering after N ms waiting <waiting_for>" (saying so when only
 * console output came); returns its code. w may be NULL. */
int rp_rspi_timeout_error(rp_rsp *rsp, const rp_rspi_wait *w, rp_err *err, const char *waiting_for);

/* Sends a frame, with an owed '+' in front. In ack mode it waits for the frame's own '+' unless
 * wait_ack is 0 (`c`, whose '+' the wait for the stop skips; a '-' there resends it). */
int rp_rspi_send_packet(rp_rsp *rsp, const char *data, int wait_ack, rp_err *err);

/* Sends the short commands cmds[0..n) in one write without waiting for acknowledgements: only
 * when rsp->pipeline. */
int rp_rspi_send_pipelined(rp_rsp *rsp, const char *const *cmds, size_t n, rp_err *err);

/* Waits for the reply to `cmd` (already sent); *reply is rsp->pkt. */
int rp_rspi_await_reply(rp_rsp *rsp, const char *cmd, const char **reply, size_t *len, rp_err *err);

/* ---------------------------------------------------------------- rsp_regs.c: registers */

/* Reads one register with `p` (nbytes wide), or pc and ra (when rsp->ra_found) with `g`. */
int rp_rspi_read_reg_p(rp_rsp *rsp, unsigned regnum, unsigned nbytes, uint64_t *val, rp_err *err);
int rp_rspi_read_regs_g(rp_rsp *rsp, uint64_t *pc, uint64_t *ra, rp_err *err);

/* Decode a `p` reply of nbytes (cmd names the request in messages) or a `g` reply. */
int rp_rspi_parse_p_reply(rp_rsp *rsp, const char *cmd, const char *reply, size_t len, unsigned nbytes,
			  uint64_t *val, rp_err *err);
int rp_rspi_parse_g_reply(rp_rsp *rsp, const char *reply, size_t len, uint64_t *pc, uint64_t *ra,
			  rp_err *err);

/* pc and ra from the stop's expedited registers: 1 when found, 0 when they are not all there,
 * negative when one is malformed. */
int rp_rspi_read_expedited(rp_rsp *rsp, const rp_rsp_stop *stop, uint64_t *pc, uint64_t *ra, rp_err *err);

/* The return address as a caller: 0 for Cortex-M EXC_RETURN values, which name no caller. */
uint64_t rp_rspi_ra_as_caller(const rp_rsp *rsp, uint64_t ra);

#endif
