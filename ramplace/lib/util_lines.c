/* util_lines.c: the one line cursor the text readers share (util.h: rp_lines): plans, GNU ld and
 * ld.lld maps, QEMU counts, gmon text, prof files, PC logs. It owns nothing (the text is the
 * caller's); it keeps the bounds, the line number and each line's byte offset, which every
 * reader's messages name ("file:LINE" or "line N (byte B)"). Workload: maps of tens of MB,
 * one memchr a line. */
#include <string.h>

#include "ramplace/util.h"

void rp_lines_init(rp_lines *c, const char *text, size_t len)
{
	*c = (rp_lines){ .text = text, .len = text ? len : 0 };
}

int rp_lines_next(rp_lines *c, const char **p, size_t *n)
{
	if (c->pos >= c->len)
		return 0;
	const char *start = c->text + c->pos;
	const char *nl = memchr(start, '\n', c->len - c->pos);
	size_t k = nl ? (size_t)(nl - start) : c->len - c->pos;
	c->offset = c->pos;
	c->pos += k + (nl ? 1 : 0);
	c->lineno++;
	c->ended = nl != NULL;
	if (k > 0 && start[k - 1] == '\r')
		k--;
	*p = start;
	*n = k;
	return 1;
}
