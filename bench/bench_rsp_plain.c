/* bench_rsp_plain.c: the plain client bench_record.sh measures `ramplace record` against (issue
 * 41, item 6): the least a PC sampler over the GDB remote protocol must do, with nothing else.
 * No-acknowledgement mode where the gdbserver has it (QEMU 7.2 does not: then each packet
 * received is acknowledged in the same write as the next packet sent, and the '+' each packet
 * sent earns is skipped, never waited for), then for SECONDS: interrupt (0x03), read the stop
 * reply, `p REGNUM`, read its reply, `c` (no reply to wait for), and with WINDOW_US let the target
 * run that long (spun on the clock) before the next interrupt, as `record --min-run` does. Two
 * round trips a sample, one process, blocking reads on one socket; no decoding beyond finding
 * packet ends, no storage, no rate control.
 *   bench_rsp_plain HOST:PORT SECONDS PC_REGNUM_HEX [WINDOW_US]
 * Prints "SAMPLES SECONDS samples/s acks|no-acks". Owns one socket; bounded by SECONDS plus a 5 s stall
 * timeout on every read. */
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int fd = -1;
static char inbuf[65536];
static size_t inlen;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "bench_rsp_plain: %s\n", what);
	exit(1);
}

static void send_raw(const char *s, size_t n)
{
	while (n) {
		ssize_t k = write(fd, s, n);
		if (k <= 0)
			die("write failed");
		s += k;
		n -= (size_t)k;
	}
}

static int acks = 1;   /* until no-acknowledgement mode is agreed */

/* body as a packet, after the acknowledgement of the packet last received when acks are on */
static void send_packet(const char *body)
{
	char pkt[256];
	unsigned sum = 0;
	for (const char *p = body; *p; p++)
		sum += (unsigned char)*p;
	int n = snprintf(pkt, sizeof(pkt), "%s$%s#%02x", acks ? "+" : "", body, sum & 0xff);
	send_raw(pkt, (size_t)n);
}

/* Reads until one whole packet ($...#xx) is in; returns its body's first byte, drops it and any
 * '+' before it. */
static char recv_packet(void)
{
	for (;;) {
		char *start = memchr(inbuf, '$', inlen);
		char *hash = start ? memchr(start, '#', inlen - (size_t)(start - inbuf)) : NULL;
		if (hash && (size_t)(hash - inbuf) + 3 <= inlen) {
			char first = start[1];
			size_t used = (size_t)(hash - inbuf) + 3;
			memmove(inbuf, inbuf + used, inlen - used);
			inlen -= used;
			return first;
		}
		if (inlen == sizeof(inbuf))
			die("packet too long");
		ssize_t k = read(fd, inbuf + inlen, sizeof(inbuf) - inlen);
		if (k <= 0)
			die("read failed or timed out");
		inlen += (size_t)k;
	}
}

static void connect_to(const char *hostport)
{
	char host[256];
	const char *colon = strrchr(hostport, ':');
	if (!colon || (size_t)(colon - hostport) >= sizeof(host))
		die("HOST:PORT expected");
	memcpy(host, hostport, (size_t)(colon - hostport));
	host[colon - hostport] = '\0';
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai;
	if (getaddrinfo(host, colon + 1, &hints, &ai) != 0)
		die("cannot resolve the address");
	fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
	if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen) != 0)
		die("cannot connect");
	freeaddrinfo(ai);
	struct timeval tv = { 5, 0 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

int main(int argc, char **argv)
{
	if (argc != 4 && argc != 5)
		die("usage: bench_rsp_plain HOST:PORT SECONDS PC_REGNUM_HEX [WINDOW_US]");
	double seconds = atof(argv[2]);
	double window = argc == 5 ? atof(argv[4]) / 1e6 : 0;
	char read_pc[32];
	snprintf(read_pc, sizeof(read_pc), "p%s", argv[3]);
	connect_to(argv[1]);
	send_packet("QStartNoAckMode");
	char agreed = recv_packet();
	send_packet("c");   /* acknowledges the reply to QStartNoAckMode, which still wants one */
	acks = agreed != 'O';
	unsigned long samples = 0;
	double t0 = now(), t;
	while ((t = now()) - t0 < seconds) {
		send_raw("\x03", 1);   /* no packet: no acknowledgement owed before it */
		char stop = recv_packet();
		if (stop != 'T' && stop != 'S')
			die("no stop reply to the interrupt");
		send_packet(read_pc);
		if (recv_packet() == 'E')
			die("the register read failed");
		send_packet("c");
		samples++;
		for (double resumed = now(); window > 0 && now() - resumed < window;)
			;
	}
	printf("%lu %.3f %.0f %s\n", samples, t - t0, (double)samples / (t - t0), acks ? "acks" : "no-acks");
	close(fd);
	return 0;
}
