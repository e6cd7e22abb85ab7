/* rsp.c: the GDB remote serial protocol client behind `ramplace record` (see rsp.h).
 *
 * Owns the socket, a receive buffer of raw bytes not yet framed, the last decoded packet and
 * what the handshake learnt. The workload is a tight halt/read/resume loop thousands of times
 * a second over loopback, so packets are built in place, TCP_NODELAY is set, and no-ack mode is
 * used when offered. The server is not trusted: every frame, escape, repeat count, register
 * value is bounds-checked, and every wait has a deadline (ppoll, never a sleep loop). The
 * target description (XML) is parsed by rsp_tdesc.c. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ramplace/rsp.h"

#define EM_ARM_ 40
#define EM_RISCV_ 243
#define RSP_IN_CAP (RP_RSP_MAX_PACKET + 64)
#define RSP_XML_MAX (1024 * 1024)

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
	int pipeline;          /* may send a register read and `c` in one write (see read_then_continue) */
	unsigned pc_regnum, ra_regnum;
	unsigned pc_bytes, ra_bytes;
	int64_t pc_goff, ra_goff; /* offsets in a `g` reply, -1 unknown */
	int ra_found;
	enum read_mode mode;
};

/* ---------------------------------------------------------------- helpers */

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int all_hex(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (hexval((unsigned char)s[i]) < 0)
			return 0;
	return len > 0;
}

/* Quotes untrusted bytes for a message: printable ASCII as is, the rest as \xNN, cut at 40. */
static const char *quote(char *buf, size_t cap, const char *data, size_t len)
{
	size_t o = 0;
	for (size_t i = 0; i < len && o + 8 < cap; i++) {
		unsigned char c = (unsigned char)data[i];
		if (i == 40) {
			o += (size_t)snprintf(buf + o, cap - o, "...");
			break;
		}
		if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\')
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(buf + o, cap - o, "\\x%02x", c);
	}
	buf[o < cap ? o : cap - 1] = '\0';
	return buf;
}

/* ---------------------------------------------------------------- pure parsers */

unsigned rp_rsp_checksum(const char *data, size_t len)
{
	unsigned sum = 0;
	for (size_t i = 0; i < len; i++)
		sum += (unsigned char)data[i];
	return sum & 0xff;
}

int rp_rsp_frame_parse(rp_rsp_frame *fr, const char *buf, size_t len, uint64_t stream_pos,
		       const char *name, rp_err *err)
{
	char q[200];
	if (len == 0)
		return 0;
	memset(fr, 0, sizeof(*fr));
	if (buf[0] == '+' || buf[0] == '-') {
		fr->kind = buf[0] == '+' ? RP_RSP_FRAME_ACK : RP_RSP_FRAME_NAK;
		fr->consumed = 1;
		return 1;
	}
	if (buf[0] != '$' && buf[0] != '%') {
		size_t n = 0;
		while (n < len && n < 40 && buf[n] != '$' && buf[n] != '%')
			n++;
		return rp_err_set(err, RP_EINPUT, "%s: garbage '%s' outside a packet at byte %llu", name,
				  quote(q, sizeof(q), buf, n), (unsigned long long)stream_pos);
	}
	size_t limit = len < RP_RSP_MAX_PACKET + 1 ? len : RP_RSP_MAX_PACKET + 1;
	const char *hash = memchr(buf + 1, '#', limit - 1);
	if (!hash) {
		if (len > RP_RSP_MAX_PACKET)
			return rp_err_set(err, RP_EINPUT, "%s: packet at byte %llu longer than %d bytes",
					  name, (unsigned long long)stream_pos, RP_RSP_MAX_PACKET);
		return 0;
	}
	size_t hpos = (size_t)(hash - buf);
	if (len < hpos + 3)
		return 0;
	int hi = hexval((unsigned char)buf[hpos + 1]), lo = hexval((unsigned char)buf[hpos + 2]);
	unsigned want = rp_rsp_checksum(buf + 1, hpos - 1);
	if (hi < 0 || lo < 0 || (unsigned)(hi * 16 + lo) != want)
		return rp_err_set(err, RP_EINPUT,
				  "%s: bad checksum in packet at byte %llu ('%s', expected %02x)", name,
				  (unsigned long long)stream_pos, quote(q, sizeof(q), buf, hpos + 3), want);
	fr->kind = buf[0] == '$' ? RP_RSP_FRAME_PACKET : RP_RSP_FRAME_NOTIFY;
	fr->payload_off = 1;
	fr->payload_len = hpos - 1;
	fr->consumed = hpos + 3;
	return 1;
}

int rp_rsp_decode(char *out, size_t outcap, size_t *outlen, const char *in, size_t inlen,
		  const char *name, rp_err *err)
{
	size_t o = 0;
	if (outcap == 0)
		return rp_err_set(err, RP_EINPUT, "%s: no room to decode a packet", name);
	for (size_t i = 0; i < inlen; i++) {
		unsigned char c = (unsigned char)in[i];
		size_t reps = 1;
		if (c == '}') {
			if (++i >= inlen)
				return rp_err_set(err, RP_EINPUT, "%s: packet ends in an escape '}'", name);
			c = (unsigned char)in[i] ^ 0x20;
		} else if (c == '*') {
			if (o == 0 || ++i >= inlen)
				return rp_err_set(err, RP_EINPUT, "%s: run-length '*' at byte %zu has %s", name,
						  i, o == 0 ? "nothing to repeat" : "no count");
			unsigned char n = (unsigned char)in[i];
			if (n < 29 + 1 || n > 126)
				return rp_err_set(err, RP_EINPUT,
						  "%s: bad run-length count 0x%02x at byte %zu", name, n, i);
			reps = (size_t)(n - 29);
			c = (unsigned char)out[o - 1];
		}
		if (o + reps >= outcap)
			return rp_err_set(err, RP_EINPUT, "%s: packet longer than %zu bytes once decoded",
					  name, outcap - 1);
		memset(out + o, c, reps);
		o += reps;
	}
	out[o] = '\0';
	*outlen = o;
	return 0;
}

/* Parses a hex number of 1..16 digits at s[*i], advancing *i. */
static int parse_hex_num(uint64_t *v, const char *s, size_t len, size_t *i)
{
	size_t start = *i;
	uint64_t x = 0;
	while (*i < len && hexval((unsigned char)s[*i]) >= 0 && *i - start < 16)
		x = x * 16 + (uint64_t)hexval((unsigned char)s[(*i)++]);
	*v = x;
	return *i > start && (*i >= len || hexval((unsigned char)s[*i]) < 0);
}

/* T reply pairs "key:value;": registers keyed by hex number are kept, the rest skipped. */
static int parse_t_pairs(rp_rsp_stop *stop, const char *p, size_t len, const char *name,
			 const char *whole, size_t wlen, rp_err *err)
{
	char q[200];
	size_t i = 0;
	while (i < len) {
		const char *semi = memchr(p + i, ';', len - i);
		size_t end = semi ? (size_t)(semi - p) : len;
		const char *colon = memchr(p + i, ':', end - i);
		if (!colon)
			return rp_err_set(err, RP_EINPUT, "%s: malformed stop reply '%s'", name,
					  quote(q, sizeof(q), whole, wlen));
		size_t klen = (size_t)(colon - (p + i)), vstart = (size_t)(colon - p) + 1;
		size_t vlen = end - vstart;
		if (klen > 0 && klen <= 8 && all_hex(p + i, klen) && stop->nregs < RP_RSP_MAX_EXPEDITED &&
		    vlen < sizeof(stop->regs[0].hex) && all_hex(p + vstart, vlen)) {
			uint64_t regnum = 0;
			size_t k = i;
			parse_hex_num(&regnum, p, i + klen, &k);
			rp_rsp_expedited *r = &stop->regs[stop->nregs++];
			r->regnum = (unsigned)regnum;
			memcpy(r->hex, p + vstart, vlen);
			r->hex[vlen] = '\0';
		}
		i = end + 1;
	}
	return 0;
}

int rp_rsp_parse_stop(rp_rsp_stop *stop, const char *pkt, size_t len, const char *name, rp_err *err)
{
	char q[200];
	uint64_t code = 0;
	size_t i = 1;
	memset(stop, 0, sizeof(*stop));
	if (len >= 1 && pkt[0] == 'O' && all_hex(pkt + 1, len - 1) && (len - 1) % 2 == 0) {
		stop->kind = RP_RSP_OUTPUT;
		return 0;
	}
	if (len >= 3 && (pkt[0] == 'S' || pkt[0] == 'T' || pkt[0] == 'W' || pkt[0] == 'X') &&
	    hexval((unsigned char)pkt[1]) >= 0 && hexval((unsigned char)pkt[2]) >= 0) {
		parse_hex_num(&code, pkt, 3, &i);
		stop->code = (int)code;
		switch (pkt[0]) {
		case 'S':
			if (len == 3) {
				stop->kind = RP_RSP_STOPPED;
				return 0;
			}
			break;
		case 'T':
			stop->kind = RP_RSP_STOPPED;
			return parse_t_pairs(stop, pkt + 3, len - 3, name, pkt, len, err);
		default:
			/* W/X may carry ";process:PID" */
			if (len == 3 || pkt[3] == ';') {
				stop->kind = pkt[0] == 'W' ? RP_RSP_EXITED : RP_RSP_KILLED;
				return 0;
			}
		}
	}
	return rp_err_set(err, RP_EINPUT, "%s: unexpected reply '%s' where a stop reply was due", name,
			  quote(q, sizeof(q), pkt, len));
}

int rp_rsp_parse_reg(uint64_t *out, const char *hex, size_t len, int big_endian,
		     const char *name, rp_err *err)
{
	char q[200];
	if (len == 0 || len % 2 || len > 16 || !all_hex(hex, len))
		return rp_err_set(err, RP_EINPUT, "%s: bad register value '%s'", name,
				  quote(q, sizeof(q), hex, len));
	uint64_t v = 0;
	size_t nbytes = len / 2;
	for (size_t k = 0; k < nbytes; k++) {
		size_t b = big_endian ? k : nbytes - 1 - k;
		v = (v << 8) | (uint64_t)(hexval((unsigned char)hex[2 * b]) * 16 +
					   hexval((unsigned char)hex[2 * b + 1]));
	}
	*out = v;
	return 0;
}

/* ---------------------------------------------------------------- I/O */

static int io_error(rp_rsp *rsp, rp_err *err, const char *what)
{
	if (errno == EPIPE || errno == ECONNRESET)
		return rp_err_set(err, RP_EINPUT, "%s: gdbserver closed the connection", rsp->name);
	return rp_err_set(err, RP_EINPUT, "%s: %s: %s", rsp->name, what, strerror(errno));
}

/* Reads more bytes into the receive buffer. Returns 1 when some arrived, 0 at the deadline (or
 * on a signal when cancel_ok and opts.cancel is set), negative on EOF or error. */
static int fill(rp_rsp *rsp, int64_t deadline, int cancel_ok, rp_err *err)
{
	for (;;) {
		int64_t left = deadline - now_ns();
		if (left < 0)
			left = 0;
		struct timespec ts = { (time_t)(left / 1000000000), (long)(left % 1000000000) };
		struct pollfd pfd = { rsp->fd, POLLIN, 0 };
		int n = ppoll(&pfd, 1, &ts, NULL);
		if (n < 0 && errno == EINTR) {
			if (cancel_ok && rsp->opts.cancel && *rsp->opts.cancel)
				return 0;
			continue;
		}
		if (n < 0)
			return io_error(rsp, err, "waiting for the gdbserver");
		if (n == 0)
			return 0;
		if (rsp->in_len == RSP_IN_CAP) /* unreachable: frame_parse refuses longer frames */
			return rp_err_set(err, RP_EINPUT, "%s: receive buffer full", rsp->name);
		ssize_t got = read(rsp->fd, rsp->in + rsp->in_len, RSP_IN_CAP - rsp->in_len);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got < 0)
			return io_error(rsp, err, "reading from the gdbserver");
		if (got == 0)
			return rp_err_set(err, RP_EINPUT, "%s: gdbserver closed the connection", rsp->name);
		rsp->in_len += (size_t)got;
		return 1;
	}
}

static void consume(rp_rsp *rsp, size_t n)
{
	memmove(rsp->in, rsp->in + n, rsp->in_len - n);
	rsp->in_len -= n;
	rsp->in_pos += n;
}

/* Next frame from the stream, left in the buffer (the caller consumes fr->consumed). */
static int next_frame(rp_rsp *rsp, rp_rsp_frame *fr, int64_t deadline, int cancel_ok, rp_err *err)
{
	for (;;) {
		int rc = rp_rsp_frame_parse(fr, rsp->in, rsp->in_len, rsp->in_pos, rsp->name, err);
		if (rc != 0)
			return rc;
		rc = fill(rsp, deadline, cancel_ok, err);
		if (rc <= 0)
			return rc;
	}
}

static int write_all(rp_rsp *rsp, const char *data, size_t len, rp_err *err)
{
	int64_t deadline = now_ns() + (int64_t)rsp->opts.timeout_ms * 1000000;
	while (len > 0) {
		ssize_t n = send(rsp->fd, data, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			struct pollfd pfd = { rsp->fd, POLLOUT, 0 };
			int64_t left = deadline - now_ns();
			if (left <= 0)
				return rp_err_set(err, RP_EINPUT, "%s: gdbserver stopped reading after %d ms",
						  rsp->name, rsp->opts.timeout_ms);
			poll(&pfd, 1, (int)(left / 1000000) + 1);
			continue;
		}
		if (n < 0)
			return io_error(rsp, err, "writing to the gdbserver");
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Receives one packet (skipping acks and notifications) into rsp->pkt, acknowledging it when
 * in ack mode. Returns 1, 0 at the deadline, or a negative code. */
static int recv_packet(rp_rsp *rsp, int64_t deadline, int cancel_ok, rp_err *err)
{
	for (;;) {
		rp_rsp_frame fr;
		int rc = next_frame(rsp, &fr, deadline, cancel_ok, err);
		if (rc <= 0)
			return rc;
		if (fr.kind == RP_RSP_FRAME_NAK && rsp->unacked_len) {
			/* the `c` sent without waiting was refused, and the interrupt after it hit a halted
			 * target and was lost: send both again */
			if ((rc = write_all(rsp, rsp->out + 1, rsp->unacked_len, err)) < 0)
				return rc;
			if (rsp->interrupted && (rc = write_all(rsp, "\x03", 1, err)) < 0)
				return rc;
		} else if (fr.kind == RP_RSP_FRAME_ACK) {
			rsp->unacked_len = 0;
		}
		if (fr.kind != RP_RSP_FRAME_PACKET) {
			consume(rsp, fr.consumed);
			continue;
		}
		rc = rp_rsp_decode(rsp->pkt, RP_RSP_MAX_PACKET + 1, &rsp->pkt_len, rsp->in + fr.payload_off,
				   fr.payload_len, rsp->name, err);
		consume(rsp, fr.consumed);
		if (rc < 0)
			return rc;
		rsp->ack_due = !rsp->noack; /* sent with our next write: one syscall, not two */
		return 1;
	}
}

static int timeout_error(rp_rsp *rsp, rp_err *err, const char *waiting_for)
{
	return rp_err_set(err, RP_EINPUT, "%s: gdbserver stopped answering after %d ms waiting %s", rsp->name,
			  rsp->opts.timeout_ms, waiting_for);
}

/* In ack mode, waits for the '+' of the frame at out+1 (resending on '-', three times at most). */
static int await_ack(rp_rsp *rsp, size_t flen, rp_err *err)
{
	for (int tries = 0; tries < 4; tries++) {
		rp_rsp_frame fr;
		int64_t deadline = now_ns() + (int64_t)rsp->opts.timeout_ms * 1000000;
		int rc = next_frame(rsp, &fr, deadline, 0, err);
		if (rc == 0)
			return timeout_error(rsp, err, "for an acknowledgement");
		if (rc < 0)
			return rc;
		if (fr.kind == RP_RSP_FRAME_ACK) {
			consume(rsp, 1);
			return 0;
		}
		if (fr.kind != RP_RSP_FRAME_NAK)
			return rp_err_set(err, RP_EINPUT, "%s: got a packet where an acknowledgement '+' was due",
					  rsp->name);
		consume(rsp, 1);
		if ((rc = write_all(rsp, rsp->out + 1, flen, err)) < 0)
			return rc;
	}
	return rp_err_set(err, RP_EINPUT, "%s: packet refused ('-') four times", rsp->name);
}

/* Encodes data as a frame "$...#cs" at dst (room for 2 * len + 4 bytes); returns its length. */
static size_t encode_frame(char *dst, const char *data, size_t len)
{
	size_t o = 0;
	dst[o++] = '$';
	for (size_t i = 0; i < len; i++) {
		char c = data[i];
		if (c == '$' || c == '#' || c == '}' || c == '*') {
			dst[o++] = '}';
			c ^= 0x20;
		}
		dst[o++] = c;
	}
	unsigned cs = rp_rsp_checksum(dst + 1, o - 1);
	o += (size_t)snprintf(dst + o, 4, "#%02x", cs);
	return o;
}

/* Sends a frame, with an owed '+' in front. In ack mode it waits for the frame's own '+' unless
 * told not to (`c`, whose '+' the wait for the stop skips; a '-' there resends it). */
static int send_packet(rp_rsp *rsp, const char *data, int wait_ack, rp_err *err)
{
	size_t len = strlen(data);
	int rc;
	if (2 * len + 4 > RP_RSP_MAX_PACKET)
		return rp_err_set(err, RP_EINPUT, "%s: command too long", rsp->name);
	if (rsp->unacked_len && (rc = await_ack(rsp, rsp->unacked_len, err)) < 0)
		return rc;
	rsp->unacked_len = 0;
	rsp->interrupted = 0;
	size_t flen = encode_frame(rsp->out + 1, data, len);
	rsp->out[0] = '+';
	rc = rsp->ack_due ? write_all(rsp, rsp->out, flen + 1, err) : write_all(rsp, rsp->out + 1, flen, err);
	rsp->ack_due = 0;
	if (rc < 0 || rsp->noack)
		return rc;
	if (!wait_ack) {
		rsp->unacked_len = flen;
		return 0;
	}
	return await_ack(rsp, flen, err);
}

/* Sends the short commands cmds[0..n) in one write (an owed '+' in front), without waiting for
 * acknowledgements: only for a gdbserver that reads packets in order and does not wait for
 * our '+' before reading on (rsp->pipeline). */
static int send_pipelined(rp_rsp *rsp, const char *const *cmds, size_t n, rp_err *err)
{
	char buf[256];
	size_t o = 0;
	int rc;
	if (rsp->unacked_len && (rc = await_ack(rsp, rsp->unacked_len, err)) < 0)
		return rc;
	rsp->unacked_len = 0;
	rsp->interrupted = 0;
	if (rsp->ack_due)
		buf[o++] = '+';
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(cmds[i]);
		if (o + 2 * len + 4 > sizeof(buf))
			return rp_err_set(err, RP_EINPUT, "%s: commands too long to pipeline", rsp->name);
		o += encode_frame(buf + o, cmds[i], len);
	}
	rsp->ack_due = 0;
	return write_all(rsp, buf, o, err);
}

/* Waits for the reply to `cmd` (already sent); *reply is rsp->pkt. */
static int await_reply(rp_rsp *rsp, const char *cmd, const char **reply, size_t *len, rp_err *err)
{
	int rc = recv_packet(rsp, now_ns() + (int64_t)rsp->opts.timeout_ms * 1000000, 0, err);
	if (rc == 0) {
		char what[96];
		snprintf(what, sizeof(what), "for the reply to '%.40s'", cmd);
		return timeout_error(rsp, err, what);
	}
	if (rc < 0)
		return rc;
	*reply = rsp->pkt;
	*len = rsp->pkt_len;
	return 0;
}

int rp_rsp_transact(rp_rsp *rsp, const char *cmd, const char **reply, size_t *len, rp_err *err)
{
	int rc = send_packet(rsp, cmd, 1, err);
	if (rc < 0)
		return rc;
	return await_reply(rsp, cmd, reply, len, err);
}

int rp_rsp_continue(rp_rsp *rsp, rp_err *err)
{
	return send_packet(rsp, "c", 0, err);
}

int rp_rsp_interrupt(rp_rsp *rsp, rp_err *err)
{
	int owed = rsp->ack_due;
	rsp->ack_due = 0;
	rsp->interrupted = 1;
	return write_all(rsp, owed ? "+\x03" : "\x03", owed ? 2 : 1, err);
}

int rp_rsp_wait_stop(rp_rsp *rsp, int64_t timeout_ns, rp_rsp_stop *stop, rp_err *err)
{
	int due = timeout_ns < 0;
	if (due)
		timeout_ns = (int64_t)rsp->opts.timeout_ms * 1000000;
	int64_t deadline = now_ns() + timeout_ns;
	for (;;) {
		int rc = recv_packet(rsp, deadline, !due, err);
		if (rc == 0 && due)
			return timeout_error(rsp, err, "for the stop reply");
		if (rc <= 0)
			return rc;
		rc = rp_rsp_parse_stop(stop, rsp->pkt, rsp->pkt_len, rsp->name, err);
		if (rc < 0)
			return rc;
		if (stop->kind != RP_RSP_OUTPUT)
			return 1;
	}
}

int rp_rsp_detach(rp_rsp *rsp, rp_err *err)
{
	const char *reply;
	size_t len;
	char q[200];
	int rc = rp_rsp_transact(rsp, "D", &reply, &len, err);
	if (rc < 0)
		return rc;
	if (strcmp(reply, "OK") != 0)
		return rp_err_set(err, RP_EINPUT, "%s: unexpected reply '%s' to D (detach)", rsp->name,
				  quote(q, sizeof(q), reply, len));
	return 0;
}

/* ---------------------------------------------------------------- registers */

static const char *expedited(const rp_rsp_stop *stop, unsigned regnum)
{
	for (size_t i = 0; stop && i < stop->nregs; i++)
		if (stop->regs[i].regnum == regnum)
			return stop->regs[i].hex;
	return NULL;
}

static int parse_p_reply(rp_rsp *rsp, const char *cmd, const char *reply, size_t len, unsigned nbytes,
			 uint64_t *val, rp_err *err)
{
	char q[200];
	if (len != 2 * (size_t)nbytes || len > 16)
		return rp_err_set(err, RP_EINPUT, "%s: garbage reply '%s' to %s (want %u bytes)", rsp->name,
				  quote(q, sizeof(q), reply, len), cmd, nbytes);
	return rp_rsp_parse_reg(val, reply, len, rsp->opts.big_endian, rsp->name, err);
}

static int read_reg_p(rp_rsp *rsp, unsigned regnum, unsigned nbytes, uint64_t *val, rp_err *err)
{
	char cmd[16];
	const char *reply;
	size_t len;
	snprintf(cmd, sizeof(cmd), "p%x", regnum);
	int rc = rp_rsp_transact(rsp, cmd, &reply, &len, err);
	return rc < 0 ? rc : parse_p_reply(rsp, cmd, reply, len, nbytes, val, err);
}

static int parse_g_reply(rp_rsp *rsp, const char *reply, size_t len, uint64_t *pc, uint64_t *ra,
			 rp_err *err)
{
	char q[200];
	size_t pc_end = 2 * ((size_t)rsp->pc_goff + rsp->pc_bytes);
	size_t ra_end = rsp->ra_found ? 2 * ((size_t)rsp->ra_goff + rsp->ra_bytes) : 0;
	if (len < pc_end || len < ra_end || len % 2)
		return rp_err_set(err, RP_EINPUT, "%s: garbage reply '%s' to g (%zu hex digits, want %zu)",
				  rsp->name, quote(q, sizeof(q), reply, len), len,
				  pc_end > ra_end ? pc_end : ra_end);
	int rc = rp_rsp_parse_reg(pc, reply + 2 * rsp->pc_goff, 2 * rsp->pc_bytes, rsp->opts.big_endian,
				  rsp->name, err);
	if (rc == 0 && rsp->ra_found)
		rc = rp_rsp_parse_reg(ra, reply + 2 * rsp->ra_goff, 2 * rsp->ra_bytes, rsp->opts.big_endian,
				      rsp->name, err);
	return rc;
}

static int read_regs_g(rp_rsp *rsp, uint64_t *pc, uint64_t *ra, rp_err *err)
{
	const char *reply;
	size_t len;
	int rc = rp_rsp_transact(rsp, "g", &reply, &len, err);
	return rc < 0 ? rc : parse_g_reply(rsp, reply, len, pc, ra, err);
}

/* The return address as a caller: 0 for Cortex-M EXC_RETURN values, which name no caller. */
static uint64_t ra_as_caller(const rp_rsp *rsp, uint64_t ra)
{
	if (rsp->opts.elf_machine == EM_ARM_ && ra >= 0xf0000000u)
		return 0;
	return ra;
}

/* From the stop's expedited registers; 0 when they are not all there. */
static int read_expedited(rp_rsp *rsp, const rp_rsp_stop *stop, uint64_t *pc, uint64_t *ra, rp_err *err)
{
	const char *xpc = expedited(stop, rsp->pc_regnum);
	const char *xra = rsp->ra_found ? expedited(stop, rsp->ra_regnum) : NULL;
	if (!xpc || (rsp->ra_found && !xra))
		return 0;
	int rc = rp_rsp_parse_reg(pc, xpc, strlen(xpc), rsp->opts.big_endian, rsp->name, err);
	if (rc == 0 && xra)
		rc = rp_rsp_parse_reg(ra, xra, strlen(xra), rsp->opts.big_endian, rsp->name, err);
	return rc < 0 ? rc : 1;
}

int rp_rsp_read_pc(rp_rsp *rsp, const rp_rsp_stop *stop, uint64_t *pc, uint64_t *ra, rp_err *err)
{
	*ra = 0;
	int rc = read_expedited(rsp, stop, pc, ra, err);
	if (rc == 0 && rsp->mode == READ_G) {
		rc = read_regs_g(rsp, pc, ra, err);
	} else if (rc == 0) {
		rc = read_reg_p(rsp, rsp->pc_regnum, rsp->pc_bytes, pc, err);
		if (rc == 0 && rsp->ra_found)
			rc = read_reg_p(rsp, rsp->ra_regnum, rsp->ra_bytes, ra, err);
	}
	*ra = ra_as_caller(rsp, *ra);
	return rc < 0 ? rc : 0;
}

/* The register reads and the `c` in one write, then the replies: the target resumes one round
 * trip earlier than with read-then-continue, which is time it would otherwise spend halted. */
static int read_pipelined(rp_rsp *rsp, uint64_t *pc, uint64_t *ra, rp_err *err)
{
	char cmd_pc[16], cmd_ra[16];
	const char *cmds[3], *reply;
	size_t n = 0, len;
	if (rsp->mode == READ_G) {
		cmds[n++] = "g";
	} else {
		snprintf(cmd_pc, sizeof(cmd_pc), "p%x", rsp->pc_regnum);
		snprintf(cmd_ra, sizeof(cmd_ra), "p%x", rsp->ra_regnum);
		cmds[n++] = cmd_pc;
		if (rsp->ra_found)
			cmds[n++] = cmd_ra;
	}
	cmds[n++] = "c";
	int rc = send_pipelined(rsp, cmds, n, err);
	if (rc == 0 && rsp->mode == READ_G) {
		if ((rc = await_reply(rsp, "g", &reply, &len, err)) == 0)
			rc = parse_g_reply(rsp, reply, len, pc, ra, err);
		return rc;
	}
	if (rc == 0 && (rc = await_reply(rsp, cmd_pc, &reply, &len, err)) == 0)
		rc = parse_p_reply(rsp, cmd_pc, reply, len, rsp->pc_bytes, pc, err);
	if (rc == 0 && rsp->ra_found && (rc = await_reply(rsp, cmd_ra, &reply, &len, err)) == 0)
		rc = parse_p_reply(rsp, cmd_ra, reply, len, rsp->ra_bytes, ra, err);
	return rc;
}

int rp_rsp_read_pc_continue(rp_rsp *rsp, const rp_rsp_stop *stop, uint64_t *pc, uint64_t *ra, rp_err *err)
{
	*ra = 0;
	int rc = read_expedited(rsp, stop, pc, ra, err), resumed = 0;
	if (rc == 0 && rsp->pipeline) {
		rc = read_pipelined(rsp, pc, ra, err);
		resumed = 1;
	} else if (rc == 0) {
		rc = rp_rsp_read_pc(rsp, stop, pc, ra, err);
	}
	if (rc < 0)
		return rc;
	*ra = ra_as_caller(rsp, *ra);
	return resumed ? 0 : rp_rsp_continue(rsp, err);
}

/* Discards whole packets that arrive within ns: a late reply to a request the gdbserver
 * answered after a stop reply. */
static int drain(rp_rsp *rsp, int64_t ns, rp_err *err)
{
	int64_t deadline = now_ns() + ns;
	int rc;
	while ((rc = recv_packet(rsp, deadline, 0, err)) > 0)
		;
	return rc;
}

int rp_rsp_peek32(rp_rsp *rsp, uint64_t addr, uint32_t *val, rp_rsp_stop *stop, rp_err *err)
{
	char cmd[40], q[200];
	snprintf(cmd, sizeof(cmd), "m%llx,4", (unsigned long long)addr);
	/* no wait for the '+': a gdbserver that halts the target instead of reading (QEMU) drops
	 * the packet unacknowledged and sends a stop reply */
	int rc = send_packet(rsp, cmd, 0, err);
	int64_t deadline = now_ns() + (int64_t)rsp->opts.timeout_ms * 1000000;
	for (;;) {
		uint64_t v;
		if (rc < 0 || (rc = recv_packet(rsp, deadline, 0, err)) < 0)
			return rc;
		if (rc == 0) {
			char what[96];
			snprintf(what, sizeof(what), "for the reply to '%s'", cmd);
			timeout_error(rsp, err, what);
			return 3;
		}
		const char *reply = rsp->pkt;
		size_t len = rsp->pkt_len;
		if (len == 8 && all_hex(reply, 8)) {
			if ((rc = rp_rsp_parse_reg(&v, reply, 8, rsp->opts.big_endian, rsp->name, err)) < 0)
				return rc;
			*val = (uint32_t)v;
			return 0;
		}
		if (len == 0 || reply[0] == 'E')
			return 2;  /* an error, or "" for a gdbserver that does not read memory */
		rp_err ignored = RP_ERR_INIT;
		if (rp_rsp_parse_stop(stop, reply, len, rsp->name, &ignored) == 0) {
			if (stop->kind == RP_RSP_OUTPUT)
				continue;
			rsp->unacked_len = 0; /* dropped, never to be acknowledged */
			if (stop->kind == RP_RSP_STOPPED && (rc = drain(rsp, 50000000, err)) < 0)
				return rc;
			return 1;
		}
		return rp_err_set(err, RP_EINPUT, "%s: garbage reply '%s' to %s", rsp->name,
				  quote(q, sizeof(q), reply, len), cmd);
	}
}

int rp_rsp_poke32(rp_rsp *rsp, uint64_t addr, uint32_t val, rp_err *err)
{
	char cmd[48], q[200];
	const char *reply;
	size_t len;
	unsigned char b[4];
	for (int i = 0; i < 4; i++)
		b[i] = (unsigned char)(val >> (8 * (rsp->opts.big_endian ? 3 - i : i)));
	snprintf(cmd, sizeof(cmd), "M%llx,4:%02x%02x%02x%02x", (unsigned long long)addr, b[0], b[1], b[2], b[3]);
	int rc = rp_rsp_transact(rsp, cmd, &reply, &len, err);
	if (rc == 0 && strcmp(reply, "OK") != 0)
		rc = rp_err_set(err, RP_EINPUT, "%s: reply '%s' to %s", rsp->name, quote(q, sizeof(q), reply, len), cmd);
	return rc;
}

int rp_rsp_wait_stop_discarding(rp_rsp *rsp, rp_rsp_stop *stop, rp_err *err)
{
	int64_t deadline = now_ns() + (int64_t)rsp->opts.timeout_ms * 1000000;
	for (;;) {
		int rc = recv_packet(rsp, deadline, 0, err);
		if (rc == 0)
			return timeout_error(rsp, err, "for the stop reply");
		if (rc < 0)
			return rc;
		rp_err ignored = RP_ERR_INIT;
		if (rp_rsp_parse_stop(stop, rsp->pkt, rsp->pkt_len, rsp->name, &ignored) == 0) {
			if (stop->kind != RP_RSP_OUTPUT)
				return 0;
		} else if (!(rsp->pkt[0] == 'E' || strcmp(rsp->pkt, "OK") == 0 ||
			     all_hex(rsp->pkt, rsp->pkt_len))) {
			return rp_rsp_parse_stop(stop, rsp->pkt, rsp->pkt_len, rsp->name, err);
		}
	}
}

/* ---------------------------------------------------------------- handshake */

/* qSupported features are "name+", "name-", "name?" or "name=value", separated by ';'. */
static int parse_supported(rp_rsp *rsp, const char *reply, size_t len, rp_err *err)
{
	char q[200];
	size_t i = 0;
	while (i < len) {
		const char *semi = memchr(reply + i, ';', len - i);
		size_t end = semi ? (size_t)(semi - reply) : len, flen = end - i;
		const char *f = reply + i, *eq = memchr(f, '=', flen);
		size_t nlen = eq ? (size_t)(eq - f) : flen - 1;
		int ok = flen >= 2 && nlen > 0;
		for (size_t k = 0; ok && k < nlen; k++)
			ok = f[k] > 0x20 && f[k] < 0x7f && f[k] != '=';
		if (ok && !eq)
			ok = f[flen - 1] == '+' || f[flen - 1] == '-' || f[flen - 1] == '?';
		if (!ok)
			return rp_err_set(err, RP_EINPUT, "%s: garbage reply '%s' to qSupported", rsp->name,
					  quote(q, sizeof(q), reply, len));
		if (flen == strlen("qXfer:features:read+") && memcmp(f, "qXfer:features:read+", flen) == 0)
			rsp->has_xfer_features = 1;
		if (flen == strlen("QStartNoAckMode+") && memcmp(f, "QStartNoAckMode+", flen) == 0)
			rsp->has_noack = 1;
		i = end + 1;
	}
	return 0;
}

/* An included document's name goes into a qXfer request: no ':' or other separators. */
static int is_annex_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '-';
}

static int check_annex(rp_rsp *rsp, const char *annex, rp_err *err)
{
	char q[200];
	for (const char *p = annex; *p; p++)
		if (!is_annex_char((unsigned char)*p))
			return rp_err_set(err, RP_EINPUT, "%s: target description includes a bad file name '%s'",
					  rsp->name, quote(q, sizeof(q), annex, strlen(annex)));
	return 0;
}

/* Reads a whole qXfer:features object; *doc is malloc'ed and NUL-terminated. */
static int xfer_features(void *ctx, const char *annex, char **doc, size_t *dlen, rp_err *err)
{
	rp_rsp *rsp = ctx;
	char cmd[320], q[200];
	char *buf = NULL;
	size_t len = 0;
	int rc = check_annex(rsp, annex, err);
	for (int last = 0; rc == 0 && !last;) {
		const char *reply;
		size_t rlen;
		snprintf(cmd, sizeof(cmd), "qXfer:features:read:%s:%zx,fff", annex, len);
		if ((rc = rp_rsp_transact(rsp, cmd, &reply, &rlen, err)) < 0)
			break;
		last = rlen > 0 && reply[0] == 'l';
		if (rlen == 0 || (reply[0] != 'l' && reply[0] != 'm') || (!last && rlen == 1)) {
			rc = rp_err_set(err, RP_EINPUT, "%s: garbage reply '%s' to %s", rsp->name,
					quote(q, sizeof(q), reply, rlen), cmd);
			break;
		}
		if (len + rlen > RSP_XML_MAX) {
			rc = rp_err_set(err, RP_EINPUT, "%s: target description '%s' larger than %d bytes",
					rsp->name, annex, RSP_XML_MAX);
			break;
		}
		char *grown = realloc(buf, len + rlen);
		if (!grown) {
			rc = rp_err_nomem(err, "reading the target description");
			break;
		}
		buf = grown;
		memcpy(buf + len, reply + 1, rlen - 1);
		len += rlen - 1;
		buf[len] = '\0';
	}
	if (rc < 0) {
		free(buf);
		return rc;
	}
	*doc = buf;
	*dlen = len;
	return 0;
}

static unsigned reg_bytes(const rp_rsp_reg *r, unsigned dflt)
{
	return r && r->bitsize % 8 == 0 && r->bitsize / 8 <= 8 && r->bitsize > 0 ? r->bitsize / 8 : dflt;
}

/* Register numbers and sizes of pc and lr/ra, from the description or by architecture. */
static int locate_regs(rp_rsp *rsp, const rp_rsp_tdesc *td, rp_err *err)
{
	int is_arm = rsp->opts.elf_machine == EM_ARM_ || strncmp(td->arch, "arm", 3) == 0;
	int is_riscv = rsp->opts.elf_machine == EM_RISCV_ || strncmp(td->arch, "riscv", 5) == 0;
	unsigned xlen = rsp->opts.elfclass == 64 || strstr(td->arch, "64") ? 8 : 4;
	const rp_rsp_reg *pc = rp_rsp_tdesc_find(td, "pc");
	const rp_rsp_reg *ra = rp_rsp_tdesc_find(td, is_riscv ? "ra" : "lr");
	rsp->m_profile = is_arm && rp_rsp_tdesc_find(td, "xpsr") != NULL;
	if (pc) {
		rsp->pc_regnum = pc->regnum;
		rsp->pc_bytes = reg_bytes(pc, 0);
		if (!rsp->pc_bytes)
			return rp_err_set(err, RP_EINPUT, "%s: pc is %u bits wide", rsp->name, pc->bitsize);
	} else if (is_arm || is_riscv) {
		rsp->pc_regnum = is_arm ? 15 : 32;
		rsp->pc_bytes = is_arm ? 4 : xlen;
	} else {
		return rp_err_set(err, RP_EINPUT, "%s: no pc register in the target description "
				  "and the architecture is unknown", rsp->name);
	}
	if (ra && reg_bytes(ra, 0)) {
		rsp->ra_found = 1;
		rsp->ra_regnum = ra->regnum;
		rsp->ra_bytes = reg_bytes(ra, 0);
	} else if (!td->nregs && (is_arm || is_riscv)) {
		rsp->ra_found = 1;
		rsp->ra_regnum = is_arm ? 14 : 1;
		rsp->ra_bytes = is_arm ? 4 : xlen;
	}
	rsp->ra_found &= rsp->opts.want_ra;
	rsp->pc_goff = td->nregs ? rp_rsp_tdesc_g_offset(td, rsp->pc_regnum) : -1;
	rsp->ra_goff = td->nregs && rsp->ra_found ? rp_rsp_tdesc_g_offset(td, rsp->ra_regnum) : -1;
	return 0;
}

/* Picks `g` when it gets both registers in one round trip, else `p`; probes that it works. */
static int choose_read_mode(rp_rsp *rsp, rp_err *err)
{
	uint64_t pc, ra;
	int g_usable = rsp->pc_goff >= 0 && (!rsp->ra_found || rsp->ra_goff >= 0);
	if (g_usable && rsp->ra_found) {
		rsp->mode = READ_G;
		rp_err probe = RP_ERR_INIT;
		if (read_regs_g(rsp, &pc, &ra, &probe) == 0)
			return 0;
	}
	rsp->mode = READ_P;
	rp_err probe = RP_ERR_INIT;
	if (read_reg_p(rsp, rsp->pc_regnum, rsp->pc_bytes, &pc, &probe) == 0)
		return 0;
	if (!g_usable) {
		*err = probe;
		return probe.code;
	}
	rsp->mode = READ_G;
	return read_regs_g(rsp, &pc, &ra, err);
}

static int handshake(rp_rsp *rsp, rp_err *err)
{
	const char *reply;
	size_t len;
	char q[200];
	int rc = rp_rsp_transact(rsp, "qSupported:multiprocess-;swbreak-;hwbreak-", &reply, &len, err);
	if (rc == 0)
		rc = parse_supported(rsp, reply, len, err);
	if (rc == 0 && rsp->has_noack) {
		rc = rp_rsp_transact(rsp, "QStartNoAckMode", &reply, &len, err);
		if (rc == 0 && strcmp(reply, "OK") == 0)
			rsp->noack = 1;
		else if (rc == 0 && len > 0)
			rc = rp_err_set(err, RP_EINPUT, "%s: garbage reply '%s' to QStartNoAckMode", rsp->name,
					quote(q, sizeof(q), reply, len));
	}
	/* QEMU's system-mode stub reads packets in order and never waits for our '+', so reads
	 * and `c` can share one write there even in ack mode (it offers no QStartNoAckMode) */
	if (rc == 0 && !rsp->noack && (rc = rp_rsp_transact(rsp, "qqemu.sstepbits", &reply, &len, err)) == 0)
		rsp->is_qemu = strncmp(reply, "ENABLE=", 7) == 0;
	rsp->pipeline = rsp->noack || rsp->is_qemu;
	rp_rsp_stop stop;
	if (rc == 0)
		rc = rp_rsp_transact(rsp, "?", &reply, &len, err);
	if (rc == 0 && (rc = rp_rsp_parse_stop(&stop, reply, len, rsp->name, err)) == 0 &&
	    stop.kind != RP_RSP_STOPPED)
		rc = rp_err_set(err, RP_EINPUT, "%s: the target is not running (reply '%s' to ?)", rsp->name,
				quote(q, sizeof(q), reply, len));
	if (rc < 0)
		return rc;
	rp_rsp_tdesc td;
	rp_rsp_tdesc_init(&td);
	if (rsp->has_xfer_features) {
		char *doc = NULL;
		size_t dlen = 0;
		rc = xfer_features(rsp, "target.xml", &doc, &dlen, err);
		if (rc == 0)
			rc = rp_rsp_tdesc_parse(&td, doc, dlen, xfer_features, rsp, rsp->name, err);
		free(doc);
	}
	if (rc == 0)
		rc = locate_regs(rsp, &td, err);
	rp_rsp_tdesc_release(&td);
	if (rc == 0)
		rc = choose_read_mode(rsp, err);
	return rc;
}

/* ---------------------------------------------------------------- connection */

int rp_rsp_open_fd(rp_rsp **out, int fd, const char *name, const rp_rsp_opts *opts, rp_err *err)
{
	rp_rsp_opts dflt = RP_RSP_OPTS_INIT;
	*out = NULL;
	rp_rsp *rsp = calloc(1, sizeof(*rsp));
	if (rsp) {
		rsp->in = malloc(RSP_IN_CAP);
		rsp->pkt = malloc(RP_RSP_MAX_PACKET + 1);
		rsp->out = malloc(RP_RSP_MAX_PACKET + 16);
	}
	if (!rsp || !rsp->in || !rsp->pkt || !rsp->out) {
		if (rsp)
			rsp->fd = -1;
		rp_rsp_close(rsp);
		close(fd);
		return rp_err_nomem(err, "connecting to the gdbserver");
	}
	rsp->fd = fd;
	rsp->opts = opts ? *opts : dflt;
	snprintf(rsp->name, sizeof(rsp->name), "%s", name);
	int flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		fcntl(fd, F_SETFL, flags | O_NONBLOCK);
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)); /* fails harmlessly on non-TCP */
	int rc = handshake(rsp, err);
	if (rc < 0) {
		rp_rsp_close(rsp);
		return rc;
	}
	*out = rsp;
	return 0;
}

/* Non-blocking connect bounded by the deadline; returns the connected socket or a negative
 * code. *why keeps the reason of the last failed address. */
static int connect_one(const struct addrinfo *ai, int64_t deadline, int *why)
{
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
	if (fd < 0) {
		*why = errno;
		return -1;
	}
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
		return fd;
	if (errno != EINPROGRESS) {
		*why = errno;
		close(fd);
		return -1;
	}
	for (;;) {
		int64_t left = deadline - now_ns();
		struct pollfd pfd = { fd, POLLOUT, 0 };
		int n = left > 0 ? poll(&pfd, 1, (int)((left + 999999) / 1000000)) : 0;
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			*why = n == 0 ? ETIMEDOUT : errno;
			close(fd);
			return -1;
		}
		int soerr = 0;
		socklen_t sl = sizeof(soerr);
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0)
			soerr = errno;
		if (soerr == 0)
			return fd;
		*why = soerr;
		close(fd);
		return -1;
	}
}

int rp_rsp_connect(rp_rsp **out, const char *host, int port, const rp_rsp_opts *opts, rp_err *err)
{
	rp_rsp_opts dflt = RP_RSP_OPTS_INIT;
	char name[300], service[16];
	struct addrinfo hints, *res = NULL;
	if (!opts)
		opts = &dflt;
	*out = NULL;
	snprintf(name, sizeof(name), strchr(host, ':') ? "[%s]:%d" : "%s:%d", host, port);
	snprintf(service, sizeof(service), "%d", port);
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	int gai = getaddrinfo(host, service, &hints, &res);
	if (gai != 0)
		return rp_err_set(err, RP_EINPUT, "%s: cannot resolve host: %s", name, gai_strerror(gai));
	int64_t deadline = now_ns() + (int64_t)opts->connect_timeout_ms * 1000000;
	int fd = -1, why = 0;
	for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next)
		fd = connect_one(ai, deadline, &why);
	freeaddrinfo(res);
	if (fd < 0 && why == ETIMEDOUT)
		return rp_err_set(err, RP_EINPUT, "%s: no connection after %d ms", name,
				  opts->connect_timeout_ms);
	if (fd < 0)
		return rp_err_set(err, RP_EINPUT, "%s: %s", name,
				  why == ECONNREFUSED ? "connection refused" : strerror(why));
	return rp_rsp_open_fd(out, fd, name, opts, err);
}

void rp_rsp_close(rp_rsp *rsp)
{
	if (!rsp)
		return;
	if (rsp->fd >= 0 && rsp->ack_due)
		(void)!send(rsp->fd, "+", 1, MSG_NOSIGNAL | MSG_DONTWAIT); /* best effort: we are leaving */
	if (rsp->fd >= 0)
		close(rsp->fd);
	free(rsp->in);
	free(rsp->pkt);
	free(rsp->out);
	free(rsp);
}

const char *rp_rsp_name(const rp_rsp *rsp)
{
	return rsp->name;
}

int rp_rsp_has_ra(const rp_rsp *rsp)
{
	return rsp->ra_found;
}

int rp_rsp_pipelines(const rp_rsp *rsp)
{
	return rsp->pipeline;
}

int rp_rsp_is_m_profile(const rp_rsp *rsp)
{
	return rsp->m_profile;
}
