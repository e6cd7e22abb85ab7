/* rsp.h: a client for the GDB remote serial protocol (RSP), enough to halt a target, read its
 * program counter and return address, and let it run again.
 *
 * An rp_rsp owns one TCP connection (or a socket handed over by a test) and everything learnt
 * from the handshake: no-ack mode, the register numbers of pc and lr/ra from the target
 * description, and how to read them (`p` or `g`). Every wait is bounded by a timeout. Every
 * message names the remote as "<host>:<port>: ...". The parsers below are pure functions over
 * untrusted bytes (bounds-checked, size-capped) so that tests and the fuzzer can drive them. */
#ifndef RAMPLACE_RSP_H
#define RAMPLACE_RSP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include "ramplace/error.h"

/* Largest packet accepted, encoded or decoded; anything longer is refused as garbage. */
#define RP_RSP_MAX_PACKET 65536

/* Console output (`O` packets) a wait skips at most: beyond it the gdbserver is flooding and the
 * wait fails; it never extends a wait past its deadline either. */
#define RP_RSP_MAX_CONSOLE 65536

/* After opts.cancel is set, a wait that may not end at once (the stop reply due after an
 * interrupt, a reply, a detach) still ends within this long of the signal, whatever the
 * reply timeout: so that the caller can store its samples soon after Ctrl-C or SIGTERM. */
#define RP_RSP_CANCEL_GRACE_MS 1000

typedef struct rp_rsp rp_rsp;

typedef struct rp_rsp_opts {
	int connect_timeout_ms;  /* bound on connecting, refused attempts retried until then */
	int timeout_ms;          /* bound on every wait for a reply */
	int elf_machine;         /* EM_ARM, EM_RISCV or 0: picks defaults when there is no target.xml */
	int elfclass;            /* 32 or 64, with elf_machine */
	int big_endian;          /* byte order of register values in `p`/`g` replies */
	int want_ra;             /* also find lr (ARM) or ra (RISC-V) */
	const volatile sig_atomic_t *cancel; /* when set (by a signal, to its number), waits for a stop
						return early, all others within RP_RSP_CANCEL_GRACE_MS */
} rp_rsp_opts;

#define RP_RSP_OPTS_INIT { .connect_timeout_ms = 3000, .timeout_ms = 2000, .elf_machine = 0, .elfclass = 32, \
			   .big_endian = 0, .want_ra = 1, .cancel = NULL }

/* Connects to host:port and performs the handshake (qSupported, QStartNoAckMode, `?`, target
 * description). A refused connection (nothing listens yet) is tried again, with a pause growing
 * to 250 ms, until opts->connect_timeout_ms has passed or opts->cancel is set (RP_EINTERRUPT).
 * On failure *out is NULL and err says "host:port: <what>". */
int rp_rsp_connect(rp_rsp **out, const char *host, int port, const rp_rsp_opts *opts, rp_err *err);

/* Same over an already connected stream socket, which it owns from then on (closed on failure
 * too); `name` is used in messages. For tests and for transports set up by the caller. */
int rp_rsp_open_fd(rp_rsp **out, int fd, const char *name, const rp_rsp_opts *opts, rp_err *err);

/* Closes the connection and frees everything. NULL is allowed. */
void rp_rsp_close(rp_rsp *rsp);

/* What a stop by signal sig is called in messages: "interrupted" (SIGINT, Ctrl-C), "stopped by
 * SIGTERM", "stopped by SIGHUP", else "stopped by signal N" in buf ("stopped by a signal" when
 * buf is NULL); the result is a static string or buf. */
const char *rp_rsp_stopped_by(int sig, char *buf, size_t cap);

/* "host:port" as given, for messages. */
const char *rp_rsp_name(const rp_rsp *rsp);

/* 1 when the return-address register (lr/ra) was found and will be read. */
int rp_rsp_has_ra(const rp_rsp *rsp);

/* 1 when the target description names xpsr: an ARM M-profile core, which may have a DWT. */
int rp_rsp_is_m_profile(const rp_rsp *rsp);

/* 1 when the gdbserver is QEMU's gdbstub (it answered qqemu.sstepbits). */
int rp_rsp_is_qemu(const rp_rsp *rsp);

/* 1 when register reads and `c` go out in one write (no-ack mode, or QEMU's stub, which reads
 * packets in order without waiting for acknowledgements). */
int rp_rsp_pipelines(const rp_rsp *rsp);

/* Sends one packet and waits for its reply; *reply (decoded, NUL-terminated, length *len) is
 * owned by rsp and valid until the next call. */
int rp_rsp_transact(rp_rsp *rsp, const char *cmd, const char **reply, size_t *len, rp_err *err);

/* What a stop reply said. */
typedef enum rp_rsp_stop_kind {
	RP_RSP_STOPPED,   /* S or T: halted with a signal */
	RP_RSP_EXITED,    /* W: the program exited; code is its status */
	RP_RSP_KILLED,    /* X: the program was terminated; code is the signal */
	RP_RSP_OUTPUT     /* O: console output, not a stop */
} rp_rsp_stop_kind;

#define RP_RSP_MAX_EXPEDITED 8

typedef struct rp_rsp_expedited {
	unsigned regnum;
	char hex[33];        /* the register's bytes in target order, as sent (up to 128 bits) */
} rp_rsp_expedited;

typedef struct rp_rsp_stop {
	rp_rsp_stop_kind kind;
	int code;            /* signal or exit status */
	size_t nregs;        /* expedited registers of a T reply */
	rp_rsp_expedited regs[RP_RSP_MAX_EXPEDITED];
} rp_rsp_stop;

/* Resumes the target (`c`); sends without waiting, since the reply comes when it stops. */
int rp_rsp_continue(rp_rsp *rsp, rp_err *err);

/* Sends the interrupt byte 0x03; the stop reply follows and must be waited for. */
int rp_rsp_interrupt(rp_rsp *rsp, rp_err *err);

/* Waits up to timeout_ns for a stop reply, skipping console output (up to RP_RSP_MAX_CONSOLE
 * bytes, never past the deadline). Returns 1 with *stop filled, 0 when the time ran out or a
 * signal came with opts.cancel set (nothing is lost: a partial packet stays buffered), or a
 * negative code (EOF, garbage, a console flood). timeout_ns -1 waits for a stop that is due
 * (after an interrupt): the reply timeout, cut to RP_RSP_CANCEL_GRACE_MS after a signal, and no
 * stop by then fails with "gdbserver stopped answering after N ms ..." (RP_EINTERRUPT
 * "interrupted waiting ..." after a signal). Every other wait for a reply ends the same way. */
int rp_rsp_wait_stop(rp_rsp *rsp, int64_t timeout_ns, rp_rsp_stop *stop, rp_err *err);

/* Reads pc and, when rp_rsp_has_ra, the return address (*ra is 0 otherwise) of the halted
 * target: from the stop's expedited registers when present, else with `p` or `g`. */
int rp_rsp_read_pc(rp_rsp *rsp, const rp_rsp_stop *stop, uint64_t *pc, uint64_t *ra, rp_err *err);

/* Reads the RISC-V trap vector CSR mtvec of the halted target (`p`, its number from the
 * target description). Returns 0 with *val, 1 when the description names no mtvec or the
 * gdbserver does not answer with a value, or a negative code (connection lost, timeout). */
int rp_rsp_read_trap_vector(rp_rsp *rsp, uint64_t *val, rp_err *err);

/* Like rp_rsp_read_pc, then resumes the target (`c`, not waited for). Where the gdbserver
 * allows (rp_rsp_pipelines), the reads and the `c` go out in one write, so the target is halted
 * one round trip less per sample. */
int rp_rsp_read_pc_continue(rp_rsp *rsp, const rp_rsp_stop *stop, uint64_t *pc, uint64_t *ra, rp_err *err);

/* Reads the 32-bit word at addr (`m addr,4`), also while the target runs. Returns 0 with *val,
 * 1 when a stop reply came instead (*stop filled: a gdbserver such as QEMU's halts the target
 * to serve a packet, or the target stopped or exited; a late reply to the read is discarded),
 * 2 on an error or empty reply (not readable), 3 when no reply came within the reply timeout (err
 * says so, for a caller that takes it as a failure), or a negative code. */
int rp_rsp_peek32(rp_rsp *rsp, uint64_t addr, uint32_t *val, rp_rsp_stop *stop, rp_err *err);

/* Writes the 32-bit word val at addr (`M addr,4:...`, target byte order); fails unless OK. */
int rp_rsp_poke32(rp_rsp *rsp, uint64_t addr, uint32_t val, rp_err *err);

/* Waits (reply timeout) for the stop reply due after an interrupt, discarding replies to
 * requests sent before it (memory words, OK, Exx) that a gdbserver may deliver late. */
int rp_rsp_wait_stop_discarding(rp_rsp *rsp, rp_rsp_stop *stop, rp_err *err);

/* Detaches (`D`) so the target runs on without the debugger; waits for the reply. */
int rp_rsp_detach(rp_rsp *rsp, rp_err *err);

/* ---- pure parsers (no I/O) ---- */

/* One unit of the byte stream from the server. */
typedef enum rp_rsp_frame_kind {
	RP_RSP_FRAME_PACKET,  /* $payload#cs */
	RP_RSP_FRAME_NOTIFY,  /* %payload#cs (asynchronous notification) */
	RP_RSP_FRAME_ACK,     /* + */
	RP_RSP_FRAME_NAK      /* - */
} rp_rsp_frame_kind;

typedef struct rp_rsp_frame {
	rp_rsp_frame_kind kind;
	size_t payload_off;   /* offset of the payload in the buffer (packets only) */
	size_t payload_len;
	size_t consumed;      /* bytes of the buffer this frame used */
} rp_rsp_frame;

/* Sum of the bytes modulo 256, as RSP checksums are. */
unsigned rp_rsp_checksum(const char *data, size_t len);

/* Finds the first frame in buf[0, len); stream_pos is the offset of buf[0] in the stream, for
 * messages. Returns 1 with *fr filled, 0 when buf holds only the beginning of a frame, or
 * RP_EINPUT for a byte outside a frame, a bad checksum or a packet over RP_RSP_MAX_PACKET. */
int rp_rsp_frame_parse(rp_rsp_frame *fr, const char *buf, size_t len, uint64_t stream_pos,
		       const char *name, rp_err *err);

/* Decodes a packet payload: `}` escapes and `*` run-length encoding. Writes at most outcap-1
 * bytes plus a NUL; fails with RP_EINPUT on a dangling escape, a bad repeat or overflow. */
int rp_rsp_decode(char *out, size_t outcap, size_t *outlen, const char *in, size_t inlen,
		  const char *name, rp_err *err);

/* Parses a stop reply (S, T, W, X; O console output). Fails with RP_EINPUT on anything else,
 * including error replies, quoting the reply. */
int rp_rsp_parse_stop(rp_rsp_stop *stop, const char *pkt, size_t len, const char *name, rp_err *err);

/* Decodes a register value sent as hex bytes in target order (up to 8 bytes). */
int rp_rsp_parse_reg(uint64_t *out, const char *hex, size_t len, int big_endian,
		     const char *name, rp_err *err);

/* A register from the target description. */
typedef struct rp_rsp_reg {
	char name[32];
	unsigned regnum;
	unsigned bitsize;
} rp_rsp_reg;

typedef struct rp_rsp_tdesc {
	char arch[64];       /* <architecture>, "" when absent */
	rp_rsp_reg *regs;    /* in document order */
	size_t nregs, cap;
	unsigned next_regnum;
	int depth;           /* include nesting while parsing */
	int nincludes;       /* documents included so far (capped) */
} rp_rsp_tdesc;

/* Fetches an included document for the parser: *doc (malloc'ed, the parser frees it). */
typedef int (*rp_rsp_fetch_fn)(void *ctx, const char *href, char **doc, size_t *len, rp_err *err);

void rp_rsp_tdesc_init(rp_rsp_tdesc *td);
void rp_rsp_tdesc_release(rp_rsp_tdesc *td);

/* Parses a target description document into td, following <xi:include href> through fetch
 * (nested at most 4 deep, 64 documents in all; fetch may be NULL to refuse includes).
 * Registers are numbered sequentially from 0, or from an explicit regnum on. Fails on
 * malformed markup. */
int rp_rsp_tdesc_parse(rp_rsp_tdesc *td, const char *xml, size_t len, rp_rsp_fetch_fn fetch,
		       void *ctx, const char *name, rp_err *err);

/* The register called `name`, or NULL. Names are compared ignoring case: OpenOCD calls it
 * "xPSR", st-util "PC". */
const rp_rsp_reg *rp_rsp_tdesc_find(const rp_rsp_tdesc *td, const char *name);

/* Byte offset of register regnum in a `g` reply (sum of the sizes of lower-numbered
 * registers), or -1 when a size is not a whole number of bytes. */
int64_t rp_rsp_tdesc_g_offset(const rp_rsp_tdesc *td, unsigned regnum);

/* ---- memory and breakpoints (rsp_mem.c) ---- */

/* Largest piece one `m`/`M` packet moves; every gdbserver accepts packets of this size. */
#define RP_RSP_MEM_CHUNK 1024

/* Reads len bytes at addr of the halted target into buf (`m`, in pieces). Fails with
 * "host:port: reading N bytes at 0xADDR: <reply>" on an error reply or garbage. */
int rp_rsp_read_mem(rp_rsp *rsp, uint64_t addr, void *buf, size_t len, rp_err *err);

/* Writes len bytes from buf at addr of the halted target (`M`, in pieces). */
int rp_rsp_write_mem(rp_rsp *rsp, uint64_t addr, const void *buf, size_t len, rp_err *err);

/* Inserts a breakpoint at addr: hardware (Z1) when the server has them, else software (Z0);
 * kind is the instruction's size in bytes (2 for Thumb and RVC, 4). *type says which (1 or 0),
 * for rp_rsp_remove_breakpoint. */
int rp_rsp_insert_breakpoint(rp_rsp *rsp, uint64_t addr, int kind, int *type, rp_err *err);
int rp_rsp_remove_breakpoint(rp_rsp *rsp, int type, uint64_t addr, int kind, rp_err *err);

/* Decodes an `m` reply (hex bytes) into out[0, cap): *n bytes, 1..cap (a server may send
 * fewer than asked). Fails with RP_EINPUT on an error reply ("E01"), an empty or odd-length
 * reply, a non-hex digit (with its offset) or more than cap bytes; `what` says which read. */
int rp_rsp_parse_mem(unsigned char *out, size_t cap, size_t *n, const char *reply, size_t rlen,
		     const char *what, const char *name, rp_err *err);

#endif
