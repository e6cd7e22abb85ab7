/* pattern.c: reads back the exact input-section patterns of a plan (dialects.h), so that other
 * dialects can say the same thing in their own terms, and walks a plan's patterns for them.
 * Owns, while rp_ld_pattern_collect runs, the array it builds. A plan holds a few hundred
 * patterns at most: one growing array and one sort are enough. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/ldgen/dialects.h"
#include "ramplace/util.h"

/* Names, paths and the few wildcard characters exact patterns use; nothing that could end a
 * statement, a comment or a quoted string in any dialect. */
static int name_char_ok(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c != '\0' && strchr("_.$~+-*?", c) != NULL);
}

static int copy_part(char *dst, size_t cap, const char *src, size_t n, const char *pat, const char *what,
		     rp_err *err)
{
	if (n == 0 || n >= cap)
		return rp_err_set(err, RP_EINPUT, "'%s': %s %s", pat, what, n ? "too long" : "empty");
	for (size_t i = 0; i < n; i++)
		if (!name_char_ok((unsigned char)src[i]))
			return rp_err_set(err, RP_EINPUT, "'%s': character '%c' in the %s", pat, src[i], what);
	memcpy(dst, src, n);
	dst[n] = '\0';
	return 0;
}

int rp_ld_pattern_parse(rp_ld_pattern *out, const char *pat, rp_err *err)
{
	const char *s = pat;
	memset(out, 0, sizeof(*out));
	if (strncmp(s, "*/", 2) == 0) {
		out->any_dir = 1;
		s += 2;
	} else if (*s == ':') {
		out->no_archive = 1;
		s++;
	}
	const char *open = strchr(s, '('), *close = strchr(s, ')');
	if (!open || !close || close < open || close[1] != '\0')
		return rp_err_set(err, RP_EINPUT, "'%s': not FILE(SECTION)", pat);
	const char *colon = memchr(s, ':', (size_t)(open - s));
	size_t flen = (size_t)((colon ? colon : open) - s);
	if (copy_part(out->file, sizeof(out->file), s, flen, pat, "file name", err) ||
	    (colon && copy_part(out->member, sizeof(out->member), colon + 1, (size_t)(open - colon - 1), pat,
				"archive member", err)) ||
	    copy_part(out->section, sizeof(out->section), open + 1, (size_t)(close - open - 1), pat,
		      "section name", err))
		return err->code;
	if (out->no_archive && colon)
		return rp_err_set(err, RP_EINPUT, "'%s': a plain object cannot have an archive member", pat);
	return 0;
}

int rp_ld_pattern_each(const rp_plan *plan, rp_ld_pattern_fn fn, void *ctx, rp_err *err)
{
	for (size_t i = 0; i < plan->nunits; i++)
		for (size_t k = 0; k < plan->units[i].npatterns; k++) {
			rp_ld_pattern p;
			const char *text = plan->units[i].patterns[k];
			int rc = rp_ld_pattern_parse(&p, text, err);
			if (rc == 0)
				rc = fn(ctx, &plan->units[i], text, &p, err);
			if (rc < 0)
				return rc;
		}
	return 0;
}

typedef struct collector {
	void *v;
	size_t n, cap, elem_size;
	rp_ld_collect_fn fn;
	void *ctx;
} collector;

static int collect_one(void *ctx, const rp_plan_unit *u, const char *text, const rp_ld_pattern *p, rp_err *err)
{
	collector *c = ctx;
	if (rp_grow((void **)&c->v, &c->cap, c->n + 1, c->elem_size, err))
		return err->code;
	int rc = c->fn(c->ctx, (char *)c->v + c->n * c->elem_size, u, text, p, err);
	if (rc > 0)
		c->n++;
	return rc < 0 ? rc : 0;
}

int rp_ld_pattern_collect(void **out, size_t *n, const rp_plan *plan, size_t elem_size, rp_ld_collect_fn fn,
			  void *ctx, int (*cmp)(const void *, const void *), rp_err *err)
{
	collector c = { NULL, 0, 0, elem_size, fn, ctx };
	int rc = rp_ld_pattern_each(plan, collect_one, &c, err);
	if (rc < 0) {
		free(c.v);
		c.v = NULL;
		c.n = 0;
	} else if (c.n > 1) {
		/* never qsort(NULL, 0, ...): the C standard wants a valid base even for no elements */
		qsort(c.v, c.n, elem_size, cmp);
	}
	*out = c.v;
	*n = c.n;
	return rc;
}
