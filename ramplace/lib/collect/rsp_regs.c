/* rsp_regs.c: what the target says about its registers (see rsp.h): stop replies and their
 * expedited "regnum:value" pairs, register values, `p` and `g` replies, and reading pc and
 * lr/ra in the mode the handshake chose.
 *
 * Owns nothing: the parsers are pure functions over untrusted bytes (bounds-checked,
 * size-capped, driven by the fuzzer), and the readers drive the caller's connection through
 * rp_rsp_transact. Runs on every sample of the halt/read/resume loop, so registers expedited in
 * the stop reply are used when it carries them: no round trip at all. */
#include <stdio.h>
#include <string.h>

#include "rsp_internal.h"

/* ---------------------------------------------------------------- stop replies */

/* Parses a hex number of 1..16 digits at s[*i], advancing *i. */
static int parse_hex_num(uint64_t *v, const char *s, size_t len, size_t *i)
{
	size_t start = *i;
	uint64_t x = 0;
	while (*i < len && rp_hex_digit((unsigned char)s[*i]) >= 0 && *i - start < 16)
		x = x * 16 + (uint64_t)rp_hex_digit((unsigned char)s[(*i)++]);
	*v = x;
	return *i > start && (*i >= len || rp_hex_digit((unsigned char)s[*i]) < 0);
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
					  rp_rspi_quote(q, sizeof(q), whole, wlen));
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
	    rp_hex_digit((unsigned char)pkt[1]) >= 0 && rp_hex_digit((unsigned char)pkt[2]) >= 0) {
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
			  rp_rspi_quote(q, sizeof(q), pkt, len));
}

int rp_rsp_parse_reg(uint64_t *out, const char *hex, size_t len, int big_endian,
		     const char *name, rp_err *err)
{
	char q[200];
	if (len == 0 || len % 2 || len > 16 || !all_hex(hex, len))
		return rp_err_set(err, RP_EINPUT, "%s: bad register value '%s'", name,
				  rp_rspi_quote(q, sizeof(q), hex, len));
	uint64_t v = 0;
	size_t nbytes = len / 2;
	for (size_t k = 0; k < nbytes; k++) {
		size_t b = big_endian ? k : nbytes - 1 - k;
		v = (v << 8) | (uint64_t)(rp_hex_digit((unsigned char)hex[2 * b]) * 16 +
					   rp_hex_digit((unsigned char)hex[2 * b + 1]));
	}
	*out = v;
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

int rp_rspi_parse_p_reply(rp_rsp *rsp, const char *cmd, const char *reply, size_t len, unsigned nbytes,
			  uint64_t *val, rp_err *err)
{
	char q[200];
	if (len != 2 * (size_t)nbytes || len > 16)
		return rp_err_set(err, RP_EINPUT, "%s: garbage reply '%s' to %s (want %u bytes)", rsp->name,
				  rp_rspi_quote(q, sizeof(q), reply, len), cmd, nbytes);
	return rp_rsp_parse_reg(val, reply, len, rsp->opts.big_endian, rsp->name, err);
}

int rp_rspi_read_reg_p(rp_rsp *rsp, unsigned regnum, unsigned nbytes, uint64_t *val, rp_err *err)
{
	char cmd[16];
	const char *reply;
	size_t len;
	snprintf(cmd, sizeof(cmd), "p%x", regnum);
	int rc = rp_rsp_transact(rsp, cmd, &reply, &len, err);
	return rc < 0 ? rc : rp_rspi_parse_p_reply(rsp, cmd, reply, len, nbytes, val, err);
}

int rp_rsp_read_trap_vector(rp_rsp *rsp, uint64_t *val, rp_err *err)
{
	char cmd[16];
	const char *reply;
	size_t len;
	if (!rsp->mtvec_bytes)
		return 1;
	snprintf(cmd, sizeof(cmd), "p%x", rsp->mtvec_regnum);
	int rc = rp_rsp_transact(rsp, cmd, &reply, &len, err);
	if (rc < 0)
		return rc;
	if (len == 0 || reply[0] == 'E') /* not served: the check is skipped, not the run */
		return 1;
	return rp_rspi_parse_p_reply(rsp, cmd, reply, len, rsp->mtvec_bytes, val, err);
}

int rp_rspi_parse_g_reply(rp_rsp *rsp, const char *reply, size_t len, uint64_t *pc, uint64_t *ra,
			  rp_err *err)
{
	char q[200];
	size_t pc_end = 2 * ((size_t)rsp->pc_goff + rsp->pc_bytes);
	size_t ra_end = rsp->ra_found ? 2 * ((size_t)rsp->ra_goff + rsp->ra_bytes) : 0;
	if (len < pc_end || len < ra_end || len % 2)
		return rp_err_set(err, RP_EINPUT, "%s: garbage reply '%s' to g (%zu hex digits, want %zu)",
				  rsp->name, rp_rspi_quote(q, sizeof(q), reply, len), len,
				  pc_end > ra_end ? pc_end : ra_end);
	int rc = rp_rsp_parse_reg(pc, reply + 2 * rsp->pc_goff, 2 * rsp->pc_bytes, rsp->opts.big_endian,
				  rsp->name, err);
	if (rc == 0 && rsp->ra_found)
		rc = rp_rsp_parse_reg(ra, reply + 2 * rsp->ra_goff, 2 * rsp->ra_bytes, rsp->opts.big_endian,
				      rsp->name, err);
	return rc;
}

int rp_rspi_read_regs_g(rp_rsp *rsp, uint64_t *pc, uint64_t *ra, rp_err *err)
{
	const char *reply;
	size_t len;
	int rc = rp_rsp_transact(rsp, "g", &reply, &len, err);
	return rc < 0 ? rc : rp_rspi_parse_g_reply(rsp, reply, len, pc, ra, err);
}

/* The return address as a caller: 0 for Cortex-M EXC_RETURN values, which name no caller. */
uint64_t rp_rspi_ra_as_caller(const rp_rsp *rsp, uint64_t ra)
{
	if (rsp->opts.elf_machine == EM_ARM_ && ra >= 0xf0000000u)
		return 0;
	return ra;
}

/* From the stop's expedited registers; 0 when they are not all there. */
int rp_rspi_read_expedited(rp_rsp *rsp, const rp_rsp_stop *stop, uint64_t *pc, uint64_t *ra, rp_err *err)
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
	int rc = rp_rspi_read_expedited(rsp, stop, pc, ra, err);
	if (rc == 0 && rsp->mode == READ_G) {
		rc = rp_rspi_read_regs_g(rsp, pc, ra, err);
	} else if (rc == 0) {
		rc = rp_rspi_read_reg_p(rsp, rsp->pc_regnum, rsp->pc_bytes, pc, err);
		if (rc == 0 && rsp->ra_found)
			rc = rp_rspi_read_reg_p(rsp, rsp->ra_regnum, rsp->ra_bytes, ra, err);
	}
	*ra = rp_rspi_ra_as_caller(rsp, *ra);
	return rc < 0 ? rc : 0;
}
