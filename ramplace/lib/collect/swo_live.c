/* swo_live.c: the live side of SWO PC sampling (swo.h): configuring the DWT, ITM and TPIU of
 * a Cortex-M through the gdbserver's memory writes, and reading the SWO byte stream a probe
 * server (OpenOCD `tpiu ... -output :PORT`, orbuculum) serves on a TCP port into the decoder.
 * Every wait is bounded: the connection by its timeout, each read by the silence bound and a
 * 100 ms slice that sees the stop flag. Owns the socket it connects until the caller closes it.
 * Workload: tens to hundreds of kB/s for seconds to minutes. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ramplace/swo.h"

#define DEMCR 0xe000edfcu
#define DEMCR_TRCENA (1u << 24)
#define TPIU_CSPSR 0xe0040004u
#define TPIU_ACPR 0xe0040010u
#define TPIU_SPPR 0xe00400f0u
#define TPIU_FFCR 0xe0040304u
#define ITM_LAR 0xe0000fb0u
#define ITM_TCR 0xe0000e80u
#define DWT_CTRL 0xe0001000u

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* DWT_CTRL's sampling fields for an interval in cycles: CYCTAP picks 64 or 1024 cycles,
 * POSTPRESET divides by 1..16 more; the nearest interval the hardware has. */
static uint32_t dwt_sampling(uint32_t interval, uint32_t *got)
{
	uint32_t best = 0, best_int = 64;
	uint64_t best_d = UINT64_MAX;
	for (uint32_t tap = 0; tap < 2; tap++)
		for (uint32_t pre = 0; pre < 16; pre++) {
			uint32_t iv = (tap ? 1024u : 64u) * (pre + 1);
			uint64_t d = iv > interval ? iv - interval : interval - iv;
			if (d < best_d) {
				best_d = d;
				best = tap << 9 | pre << 1;
				best_int = iv;
			}
		}
	*got = best_int;
	return best;
}

typedef struct reg_write {
	const char *name;
	uint32_t addr, val;
} reg_write;

int rp_swo_configure(rp_rsp *rsp, const rp_swo_config *cfg, uint32_t *interval, char *note, size_t notecap,
		     rp_err *err)
{
	uint32_t demcr = 0, dwt = 0;
	uint32_t acpr = cfg->swo_clock_hz && cfg->cpu_clock_hz > cfg->swo_clock_hz
				? cfg->cpu_clock_hz / cfg->swo_clock_hz - 1 : 0;
	uint32_t fields = dwt_sampling(cfg->interval, interval);
	rp_err rerr = RP_ERR_INIT;
	note[0] = '\0';
	/* DEMCR and DWT_CTRL keep their other bits: read them first (an unreadable one: 0) */
	if (rp_rsp_read_mem(rsp, DEMCR, &demcr, 4, &rerr) != 0)
		demcr = 0;
	if (rp_rsp_read_mem(rsp, DWT_CTRL, &dwt, 4, &rerr) != 0)
		dwt = 0;
	dwt &= ~((1u << 9) | (0xfu << 1) | (3u << 10));
	const reg_write w[] = {
		{ "DEMCR", DEMCR, demcr | DEMCR_TRCENA },
		{ "TPIU_CSPSR", TPIU_CSPSR, 1 },                       /* a 1-bit port */
		{ "TPIU_ACPR", TPIU_ACPR, acpr },                      /* SWO prescaler */
		{ "TPIU_SPPR", TPIU_SPPR, 2 },                         /* NRZ (UART) */
		{ "TPIU_FFCR", TPIU_FFCR, cfg->tpiu ? 0x102u : 0x100u },
		{ "ITM_LAR", ITM_LAR, 0xc5acce55u },                   /* unlock */
		{ "ITM_TCR", ITM_TCR, 1u << 16 | 1u << 3 | 1u << 2 | 1u },   /* TraceBusID 1, DWTENA, SYNCENA, ITMENA */
		{ "DWT_CTRL", DWT_CTRL, dwt | fields | 1u << 10 | 1u << 12 | 1u },   /* SYNCTAP CYCCNT[24], PCSAMPLENA, CYCCNTENA */
	};
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		int rc = rp_rsp_poke32(rsp, w[i].addr, w[i].val, &rerr);
		if (rc == RP_EINPUT) {   /* an error reply: the register is not there */
			snprintf(note, notecap, "the target refused %s (0x%08x): %s", w[i].name, (unsigned)w[i].addr, rerr.msg);
			return 1;
		}
		if (rc < 0) {
			*err = rerr;
			return rc;
		}
	}
	return 0;
}

static int connect_once(const struct addrinfo *ai, int timeout_ms)
{
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
	if (fd < 0)
		return -errno;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) {
		int e = errno;
		close(fd);
		return -e;
	}
	struct pollfd p = { fd, POLLOUT, 0 };
	int so = 0;
	socklen_t len = sizeof(so);
	if (poll(&p, 1, timeout_ms) != 1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &so, &len) != 0 || so) {
		close(fd);
		return so ? -so : -ETIMEDOUT;
	}
	return fd;
}

int rp_swo_live_connect(int *fd, const char *host, int port, int connect_timeout_ms, rp_err *err)
{
	struct addrinfo hints, *res = NULL;
	char service[16];
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	snprintf(service, sizeof(service), "%d", port);
	int gai = getaddrinfo(host, service, &hints, &res);
	if (gai)
		return rp_err_set(err, RP_EIO, "SWO %s:%d: %s", host, port, gai_strerror(gai));
	double deadline = now_s() + connect_timeout_ms / 1000.0;
	int got = -ECONNREFUSED;
	do {
		for (struct addrinfo *ai = res; ai && got < 0; ai = ai->ai_next)
			got = connect_once(ai, connect_timeout_ms);
		if (got == -ECONNREFUSED && now_s() < deadline)
			usleep(50000);   /* a server still starting */
	} while (got == -ECONNREFUSED && now_s() < deadline);
	freeaddrinfo(res);
	if (got < 0)
		return rp_err_set(err, RP_EIO, "SWO %s:%d: %s (tried for %d ms)", host, port, strerror(-got),
				  connect_timeout_ms);
	*fd = got;
	return 0;
}

/* The reason to stop before the next read, or NULL. */
static const char *limit_reached(const rp_swo *dec, const rp_swo_live_opts *o, double t0)
{
	if (o->stop_flag && *o->stop_flag)
		return "signal";
	if (o->max_samples && rp_swo_get_stats(dec)->samples >= o->max_samples)
		return "samples";
	if (o->duration_s > 0 && now_s() - t0 >= o->duration_s)
		return "duration";
	return NULL;
}

/* After a signal: what the server already sent is part of the run (at most 1 MiB more, no wait). */
static int drain(int fd, rp_swo *dec, uint8_t *buf, size_t cap, rp_err *err)
{
	struct pollfd p = { fd, POLLIN, 0 };
	int rc = 0;
	for (size_t total = 0; !rc && total < ((size_t)1 << 20) && poll(&p, 1, 0) == 1;) {
		ssize_t k = read(fd, buf, cap);
		if (k <= 0)
			break;
		total += (size_t)k;
		rc = rp_swo_feed(dec, buf, (size_t)k, err);
	}
	return rc;
}

int rp_swo_live_read(int fd, rp_swo *dec, const rp_swo_live_opts *o, rp_swo_live_result *res, rp_err *err)
{
	double t0 = now_s(), last = t0;
	const char *why = NULL;
	uint8_t buf[16384];
	int rc = 0;
	while (!rc && !(why = limit_reached(dec, o, t0))) {
		struct pollfd p = { fd, POLLIN, 0 };
		int n = poll(&p, 1, 100);
		if (n < 0 && errno != EINTR) {
			snprintf(res->reason, sizeof(res->reason), "stream: %s", strerror(errno));
			break;
		}
		if (n <= 0) {
			if (now_s() - last > o->silence_ms / 1000.0) {
				snprintf(res->reason, sizeof(res->reason), "stream silent for %d ms", o->silence_ms);
				break;
			}
			continue;
		}
		ssize_t k = read(fd, buf, sizeof(buf));
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (k <= 0) {
			snprintf(res->reason, sizeof(res->reason), "%s", k == 0 ? "stream closed" : strerror(errno));
			break;
		}
		last = now_s();
		rc = rp_swo_feed(dec, buf, (size_t)k, err);
	}
	if (why)
		snprintf(res->reason, sizeof(res->reason), "%s", why);
	if (!rc && why && strcmp(why, "signal") == 0)
		rc = drain(fd, dec, buf, sizeof(buf), err);
	if (!rc)
		rc = rp_swo_finish(dec, err);
	res->elapsed_s = now_s() - t0;
	return rc;
}
