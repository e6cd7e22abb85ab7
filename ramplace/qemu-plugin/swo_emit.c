/* swo_emit.c: libramplace-qemu.so's SWO output (swo_emit.h). No emulator models the SWO port,
 * so this writes the stream a Cortex-M's DWT PC sampler would send, for `ramplace import
 * --format swo` and `ramplace record --swo` to be tested end to end:
 *
 *   -plugin libramplace-qemu.so,out=counts.txt,swo=trace.swo[,swo-interval=N][,swo-tpiu=on]
 *   -plugin libramplace-qemu.so,out=counts.txt,swo=tcp:PORT   (served like OpenOCD's
 *                                                              `tpiu ... -output :PORT`)
 *
 * What it emits (ARMv7-M ARM D4): a PC sample packet (0x17 + the 4-byte PC) every N executed
 * instructions (default 1024: POSTCNT/CYCTAP approximated by instruction count), a sync packet
 * (five zero bytes, 0x80) first and after every 256 samples, and with swo-tpiu=on the whole
 * wrapped in 16-byte TPIU formatter frames of source ID 1 (an ID change opens every frame) with
 * a full frame sync first and every 32 frames. Instructions are counted per executed
 * translation block, which QEMU runs whole unless an exception leaves it early, as the counts
 * of mode=tb are; the sampled instruction is the one inside the block where the count runs out.
 *
 * File output goes to a temporary file renamed over FILE at exit (nothing half-written). TCP:
 * the plugin listens on 127.0.0.1:PORT at load and holds the guest at its first full buffer
 * until a client connects (at most 30 s, then the bytes are dropped and counted on stderr), so
 * a capture started before the guest runs loses nothing; a client that goes away is replaced
 * by the next one to connect. A slow client slows the guest (blocking send) instead of
 * overflowing. Owns the per-translation address lists, the buffer and the descriptors until
 * swo_emit_stop. */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "swo_emit.h"

/* ---- the QEMU 7.2 plugin API subset used here (include/qemu/qemu-plugin.h, version 1) ---- */
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
/* ---- end of the API subset ---- */

#define SYNC_EVERY_SAMPLES 256
#define FSYNC_EVERY_FRAMES 32
#define SOURCE_ID 1
#define CLIENT_WAIT_S 30

typedef struct swo_tb {
	struct swo_tb *next;
	size_t n;
	uint32_t pc[];
} swo_tb;

static struct {
	pthread_mutex_t lock;
	char *path, *tmp;        /* file output */
	int port;                /* tcp output; 0: file */
	uint64_t interval;
	int tpiu;
	int on;
	FILE *fp;
	int listen_fd, client_fd;
	int gave_up;             /* no client came in time: bytes are dropped from then on */
	uint64_t dropped;
	uint64_t left;           /* instructions until the next sample */
	uint64_t samples;
	swo_tb *tbs;
	uint8_t out[4096];       /* bytes ready for the output */
	size_t nout;
	uint8_t frame[16];       /* TPIU: the frame being filled */
	unsigned fpos;
	uint64_t frames;
} sw = { PTHREAD_MUTEX_INITIALIZER, NULL, NULL, 0, 1024, 0, 0, NULL, -1, -1, 0, 0, 1024, 0, NULL, { 0 }, 0, { 0 }, 0, 0 };

int swo_emit_option(const char *a)
{
	if (strncmp(a, "swo=", 4) == 0 && a[4]) {
		char *end;
		if (strncmp(a + 4, "tcp:", 4) == 0) {
			long port = strtol(a + 8, &end, 10);
			if (*end || port < 1 || port > 65535) {
				fprintf(stderr, "ramplace-qemu: swo=tcp:PORT wants a port 1..65535, not '%s'\n", a + 8);
				return -1;
			}
			sw.port = (int)port;
		} else {
			free(sw.path);
			if (!(sw.path = strdup(a + 4)))
				return -1;
		}
		sw.on = 1;
		return 1;
	}
	if (strncmp(a, "swo-interval=", 13) == 0) {
		char *end;
		unsigned long long n = strtoull(a + 13, &end, 10);
		if (*end || a[13] == '-' || n < 1 || n > (1ull << 32)) {
			fprintf(stderr, "ramplace-qemu: swo-interval wants 1..4294967296 instructions, not '%s'\n", a + 13);
			return -1;
		}
		sw.interval = sw.left = n;
		return 1;
	}
	if (strcmp(a, "swo-tpiu=on") == 0 || strcmp(a, "swo-tpiu=off") == 0) {
		sw.tpiu = a[10] == 'n';
		return 1;
	}
	if (strncmp(a, "swo", 3) == 0) {
		fprintf(stderr, "ramplace-qemu: unknown SWO option '%s' (swo=FILE|tcp:PORT, swo-interval=N, swo-tpiu=on|off)\n", a);
		return -1;
	}
	return 0;
}

/* ---- the output ---- */

/* The first client is waited for; after one went away, only one already knocking is taken. */
static int wait_client(void)
{
	struct pollfd p = { sw.listen_fd, POLLIN, 0 };
	int first = sw.client_fd == -1 && !sw.gave_up;
	if (poll(&p, 1, first ? CLIENT_WAIT_S * 1000 : 0) <= 0) {
		if (first)
			fprintf(stderr, "ramplace-qemu: swo: no client on port %d after %d s: SWO bytes are dropped\n",
				sw.port, CLIENT_WAIT_S);
		sw.gave_up = 1;
		return -1;
	}
	sw.client_fd = accept(sw.listen_fd, NULL, NULL);
	return sw.client_fd < 0 ? -1 : 0;
}

/* A client that closed its end (a port probe) is not worth sending to. */
static int client_gone(void)
{
	struct pollfd p = { sw.client_fd, POLLIN, 0 };
	char c;
	return poll(&p, 1, 0) > 0 && recv(sw.client_fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

static void send_all(const uint8_t *p, size_t n)
{
	while (n) {
		if (sw.client_fd >= 0 && client_gone()) {
			close(sw.client_fd);
			sw.client_fd = -2;   /* had one: take the next at once if it is there */
		}
		if (sw.client_fd < 0 && wait_client() != 0) {
			sw.dropped += n;
			return;
		}
		ssize_t k = send(sw.client_fd, p, n, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			close(sw.client_fd);
			sw.client_fd = -2;
			continue;
		}
		p += k;
		n -= (size_t)k;
	}
}

static void flush_out(void)
{
	if (sw.fp)
		fwrite(sw.out, 1, sw.nout, sw.fp);
	else
		send_all(sw.out, sw.nout);
	sw.nout = 0;
}

static void out_byte(uint8_t b)
{
	sw.out[sw.nout++] = b;
	if (sw.nout == sizeof(sw.out))
		flush_out();
}

/* TPIU: an ID change to SOURCE_ID opens each frame (byte 0, taking effect at once), then 14
 * data bytes; an even slot keeps bit 0 of its byte in the aux byte 15. */
static void frame_byte(uint8_t b)
{
	if (sw.fpos == 0) {
		if (sw.frames % FSYNC_EVERY_FRAMES == 0) {
			out_byte(0xff), out_byte(0xff), out_byte(0xff), out_byte(0x7f);
		}
		memset(sw.frame, 0, sizeof(sw.frame));
		sw.frame[0] = SOURCE_ID << 1 | 1;
		sw.fpos = 1;
	}
	if (sw.fpos % 2 == 0) {
		sw.frame[sw.fpos] = b & 0xfe;
		sw.frame[15] |= (uint8_t)((b & 1) << (sw.fpos / 2));
	} else {
		sw.frame[sw.fpos] = b;
	}
	if (++sw.fpos == 15) {
		for (unsigned i = 0; i < 16; i++)
			out_byte(sw.frame[i]);
		sw.fpos = 0;
		sw.frames++;
	}
}

static void itm_byte(uint8_t b)
{
	if (sw.tpiu)
		frame_byte(b);
	else
		out_byte(b);
}

static void sample(uint32_t pc)
{
	if (sw.samples++ % SYNC_EVERY_SAMPLES == 0)
		for (int i = 0; i < 6; i++)
			itm_byte(i < 5 ? 0x00 : 0x80);
	itm_byte(0x17);
	for (int i = 0; i < 4; i++)
		itm_byte((uint8_t)(pc >> (8 * i)));
}

static void tb_exec(unsigned int vcpu, void *userdata)
{
	(void)vcpu;
	const swo_tb *t = userdata;
	pthread_mutex_lock(&sw.lock);
	size_t done = 0;
	while (t->n - done >= sw.left) {
		done += sw.left;
		sample(t->pc[done - 1]);
		sw.left = sw.interval;
	}
	sw.left -= t->n - done;
	pthread_mutex_unlock(&sw.lock);
}

void swo_emit_translate(struct qemu_plugin_tb *tb)
{
	if (!sw.on)
		return;
	size_t n = qemu_plugin_tb_n_insns(tb);
	swo_tb *t = malloc(sizeof(*t) + n * sizeof(uint32_t));
	if (!t) {
		fprintf(stderr, "ramplace-qemu: swo: out of memory: a block goes unsampled\n");
		return;
	}
	t->n = n;
	for (size_t i = 0; i < n; i++)
		t->pc[i] = (uint32_t)qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, i));
	qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS, t);
	pthread_mutex_lock(&sw.lock);
	t->next = sw.tbs;
	sw.tbs = t;
	pthread_mutex_unlock(&sw.lock);
}

static int start_tcp(void)
{
	struct sockaddr_in a;
	int one = 1;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)sw.port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sw.listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sw.listen_fd < 0 || setsockopt(sw.listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(sw.listen_fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(sw.listen_fd, 4) != 0) {
		fprintf(stderr, "ramplace-qemu: swo: cannot listen on 127.0.0.1:%d: %s\n", sw.port, strerror(errno));
		return -1;
	}
	return 0;
}

int swo_emit_start(void)
{
	if (!sw.on)
		return 0;
	if (sw.port)
		return start_tcp();
	size_t len = strlen(sw.path) + 32;
	if (!(sw.tmp = malloc(len)))
		return -1;
	snprintf(sw.tmp, len, "%s.tmp.%ld", sw.path, (long)getpid());
	if (!(sw.fp = fopen(sw.tmp, "wbe"))) {
		fprintf(stderr, "ramplace-qemu: %s: cannot write the SWO capture there: %s\n", sw.path, strerror(errno));
		return -1;
	}
	return 0;
}

void swo_emit_stop(void)
{
	if (!sw.on)
		return;
	pthread_mutex_lock(&sw.lock);
	while (sw.tpiu && sw.fpos)
		frame_byte(0x00);   /* the last frame padded with zero bytes, which ITM ignores */
	flush_out();
	if (sw.fp) {
		int bad = fflush(sw.fp) != 0 || ferror(sw.fp);
		bad |= fclose(sw.fp) != 0;
		if (bad || rename(sw.tmp, sw.path) != 0) {
			fprintf(stderr, "ramplace-qemu: %s: could not write the SWO capture: %s\n", sw.path, strerror(errno));
			unlink(sw.tmp);
		}
		sw.fp = NULL;
	}
	if (sw.client_fd >= 0)
		close(sw.client_fd);
	if (sw.listen_fd >= 0)
		close(sw.listen_fd);
	if (sw.dropped)
		fprintf(stderr, "ramplace-qemu: swo: %llu bytes dropped without a client\n", (unsigned long long)sw.dropped);
	while (sw.tbs) {
		swo_tb *next = sw.tbs->next;
		free(sw.tbs);
		sw.tbs = next;
	}
	free(sw.path);
	free(sw.tmp);
	sw.on = 0;
	pthread_mutex_unlock(&sw.lock);
}
