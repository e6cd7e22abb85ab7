/* rsp.c: the GDB remote serial protocol client behind `ramplace record` (see rsp.h): packet
 * framing and transport. The other pieces of the client (connect and handshake, registers, run
 * control, memory, target description) are in rsp_*.c; rsp_internal.h maps them.
 *
 * Owns the connection's bytes: a receive buffer of raw bytes not yet framed, the last decoded
 * packet, the outgoing frame and the ack-mode bookkeeping. The workload is a tight
 * halt/read/resume loop thousands of times a second over loopback, so packets are built in
 * place, an owed '+' rides with the next write, and several commands can share one write. The
 * server is not trusted: every frame, escape and repeat count is bounds-checked, and every wait
 * has a deadline (ppoll, never a sleep loop). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rsp_internal.h"

/* ---------------------------------------------------------------- helpers */

/* Quotes untrusted bytes for a message: printable ASCII as is, the rest as \xNN, cut at 40. */
const char *rp_rspi_quote(char *buf, size_t cap, const char *data, size_t len)
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
				  rp_rspi_quote(q, sizeof(q), buf, n), (unsigned long long)stream_pos);
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
	int hi = rp_hex_digit((unsigned char)buf[hpos + 1]), lo = rp_hex_digit((unsigned char)buf[hpos + 2]);
	unsigned want = rp_rsp_checksum(buf + 1, hpos - 1);
	if (hi < 0 || lo < 0 || (unsigned)(hi * 16 + lo) != want)
		return rp_err_set(err, RP_EINPUT,
				  "%s: bad checksum in packet at byte %llu ('%s', expected %02x)", name,
				  (unsigned long long)stream_pos, rp_rspi_quote(q, sizeof(q), buf, hpos + 3), want);
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


/* ---------------------------------------------------------------- I/O */

static int io_error(rp_rsp *rsp, rp_err *err, const char *what)
{
	if (errno == EPIPE || errno == ECONNRESET)
		return rp_err_set(err, RP_EINPUT, "%s: gdbserver closed the connection", rsp->name);
	return rp_err_set(err, RP_EINPUT, "%s: %s: %s", rsp->name, what, strerror(errno));
}

/* Longest single sleep: a signal that lands just before the ppoll (and so does not interrupt it)
 * is still seen this soon. */
#define SLICE_NS 100000000

const char *rp_rsp_stopped_by(int sig, char *buf, size_t cap)
{
	switch (sig) {
	case SIGINT:
		return "interrupted";
	case SIGTERM:
		return "stopped by SIGTERM";
	case SIGHUP:
		return "stopped by SIGHUP";
	default:
		if (!buf)
			return "stopped by a signal";
		snprintf(buf, cap, "stopped by signal %d", sig);
		return buf;
	}
}

/* Whether opts.cancel is set; the first time, notes when, and from then on *deadline is at most
 * RP_RSP_CANCEL_GRACE_MS after it. */
static int cancelled(rp_rsp *rsp, int64_t *deadline)
{
	if (!rsp->opts.cancel || !*rsp->opts.cancel)
		return 0;
	if (!rsp->cancel_at)
		rsp->cancel_at = now_ns();
	int64_t last = rsp->cancel_at + (int64_t)RP_RSP_CANCEL_GRACE_MS * 1000000;
	if (*deadline > last)
		*deadline = last;
	return 1;
}

rp_rspi_wait rp_rspi_wait_for(const rp_rsp *rsp, int64_t ns, int cancel_ok)
{
	rp_rspi_wait w = { 0, cancel_ok, 0, 0 };
	w.deadline = now_ns() + (ns < 0 ? (int64_t)rsp->opts.timeout_ms * 1000000 : ns);
	return w;
}

/* Reads more bytes into the receive buffer. Returns 1 when some arrived, 0 at w's deadline (or
 * on a signal: at once when w->cancel_ok, else at the end of the grace), negative on EOF or
 * error. The deadline holds whatever arrives: past it, only the first poll of a wait reads (what
 * is there already, for a wait of 0 ns), so a gdbserver that keeps sending cannot stretch it. */
static int fill(rp_rsp *rsp, rp_rspi_wait *w, rp_err *err)
{
	for (;;) {
		if (cancelled(rsp, &w->deadline) && w->cancel_ok)
			return 0;
		int64_t left = w->deadline - now_ns();
		if (left <= 0 && w->polled)
			return 0;
		w->polled = 1;
		if (left < 0)
			left = 0;
		if (left > SLICE_NS)
			left = SLICE_NS;
		struct timespec ts = { (time_t)(left / 1000000000), (long)(left % 1000000000) };
		struct pollfd pfd = { rsp->fd, POLLIN, 0 };
		int n = ppoll(&pfd, 1, &ts, NULL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return io_error(rsp, err, "waiting for the gdbserver");
		if (n == 0)
			continue; /* the top of the loop ends it at the deadline */
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
static int next_frame(rp_rsp *rsp, rp_rsp_frame *fr, rp_rspi_wait *w, rp_err *err)
{
	for (;;) {
		int rc = rp_rsp_frame_parse(fr, rsp->in, rsp->in_len, rsp->in_pos, rsp->name, err);
		if (rc != 0)
			return rc;
		rc = fill(rsp, w, err);
		if (rc <= 0)
			return rc;
	}
}

int rp_rspi_write_all(rp_rsp *rsp, const char *data, size_t len, rp_err *err)
{
	int64_t deadline = now_ns() + (int64_t)rsp->opts.timeout_ms * 1000000;
	while (len > 0) {
		ssize_t n = send(rsp->fd, data, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			struct pollfd pfd = { rsp->fd, POLLOUT, 0 };
			int sig = cancelled(rsp, &deadline);
			int64_t left = deadline - now_ns();
			if (left <= 0 && sig)
				return rp_rspi_timeout_error(rsp, NULL, err, "to send");
			if (left <= 0)
				return rp_err_set(err, RP_EINPUT, "%s: gdbserver stopped reading after %d ms",
						  rsp->name, rsp->opts.timeout_ms);
			poll(&pfd, 1, (int)((left < SLICE_NS ? left : SLICE_NS) / 1000000) + 1);
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
 * in ack mode. Returns 1, 0 at the deadline, or a negative code. Acks and notifications go
 * through fill's deadline like everything else, so a stream of them cannot hold the wait. */
int rp_rspi_recv_packet(rp_rsp *rsp, rp_rspi_wait *w, rp_err *err)
{
	for (;;) {
		rp_rsp_frame fr;
		int rc = next_frame(rsp, &fr, w, err);
		if (rc <= 0)
			return rc;
		if (fr.kind == RP_RSP_FRAME_NAK && rsp->unacked_len) {
			/* the `c` sent without waiting was refused, and the interrupt after it hit a halted
			 * target and was lost: send both again */
			if ((rc = rp_rspi_write_all(rsp, rsp->out + 1, rsp->unacked_len, err)) < 0)
				return rc;
			if (rsp->interrupted && (rc = rp_rspi_write_all(rsp, "\x03", 1, err)) < 0)
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

int rp_rspi_console(rp_rsp *rsp, rp_rspi_wait *w, const char *waiting_for, rp_err *err)
{
	w->console += rsp->pkt_len + 4; /* the frame: an empty `O` costs too */
	if (w->console <= RP_RSP_MAX_CONSOLE)
		return 0;
	return rp_err_set(err, RP_EINPUT, "%s: gdbserver sent over %d bytes of console output ('O' packets) "
			  "waiting %s", rsp->name, RP_RSP_MAX_CONSOLE, waiting_for);
}

int rp_rspi_timeout_error(rp_rsp *rsp, const rp_rspi_wait *w, rp_err *err, const char *waiting_for)
{
	char buf[40];
	if (rsp->cancel_at)
		return rp_err_set(err, RP_EINTERRUPT, "%s: %s waiting %s", rsp->name,
				  rp_rsp_stopped_by((int)*rsp->opts.cancel, buf, sizeof(buf)), waiting_for);
	if (rsp->in_len > 0 && (rsp->in[0] == '$' || rsp->in[0] == '%'))
		return rp_err_set(err, RP_EINPUT, "%s: gdbserver sent %zu bytes of a packet and not its end in %d ms "
				  "waiting %s", rsp->name, rsp->in_len, rsp->opts.timeout_ms, waiting_for);
	if (w && w->console)
		return rp_err_set(err, RP_EINPUT, "%s: gdbserver sent only console output (%zu bytes of 'O' "
				  "packets) for %d ms waiting %s", rsp->name, w->console, rsp->opts.timeout_ms,
				  waiting_for);
	return rp_err_set(err, RP_EINPUT, "%s: gdbserver stopped answering after %d ms waiting %s", rsp->name,
			  rsp->opts.timeout_ms, waiting_for);
}

/* In ack mode, waits for the '+' of the frame at out+1 (resending on '-', three times at most). */
static int await_ack(rp_rsp *rsp, size_t flen, rp_err *err)
{
	for (int tries = 0; tries < 4; tries++) {
		rp_rsp_frame fr;
		rp_rspi_wait w = rp_rspi_wait_for(rsp, -1, 0);
		int rc = next_frame(rsp, &fr, &w, err);
		if (rc == 0)
			return rp_rspi_timeout_error(rsp, &w, err, "for an acknowledgement");
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
		if ((rc = rp_rspi_write_all(rsp, rsp->out + 1, flen, err)) < 0)
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
int rp_rspi_send_packet(rp_rsp *rsp, const char *data, int wait_ack, rp_err *err)
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
	rc = rsp->ack_due ? rp_rspi_write_all(rsp, rsp->out, flen + 1, err)
			  : rp_rspi_write_all(rsp, rsp->out + 1, flen, err);
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
int rp_rspi_send_pipelined(rp_rsp *rsp, const char *const *cmds, size_t n, rp_err *err)
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
	return rp_rspi_write_all(rsp, buf, o, err);
}

/* Waits for the reply to `cmd` (already sent); *reply is rsp->pkt. */
int rp_rspi_await_reply(rp_rsp *rsp, const char *cmd, const char **reply, size_t *len, rp_err *err)
{
	rp_rspi_wait w = rp_rspi_wait_for(rsp, -1, 0);
	int rc = rp_rspi_recv_packet(rsp, &w, err);
	if (rc == 0) {
		char what[96];
		snprintf(what, sizeof(what), "for the reply to '%.40s'", cmd);
		return rp_rspi_timeout_error(rsp, &w, err, what);
	}
	if (rc < 0)
		return rc;
	*reply = rsp->pkt;
	*len = rsp->pkt_len;
	return 0;
}

int rp_rsp_transact(rp_rsp *rsp, const char *cmd, const char **reply, size_t *len, rp_err *err)
{
	int rc = rp_rspi_send_packet(rsp, cmd, 1, err);
	if (rc < 0)
		return rc;
	return rp_rspi_await_reply(rsp, cmd, reply, len, err);
}
