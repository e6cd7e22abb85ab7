/* import_qemu.c: exact execution counts from QEMU (see import.h): the output of the project's
 * TCG plugin (libramplace-qemu.so, format "qemu"), with its flash-model costs, evictions and
 * handler entries (versions 3 to 5); the logs of `-d exec,nochain[,in_asm]` are
 * import_qemu_log.c's. Owns its scratch tables only for the duration of a call.
 * Workload: plugin files of up to a few hundred thousand lines, nothing copied per line. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/import.h"
#include "ramplace/util.h"

#include "import_qemu_internal.h"

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
	    (p += 8, dec_at(&p, c->eol, &w)) || p != c->eol || w == 0 || w > 1000000 || n > RP_MAX_ENTRIES)
		*rc = bad(c, *seen ? "given twice" : "expected '# entries N window W' (N up to 4096, W from 1 to 1000000)", err);
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
	for (size_t i = out->entries_first; i < out->nentries; i++)
		if (out->entries[i].addr == e.addr)
			return bad(c, "an entry given twice", err);
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
