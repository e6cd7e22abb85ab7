/* test_rsp_session.c: the RSP client and the sampler in whole sessions against an in-process
 * fake gdbserver on the other end of a socketpair (a thread): sampling, pipelining, the faults
 * and fallbacks of real servers, NAK resends, and the sampler's random intervals. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "ramplace/rsp.h"
#include "ramplace/sampler.h"
#include "ramplace/samples.h"

#define EM_ARM 40

#include "../support/m_profile_tdesc.h"

/* ---------------------------------------------------------------- fake gdbserver */

enum fake_fault { FAKE_OK, FAKE_GARBAGE_SUPPORTED, FAKE_BAD_CHECKSUM, FAKE_EXIT, FAKE_DIE,
		  FAKE_STALL, FAKE_NO_P, FAKE_ACK_ONLY, FAKE_NAK_CONTINUE, FAKE_QEMU };

struct fake {
	int fd;
	enum fake_fault fault;
	int after;          /* interrupts served before the fault */
	int noack;
	int interrupts;
	int continues;
	int detached;
	int protocol_error; /* the client broke the protocol (continue before the stop reply) */
	int running;
	int naked;          /* FAKE_NAK_CONTINUE refused the first `c` */
	int batched;        /* reads that held a register read and a `c` together */
	uint32_t pc;
};

static void fake_write(struct fake *f, const char *s)
{
	size_t len = strlen(s);
	while (len > 0) {
		ssize_t n = write(f->fd, s, len);
		if (n <= 0)
			return;
		s += n;
		len -= (size_t)n;
	}
}

static void fake_reply(struct fake *f, const char *payload)
{
	char buf[8192];
	snprintf(buf, sizeof(buf), "$%s#%02x", payload, rp_rsp_checksum(payload, strlen(payload)));
	fake_write(f, buf);
}

static const char *fake_xfer(const char *annex)
{
	if (strcmp(annex, "target.xml") == 0)
		return "l<?xml version=\"1.0\"?><target><architecture>arm</architecture>"
		       "<xi:include href=\"core.xml\"/></target>";
	if (strcmp(annex, "core.xml") == 0) {
		static char buf[4096];
		snprintf(buf, sizeof(buf), "l%s", M_PROFILE_CORE_XML);
		return buf;
	}
	return "E00";
}

/* Little-endian hex of a 32-bit value. */
static void hex32(char *out, uint32_t v)
{
	snprintf(out, 9, "%02x%02x%02x%02x", v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, v >> 24);
}

static void fake_packet(struct fake *f, const char *p)
{
	char buf[512], lr[9], pc[9];
	if (f->fault == FAKE_NAK_CONTINUE && strcmp(p, "c") == 0 && !f->naked) {
		f->naked = 1;
		fake_write(f, "-"); /* as if garbled: the client must send it again */
		return;
	}
	if (!f->noack)
		fake_write(f, "+");
	hex32(pc, f->pc);
	hex32(lr, 0x1001);
	if (strncmp(p, "qSupported", 10) == 0) {
		fake_reply(f, f->fault == FAKE_GARBAGE_SUPPORTED ? "xyz" :
			   f->fault == FAKE_ACK_ONLY || f->fault == FAKE_NAK_CONTINUE || f->fault == FAKE_QEMU ?
			   "PacketSize=1000;qXfer:features:read+" :
			   "PacketSize=1000;qXfer:features:read+;QStartNoAckMode+");
	} else if (strcmp(p, "QStartNoAckMode") == 0) {
		fake_reply(f, "OK");
		f->noack = 1;
	} else if (strcmp(p, "?") == 0) {
		fake_reply(f, "T05thread:01;");
	} else if (strncmp(p, "qXfer:features:read:", 20) == 0) {
		char annex[64];
		sscanf(p + 20, "%63[^:]", annex);
		fake_reply(f, fake_xfer(annex));
	} else if (strcmp(p, "pf") == 0) {
		fake_reply(f, f->fault == FAKE_NO_P ? "" : pc);
	} else if (strcmp(p, "pe") == 0) {
		fake_reply(f, f->fault == FAKE_NO_P ? "" : lr);
	} else if (strcmp(p, "g") == 0) {
		/* r0..r12 are zero: 104 '0's as '0' + 97 repeats ('~') + 6 more; sp; lr; pc; xpsr */
		snprintf(buf, sizeof(buf), "0*~000000%s%s%s01000000", "00100020", lr, pc);
		fake_reply(f, buf);
	} else if (strcmp(p, "c") == 0) {
		if (f->running)
			f->protocol_error = 1;
		f->running = 1;
		f->continues++;
	} else if (strcmp(p, "D") == 0) {
		fake_reply(f, "OK");
		f->detached = 1;
	} else if (strcmp(p, "qqemu.sstepbits") == 0 && f->fault == FAKE_QEMU) {
		fake_reply(f, "ENABLE=1,NOIRQ=2,NOTIMER=4");
	} else {
		fake_reply(f, "");
	}
}

/* Answers an interrupt: a stop, an exit, a dead socket or silence, by the fault. */
static int fake_interrupt(struct fake *f)
{
	if (!f->running)
		return 1;
	f->running = 0;
	f->interrupts++;
	f->pc += 2;
	if (f->interrupts > f->after) {
		switch (f->fault) {
		case FAKE_EXIT:
			fake_reply(f, "W03");
			return 1;
		case FAKE_DIE:
			return 0;
		case FAKE_STALL:
			return 1;
		case FAKE_BAD_CHECKSUM:
			fake_write(f, "$T02#00");
			return 1;
		default:
			break;
		}
	}
	if (f->interrupts % 3 == 0)
		fake_reply(f, "O6869"); /* console output first: skipped by the client */
	fake_reply(f, "T02thread:01;");
	return 1;
}

static void *fake_main(void *arg)
{
	struct fake *f = arg;
	char buf[4096], pkt[4096];
	size_t have = 0;
	for (;;) {
		ssize_t n = read(f->fd, buf + have, sizeof(buf) - have);
		if (n <= 0)
			break;
		have += (size_t)n;
		if (memmem(buf, have, "$c#63", 5) && (memmem(buf, have, "$g#67", 5) || memmem(buf, have, "$pf#d6", 6)))
			f->batched++;
		size_t i = 0;
		while (i < have) {
			if (buf[i] == '+' || buf[i] == '-') {
				i++;
			} else if (buf[i] == 3) {
				i++;
				if (!fake_interrupt(f))
					goto out;
			} else if (buf[i] == '$') {
				char *hash = memchr(buf + i, '#', have - i);
				if (!hash || (size_t)(hash - buf) + 3 > have)
					break;
				size_t len = (size_t)(hash - buf) - i - 1;
				memcpy(pkt, buf + i + 1, len);
				pkt[len] = '\0';
				i = (size_t)(hash - buf) + 3;
				fake_packet(f, pkt);
			} else {
				i++;
			}
		}
		memmove(buf, buf + i, have - i);
		have -= i;
	}
out:
	close(f->fd);
	return NULL;
}

struct session {
	struct fake fake;
	pthread_t thread;
	rp_rsp *rsp;
	rp_err err;
	int rc;
};

static void start_session(struct session *s, enum fake_fault fault, int after, int want_ra)
{
	int sv[2];
	memset(s, 0, sizeof(*s));
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	s->fake.fd = sv[1];
	s->fake.fault = fault;
	s->fake.after = after;
	s->fake.pc = 0x100;
	assert_int_equal(pthread_create(&s->thread, NULL, fake_main, &s->fake), 0);
	rp_rsp_opts opts = RP_RSP_OPTS_INIT;
	opts.timeout_ms = 300;
	opts.elf_machine = EM_ARM;
	opts.want_ra = want_ra;
	s->rc = rp_rsp_open_fd(&s->rsp, sv[0], "fake:1", &opts, &s->err);
}

static void end_session(struct session *s)
{
	rp_rsp_close(s->rsp);
	pthread_join(s->thread, NULL);
}

static void test_session_samples(void **state)
{
	(void)state;
	for (int variant = 0; variant < 4; variant++) {
		int want_ra = variant & 1;
		struct session s;
		start_session(&s, variant & 2 ? FAKE_ACK_ONLY : FAKE_OK, 0, want_ra);
		assert_int_equal(s.fake.noack, !(variant & 2));
		assert_int_equal(s.rc, 0);
		assert_int_equal(rp_rsp_has_ra(s.rsp), want_ra);
		rp_samples samples;
		rp_samples_init(&samples);
		rp_sampler_opts so = RP_SAMPLER_OPTS_INIT;
		so.max_samples = 50;
		so.callers = want_ra;
		rp_sampler_result res;
		rp_err err = RP_ERR_INIT;
		assert_int_equal(rp_sampler_run(s.rsp, &samples, &so, &res, &err), 0);
		assert_int_equal(res.stop, RP_SAMPLER_COUNT);
		assert_string_equal(res.reason, "samples");
		assert_int_equal(res.stats.samples, 50);
		assert_int_equal(samples.total, 50);
		assert_int_equal(samples.narcs > 0, want_ra);
		if (want_ra)
			assert_int_equal(samples.arcs[0].from_pc, 0x1000); /* Thumb bit cleared */
		end_session(&s);
		assert_int_equal(s.fake.detached, 1);
		assert_int_equal(s.fake.protocol_error, 0);
		assert_int_equal(s.fake.continues, 50);
		rp_samples_release(&samples);
	}
}

/* QEMU's stub (ack mode, identified by qqemu.sstepbits) and no-ack servers get the register
 * read and the next `c` in one write; a plain ack-mode server gets them one at a time. */
static void test_session_pipelining(void **state)
{
	(void)state;
	const enum fake_fault kinds[] = { FAKE_QEMU, FAKE_OK, FAKE_ACK_ONLY };
	for (size_t k = 0; k < 3; k++) {
		struct session s;
		start_session(&s, kinds[k], 0, 1);
		assert_int_equal(s.rc, 0);
		assert_int_equal(rp_rsp_pipelines(s.rsp), kinds[k] != FAKE_ACK_ONLY);
		rp_samples samples;
		rp_samples_init(&samples);
		rp_sampler_opts so = RP_SAMPLER_OPTS_INIT;
		so.max_samples = 30;
		so.min_run_us = 0;
		rp_sampler_result res;
		rp_err err = RP_ERR_INIT;
		assert_int_equal(rp_sampler_run(s.rsp, &samples, &so, &res, &err), 0);
		assert_int_equal(samples.total, 30);
		assert_int_equal(samples.narcs > 0, 1);
		assert_string_equal(res.method, "halt");
		end_session(&s);
		assert_int_equal(s.fake.protocol_error, 0);
		assert_int_equal(s.fake.continues, 30);
		if (kinds[k] == FAKE_ACK_ONLY)
			assert_int_equal(s.fake.batched, 0);
		else
			assert_true(s.fake.batched >= 20); /* 29 go out batched; a read may split one */
		rp_samples_release(&samples);
	}
}

static void run_fault(enum fake_fault fault, int after, int expect_rc, rp_sampler_stop expect_stop,
		      const char *expect_msg, uint64_t expect_samples)
{
	struct session s;
	start_session(&s, fault, after, 1);
	assert_int_equal(s.rc, 0);
	rp_samples samples;
	rp_samples_init(&samples);
	rp_sampler_opts so = RP_SAMPLER_OPTS_INIT;
	so.max_samples = 1000;
	rp_sampler_result res;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_sampler_run(s.rsp, &samples, &so, &res, &err), expect_rc);
	assert_int_equal(res.stop, expect_stop);
	assert_int_equal(res.stats.samples, expect_samples);
	assert_int_equal(samples.total, expect_samples);
	if (expect_msg && !strstr(err.msg, expect_msg) && !strstr(res.reason, expect_msg))
		fail_msg("message '%s' / reason '%s' lacks '%s'", err.msg, res.reason, expect_msg);
	end_session(&s);
	assert_int_equal(s.fake.detached, 0);
	assert_int_equal(s.fake.protocol_error, 0);
	rp_samples_release(&samples);
}

static void test_session_faults(void **state)
{
	(void)state;
	run_fault(FAKE_EXIT, 7, 0, RP_SAMPLER_EXITED, "target exited (status 3)", 7);
	run_fault(FAKE_DIE, 5, RP_EINPUT, RP_SAMPLER_FAILED,
		  "fake:1: gdbserver closed the connection (kept 5 samples)", 5);
	run_fault(FAKE_STALL, 4, RP_EINPUT, RP_SAMPLER_FAILED,
		  "fake:1: gdbserver stopped answering after 300 ms waiting for the stop reply (kept 4 samples)", 4);
	run_fault(FAKE_BAD_CHECKSUM, 3, RP_EINPUT, RP_SAMPLER_FAILED, "bad checksum in packet at byte", 3);
}

static void test_session_handshake_faults(void **state)
{
	(void)state;
	struct session s;
	start_session(&s, FAKE_GARBAGE_SUPPORTED, 0, 1);
	assert_int_equal(s.rc, RP_EINPUT);
	assert_null(s.rsp);
	assert_string_equal(s.err.msg, "fake:1: garbage reply 'xyz' to qSupported");
	end_session(&s);
}

static void test_session_fallbacks(void **state)
{
	(void)state;
	/* no `p`: falls back to `g` (whose reply is run-length encoded) */
	struct session s;
	start_session(&s, FAKE_NO_P, 0, 0);
	assert_int_equal(s.rc, 0);
	rp_rsp_stop st;
	rp_err err = RP_ERR_INIT;
	uint64_t pc, ra;
	assert_int_equal(rp_rsp_continue(s.rsp, &err), 0);
	assert_int_equal(rp_rsp_interrupt(s.rsp, &err), 0);
	assert_int_equal(rp_rsp_wait_stop(s.rsp, -1, &st, &err), 1);
	assert_int_equal(rp_rsp_read_pc(s.rsp, &st, &pc, &ra, &err), 0);
	assert_int_equal(pc, 0x102);
	assert_int_equal(ra, 0);
	end_session(&s);

	/* ack mode throughout when the server does not offer no-ack; expedited pc used */
	start_session(&s, FAKE_ACK_ONLY, 0, 1);
	assert_int_equal(s.rc, 0);
	assert_int_equal(s.fake.noack, 0);
	rp_rsp_stop exp = { RP_RSP_STOPPED, 5, 2, { { 15, "44332211" }, { 14, "99887766" } } };
	assert_int_equal(rp_rsp_read_pc(s.rsp, &exp, &pc, &ra, &err), 0);
	assert_int_equal(pc, 0x11223344);
	assert_int_equal(ra, 0x66778899);
	exp.regs[1] = (rp_rsp_expedited){ 14, "f9ffffff" }; /* EXC_RETURN names no caller */
	assert_int_equal(rp_rsp_read_pc(s.rsp, &exp, &pc, &ra, &err), 0);
	assert_int_equal(ra, 0);
	end_session(&s);
}

static void test_session_nak_resends(void **state)
{
	(void)state;
	struct session s;
	start_session(&s, FAKE_NAK_CONTINUE, 0, 1);
	assert_int_equal(s.rc, 0);
	rp_samples samples;
	rp_samples_init(&samples);
	rp_sampler_opts so = RP_SAMPLER_OPTS_INIT;
	so.max_samples = 10;
	rp_sampler_result res;
	rp_err err = RP_ERR_INIT;
	if (rp_sampler_run(s.rsp, &samples, &so, &res, &err) != 0)
		fail_msg("%s", err.msg);
	assert_int_equal(res.stats.samples, 10);
	end_session(&s);
	assert_int_equal(s.fake.naked, 1);
	assert_int_equal(s.fake.continues, 10);
	assert_int_equal(s.fake.protocol_error, 0);
	rp_samples_release(&samples);
}

static void test_prng_intervals(void **state)
{
	(void)state;
	uint64_t a = 42, b = 42;
	assert_true(rp_sampler_prng(&a) == rp_sampler_prng(&b));
	assert_int_equal(rp_sampler_interval_ns(&a, 0), 0);
	int64_t lo = INT64_MAX, hi = 0;
	for (int i = 0; i < 10000; i++) {
		int64_t v = rp_sampler_interval_ns(&a, 1000.0);
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	assert_true(lo >= 500000 && lo < 510000);
	assert_true(hi <= 1500000 && hi > 1490000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_session_samples),
		cmocka_unit_test(test_session_faults),
		cmocka_unit_test(test_session_handshake_faults),
		cmocka_unit_test(test_session_fallbacks),
		cmocka_unit_test(test_session_nak_resends),
		cmocka_unit_test(test_prng_intervals),
		cmocka_unit_test(test_session_pipelining),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
