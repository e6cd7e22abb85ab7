/* import_qemu_log.c: exact execution counts from the logs of QEMU's `-d exec,nochain[,in_asm]`
 * (format "qemu-log", import.h), parsed in one pass, keeping each translation's instruction list
 * (from in_asm) keyed by the host address QEMU prints for it. Owns its scratch tables only for
 * the duration of a call. Workload: logs of gigabytes (the caller maps them), so nothing is
 * copied per line. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "import_qemu_internal.h"
#include "ramplace/import.h"
#include "ramplace/util.h"

/* ---- `-d exec,nochain[,in_asm]` logs ---- */

/* One instruction of an in_asm listing: its address and, when the listing shows them, its
 * bytes as QEMU prints them: hex units of the instruction's width (Thumb: 16-bit halfwords,
 * RISC-V: the whole instruction), kept here least significant byte first. */
typedef struct linsn {
	uint64_t addr;
	uint8_t len, unit;      /* bytes, and bytes per unit; len 0: none shown */
	uint8_t bytes[16];
} linsn;

typedef struct tb {
	uint64_t host, pc;
	linsn *insns;           /* from in_asm; NULL: only the start is known */
	size_t n;
	int64_t execs;
} tb;

typedef struct log_state {
	tb *tbs;
	size_t ntbs, cap;
	size_t *slot;           /* hash: host address -> index + 1 */
	size_t nslots;
	linsn *pending;         /* the last in_asm listing, not yet bound to a host address */
	size_t npending, pending_cap;
	int in_listing;
	size_t traces, without_insns;
} log_state;

static size_t *find(log_state *st, uint64_t host)
{
	size_t i = (size_t)((host * 0x9e3779b97f4a7c15ull) >> 17) & (st->nslots - 1);
	while (st->slot[i] && st->tbs[st->slot[i] - 1].host != host)
		i = (i + 1) & (st->nslots - 1);
	return &st->slot[i];
}

static int grow_slots(log_state *st, rp_err *err)
{
	size_t n = st->nslots ? st->nslots * 2 : 1024;
	size_t *slots = calloc(n, sizeof(size_t));
	if (!slots)
		return rp_err_nomem(err, "reading a QEMU log");
	size_t *old = st->slot, oldn = st->nslots;
	st->slot = slots;
	st->nslots = n;
	for (size_t i = 0; i < oldn; i++)
		if (old[i])
			*find(st, st->tbs[old[i] - 1].host) = old[i];
	free(old);
	return 0;
}

/* The translation at host address `host`, created (with the pending listing when it starts at
 * pc) on first sight. */
static tb *lookup(log_state *st, uint64_t host, uint64_t pc, rp_err *err)
{
	if ((st->ntbs + 1) * 2 > st->nslots && grow_slots(st, err))
		return NULL;
	size_t *s = find(st, host);
	/* a fresh listing for this pc, or another pc at a known host address, means QEMU
	 * retranslated into reused code-cache memory: a new translation */
	int fresh = st->npending && st->pending[0].addr == pc;
	if (*s && !fresh && st->tbs[*s - 1].pc == pc)
		return &st->tbs[*s - 1];
	if (rp_grow((void **)&st->tbs, &st->cap, st->ntbs + 1, sizeof(*st->tbs), err))
		return NULL;
	tb *t = &st->tbs[st->ntbs];
	memset(t, 0, sizeof(*t));
	t->host = host;
	t->pc = pc;
	if (fresh) {
		if (!(t->insns = malloc(st->npending * sizeof(linsn)))) {
			rp_err_nomem(err, "reading a QEMU log");
			return NULL;
		}
		memcpy(t->insns, st->pending, st->npending * sizeof(linsn));
		t->n = st->npending;
		st->npending = 0;
	}
	*s = ++st->ntbs;
	return t;
}

/* "Trace 0: 0x7f8f28000100 [00800400/00000008/00000110/ff000200] Reset_Handler" */
static int parse_trace(log_state *st, cursor *c, rp_err *err)
{
	const char *p = c->line + 6;
	uint64_t cpu, host, field, pc;
	if (dec_at(&p, c->eol, &cpu) || p + 2 > c->eol || p[0] != ':' || p[1] != ' ')
		return bad(c, "malformed Trace line", err);
	p += 2;
	if (hex_at(&p, c->eol, &host) || p + 2 > c->eol || p[0] != ' ' || p[1] != '[')
		return bad(c, "malformed Trace line", err);
	p += 2;
	if (hex_at(&p, c->eol, &field) || p >= c->eol || *p++ != '/' || hex_at(&p, c->eol, &pc) ||
	    p >= c->eol || *p != '/')
		return bad(c, "malformed Trace line (expected [cs_base/pc/flags/cflags])", err);
	tb *t = lookup(st, host, pc, err);
	if (!t)
		return err->code;
	t->execs++;
	st->traces++;
	return 0;
}

/* "Stopped execution of TB chain before 0x7f... [00000008] sym": that block did not run */
static int parse_stopped(log_state *st, cursor *c, rp_err *err)
{
	const char *p = c->line + strlen("Stopped execution of TB chain before ");
	uint64_t host;
	if (hex_at(&p, c->eol, &host))
		return bad(c, "malformed 'Stopped execution' line", err);
	size_t *s = st->nslots ? find(st, host) : NULL;
	if (s && *s && st->tbs[*s - 1].execs > 0)
		st->tbs[*s - 1].execs--;
	return 0;
}

/* The bytes column after "0x...:  ": hex units of one width (2, 4 or 8 digits) separated by
 * one space, ending at two spaces or the end of the line. Anything else (another QEMU's
 * layout) leaves the instruction without bytes, to be checked by its address. */
static void parse_units(linsn *in, const char *p, const char *lim)
{
	size_t width = 0, len = 0;
	uint8_t bytes[16];
	while (p < lim && *p == ' ')
		p++;
	while (p < lim) {
		const char *q = p;
		uint64_t v = 0;
		while (q < lim && isxdigit((unsigned char)*q)) {
			v = v << 4 | (uint64_t)(isdigit((unsigned char)*q) ? *q - '0' : tolower((unsigned char)*q) - 'a' + 10);
			q++;
		}
		size_t digits = (size_t)(q - p);
		if ((digits != 2 && digits != 4 && digits != 8) || (width && digits != width) ||
		    len + digits / 2 > sizeof(bytes) || (q < lim && *q != ' '))
			return;
		width = digits;
		for (size_t i = 0; i < digits / 2; i++)
			bytes[len++] = (uint8_t)(v >> (8 * i));
		if (q + 1 >= lim || q[1] == ' ')
			break;
		p = q + 1;
	}
	if (!len)
		return;
	in->len = (uint8_t)len;
	in->unit = (uint8_t)(width / 2);
	memcpy(in->bytes, bytes, len);
}

/* "0x00000008:  240a       movs     r4, #0xa" inside an in_asm listing */
static int parse_insn(log_state *st, cursor *c, rp_err *err)
{
	const char *p = c->line;
	linsn in;
	memset(&in, 0, sizeof(in));
	if (hex_at(&p, c->eol, &in.addr) || p >= c->eol || *p != ':')
		return bad(c, "malformed in_asm line", err);
	parse_units(&in, p + 1, c->eol);
	if (rp_grow((void **)&st->pending, &st->pending_cap, st->npending + 1, sizeof(linsn), err))
		return err->code;
	st->pending[st->npending++] = in;
	return 0;
}

static int log_line(log_state *st, cursor *c, rp_err *err)
{
	if (starts(c, "Trace "))
		return parse_trace(st, c, err);
	if (starts(c, "Stopped execution of TB chain before "))
		return parse_stopped(st, c, err);
	if (starts(c, "IN:")) {
		st->in_listing = 1;
		st->npending = 0;
		return 0;
	}
	if (c->eol == c->line) {
		st->in_listing = 0;
		return 0;
	}
	if (st->in_listing && starts(c, "0x"))
		return parse_insn(st, c, err);
	return 0;   /* other -d output: separators, exceptions, guest errors */
}

static int expand(log_state *st, rp_samples *s, rp_err *err)
{
	for (size_t i = 0; i < st->ntbs; i++) {
		const tb *t = &st->tbs[i];
		if (t->execs <= 0)
			continue;
		if (!t->insns) {
			st->without_insns++;
			if (rp_samples_add(s, t->pc, (uint64_t)t->execs, err))
				return err->code;
		}
		for (size_t k = 0; k < t->n; k++)
			if (rp_samples_add(s, t->insns[k].addr, (uint64_t)t->execs, err))
				return err->code;
	}
	return 0;
}

/* Weighs every executed instruction: by its bytes where the listing showed them (units put in
 * the ELF's code byte order), else by its address. */
static int check_log(const log_state *st, rp_import_check *check, const rp_image *img, rp_err *err)
{
	rp_samples by_addr;
	int rc = 0;
	rp_samples_init(&by_addr);
	for (size_t i = 0; !rc && i < st->ntbs; i++) {
		const tb *t = &st->tbs[i];
		if (t->execs <= 0)
			continue;
		if (!t->insns && rp_samples_add(&by_addr, t->pc, (uint64_t)t->execs, err))
			rc = err->code;
		for (size_t k = 0; !rc && k < t->n; k++) {
			const linsn *in = &t->insns[k];
			uint8_t mem[16];
			if (!in->len) {
				if (rp_samples_add(&by_addr, in->addr, (uint64_t)t->execs, err))
					rc = err->code;
				continue;
			}
			for (size_t b = 0; b < in->len; b++)
				mem[b] = img->code_big_endian ? in->bytes[b - b % in->unit + (in->unit - 1 - b % in->unit)]
							      : in->bytes[b];
			rp_import_check_bytes(check, img, in->addr, mem, in->len, (uint64_t)t->execs);
		}
	}
	if (!rc && by_addr.total)
		rc = rp_import_check_pcs(check, img, &by_addr, RP_CHECK_INSN_START, err);
	rp_samples_release(&by_addr);
	return rc;
}

int rp_import_qemu_log(rp_samples *s, size_t *blocks_without_insns, rp_import_check *check,
		       const rp_image *img, const char *text, size_t len, const char *name, rp_err *err)
{
	cursor c = cursor_at(text, len, name);
	log_state st;
	int rc = 0;
	memset(&st, 0, sizeof(st));
	while (!rc && next(&c, err, &rc))
		rc = log_line(&st, &c, err);
	if (!rc && st.traces == 0)
		rc = rp_err_set(err, RP_EINPUT, "%s: byte %zu: no 'Trace' lines: not a log of qemu -d exec,nochain", name, len);
	if (!rc)
		rc = expand(&st, s, err);
	if (!rc && img && check)
		rc = check_log(&st, check, img, err);
	*blocks_without_insns = st.without_insns;
	for (size_t i = 0; i < st.ntbs; i++)
		free(st.tbs[i].insns);
	free(st.tbs);
	free(st.slot);
	free(st.pending);
	return rc;
}
