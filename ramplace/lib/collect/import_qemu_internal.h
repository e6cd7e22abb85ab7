/* import_qemu_internal.h: what the two QEMU readers share (import_qemu.c: the plugin's files;
 * import_qemu_log.c: `-d exec` logs): a cursor over the lines of one file with the messages
 * that name its line and byte, and the number scanners bounded by a line's end. Private to
 * lib/collect. */
#ifndef RAMPLACE_IMPORT_QEMU_INTERNAL_H
#define RAMPLACE_IMPORT_QEMU_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "ramplace/error.h"
#include "ramplace/util.h"

typedef struct cursor {
	rp_lines lines;
	const char *line, *eol;   /* the current line and its end (its newline, or a \r before it) */
	const char *name;
} cursor;

static inline cursor cursor_at(const char *text, size_t len, const char *name)
{
	cursor c = { .name = name };
	rp_lines_init(&c.lines, text, len);
	return c;
}

/* Advances to the next line; 0 at the end. A last line without a newline is a truncated file. */
static inline int next(cursor *c, rp_err *err, int *rc)
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

static inline size_t at(const cursor *c)
{
	return c->lines.offset;
}

static inline int bad(const cursor *c, const char *what, rp_err *err)
{
	int shown = (int)(c->eol - c->line > 60 ? 60 : c->eol - c->line);
	return rp_err_set(err, RP_EINPUT, "%s: line %zu (byte %zu): %s: '%.*s%s'", c->name, c->lines.lineno, at(c),
			  what, shown, c->line, c->eol - c->line > 60 ? "..." : "");
}

static inline int starts(const cursor *c, const char *prefix)
{
	size_t n = strlen(prefix);
	return (size_t)(c->eol - c->line) >= n && memcmp(c->line, prefix, n) == 0;
}

/* Hex number (optional 0x) at *p, at most 16 digits, stopping before `lim`. */
static inline int hex_at(const char **p, const char *lim, uint64_t *out)
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

static inline int dec_at(const char **p, const char *lim, uint64_t *out)
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

#endif
