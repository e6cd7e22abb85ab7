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
	rp_lines lines;
	const char *line, *eol;   /* the current line and its end (its newline, or a \r before it) */
	const char *name;
} cursor;

static cursor cursor_at(const char *text, size_t len, const char *name)
{
	cursor c = { .name = name };
	rp_lines_init(&c.lines, text, len);
	return c;
}

/* Advances to the next line; 0 at the end. A last line without a newline is a truncated file. */
static int next(cursor *c, rp_err *err, int *rc)
{
	size_t n;
	*rc = 0;
	if (!rp_lines_next(&c->lines, &c->line, &n))
		return 0;
	c->eol = c->line + n;
	if (!c->lines.ended) {
		*rc = rp_err_set(err, RP_EINPUT, "%s: line %zu (byte %zu): truncated: the last line has no newline",
				 c->name, c->lines.lineno, c->lines.offset);
		return 0;
	}
	return 1;
}

static size_t at(const cursor *c)
{
	return c->lines.offset;
}

static int bad(const cursor *c, const char *what, rp_err *err)
{
	int shown = (int)(c->eol - c->line > 60 ? 60 : c->eol - c->line);
	return rp_err_set(err, RP_EINPUT, "%s: line %zu (byte %zu): %s: '%.*s%s'", c->name, c->lines.lineno, at(c),
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

/* "hex" bytes in memory order, as version 2 writes them after the count; at most 16. */
static int bytes_at(const char **p, const char *lim, uint8_t *out, size_t *n)
{
	const char *q = *p;
	size_t k = 0;
	for (; q + 1 < lim && isxdigit((unsigned char)q[0]) && isxdigit((unsigned char)q[1]); q += 2) {
		if (k == 16)
			return -1;
		unsigned hi = (unsigned)(isdigit((unsigned char)q[0]) ? q[0] - '0' : tolower((unsigned char)q[0]) - 'a' + 10);
		unsigned lo = (unsigned)(isdigit((unsigned char)q[1]) ? q[1] - '0' : tolower((unsigned char)q[1]) - 'a' + 10);
		out[k++] = (uint8_t)(hi << 4 | lo);
	}
	if (!k || (q < lim && isxdigit((unsigned char)*q)))
		return -1;
	*p = q;
	*n = k;
	return 0;
}

typedef struct plugin_file {
	int version;             /* 1: addresses and counts; 2: also the instruction bytes; 3: also
				    a flash model's stall cycles, and data lines (rp_import_qemu_costs);
				    4: also eviction lines */
	uint64_t declared;       /* "# insns-executed" */
	int have_declared;
	uint64_t addresses;      /* "# addresses": how many address lines follow */
	int have_addresses;
	char target[32];         /* "# target" */
} plugin_file;

static int plugin_header(plugin_file *pf, const cursor *c, rp_err *err)
{
	const char *p;
	uint64_t v;
	if (starts(c, "# ramplace-qemu ")) {
		p = c->line + strlen("# ramplace-qemu ");
		if (c->lines.lineno != 1 || dec_at(&p, c->eol, &v) || p != c->eol || v < 1 || v > 5)
			return bad(c, "not a version this ramplace reads (1 to 5)", err);
		pf->version = (int)v;
	} else if (starts(c, "# insns-executed ")) {
		p = c->line + strlen("# insns-executed ");
		if (dec_at(&p, c->eol, &pf->declared) == 0 && p == c->eol)
			pf->have_declared = 1;
	} else if (starts(c, "# addresses ")) {
		p = c->line + strlen("# addresses ");
		if (dec_at(&p, c->eol, &pf->addresses) || p != c->eol)
			return bad(c, "expected '# addresses COUNT'", err);
		pf->have_addresses = 1;
	} else if (starts(c, "# target ")) {
		int n = (int)(c->eol - c->line - (ptrdiff_t)strlen("# target "));
		snprintf(pf->target, sizeof(pf->target), "%.*s", n, c->line + strlen("# target "));
	}
	return 0;
}

/* Parses the lines into s (empty), weighing version 2's instruction bytes as it goes. */
static int plugin_lines(rp_samples *s, plugin_file *pf, rp_import_check *check, const rp_image *img,
			cursor *cur, rp_err *err)
{
	cursor c = *cur;
	uint64_t sum = 0, lines = 0;
	int ended = 0, rc = 0;
	while (!rc && next(&c, err, &rc)) {
		if (ended)
			return bad(&c, "text after '# end'", err);
		if (starts(&c, "# end") && c.eol - c.line == 5) {
			ended = 1;
			continue;
		}
		if (starts(&c, "#")) {
			if ((rc = plugin_header(pf, &c, err)))
				break;
			if (starts(&c, "# target ") && img && check)
				rp_import_check_target(check, img, pf->target);
			continue;
		}
		if ((pf->version >= 3 && starts(&c, "d ")) || (pf->version >= 4 && starts(&c, "e ")) ||
		    (pf->version >= 5 && starts(&c, "h ")))
			continue;   /* data reads, evictions, handler entries: rp_import_qemu_costs */
		const char *p = c.line;
		uint64_t addr, count, stall;
		uint8_t bytes[16];
		size_t nbytes = 0;
		const char *want = pf->version >= 3 ? "expected 'hex-address decimal-count hex-bytes decimal-stall-cycles'"
				   : pf->version == 2 ? "expected 'hex-address decimal-count hex-bytes'"
						      : "expected 'hex-address decimal-count'";
		if (hex_at(&p, c.eol, &addr) || p >= c.eol || *p++ != ' ' || dec_at(&p, c.eol, &count) ||
		    (pf->version >= 2 && (p >= c.eol || *p++ != ' ' || bytes_at(&p, c.eol, bytes, &nbytes))) ||
		    (pf->version >= 3 && (p >= c.eol || *p++ != ' ' || dec_at(&p, c.eol, &stall))) || p != c.eol)
			return bad(&c, want, err);
		(void)stall;   /* read by rp_import_qemu_costs */
		/* profile.db counts in int64: a sum past it is refused here, with the line */
		lines++;
		if (rp_count_add(&sum, count))
			return bad(&c, "the counts sum to more than 9223372036854775807 (the most profile.db can count)", err);
		if ((rc = rp_samples_add(s, addr, count, err)))
			return rp_err_wrap(err, "%s: line %zu", c.name, c.lines.lineno);
		if (nbytes && img && check)
			rp_import_check_bytes(check, img, addr, bytes, nbytes, count);
	}
	if (rc)
		return rc;
	size_t len = c.lines.len;
	if (!ended)
		return rp_err_set(err, RP_EINPUT, "%s: byte %zu: truncated: no '# end' line (QEMU killed before exit?)", c.name, len);
	/* the header's count tells a file cut short between lines (and then ended) from a whole one */
	if (pf->have_addresses && pf->addresses != lines)
		return rp_err_set(err, RP_EINPUT, "%s: byte %zu: %llu address lines but the header says %llu",
				  c.name, len, (unsigned long long)lines, (unsigned long long)pf->addresses);
	if (pf->have_declared && pf->declared != sum)
		return rp_err_set(err, RP_EINPUT, "%s: byte %zu: the counts sum to %llu but the header says %llu instructions",
				  c.name, len, (unsigned long long)sum, (unsigned long long)pf->declared);
	return 0;
}

int rp_import_qemu_plugin(rp_samples *s, int *version, rp_import_check *check, const rp_image *img,
			  const char *text, size_t len, const char *name, rp_err *err)
{
	cursor c = cursor_at(text, len, name);
	plugin_file pf = { 0, 0, 0, 0, 0, "" };
	rp_samples scratch;
	*version = 0;
	if (len < 16 || memcmp(text, "# ramplace-qemu ", 16) != 0)
		return rp_err_set(err, RP_EINPUT, "%s: byte 0: not the output of libramplace-qemu.so (no '# ramplace-qemu' header)", name);
	rp_samples_init(&scratch);
	int rc = plugin_lines(&scratch, &pf, check, img, &c, err);
	/* version 1 files carry no instruction bytes: their addresses are all there is to check */
	if (!rc && pf.version == 1 && img && check)
		rc = rp_import_check_pcs(check, img, &scratch, RP_CHECK_INSN_START, err);
	if (!rc)
		rc = rp_samples_merge(s, &scratch, name, err);
	rp_samples_release(&scratch);
	if (!rc)
		*version = pf.version;
	return rc;
}

/* One "# key N" header of version 3 or 4 into *v (once); 1 when the line was that key. */
static int header_num(const cursor *c, const char *key, uint64_t *v, int *seen, rp_err *err, int *rc)
{
	if (!starts(c, key))
		return 0;
	const char *p = c->line + strlen(key);
	if (*seen || dec_at(&p, c->eol, v) || p != c->eol)
		*rc = bad(c, *seen ? "given twice" : "expected a decimal count", err);
	*seen = 1;
	return 1;
}

/* Version 5's "# entries N window W" (once, before the "h" lines): the window each entry's
 * stall cycles were counted over, in instructions. */
static int entries_header(rp_costs *out, const cursor *c, int *seen, rp_err *err, int *rc)
{
	if (!starts(c, "# entries "))
		return 0;
	const char *p = c->line + strlen("# entries ");
	uint64_t n, w;
	if (*seen || dec_at(&p, c->eol, &n) || (size_t)(c->eol - p) < 8 || memcmp(p, " window ", 8) != 0 ||
	    (p += 8, dec_at(&p, c->eol, &w)) || p != c->eol || w == 0 || w > 1000000 || n > 1000000)
		*rc = bad(c, *seen ? "given twice" : "expected '# entries N window W' (W from 1 to 1000000)", err);
	else {
		out->entry_window = (unsigned)w;
		out->entries_declared = n;
		out->entries_first = out->nentries;
	}
	*seen = 1;
	return 1;
}

/* Version 4's "e XY BY VICTIM STALL" (X, Y: F or R) into out's eviction records. */
static int evict_line(rp_costs *out, const cursor *c, uint64_t *sum, rp_err *err)
{
	const char *p = c->line + 2;
	rp_evict e;
	memset(&e, 0, sizeof(e));
	if (c->eol - p < 3 || (p[0] != 'F' && p[0] != 'R') || (p[1] != 'F' && p[1] != 'R') || p[2] != ' ')
		return bad(c, "expected 'e F|R F|R hex-evictor hex-victim decimal-stall-cycles' (e FF 1a0 2b4 56)", err);
	e.by_data = p[0] == 'R';
	e.victim_data = p[1] == 'R';
	p += 3;
	if (hex_at(&p, c->eol, &e.by) || p >= c->eol || *p++ != ' ' || hex_at(&p, c->eol, &e.victim) || p >= c->eol ||
	    *p++ != ' ' || dec_at(&p, c->eol, &e.stall) || p != c->eol || !e.stall)
		return bad(c, "expected 'e XY hex-evictor hex-victim decimal-stall-cycles' (stall > 0)", err);
	if (rp_count_add(sum, e.stall))
		return bad(c, "the stall cycles sum to more than profile.db can count", err);
	return rp_costs_add_evict(out, &e, err) ? rp_err_wrap(err, "%s: line %zu", c->name, c->lines.lineno) : 0;
}

/* Version 5's "h ADDR INVOCATIONS WORST SUM RETURNED INVOCATION-WORST": a handler entry's stall
 * cycles in its window (the worst invocation's and all of them summed), how many invocations were
 * seen to return and the worst of those whole, into out's entries. */
static int entry_line(rp_costs *out, const cursor *c, rp_err *err)
{
	const char *p = c->line + 2;
	rp_entry_stall e = { 0 };
	if (!out->entry_window)
		return bad(c, "an 'h' line before '# entries N window W'", err);
	if (hex_at(&p, c->eol, &e.addr) || p >= c->eol || *p++ != ' ' || dec_at(&p, c->eol, &e.invocations) ||
	    p >= c->eol || *p++ != ' ' || dec_at(&p, c->eol, &e.worst) || p >= c->eol || *p++ != ' ' ||
	    dec_at(&p, c->eol, &e.sum) || p >= c->eol || *p++ != ' ' || dec_at(&p, c->eol, &e.returned) ||
	    p >= c->eol || *p++ != ' ' || dec_at(&p, c->eol, &e.inv_worst) || p != c->eol)
		return bad(c, "expected 'h hex-address decimal-invocations decimal-worst decimal-sum decimal-returned "
			   "decimal-invocation-worst'", err);
	/* worst <= sum <= worst * invocations, without the product (it can wrap) */
	uint64_t mean_floor = e.invocations ? e.sum / e.invocations : 0;
	if (e.worst > e.sum || (e.invocations == 0 && e.sum) || mean_floor > e.worst ||
	    (mean_floor == e.worst && e.invocations && e.sum % e.invocations))
		return bad(c, "the worst entry stall, the sum and the invocations do not agree (worst <= sum <= worst * invocations)",
			   err);
	if (e.returned > e.invocations || (!e.returned && e.inv_worst))
		return bad(c, "more invocations returned than were entered, or a worst invocation of none", err);
	if (e.sum > INT64_MAX || e.invocations > INT64_MAX || e.inv_worst > INT64_MAX)
		return bad(c, "a count past 9223372036854775807 (the most profile.db can count)", err);
	e.window = out->entry_window;
	return rp_costs_add_entry(out, &e, err) ? rp_err_wrap(err, "%s: line %zu", c->name, c->lines.lineno) : 0;
}

/* A version 3 to 5 line into the cost histograms: "ADDR COUNT BYTES STALL", "d ADDR READS
 * STALL", (4) "e ..." or (5) "h ..." (plugin_lines has checked the first kind). Sums are checked
 * against the header by the caller. */
static int cost_line(rp_costs *out, const cursor *c, int version, uint64_t sums[3], rp_err *err)
{
	const char *p = c->line, *q;
	uint64_t addr, n, stall;
	if (version >= 4 && starts(c, "e "))
		return evict_line(out, c, &sums[2], err);
	if (version >= 5 && starts(c, "h "))
		return entry_line(out, c, err);
	if (starts(c, "d ")) {
		p += 2;
		if (hex_at(&p, c->eol, &addr) || p >= c->eol || *p++ != ' ' || dec_at(&p, c->eol, &n) || !n ||
		    p >= c->eol || *p++ != ' ' || dec_at(&p, c->eol, &stall) || p != c->eol)
			return bad(c, "expected 'd hex-address decimal-reads decimal-stall-cycles' (reads > 0)", err);
		if (rp_count_add(&sums[1], stall))
			return bad(c, "the stall cycles sum to more than profile.db can count", err);
		int rc = rp_samples_add(&out->data_reads, addr, n, err);
		return rc || !stall ? rc : rp_samples_add(&out->data_stall, addr, stall, err);
	}
	q = c->eol;
	while (q > p && q[-1] != ' ')
		q--;
	if (hex_at(&p, c->eol, &addr) || dec_at(&q, c->eol, &stall))
		return bad(c, "expected 'hex-address decimal-count hex-bytes decimal-stall-cycles'", err);
	if (rp_count_add(&sums[0], stall))
		return bad(c, "the stall cycles sum to more than profile.db can count", err);
	return stall ? rp_samples_add(&out->fetch_stall, addr, stall, err) : 0;
}

int rp_import_qemu_costs(rp_costs *out, const char *text, size_t len, const char *name, rp_err *err)
{
	cursor c = cursor_at(text, len, name);
	uint64_t want[4] = { 0, 0, 0, 0 }, sums[3] = { 0, 0, 0 };
	int seen[4] = { 0, 0, 0, 0 }, seen_entries = 0, rc = 0, version;
	if (len >= 18 && memcmp(text, "# ramplace-qemu 3\n", 18) == 0)
		version = 3;
	else if (len >= 18 && memcmp(text, "# ramplace-qemu 4\n", 18) == 0)
		version = 4;
	else if (len >= 18 && memcmp(text, "# ramplace-qemu 5\n", 18) == 0)
		version = 5;
	else
		return 0;   /* versions 1 and 2 have no flash model */
	while (!rc && next(&c, err, &rc)) {
		if (starts(&c, "# model ")) {
			int n = (int)(c.eol - c.line - 8);
			if (n <= 0 || n >= (int)sizeof(out->model) || out->model[0])
				return bad(&c, "expected one '# model SPEC' of at most 95 characters", err);
			snprintf(out->model, sizeof(out->model), "%.*s", n, c.line + 8);
		} else if (header_num(&c, "# stall-fetch ", &want[0], &seen[0], err, &rc) ||
			   header_num(&c, "# stall-read ", &want[1], &seen[1], err, &rc) ||
			   header_num(&c, "# misses ", &want[2], &seen[2], err, &rc) ||
			   (version >= 4 && header_num(&c, "# stall-evicted ", &want[3], &seen[3], err, &rc)) ||
			   (version >= 5 && entries_header(out, &c, &seen_entries, err, &rc)) || starts(&c, "#")) {
			continue;
		} else {
			rc = cost_line(out, &c, version, sums, err);
		}
	}
	if (rc)
		return rc;
	if (!out->model[0] || !seen[0] || !seen[1] || !seen[2] || (version >= 4 && !seen[3]))
		return rp_err_set(err, RP_EINPUT, "%s: byte 0: version %d without its '# model', '# stall-fetch', "
				  "'# stall-read' and '# misses' lines%s", name, version, version >= 4 ? " and '# stall-evicted'" : "");
	if (sums[0] != want[0] || sums[1] != want[1])
		return rp_err_set(err, RP_EINPUT, "%s: byte %zu: the stall cycles sum to %llu (fetch) and %llu (read) but the "
				  "header says %llu and %llu", name, len, (unsigned long long)sums[0], (unsigned long long)sums[1],
				  (unsigned long long)want[0], (unsigned long long)want[1]);
	if (seen_entries && out->nentries - out->entries_first != out->entries_declared)
		return rp_err_set(err, RP_EINPUT, "%s: byte %zu: %zu 'h' lines, but '# entries' says %llu", name, len,
				  out->nentries - out->entries_first, (unsigned long long)out->entries_declared);
	if (sums[2] != want[3])
		return rp_err_set(err, RP_EINPUT, "%s: byte %zu: the eviction lines' stall cycles sum to %llu but the header "
				  "says %llu", name, len, (unsigned long long)sums[2], (unsigned long long)want[3]);
	out->misses = want[2];
	return 0;
}

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
