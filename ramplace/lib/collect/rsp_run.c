/* rsp_run.c: run control over an RSP connection (see rsp.h): continue, interrupt, wait for a
 * stop, detach, read pc and resume in one go, and one-word memory peek/poke that copes with a
 * gdbserver that halts the target instead of reading.
 *
 * Owns nothing: it drives the caller's connection through the transport (rsp.c) and decodes
 * with rsp_regs.c. The workload is the sampler's halt/read/resume loop, thousands of times a
 * second over loopback, so where the gdbserver allows (rsp->pipeline) the register reads and
 * the `c` go out in one write and the target resumes a round trip earlier. Every wait has a
 * deadline; a wait for a stop may also end early on opts.cancel. */
#include <stdio.h>
#include <string.h>

#include "rsp_internal.h"

/* ---------------------------------------------------------------- resume, stop, detach */

int rp_rsp_continue(rp_rsp *rsp, rp_err *err)
{
	return rp_rspi_send_packet(rsp, "c", 0, err);
}

int rp_rsp_interrupt(rp_rsp *rsp, rp_err *err)
{
	int owed = rsp->ack_due;
	rsp->ack_due = 0;
	rsp->interrupted = 1;
	return rp_rspi_write_all(rsp, owed ? "+\x03" : "\x03", owed ? 2 : 1, err);
}

int rp_rsp_wait_stop(rp_rsp *rsp, int64_t timeout_ns, rp_rsp_stop *stop, rp_err *err)
{
	int due = timeout_ns < 0;
	rp_rspi_wait w = rp_rspi_wait_for(rsp, timeout_ns, !due);
	for (;;) {
		int rc = rp_rspi_recv_packet(rsp, &w, err);
		if (rc == 0 && due)
			return rp_rspi_timeout_error(rsp, &w, err, "for the stop reply");
		if (rc <= 0)
			return rc;
		rc = rp_rsp_parse_stop(stop, rsp->pkt, rsp->pkt_len, rsp->name, err);
		if (rc < 0)
			return rc;
		if (stop->kind != RP_RSP_OUTPUT)
			return 1;
		if ((rc = rp_rspi_console(rsp, &w, "for the stop reply", err)) < 0)
			return rc;
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
				  rp_rspi_quote(q, sizeof(q), reply, len));
	return 0;
}

/* ---------------------------------------------------------------- read pc and resume */

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
	int rc = rp_rspi_send_pipelined(rsp, cmds, n, err);
	if (rc == 0 && rsp->mode == READ_G) {
		if ((rc = rp_rspi_await_reply(rsp, "g", &reply, &len, err)) == 0)
			rc = rp_rspi_parse_g_reply(rsp, reply, len, pc, ra, err);
		return rc;
	}
	if (rc == 0 && (rc = rp_rspi_await_reply(rsp, cmd_pc, &reply, &len, err)) == 0)
		rc = rp_rspi_parse_p_reply(rsp, cmd_pc, reply, len, rsp->pc_bytes, pc, err);
	if (rc == 0 && rsp->ra_found && (rc = rp_rspi_await_reply(rsp, cmd_ra, &reply, &len, err)) == 0)
		rc = rp_rspi_parse_p_reply(rsp, cmd_ra, reply, len, rsp->ra_bytes, ra, err);
	return rc;
}

int rp_rsp_read_pc_continue(rp_rsp *rsp, const rp_rsp_stop *stop, uint64_t *pc, uint64_t *ra, rp_err *err)
{
	*ra = 0;
	int rc = rp_rspi_read_expedited(rsp, stop, pc, ra, err), resumed = 0;
	if (rc == 0 && rsp->pipeline) {
		rc = read_pipelined(rsp, pc, ra, err);
		resumed = 1;
	} else if (rc == 0) {
		rc = rp_rsp_read_pc(rsp, stop, pc, ra, err);
	}
	if (rc < 0)
		return rc;
	*ra = rp_rspi_ra_as_caller(rsp, *ra);
	return resumed ? 0 : rp_rsp_continue(rsp, err);
}

/* Discards whole packets that arrive within ns: a late reply to a request the gdbserver
 * answered after a stop reply. */
static int drain(rp_rsp *rsp, int64_t ns, rp_err *err)
{
	rp_rspi_wait w = rp_rspi_wait_for(rsp, ns, 0);
	int rc;
	while ((rc = rp_rspi_recv_packet(rsp, &w, err)) > 0)
		;
	return rc;
}

int rp_rsp_peek32(rp_rsp *rsp, uint64_t addr, uint32_t *val, rp_rsp_stop *stop, rp_err *err)
{
	char cmd[40], q[200];
	snprintf(cmd, sizeof(cmd), "m%llx,4", (unsigned long long)addr);
	/* no wait for the '+': a gdbserver that halts the target instead of reading (QEMU) drops
	 * the packet unacknowledged and sends a stop reply */
	int rc = rp_rspi_send_packet(rsp, cmd, 0, err);
	rp_rspi_wait w = rp_rspi_wait_for(rsp, -1, 0);
	char what[96];
	snprintf(what, sizeof(what), "for the reply to '%s'", cmd);
	for (;;) {
		uint64_t v;
		if (rc < 0 || (rc = rp_rspi_recv_packet(rsp, &w, err)) < 0)
			return rc;
		if (rc == 0) {
			rc = rp_rspi_timeout_error(rsp, &w, err, what);
			rsp->late++; /* its reply may still come, after the next stop reply */
			return rc == RP_EINTERRUPT ? rc : 3;
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
			if (stop->kind == RP_RSP_OUTPUT && (rc = rp_rspi_console(rsp, &w, what, err)) < 0)
				return rc;
			if (stop->kind == RP_RSP_OUTPUT)
				continue;
			rsp->unacked_len = 0; /* dropped, never to be acknowledged */
			if (stop->kind == RP_RSP_STOPPED && (rc = drain(rsp, 50000000, err)) < 0)
				return rc;
			return 1;
		}
		return rp_err_set(err, RP_EINPUT, "%s: garbage reply '%s' to %s", rsp->name,
				  rp_rspi_quote(q, sizeof(q), reply, len), cmd);
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
		rc = rp_err_set(err, RP_EINPUT, "%s: reply '%s' to %s", rsp->name,
				rp_rspi_quote(q, sizeof(q), reply, len), cmd);
	return rc;
}

/* After the stop: the replies to requests that timed out, which a gdbserver that serves
 * packets only while halted (pyOCD) sends now; each is discarded, within the reply timeout.
 * Left in the stream they would be taken as the replies to the next requests. */
static int discard_late(rp_rsp *rsp, rp_err *err)
{
	rp_rspi_wait w = rp_rspi_wait_for(rsp, -1, 0);
	while (rsp->late > 0) {
		int rc = rp_rspi_recv_packet(rsp, &w, err);
		if (rc < 0)
			return rc;
		if (rc == 0)
			break; /* never answered after all */
		rp_rsp_stop ignored_stop;
		rp_err ignored = RP_ERR_INIT;
		if (rp_rsp_parse_stop(&ignored_stop, rsp->pkt, rsp->pkt_len, rsp->name, &ignored) == 0 &&
		    ignored_stop.kind == RP_RSP_OUTPUT)
			continue;
		rsp->late--;
	}
	rsp->late = 0;
	return 0;
}

int rp_rsp_wait_stop_discarding(rp_rsp *rsp, rp_rsp_stop *stop, rp_err *err)
{
	rp_rspi_wait w = rp_rspi_wait_for(rsp, -1, 0);
	for (;;) {
		int rc = rp_rspi_recv_packet(rsp, &w, err);
		if (rc == 0)
			return rp_rspi_timeout_error(rsp, &w, err, "for the stop reply");
		if (rc < 0)
			return rc;
		rp_err ignored = RP_ERR_INIT;
		if (rp_rsp_parse_stop(stop, rsp->pkt, rsp->pkt_len, rsp->name, &ignored) == 0) {
			if (stop->kind == RP_RSP_STOPPED)
				return discard_late(rsp, err);
			if (stop->kind != RP_RSP_OUTPUT)
				return 0;
			if ((rc = rp_rspi_console(rsp, &w, "for the stop reply", err)) < 0)
				return rc;
		} else if (!(rsp->pkt[0] == 'E' || strcmp(rsp->pkt, "OK") == 0 ||
			     all_hex(rsp->pkt, rsp->pkt_len))) {
			return rp_rsp_parse_stop(stop, rsp->pkt, rsp->pkt_len, rsp->name, err);
		}
	}
}
