/* map.c: reader for GNU ld link maps (see map.h), and the door to ld.lld's (map_lld.c); what a
 * map holds once read is map_store.c's, the exact input-section patterns map_pattern.c's.
 *
 * Owns the rp_map it returns: regions from "Memory Configuration", and the kept input sections
 * of allocated output sections from "Linker script and memory map", sorted by address.
 * The text is hostile: every line is bounds-checked by (pointer, length) slices, never assumed
 * NUL-terminated; CRLF is tolerated. Quirks of real GNU ld 2.40 maps this handles:
 *   - a name too long for its column (input sections >= 15 characters, output sections >= 16)
 *     is printed alone, its address/size/file on the next line;
 *   - an empty output section prints only its name, then its rule lines;
 *   - rule lines (" *(.text .text.*)", " KEEP (*(.vectors))") and symbol/assignment lines
 *     ("   0x20000000   main") sit between input sections;
 *   - the linker's own sections come from the pseudo-file "linker stubs" (veneers, build-id);
 *   - non-allocated sections (.debug_*, .comment, .ARM.attributes) carry offsets, not
 *     addresses, so their input sections are not kept;
 *   - "Discarded input sections" (gc-sections) lists sections that are not in the output.
 * Workload: maps of up to a few hundred thousand input sections (tens of MB): the input
 * sections' strings live in map_store.c's few large blocks (one output section name and one
 * copy of a file shared by the sections that follow each other), not in five allocations per
 * section. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map_internal.h"
#include "ramplace/map.h"
#include "ramplace/util.h"

/* A slice of the map text: never NUL-terminated. */
typedef struct span {
	const char *p;
	size_t n;
} span;

#define MAX_TOKENS 8

typedef struct line {
	span text;             /* without the line ending */
	span tok[MAX_TOKENS];  /* whitespace-separated tokens */
	size_t ntok;
	int indented;          /* starts with a space or a tab */
} line;

enum part { PART_PREAMBLE, PART_DISCARDED, PART_MEMORY, PART_SCRIPT, PART_TRAILER };

typedef struct parser {
	const char *name;       /* for messages */
	rp_lines lines;
	enum part part;
	int saw_script;
	rp_map *map;
	size_t cap_regions, cap_insecs, cap_outsecs;
	char *outsec;           /* current output section */
	int outsec_kept;        /* 0 for non-allocated and /DISCARD/ output sections */
	int outsec_wrapped;     /* its name was alone on its line: the next holds its address */
	span pending;           /* a wrapped input section name waiting for its address line */
	size_t pending_line;
	const char *outsec_kept_copy; /* ps->outsec in the map's strings, once a section needs it */
	int in_members;         /* in "Archive member included ...": each entry starts a line */
	char **loads, **members; /* LOAD lines' files and the archive members, in the map's order */
	char **needed_by;        /* per member: the file whose reference pulled it (NULL: unread) */
	size_t *load_group;      /* per LOAD: the START GROUP it is in (1, 2, ...; 0: none) */
	size_t group, ngroups;   /* the outermost group being read (0: none), the groups so far */
	size_t group_depth;      /* START GROUPs not yet ended */
	size_t nloads, nmembers, cap_loads, cap_members, cap_needed, cap_load_group;
	rp_err *err;
} parser;

static int span_eq(span s, const char *lit)
{
	size_t n = strlen(lit);
	return s.n == n && memcmp(s.p, lit, n) == 0;
}

static int span_starts(span s, const char *lit)
{
	size_t n = strlen(lit);
	return s.n >= n && memcmp(s.p, lit, n) == 0;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Copies a span into a new string; refuses NUL bytes, which no map contains. */
static int span_dup(char **out, span s, parser *ps)
{
	if (memchr(s.p, '\0', s.n))
		return rp_err_set(ps->err, RP_EINPUT, "%s:%zu: NUL byte in the map", ps->name, ps->lines.lineno);
	*out = malloc(s.n + 1);
	if (!*out)
		return rp_err_nomem(ps->err, "reading a link map");
	memcpy(*out, s.p, s.n);
	(*out)[s.n] = '\0';
	return 0;
}

/* Reads the next line into ln; returns 0 at the end of the text. */
static int next_line(parser *ps, line *ln)
{
	const char *start;
	size_t n;
	if (!rp_lines_next(&ps->lines, &start, &n))
		return 0;
	ln->text = (span){ start, n };
	ln->indented = n > 0 && is_blank(start[0]);
	ln->ntok = 0;
	size_t i = 0;
	while (i < n && ln->ntok < MAX_TOKENS) {
		/* a map's columns are padded with runs of 16 and more spaces: eight at a time */
		for (uint64_t w; i + 8 <= n && (memcpy(&w, start + i, 8), w == 0x2020202020202020ull);)
			i += 8;
		while (i < n && is_blank(start[i]))
			i++;
		if (i == n)
			break;
		size_t b = i;
		while (i < n && !is_blank(start[i]))
			i++;
		ln->tok[ln->ntok++] = (span){ start + b, i - b };
	}
	return 1;
}

/* The rest of the line from token k on, trailing blanks trimmed: file names may hold spaces. */
static span rest_from(const line *ln, size_t k)
{
	const char *b = ln->tok[k].p;
	size_t n = (size_t)(ln->text.p + ln->text.n - b);
	while (n > 0 && is_blank(b[n - 1]))
		n--;
	return (span){ b, n };
}

static int is_hex_token(span s)
{
	return span_starts(s, "0x") || span_starts(s, "0X");
}

/* Parses "0x..." (at most 64 bits); `what` is "address", "size", "origin" or "length". */
static int parse_hex(uint64_t *out, span s, const char *what, parser *ps)
{
	uint64_t v = 0;
	size_t digits = 0;
	for (size_t i = 2; is_hex_token(s) && i < s.n; i++, digits++) {
		char c = s.p[i];
		int d = c >= '0' && c <= '9' ? c - '0'
		      : c >= 'a' && c <= 'f' ? c - 'a' + 10
		      : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0 || v > (UINT64_MAX >> 4))
			goto bad;
		v = (v << 4) | (uint64_t)d;
	}
	if (!is_hex_token(s) || digits == 0)
		goto bad;
	*out = v;
	return 0;
bad:
	return rp_err_set(ps->err, RP_EINPUT, "%s:%zu: bad %s '%.*s'", ps->name, ps->lines.lineno, what,
			  (int)(s.n > 64 ? 64 : s.n), s.p);
}

/* The headings that start each part of a map. */
static int switch_part(parser *ps, const line *ln)
{
	static const struct { const char *heading; enum part part; } headings[] = {
		{ "Archive member included to satisfy reference by file (symbol)", PART_PREAMBLE },
		{ "As-needed library included to satisfy reference by file (symbol)", PART_PREAMBLE },
		{ "Allocating common symbols", PART_PREAMBLE },
		{ "Discarded input sections", PART_DISCARDED },
		{ "Memory Configuration", PART_MEMORY },
		{ "Linker script and memory map", PART_SCRIPT },
		{ "Cross Reference Table", PART_TRAILER },
	};
	for (size_t i = 0; i < sizeof(headings) / sizeof(headings[0]); i++) {
		if (span_eq(ln->text, headings[i].heading)) {
			ps->part = headings[i].part;
			ps->in_members = i == 0;
			ps->saw_script |= ps->part == PART_SCRIPT;
			ps->pending.n = 0;
			return 1;
		}
	}
	return 0;
}

/* A file ld loaded, kept in the map's strings at the end of *list. */
static int note_file(parser *ps, char ***list, size_t *n, size_t *cap, span file)
{
	if (rp_grow((void **)list, cap, *n + 1, sizeof(char *), ps->err))
		return ps->err->code;
	if (!((*list)[*n] = rp_mapi_str_copy(ps->map, file.p, file.n)))
		return rp_err_nomem(ps->err, "reading a link map");
	(*n)++;
	return 0;
}

/* An entry of "Archive member included ...": "lib.a(member.o)" at the start of a line (the
 * file that needed it follows, or has the next line when the name is long). */
static int parse_member(parser *ps, const line *ln)
{
	if (ln->indented && ln->ntok >= 2 && ps->nmembers && !ps->needed_by[ps->nmembers - 1])
		return !(ps->needed_by[ps->nmembers - 1] = rp_mapi_str_copy(ps->map, ln->tok[0].p, ln->tok[0].n))
			       ? rp_err_nomem(ps->err, "reading a link map") : 0;
	if (ln->indented || ln->ntok == 0 || ln->tok[0].n < 4 || ln->tok[0].p[ln->tok[0].n - 1] != ')' ||
	    !memchr(ln->tok[0].p, '(', ln->tok[0].n))
		return 0;
	size_t n = ps->nmembers;
	if (rp_grow((void **)&ps->needed_by, &ps->cap_needed, n + 1, sizeof(char *), ps->err) ||
	    note_file(ps, &ps->members, &ps->nmembers, &ps->cap_members, ln->tok[0]))
		return ps->err->code;
	ps->needed_by[n] = NULL;
	if (ln->ntok >= 3 && !(ps->needed_by[n] = rp_mapi_str_copy(ps->map, ln->tok[1].p, ln->tok[1].n)))
		return rp_err_nomem(ps->err, "reading a link map");
	return 0;
}

static size_t archive_len(const char *member)
{
	const char *open = strrchr(member, '(');
	return open ? (size_t)(open - member) : strlen(member);
}

/* Whether member ("lib.a(m.o)") comes from the archive at path. */
static int member_of(const char *member, const char *path)
{
	size_t n = strlen(path);
	return archive_len(member) == n && strncmp(member, path, n) == 0;
}

static int add_input(parser *ps, size_t *cap, char *file)
{
	rp_map *map = ps->map;
	if (rp_grow((void **)&map->inputs, cap, map->ninputs + 1, sizeof(char *), ps->err))
		return ps->err->code;
	map->inputs[map->ninputs++] = file;
	return 0;
}

static int listed(char *const *list, size_t n, const char *file)
{
	for (size_t i = 0; file && i < n; i++)
		if (strcmp(list[i], file) == 0)
			return 1;
	return 0;
}

/* Whether the file that needed member m is loaded (or is no input: a script's or the command
 * line's reference). */
static int needer_loaded(const parser *ps, size_t m)
{
	const char *by = ps->needed_by[m];
	return listed(ps->map->inputs, ps->map->ninputs, by) ||
	       !(listed(ps->loads, ps->nloads, by) || listed(ps->members, ps->nmembers, by));
}

/* ld's reading of LOADs [lo, hi), a group or one LOAD outside any (ldlang.c, open_input_bfds):
 * each in turn, an archive pulling the members listed next that are its own and whose needer
 * is loaded; a group again, each archive searched anew, while a pass added undefined symbols
 * (here: loaded an object or pulled a member). So a member an archive later in the group
 * needed comes after the whole first pass (libgcc's soft-float members that libc's printf
 * needs follow libc's LOAD, which numbers libc's first member). */
static int read_block(parser *ps, size_t lo, size_t hi, size_t *next, size_t *cap)
{
	int rc = 0, again = 1;
	for (int pass = 0; !rc && again; pass++) {
		int pulled = 0;
		for (size_t l = lo; !rc && l < hi; l++) {
			/* an object, or an archive: opening it checks its first member (map_ids.c) */
			if (pass == 0)
				rc = add_input(ps, cap, ps->loads[l]);
			for (; !rc && *next < ps->nmembers && member_of(ps->members[*next], ps->loads[l]) &&
			       needer_loaded(ps, *next); (*next)++, pulled = 1)
				rc = add_input(ps, cap, ps->members[*next]);
		}
		again = ps->load_group[lo] && (pulled || pass == 0);
	}
	return rc;
}

/* map->inputs: the load order. ld reads its inputs in the order of the LOAD lines, an archive
 * pulling members as its search finds them needed, and the map lists the members in the order
 * they were pulled. "LOAD linker stubs" has no file. */
static int merge_inputs(parser *ps)
{
	size_t cap = 0, next = 0;
	int rc = 0;
	for (size_t lo = 0, hi; !rc && lo < ps->nloads; lo = hi) {
		for (hi = lo + 1; ps->load_group[lo] && hi < ps->nloads && ps->load_group[hi] == ps->load_group[lo]; hi++)
			;
		rc = read_block(ps, lo, hi, &next, &cap);
	}
	/* a member no LOAD explains (a thin archive's, a path spelled otherwise), or LTO's output
	 * objects (ld inserts them and searches the archives again): the order is unknown */
	int lto = 0;
	for (size_t l = 0; l < ps->nloads; l++)
		lto |= strstr(ps->loads[l], ".ltrans") != NULL;
	if (!rc && (next < ps->nmembers || lto))
		ps->map->ninputs = 0;
	return rc;
}

/* "NAME ORIGIN LENGTH [ATTRIBUTES]"; the column heading line is skipped. */
static int parse_region(parser *ps, const line *ln)
{
	if (ln->ntok == 0 || (span_eq(ln->tok[0], "Name") && ln->ntok >= 2 && span_eq(ln->tok[1], "Origin")))
		return 0;
	if (ln->ntok < 3 || ln->ntok > 4)
		return rp_err_set(ps->err, RP_EINPUT, "%s:%zu: memory region line needs NAME ORIGIN LENGTH [ATTRIBUTES]",
				  ps->name, ps->lines.lineno);
	rp_map *map = ps->map;
	if (rp_grow((void **)&map->regions, &ps->cap_regions, map->nregions + 1, sizeof(*map->regions), ps->err))
		return ps->err->code;
	rp_map_region *r = &map->regions[map->nregions];
	memset(r, 0, sizeof(*r));
	if (parse_hex(&r->origin, ln->tok[1], "origin", ps) || parse_hex(&r->length, ln->tok[2], "length", ps))
		return ps->err->code;
	/* a region that wraps would give `budget: auto` a budget of nearly 2^64 bytes */
	if (r->length > UINT64_MAX - r->origin) {
		char where[600], raw[80], name[96];
		snprintf(where, sizeof(where), "%s:%zu", ps->name, ps->lines.lineno);
		snprintf(raw, sizeof(raw), "%.*s", (int)(ln->tok[0].n > 64 ? 64 : ln->tok[0].n), ln->tok[0].p);
		return rp_check_region(r->origin, r->length, rp_escape_name(raw, name, sizeof(name)), where, ps->err);
	}
	if (ln->ntok == 4) {
		if (ln->tok[3].n >= sizeof(r->attrs))
			return rp_err_set(ps->err, RP_EINPUT, "%s:%zu: memory region attributes '%.*s' are too long",
					  ps->name, ps->lines.lineno, (int)(ln->tok[3].n > 64 ? 64 : ln->tok[3].n), ln->tok[3].p);
		memcpy(r->attrs, ln->tok[3].p, ln->tok[3].n);
	}
	if (span_dup(&r->name, ln->tok[0], ps))
		return ps->err->code;
	map->nregions++;
	return 0;
}

/* An allocated output section: its address and size at tokens at and at+1 of its line, and
 * the load address when the line goes on "load address 0xLMA". */
static int record_outsec(parser *ps, const line *ln, size_t at)
{
	rp_map *map = ps->map;
	uint64_t addr, size, lma;
	if (parse_hex(&addr, ln->tok[at], "address", ps) || parse_hex(&size, ln->tok[at + 1], "size", ps))
		return ps->err->code;
	lma = addr;
	if (ln->ntok >= at + 5 && span_eq(ln->tok[at + 2], "load") && span_eq(ln->tok[at + 3], "address") &&
	    parse_hex(&lma, ln->tok[at + 4], "load address", ps))
		return ps->err->code;
	if (addr > UINT64_MAX - size || lma > UINT64_MAX - size)
		return rp_err_set(ps->err, RP_EINPUT, "%s:%zu: output section '%s' at 0x%llx of size 0x%llx wraps around",
				  ps->name, ps->lines.lineno, ps->outsec, (unsigned long long)addr, (unsigned long long)size);
	if (rp_grow((void **)&map->outsecs, &ps->cap_outsecs, map->noutsecs + 1, sizeof(*map->outsecs), ps->err))
		return ps->err->code;
	rp_map_outsec *o = &map->outsecs[map->noutsecs];
	if (!(o->name = rp_mapi_str_copy(map, ps->outsec, strlen(ps->outsec))))
		return rp_err_nomem(ps->err, "reading a link map");
	o->addr = addr, o->size = size, o->lma = lma;
	map->noutsecs++;
	return 0;
}

/* Column-0 lines of the script part: an output section ("NAME [0xADDR 0xSIZE [load address
 * 0xLMA]]"), or a statement (LOAD, START GROUP, OUTPUT(...), "Address of section ..."). */
static int parse_outsec_line(parser *ps, const line *ln)
{
	const span first = ln->tok[0];
	if (span_eq(first, "LOAD") && ln->ntok >= 2) {
		span file = rest_from(ln, 1);
		if (span_eq(file, "linker stubs"))
			return 0;
		if (rp_grow((void **)&ps->load_group, &ps->cap_load_group, ps->nloads + 1, sizeof(size_t), ps->err))
			return ps->err->code;
		ps->load_group[ps->nloads] = ps->group;
		return note_file(ps, &ps->loads, &ps->nloads, &ps->cap_loads, file);
	}
	if (ln->ntok == 2 && span_eq(ln->tok[1], "GROUP") && span_eq(first, "START")) {
		if (!ps->group_depth++)   /* a nested group is searched within the outer one */
			ps->group = ++ps->ngroups;
		return 0;
	}
	if (ln->ntok == 2 && span_eq(ln->tok[1], "GROUP") && span_eq(first, "END")) {
		if (ps->group_depth && !--ps->group_depth)
			ps->group = 0;
		return 0;
	}
	if (span_eq(first, "LOAD") || span_eq(first, "START") || span_eq(first, "END") ||
	    span_eq(first, "Address") || memchr(first.p, '(', first.n))
		return 0;
	if (ln->ntok >= 2 && !is_hex_token(ln->tok[1])) {
		if (first.n > 0 && first.p[0] == '.')
			return parse_hex(&(uint64_t){ 0 }, ln->tok[1], "address", ps);
		return 0; /* prose we do not know; it names no section */
	}
	if (ln->ntok >= 2 && parse_hex(&(uint64_t){ 0 }, ln->tok[1], "address", ps))
		return ps->err->code;
	if (ln->ntok >= 3 && parse_hex(&(uint64_t){ 0 }, ln->tok[2], "size", ps))
		return ps->err->code;
	free(ps->outsec);
	ps->outsec = NULL;
	ps->outsec_kept_copy = NULL;
	if (span_dup(&ps->outsec, first, ps))
		return ps->err->code;
	ps->outsec_kept = !rp_mapi_unallocated(ps->outsec);
	ps->outsec_wrapped = ln->ntok == 1 && ps->outsec_kept;
	return ln->ntok >= 3 && ps->outsec_kept ? record_outsec(ps, ln, 1) : 0;
}

/* Splits "path/libc.a(member.o)" into archive and member; other files have neither. */
static int split_archive(rp_map_insec *sec, parser *ps)
{
	size_t n = strlen(sec->file);
	if (n < 4 || sec->file[n - 1] != ')')
		return 0;
	char *open = strrchr(sec->file, '(');
	if (!open || open == sec->file || open + 2 >= sec->file + n)
		return 0;
	sec->archive = rp_mapi_str_copy(ps->map, sec->file, (size_t)(open - sec->file));
	sec->member = rp_mapi_str_copy(ps->map, open + 1, (size_t)(sec->file + n - 1 - (open + 1)));
	if (!sec->archive || !sec->member)
		return rp_err_nomem(ps->err, "reading a link map");
	return 0;
}

/* name, file (with archive and member) and outsec of a new input section. The previous
 * section's file and output section are shared when they are the same. */
static int insec_strings(rp_map_insec *sec, const rp_map_insec *prev, span name, span file, parser *ps)
{
	if (memchr(name.p, '\0', name.n) || memchr(file.p, '\0', file.n))
		return rp_err_set(ps->err, RP_EINPUT, "%s:%zu: NUL byte in the map", ps->name, ps->lines.lineno);
	if (!ps->outsec_kept_copy)
		ps->outsec_kept_copy = rp_mapi_str_copy(ps->map, ps->outsec, strlen(ps->outsec));
	sec->outsec = (char *)ps->outsec_kept_copy;
	sec->name = rp_mapi_str_copy(ps->map, name.p, name.n);
	if (prev && strlen(prev->file) == file.n && memcmp(prev->file, file.p, file.n) == 0) {
		sec->file = prev->file;
		sec->archive = prev->archive;
		sec->member = prev->member;
	} else if ((sec->file = rp_mapi_str_copy(ps->map, file.p, file.n)) != NULL && split_archive(sec, ps)) {
		return ps->err->code;
	}
	if (!sec->outsec || !sec->name || !sec->file)
		return rp_err_nomem(ps->err, "reading a link map");
	return 0;
}

static int add_insec(parser *ps, span name, span addr_tok, span size_tok, span file)
{
	uint64_t addr, size;
	if (parse_hex(&addr, addr_tok, "address", ps) || parse_hex(&size, size_tok, "size", ps))
		return ps->err->code;
	rp_map_outsec *o = ps->map->noutsecs ? &ps->map->outsecs[ps->map->noutsecs - 1] : NULL;
	if (o && ps->outsec && strcmp(o->name, ps->outsec) == 0 && span_starts(name, ".text") &&
	    !span_eq(file, "linker stubs"))
		o->empty_code_last = size == 0;
	if (size == 0 || !ps->outsec || !ps->outsec_kept)
		return 0;
	if (addr > UINT64_MAX - size)
		return rp_err_set(ps->err, RP_EINPUT, "%s:%zu: section '%.*s' at 0x%llx of size 0x%llx wraps around",
				  ps->name, ps->lines.lineno, (int)(name.n > 64 ? 64 : name.n), name.p,
				  (unsigned long long)addr, (unsigned long long)size);
	rp_map_insec *sec = rp_mapi_new_insec(ps->map, &ps->cap_insecs, addr, size, ps->lines.lineno, ps->err);
	if (!sec)
		return ps->err->code;
	return insec_strings(sec, ps->map->ninsecs > 1 ? sec - 1 : NULL, name, file, ps);
}

/* Indented lines of the script part. */
static int parse_indented_line(parser *ps, const line *ln)
{
	const span first = ln->tok[0];
	span pending = ps->pending;
	ps->pending.n = 0;
	int wrapped = ps->outsec_wrapped;   /* " 0xADDR 0xSIZE [load address 0xLMA]" after a long name */
	ps->outsec_wrapped = 0;
	if (span_eq(first, "*fill*"))
		return 0;
	if (wrapped && is_hex_token(first) && ln->ntok >= 2 && is_hex_token(ln->tok[1]) &&
	    (ln->ntok == 2 || span_eq(ln->tok[2], "load")))
		return record_outsec(ps, ln, 0);
	if (is_hex_token(first)) {
		/* "0xADDR 0xSIZE FILE" continues a wrapped name; "0xADDR symbol" is a symbol */
		if (pending.n && ln->ntok >= 3 && is_hex_token(ln->tok[1]))
			return add_insec(ps, pending, first, ln->tok[1], rest_from(ln, 2));
		return 0;
	}
	if (ln->ntok == 1) {
		ps->pending = first; /* a long name; or a rule line, which no address line follows */
		ps->pending_line = ps->lines.lineno;
		return 0;
	}
	if (ln->ntok >= 4 && is_hex_token(ln->tok[1]))
		return add_insec(ps, first, ln->tok[1], ln->tok[2], rest_from(ln, 3));
	if (ln->ntok >= 2 && is_hex_token(ln->tok[1]))
		return parse_hex(&(uint64_t){ 0 }, ln->tok[1], "address", ps) ? ps->err->code
		     : ln->ntok == 3 ? parse_hex(&(uint64_t){ 0 }, ln->tok[2], "size", ps) : 0;
	return 0; /* a rule line such as " *(.text .text.*)" or " KEEP (*(.vectors))" */
}

static int parse_script_line(parser *ps, const line *ln)
{
	if (ln->ntok == 0) {
		ps->pending.n = 0;
		ps->outsec_wrapped = 0;
		return 0;
	}
	if (!ln->indented) {
		ps->pending.n = 0;
		return parse_outsec_line(ps, ln);
	}
	return parse_indented_line(ps, ln);
}

static int parse_all(parser *ps)
{
	line ln;
	while (next_line(ps, &ln)) {
		if (!ln.indented && switch_part(ps, &ln))
			continue;
		int rc = 0;
		if (ps->part == PART_PREAMBLE && ps->in_members)
			rc = parse_member(ps, &ln);
		else if (ps->part == PART_MEMORY)
			rc = parse_region(ps, &ln);
		else if (ps->part == PART_SCRIPT)
			rc = parse_script_line(ps, &ln);
		if (rc)
			return rc;
	}
	if (!ps->saw_script)
		return rp_err_set(ps->err, RP_EINPUT, "%s: not a GNU ld map (no 'Linker script and memory map' part)",
				  ps->name);
	return merge_inputs(ps) ? ps->err->code : rp_mapi_finish(ps->map, ps->err);
}

int rp_map_parse(rp_map **out, const char *text, size_t len, const char *name, rp_err *err)
{
	*out = NULL;
	parser ps = { .name = name ? name : "<map>", .err = err };
	rp_lines_init(&ps.lines, text, len);
	ps.map = calloc(1, sizeof(*ps.map));
	if (!ps.map)
		return rp_err_nomem(err, "reading a link map");
	int rc = rp_strdup(&ps.map->path, ps.name, err);
	if (!rc && rp_mapi_is_lld(ps.lines.text, ps.lines.len))
		rc = rp_mapi_parse_lld(ps.map, ps.lines.text, ps.lines.len, err);
	else if (!rc)
		rc = parse_all(&ps);
	free(ps.outsec);
	free(ps.loads);
	free(ps.load_group);
	free(ps.members);
	free(ps.needed_by);
	if (rc) {
		rp_map_free(ps.map);
		return rc;
	}
	*out = ps.map;
	return 0;
}

int rp_map_load(rp_map **out, const char *path, rp_err *err)
{
	char *text = NULL;
	size_t len = 0;
	*out = NULL;
	int rc = rp_read_file(&text, &len, path, err);
	if (rc)
		return rc;
	rc = rp_map_parse(out, text, len, path, err);
	free(text);
	return rc;
}

