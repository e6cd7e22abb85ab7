/* import_qemu.c: exact execution counts from QEMU (see import.h): the output of the project's
 * TCG plugin (libramplace-qemu.so, format "qemu") and the logs of `-d exec,nochain[,in_asm]`
 * (format "qemu-log"). Both give per-instruction execution counts; the log is parsed in one
 * pass, keeping each translation's instruction list (from in_asm) keyed by the host address
 * QEMU prints for it. Owns its scratch tables only for the duration of a call.
 * Workload: plugin files of up to a few hundred thousand lines; logs of gigabytes (the caller
 * maps them), so nothing is copied per line. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/import.h"
#include "ramplace/util.h"

typedef struct cursor {
	const char *text, *end, *line, *eol;
	size_t lineno;
	const char *name;
} cursor;

/* Advances to the next line; 0 at the end. A last line without a newline is a truncated file. */
static int next(cursor *c, rp_err *err, int *rc)
{
	*rc = 0;
	const char *p = c->eol ? c->eol + 1 : c->text;
	if (p >= c->end)
		return 0;
	c->line = p;
	c->eol = memchr(p, '\n', (size_t)(c->end - p));
	c->lineno++;
	if (!c->eol) {
		*rc = rp_err_set(err, RP_EINPUT, "%s: line %zu (byte %zu): truncated: the last line has no newline",
				 c->name, c->lineno, (size_t)(p - c->text));
		return 0;
	}
	return 1;
}

static size_t at(const cursor *c)
{
	return (size_t)(c->line - c->text);
}

static int bad(const cursor *c, const char *what, rp_err *err)
{
	int shown = (int)(c->eol - c->line > 60 ? 60 : c->eol - c->line);
	return rp_err_set(err, RP_EINPUT, "%s: line %zu (byte %zu): %s: '%.*s%s'", c->name, c->lineno, at(c),
			  what, shown, c->line, c->eol - c->line > 60 ? "..." : "");
}

static int starts(const cursor *c, const char *prefix)
{
	size_t n = strlen(prefix);
	return (size_t)(c->eol - c->line) >= n && memcmp(c->line, prefix, n) == 0;
}

/* Hex number (optional 0x) at *p, at most 16 digits, stopping before `lim`. */
static int hex_at(const char **p, const char *lim, uint64_t *out)
{
	const char *q = *p;
	uint64_t v = 0;
	int digits = 0;
	if (lim - q >= 2 && q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))
		q += 2;
	for (; q < lim && isxdigit((unsigned char)*q); q++) {
		if (++digits > 16)
			return -1;
		v = v << 4 | (uint64_t)(isdigit((unsigned char)*q) ? *q - '0' : tolower((unsigned char)*q) - 'a' + 10);
	}
	if (!digits)
		return -1;
	*p = q;
	*out = v;
	return 0;
}

static int dec_at(const char **p, const char *lim, uint64_t *out)
{
	const char *q = *p;
	uint64_t v = 0;
	if (q >= lim || !isdigit((unsigned char)*q))
		return -1;
	for (; q < lim && isdigit((unsigned char)*q); q++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*q - '0');
	}
	*p = q;
	*out = v;
	return 0;
}

/* ---- the plugin's output ---- */

static int plugin_header(const cursor *c, uint64_t *declared, int *have_declared)
{
	const char *p = c->line + strlen("# insns-executed ");
	if (starts(c, "# insns-executed ") && dec_at(&p, c->eol, declared) == 0 && p == c->eol)
		*have_declared = 1;
	return 0;
}

int rp_import_qemu_plugin(rp_samples *s, const char *text, size_t len, const char *name, rp_err *err)
{
	cursor c = { text, text + len, text, NULL, 0, name };
	uint64_t declared = 0, sum = 0;
	int have_declared = 0, ended = 0, rc = 0;
	if (len < 16 || memcmp(text, "# ramplace-qemu ", 16) != 0)
		return rp_err_set(err, RP_EINPUT, "%s: byte 0: not the output of libramplace-qemu.so (no '# ramplace-qemu' header)", name);
	while (!rc && next(&c, err, &rc)) {
		if (ended)
			return bad(&c, "text after '# end'", err);
		if (starts(&c, "# end") && c.eol - c.line == 5) {
			ended = 1;
			continue;
		}
		if (starts(&c, "#")) {
			plugin_header(&c, &declared, &have_declared);
			continue;
		}
		const char *p = c.line;
		uint64_t addr, count;
		if (hex_at(&p, c.eol, &addr) || p >= c.eol || *p++ != ' ' || dec_at(&p, c.eol, &count) || p != c.eol)
			return bad(&c, "expected 'hex-address decimal-count'", err);
		if (count > UINT64_MAX - sum)
			return bad(&c, "counts overflow", err);
		sum += count;
		if ((rc = rp_samples_add(s, addr, count, err)))
			return rc;
	}
	if (rc)
		return rc;
	if (!ended)
		return rp_err_set(err, RP_EINPUT, "%s: byte %zu: truncated: no '# end' line (QEMU killed before exit?)", name, len);
	if (have_declared && declared != sum)
		return rp_err_set(err, RP_EINPUT, "%s: byte %zu: the counts sum to %llu but the header says %llu instructions",
				  name, len, (unsigned long long)sum, (unsigned long long)declared);
	return 0;
}

/* ---- `-d exec,nochain[,in_asm]` logs ---- */

typedef struct tb {
	uint64_t host, pc;
	uint64_t *insns;        /* addresses, from in_asm; NULL: only the start is known */
	size_t n;
	int64_t execs;
} tb;

typedef struct log_state {
	tb *tbs;
	size_t ntbs, cap;
	size_t *slot;           /* hash: host address -> index + 1 */
	size_t nslots;
	uint64_t *pending;      /* the last in_asm listing, not yet bound to a host address */
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
	int fresh = st->npending && st->pending[0] == pc;
	if (*s && !fresh && st->tbs[*s - 1].pc == pc)
		return &st->tbs[*s - 1];
	if (rp_grow((void **)&st->tbs, &st->cap, st->ntbs + 1, sizeof(*st->tbs), err))
		return NULL;
	tb *t = &st->tbs[st->ntbs];
	memset(t, 0, sizeof(*t));
	t->host = host;
	t->pc = pc;
	if (st->npending && st->pending[0] == pc) {
		if (!(t->insns = malloc(st->npending * sizeof(uint64_t)))) {
			rp_err_nomem(err, "reading a QEMU log");
			return NULL;
		}
		memcpy(t->insns, st->pending, st->npending * sizeof(uint64_t));
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

/* "0x00000008:  240a       movs     r4, #0xa" inside an in_asm listing */
static int parse_insn(log_state *st, cursor *c, rp_err *err)
{
	const char *p = c->line;
	uint64_t addr;
	if (hex_at(&p, c->eol, &addr) || p >= c->eol || *p != ':')
		return bad(c, "malformed in_asm line", err);
	if (rp_grow((void **)&st->pending, &st->pending_cap, st->npending + 1, sizeof(uint64_t), err))
		return err->code;
	st->pending[st->npending++] = addr;
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
			if (rp_samples_add(s, t->insns[k], (uint64_t)t->execs, err))
				return err->code;
	}
	return 0;
}

int rp_import_qemu_log(rp_samples *s, size_t *blocks_without_insns, const char *text, size_t len,
		       const char *name, rp_err *err)
{
	cursor c = { text, text + len, text, NULL, 0, name };
	log_state st;
	int rc = 0;
	memset(&st, 0, sizeof(st));
	while (!rc && next(&c, err, &rc))
		rc = log_line(&st, &c, err);
	if (!rc && st.traces == 0)
		rc = rp_err_set(err, RP_EINPUT, "%s: byte %zu: no 'Trace' lines: not a log of qemu -d exec,nochain", name, len);
	if (!rc)
		rc = expand(&st, s, err);
	*blocks_without_insns = st.without_insns;
	for (size_t i = 0; i < st.ntbs; i++)
		free(st.tbs[i].insns);
	free(st.tbs);
	free(st.slot);
	free(st.pending);
	return rc;
}
