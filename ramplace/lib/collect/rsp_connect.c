/* rsp_connect.c: opening and closing an RSP connection (see rsp.h): the TCP connect with a
 * deadline, the handshake and what it learns (qSupported, no-ack mode, QEMU's stub, the target
 * description over qXfer:features, the numbers and sizes of pc and lr/ra, and whether `p` or
 * `g` reads them), and the accessors for what was learnt.
 *
 * A refused connection is tried again until the connect timeout, with a growing pause between
 * attempts (up to 250 ms): a gdbserver started in the background a moment before is usually not
 * listening yet.
 *
 * Owns the rp_rsp itself: its buffers, and the socket from open to close. Runs once per
 * session, but sets up the tight halt/read/resume loop that follows: TCP_NODELAY is set and
 * no-ack mode is used when offered. The server is not trusted: feature lists, included file
 * names and description sizes are checked here, the XML itself by rsp_tdesc.c. */
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
#include <unistd.h>

#include "rsp_internal.h"

#define RSP_XML_MAX (1024 * 1024)

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
					  rp_rspi_quote(q, sizeof(q), reply, len));
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
					  rsp->name, rp_rspi_quote(q, sizeof(q), annex, strlen(annex)));
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
					rp_rspi_quote(q, sizeof(q), reply, rlen), cmd);
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
	const rp_rsp_reg *tv = is_riscv ? rp_rsp_tdesc_find(td, "mtvec") : NULL;
	rsp->mtvec_regnum = tv ? tv->regnum : 0;
	rsp->mtvec_bytes = reg_bytes(tv, 0);
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
		if (rp_rspi_read_regs_g(rsp, &pc, &ra, &probe) == 0)
			return 0;
	}
	rsp->mode = READ_P;
	rp_err probe = RP_ERR_INIT;
	if (rp_rspi_read_reg_p(rsp, rsp->pc_regnum, rsp->pc_bytes, &pc, &probe) == 0)
		return 0;
	if (!g_usable) {
		*err = probe;
		return probe.code;
	}
	rsp->mode = READ_G;
	return rp_rspi_read_regs_g(rsp, &pc, &ra, err);
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
					rp_rspi_quote(q, sizeof(q), reply, len));
	}
	/* QEMU's system-mode stub reads packets in order and never waits for our '+', so reads
	 * and `c` can share one write there even in ack mode (it offers no QStartNoAckMode). Asked
	 * in no-ack mode too: the sampler says that QEMU's halting samples are biased. Other
	 * servers answer the unknown query with an empty reply. */
	if (rc == 0 && (rc = rp_rsp_transact(rsp, "qqemu.sstepbits", &reply, &len, err)) == 0)
		rsp->is_qemu = strncmp(reply, "ENABLE=", 7) == 0;
	rsp->pipeline = rsp->noack || rsp->is_qemu;
	rp_rsp_stop stop;
	if (rc == 0)
		rc = rp_rsp_transact(rsp, "?", &reply, &len, err);
	if (rc == 0 && (rc = rp_rsp_parse_stop(&stop, reply, len, rsp->name, err)) == 0 &&
	    stop.kind != RP_RSP_STOPPED)
		rc = rp_err_set(err, RP_EINPUT, "%s: the target is not running (reply '%s' to ?)", rsp->name,
				rp_rspi_quote(q, sizeof(q), reply, len));
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

/* Non-blocking connect bounded by the deadline (or a signal with *cancel set: EINTR); returns
 * the connected socket or a negative code. *why keeps the reason of the last failed address. */
static int connect_one(const struct addrinfo *ai, int64_t deadline, const volatile sig_atomic_t *cancel, int *why)
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
		if (n < 0 && errno == EINTR && !(cancel && *cancel))
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

/* Worth another try: nothing listens yet (a QEMU or OpenOCD started a moment before), or the
 * server dropped a connection it could not take yet. Anything else will not go away. */
static int retryable(int why)
{
	return why == ECONNREFUSED || why == ECONNRESET || why == ECONNABORTED;
}

/* Sleeps up to ns, but not past the deadline; returns early on a signal. */
static void pause_until(int64_t ns, int64_t deadline)
{
	int64_t left = deadline - now_ns();
	if (ns > left)
		ns = left;
	if (ns <= 0)
		return;
	struct timespec ts = { (time_t)(ns / 1000000000), (long)(ns % 1000000000) };
	nanosleep(&ts, NULL); /* EINTR: the caller looks at the cancel flag */
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
	/* Refused connections are tried again until the connect timeout, after 20 ms, then twice
	 * as long each time up to 250 ms: a gdbserver that comes up is found within a quarter of a
	 * second, and one that never does costs a few dozen attempts. */
	int64_t deadline = now_ns() + (int64_t)opts->connect_timeout_ms * 1000000;
	int64_t backoff = 20000000;
	int fd = -1, why = 0, tries = 0;
	for (;;) {
		tries++;
		for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
			int w = 0;
			fd = connect_one(ai, deadline, opts->cancel, &w);
			/* an attempt cut short by the deadline says less than the refusals before it */
			if (fd < 0 && !(w == ETIMEDOUT && retryable(why)))
				why = w;
		}
		if (fd >= 0 || !retryable(why) || (opts->cancel && *opts->cancel) || now_ns() >= deadline)
			break;
		pause_until(backoff, deadline);
		backoff = backoff * 2 > 250000000 ? 250000000 : backoff * 2;
		if (opts->cancel && *opts->cancel)
			break;
	}
	freeaddrinfo(res);
	if (fd < 0 && opts->cancel && *opts->cancel)
		return rp_err_set(err, RP_EINTERRUPT, "%s: interrupted while connecting", name);
	if (fd < 0 && why == ETIMEDOUT)
		return rp_err_set(err, RP_EINPUT, "%s: no connection after %d ms", name,
				  opts->connect_timeout_ms);
	if (fd < 0 && retryable(why) && tries > 1)
		return rp_err_set(err, RP_EINPUT, "%s: %s, still after %d ms", name,
				  why == ECONNREFUSED ? "connection refused" : strerror(why), opts->connect_timeout_ms);
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

int rp_rsp_is_qemu(const rp_rsp *rsp)
{
	return rsp->is_qemu;
}

int rp_rsp_is_m_profile(const rp_rsp *rsp)
{
	return rsp->m_profile;
}
