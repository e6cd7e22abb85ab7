/* rsp_mem.c: memory reads and writes (`m`, `M`) and breakpoints (`Z0`/`Z1`, `z0`/`z1`) over an
 * rp_rsp connection, for collectors that read target RAM (the sampling runtime's histogram).
 * Owns nothing: it drives the caller's connection. Replies are untrusted: rp_rsp_parse_mem is
 * a pure, bounds-checked parser that the fuzzer drives. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ramplace/rsp.h"
#include "ramplace/util.h"

/* Quotes at most 32 bytes of a reply for a message, non-printables as '?'. */
static const char *excerpt(char *buf, size_t cap, const char *s, size_t len)
{
	size_t n = len < 32 ? len : 32, i;
	for (i = 0; i < n && i + 1 < cap; i++)
		buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	buf[i] = '\0';
	return buf;
}

int rp_rsp_parse_mem(unsigned char *out, size_t cap, size_t *n, const char *reply, size_t rlen,
		     const char *what, const char *name, rp_err *err)
{
	char q[40];
	if (rlen == 0)
		return rp_err_set(err, RP_EINPUT, "%s: %s: empty reply (memory reads not supported?)", name, what);
	if (rlen == 3 && reply[0] == 'E' && rp_hex_digit(reply[1]) >= 0 && rp_hex_digit(reply[2]) >= 0)
		return rp_err_set(err, RP_EINPUT, "%s: %s: the gdbserver refused with %.3s (no memory there?)",
				  name, what, reply);
	if (rlen % 2)
		return rp_err_set(err, RP_EINPUT, "%s: %s: odd-length reply of %zu hex digits \"%s\"", name,
				  what, rlen, excerpt(q, sizeof(q), reply, rlen));
	if (rlen / 2 > cap)
		return rp_err_set(err, RP_EINPUT, "%s: %s: %zu bytes in the reply, more than the %zu asked for",
				  name, what, rlen / 2, cap);
	for (size_t i = 0; i < rlen; i += 2) {
		int hi = rp_hex_digit((unsigned char)reply[i]), lo = rp_hex_digit((unsigned char)reply[i + 1]);
		if (hi < 0 || lo < 0)
			return rp_err_set(err, RP_EINPUT, "%s: %s: not a hex digit at offset %zu of the reply \"%s\"",
					  name, what, hi < 0 ? i : i + 1, excerpt(q, sizeof(q), reply, rlen));
		out[i / 2] = (unsigned char)(hi << 4 | lo);
	}
	*n = rlen / 2;
	return 0;
}

int rp_rsp_read_mem(rp_rsp *rsp, uint64_t addr, void *buf, size_t len, rp_err *err)
{
	unsigned char *p = buf;
	size_t done = 0;
	while (done < len) {
		size_t want = len - done < RP_RSP_MEM_CHUNK ? len - done : RP_RSP_MEM_CHUNK, got;
		char cmd[64], what[96];
		const char *reply;
		size_t rlen;
		snprintf(cmd, sizeof(cmd), "m%" PRIx64 ",%zx", addr + done, want);
		snprintf(what, sizeof(what), "reading %zu bytes at 0x%" PRIx64, want, addr + done);
		int rc = rp_rsp_transact(rsp, cmd, &reply, &rlen, err);
		if (rc < 0)
			return rc;
		rc = rp_rsp_parse_mem(p + done, want, &got, reply, rlen, what, rp_rsp_name(rsp), err);
		if (rc < 0)
			return rc;
		done += got;
	}
	return 0;
}

/* An "OK" reply, or an error naming what was attempted. */
static int expect_ok(rp_rsp *rsp, const char *cmd, const char *what, rp_err *err)
{
	const char *reply;
	size_t rlen;
	char q[40];
	int rc = rp_rsp_transact(rsp, cmd, &reply, &rlen, err);
	if (rc < 0)
		return rc;
	if (rlen == 2 && memcmp(reply, "OK", 2) == 0)
		return 0;
	return rp_err_set(err, RP_EINPUT, "%s: %s: the gdbserver replied \"%s\"", rp_rsp_name(rsp),
			  what, rlen ? excerpt(q, sizeof(q), reply, rlen) : "(empty: not supported)");
}

int rp_rsp_write_mem(rp_rsp *rsp, uint64_t addr, const void *buf, size_t len, rp_err *err)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = buf;
	char cmd[64 + 2 * RP_RSP_MEM_CHUNK], what[96];
	for (size_t done = 0; done < len;) {
		size_t n = len - done < RP_RSP_MEM_CHUNK ? len - done : RP_RSP_MEM_CHUNK;
		int at = snprintf(cmd, 64, "M%" PRIx64 ",%zx:", addr + done, n);
		for (size_t i = 0; i < n; i++) {
			cmd[at++] = hex[p[done + i] >> 4];
			cmd[at++] = hex[p[done + i] & 15];
		}
		cmd[at] = '\0';
		snprintf(what, sizeof(what), "writing %zu bytes at 0x%" PRIx64, n, addr + done);
		int rc = expect_ok(rsp, cmd, what, err);
		if (rc < 0)
			return rc;
		done += n;
	}
	return 0;
}

int rp_rsp_insert_breakpoint(rp_rsp *rsp, uint64_t addr, int kind, int *type, rp_err *err)
{
	char cmd[64], what[96];
	const char *reply;
	size_t rlen;
	snprintf(cmd, sizeof(cmd), "Z1,%" PRIx64 ",%x", addr, kind);
	int rc = rp_rsp_transact(rsp, cmd, &reply, &rlen, err);
	if (rc < 0)
		return rc;
	if (rlen == 2 && memcmp(reply, "OK", 2) == 0) {
		*type = 1;
		return 0;
	}
	/* no hardware breakpoints (empty reply) or none left (Exx): a software one */
	*type = 0;
	snprintf(cmd, sizeof(cmd), "Z0,%" PRIx64 ",%x", addr, kind);
	snprintf(what, sizeof(what), "setting a breakpoint at 0x%" PRIx64, addr);
	return expect_ok(rsp, cmd, what, err);
}

int rp_rsp_remove_breakpoint(rp_rsp *rsp, int type, uint64_t addr, int kind, rp_err *err)
{
	char cmd[64], what[96];
	snprintf(cmd, sizeof(cmd), "z%d,%" PRIx64 ",%x", type ? 1 : 0, addr, kind);
	snprintf(what, sizeof(what), "removing the breakpoint at 0x%" PRIx64, addr);
	return expect_ok(rsp, cmd, what, err);
}
