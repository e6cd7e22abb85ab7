/* map_lld.c: reader for ld.lld's -Map files (map.h; map.c hands them here). lld prints one
 * table: a header naming its columns, then one row per output section, input section, symbol
 * or assignment, told apart by the column their name starts in:
 *
 *        VMA      LMA     Size Align Out     In      Symbol
 *        20       20       54     4 .text
 *        20       20       14     4         fw.o:(.text.hot)
 *        21       21       14     1                 hot
 *
 * Numbers are hex without "0x"; older lld prints "Address" and no LMA column. Each input
 * section's alignment is printed (so no object needs reading for it); memory regions are not,
 * so a map from lld gives no regions (`budget: auto` needs GNU ld's). Linker-made sections come
 * from "<internal>", read as GNU ld's "linker stubs". The text is hostile: every row is parsed
 * by (pointer, length) slices and every number is checked. Owns nothing beyond the map it fills.
 * Workload: maps of up to a few hundred thousand rows, read once. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "map_internal.h"
#include "ramplace/util.h"

typedef struct cols {
	size_t out, in, sym;   /* where the Out, In and Symbol columns start */
	int nnum;              /* numbers before them: 4 (VMA LMA Size Align) or 3 (no LMA) */
} cols;

typedef struct lld_parser {
	rp_map *map;
	rp_lines lines;
	size_t cap_insecs;
	const char *outsec;    /* in the map's strings, NULL before the first output section */
	int outsec_kept;
	rp_err *err;
} lld_parser;

static int next_line(lld_parser *ps, const char **p, size_t *n)
{
	return rp_lines_next(&ps->lines, p, n);
}

/* Offset of word w in p[0..n), as a whole word, or SIZE_MAX. */
static size_t word_at(const char *p, size_t n, const char *w)
{
	size_t wn = strlen(w);
	for (size_t i = 0; i + wn <= n; i++)
		if (memcmp(p + i, w, wn) == 0 && (i == 0 || p[i - 1] == ' ') && (i + wn == n || p[i + wn] == ' '))
			return i;
	return SIZE_MAX;
}

static int header(const char *p, size_t n, cols *c)
{
	size_t vma = word_at(p, n, "VMA"), addr = word_at(p, n, "Address");
	c->out = word_at(p, n, "Out");
	c->in = word_at(p, n, "In");
	c->sym = word_at(p, n, "Symbol");
	c->nnum = word_at(p, n, "LMA") != SIZE_MAX ? 4 : 3;
	return (vma != SIZE_MAX || addr != SIZE_MAX) && word_at(p, n, "Size") != SIZE_MAX &&
	       word_at(p, n, "Align") != SIZE_MAX && c->out != SIZE_MAX && c->in != SIZE_MAX && c->sym != SIZE_MAX &&
	       c->out < c->in && c->in < c->sym;
}

int rp_mapi_is_lld(const char *text, size_t len)
{
	rp_lines first;
	const char *p;
	size_t n;
	cols c;
	rp_lines_init(&first, text, len);
	return rp_lines_next(&first, &p, &n) && header(p, n, &c);
}

static int bad(lld_parser *ps, const char *what, const char *p, size_t n)
{
	return rp_err_set(ps->err, RP_EINPUT, "%s:%zu: bad %s '%.*s'", ps->map->path, ps->lines.lineno, what,
			  (int)(n > 64 ? 64 : n), p);
}

/* A hex number without "0x" at p[*i..n), blanks before it skipped; *i moves past it. */
static int hex_field(lld_parser *ps, const char *p, size_t n, size_t *i, uint64_t *out, const char *what)
{
	while (*i < n && p[*i] == ' ')
		(*i)++;
	size_t b = *i, e = b;
	while (e < n && p[e] != ' ')
		e++;
	uint64_t v = 0;
	for (; *i < e; (*i)++) {
		int d = rp_hex_digit(p[*i]);
		if (d < 0 || v > (UINT64_MAX >> 4))
			return bad(ps, what, p + b, e - b);
		v = (v << 4) | (uint64_t)d;
	}
	if (e == b)
		return bad(ps, what, p + b, n - b);
	*out = v;
	return 0;
}

static int set_outsec(lld_parser *ps, const char *name, size_t n)
{
	if (memchr(name, '\0', n))
		return rp_err_set(ps->err, RP_EINPUT, "%s:%zu: NUL byte in the map", ps->map->path, ps->lines.lineno);
	if (!(ps->outsec = rp_mapi_str_copy(ps->map, name, n)))
		return rp_err_nomem(ps->err, "reading a link map");
	ps->outsec_kept = !rp_mapi_unallocated(ps->outsec);
	return 0;
}

/* "FILE:(SECTION)", FILE maybe "lib.a(member.o)": an input section of the current output one. */
static int add_insec(lld_parser *ps, const char *p, size_t n, uint64_t addr, uint64_t size, uint64_t align)
{
	const char *open = NULL;
	for (size_t i = n; i-- > 1;)
		if (p[i] == '(' && p[i - 1] == ':') {
			open = p + i;
			break;
		}
	if (!open || p[n - 1] != ')' || open - 1 == p || open + 2 > p + n - 1)
		return 0;   /* an assignment ("__ramtext_start = .") or a rule: no input section */
	if (size == 0 || !ps->outsec || !ps->outsec_kept)
		return 0;
	if (addr > UINT64_MAX - size)
		return bad(ps, "section (it wraps around the address space)", p, n);
	rp_err ignored = RP_ERR_INIT;
	if (align && rp_check_align(align, "align", &ignored))
		align = 0;   /* hostile: no power of two, or beyond a page: left to inference */
	if (memchr(p, '\0', n))
		return rp_err_set(ps->err, RP_EINPUT, "%s:%zu: NUL byte in the map", ps->map->path, ps->lines.lineno);
	rp_map *map = ps->map;
	rp_map_insec *sec = rp_mapi_new_insec(map, &ps->cap_insecs, addr, size, ps->lines.lineno, ps->err);
	if (!sec)
		return ps->err->code;
	sec->align = align;
	sec->outsec = (char *)ps->outsec;
	size_t flen = (size_t)(open - 1 - p);
	int internal = flen == 10 && memcmp(p, "<internal>", 10) == 0;
	sec->file = internal ? rp_mapi_str_copy(map, "linker stubs", 12) : rp_mapi_str_copy(map, p, flen);
	sec->name = rp_mapi_str_copy(map, open + 1, (size_t)(p + n - 1 - (open + 1)));
	if (!sec->file || !sec->name)
		return rp_err_nomem(ps->err, "reading a link map");
	const char *member = flen > 3 && p[flen - 1] == ')' ? memchr(p, '(', flen) : NULL;
	if (member && member != p && member + 1 < p + flen - 1) {
		sec->archive = rp_mapi_str_copy(map, p, (size_t)(member - p));
		sec->member = rp_mapi_str_copy(map, member + 1, (size_t)(p + flen - 1 - (member + 1)));
		if (!sec->archive || !sec->member)
			return rp_err_nomem(ps->err, "reading a link map");
	}
	return 0;
}

static int parse_row(lld_parser *ps, const cols *c, const char *p, size_t n)
{
	uint64_t num[4] = { 0, 0, 0, 0 };
	size_t i = 0;
	for (int k = 0; k < c->nnum; k++)
		if (hex_field(ps, p, n, &i, &num[k], k == c->nnum - 1 ? "alignment" : k == c->nnum - 2 ? "size" : "address"))
			return ps->err->code;
	while (i < n && p[i] == ' ')
		i++;
	size_t end = n;
	while (end > i && p[end - 1] == ' ')
		end--;
	if (i == end)
		return 0;
	uint64_t addr = num[0], size = num[c->nnum - 2], align = num[c->nnum - 1];
	if (i == c->out)   /* an output section, or an assignment at the top level */
		return memchr(p + i, '=', end - i) ? 0 : set_outsec(ps, p + i, end - i);
	if (i == c->in)
		return add_insec(ps, p + i, end - i, addr, size, align);
	return 0;   /* a symbol, or a row of a shape this reader does not know */
}

int rp_mapi_parse_lld(rp_map *map, const char *text, size_t len, rp_err *err)
{
	lld_parser ps = { .map = map, .err = err };
	rp_lines_init(&ps.lines, text, len);
	const char *p;
	size_t n;
	cols c;
	if (!next_line(&ps, &p, &n) || !header(p, n, &c))
		return rp_err_set(err, RP_EINPUT, "%s: not an ld.lld map (no 'VMA LMA Size Align Out In Symbol' header)",
				  map->path);
	map->from_lld = 1;
	int rc = 0;
	while (!rc && next_line(&ps, &p, &n))
		if (n)
			rc = parse_row(&ps, &c, p, n);
	return rc ? rc : rp_mapi_finish(map, err);
}
