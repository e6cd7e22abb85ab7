/* rsp_tdesc.c: the parser of GDB target descriptions (the XML documents a gdbserver sends for
 * qXfer:features:read), as far as ramplace needs it: the architecture and every register's
 * name, number and size, following <xi:include> through a fetch callback (see rsp.h).
 *
 * Not a general XML parser: it scans for start tags and reads their attributes, skipping
 * comments, processing instructions, declarations and end tags. The documents come from the
 * gdbserver and are not trusted: every offset is bounds-checked, nesting and document counts
 * are capped, and errors name the byte offset. Owns nothing beyond the rp_rsp_tdesc it fills. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ramplace/rsp.h"

#define RSP_TDESC_MAX_REGS 4096
#define RSP_TDESC_MAX_DEPTH 4
#define RSP_TDESC_MAX_INCLUDES 64


void rp_rsp_tdesc_init(rp_rsp_tdesc *td)
{
	memset(td, 0, sizeof(*td));
}

void rp_rsp_tdesc_release(rp_rsp_tdesc *td)
{
	free(td->regs);
	rp_rsp_tdesc_init(td);
}

const rp_rsp_reg *rp_rsp_tdesc_find(const rp_rsp_tdesc *td, const char *name)
{
	for (size_t i = 0; i < td->nregs; i++)
		if (strcasecmp(td->regs[i].name, name) == 0)
			return &td->regs[i];
	return NULL;
}

int64_t rp_rsp_tdesc_g_offset(const rp_rsp_tdesc *td, unsigned regnum)
{
	int64_t off = 0;
	for (size_t i = 0; i < td->nregs; i++) {
		if (td->regs[i].regnum >= regnum)
			continue;
		if (td->regs[i].bitsize % 8)
			return -1;
		off += td->regs[i].bitsize / 8;
	}
	return off;
}

typedef struct xml_attr {
	const char *name, *val;
	size_t nlen, vlen;
} xml_attr;

#define XML_MAX_ATTRS 16

typedef struct xml_tag {
	const char *name;
	size_t nlen;
	xml_attr attrs[XML_MAX_ATTRS];
	size_t nattrs;
	size_t end;          /* offset just past '>' */
} xml_tag;

static int is_name_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == ':' || c == '.' || c == '-';
}

static int is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int xml_error(rp_err *err, const char *name, size_t at, const char *what)
{
	return rp_err_set(err, RP_EINPUT, "%s: target description: %s at byte %zu", name, what, at);
}

/* Parses a start tag at x[i] == '<' (not a comment, PI or end tag). */
static int xml_read_tag(xml_tag *t, const char *x, size_t len, size_t i, const char *name, rp_err *err)
{
	size_t at = i++;
	memset(t, 0, sizeof(*t));
	t->name = x + i;
	while (i < len && is_name_char((unsigned char)x[i]))
		i++;
	t->nlen = (size_t)(x + i - t->name);
	if (t->nlen == 0)
		return xml_error(err, name, at, "malformed tag");
	for (;;) {
		while (i < len && is_space((unsigned char)x[i]))
			i++;
		if (i >= len)
			return xml_error(err, name, at, "unterminated tag");
		if (x[i] == '>' || (x[i] == '/' && i + 1 < len && x[i + 1] == '>')) {
			t->end = i + (x[i] == '>' ? 1 : 2);
			return 0;
		}
		xml_attr a = { x + i, NULL, 0, 0 };
		while (i < len && is_name_char((unsigned char)x[i]))
			i++;
		a.nlen = (size_t)(x + i - a.name);
		if (a.nlen == 0 || i + 1 >= len || x[i] != '=' || (x[i + 1] != '"' && x[i + 1] != '\''))
			return xml_error(err, name, i, "malformed attribute");
		char quote_char = x[i + 1];
		i += 2;
		const char *close = memchr(x + i, quote_char, len - i);
		if (!close)
			return xml_error(err, name, i, "unterminated attribute value");
		a.val = x + i;
		a.vlen = (size_t)(close - a.val);
		i = (size_t)(close - x) + 1;
		if (t->nattrs < XML_MAX_ATTRS)
			t->attrs[t->nattrs++] = a;
	}
}

static const xml_attr *xml_attr_get(const xml_tag *t, const char *name)
{
	for (size_t i = 0; i < t->nattrs; i++)
		if (t->attrs[i].nlen == strlen(name) && memcmp(t->attrs[i].name, name, t->attrs[i].nlen) == 0)
			return &t->attrs[i];
	return NULL;
}

static int tag_is(const xml_tag *t, const char *name)
{
	return t->nlen == strlen(name) && memcmp(t->name, name, t->nlen) == 0;
}

/* A decimal attribute value in [0, max]. */
static int attr_uint(unsigned *out, const xml_attr *a, unsigned max)
{
	uint64_t v = 0;
	if (a->vlen == 0 || a->vlen > 9)
		return -1;
	for (size_t i = 0; i < a->vlen; i++) {
		if (a->val[i] < '0' || a->val[i] > '9')
			return -1;
		v = v * 10 + (uint64_t)(a->val[i] - '0');
	}
	if (v > max)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static int tdesc_add_reg(rp_rsp_tdesc *td, const xml_tag *t, const char *name, rp_err *err)
{
	const xml_attr *an = xml_attr_get(t, "name"), *ab = xml_attr_get(t, "bitsize");
	const xml_attr *ar = xml_attr_get(t, "regnum");
	unsigned bitsize, regnum = td->next_regnum;
	if (!an || an->vlen == 0 || an->vlen >= sizeof(td->regs[0].name))
		return xml_error(err, name, t->end, "<reg> without a usable name");
	if (!ab || attr_uint(&bitsize, ab, 65536) < 0 || bitsize == 0)
		return xml_error(err, name, t->end, "<reg> without a valid bitsize");
	if (ar && attr_uint(&regnum, ar, 65535) < 0)
		return xml_error(err, name, t->end, "<reg> with an invalid regnum");
	if (td->nregs >= RSP_TDESC_MAX_REGS)
		return xml_error(err, name, t->end, "more than 4096 registers");
	if (td->nregs == td->cap) {
		size_t cap = td->cap ? td->cap * 2 : 64;
		rp_rsp_reg *regs = realloc(td->regs, cap * sizeof(*regs));
		if (!regs)
			return rp_err_nomem(err, "reading the target description");
		td->regs = regs;
		td->cap = cap;
	}
	rp_rsp_reg *r = &td->regs[td->nregs++];
	memcpy(r->name, an->val, an->vlen);
	r->name[an->vlen] = '\0';
	r->regnum = regnum;
	r->bitsize = bitsize;
	td->next_regnum = regnum + 1;
	return 0;
}

static int tdesc_include(rp_rsp_tdesc *td, const xml_tag *t, rp_rsp_fetch_fn fetch, void *ctx,
			 const char *name, rp_err *err)
{
	const xml_attr *href = xml_attr_get(t, "href");
	char file[256];
	if (!href || href->vlen == 0 || href->vlen >= sizeof(file))
		return xml_error(err, name, t->end, "<xi:include> without a usable href");
	memcpy(file, href->val, href->vlen);
	file[href->vlen] = '\0';
	if (!fetch)
		return xml_error(err, name, t->end, "includes are not supported here");
	if (td->depth >= RSP_TDESC_MAX_DEPTH)
		return xml_error(err, name, t->end, "includes nested too deep");
	if (++td->nincludes > RSP_TDESC_MAX_INCLUDES)
		return xml_error(err, name, t->end, "more than 64 included documents");
	char *doc = NULL;
	size_t dlen = 0;
	int rc = fetch(ctx, file, &doc, &dlen, err);
	if (rc < 0)
		return rc;
	td->depth++;
	rc = rp_rsp_tdesc_parse(td, doc, dlen, fetch, ctx, name, err);
	td->depth--;
	free(doc);
	return rc;
}

static int tdesc_architecture(rp_rsp_tdesc *td, const char *x, size_t len, size_t i)
{
	size_t o = 0;
	while (i < len && is_space((unsigned char)x[i]))
		i++;
	while (i < len && x[i] != '<' && !is_space((unsigned char)x[i]) && o + 1 < sizeof(td->arch))
		td->arch[o++] = x[i++];
	td->arch[o] = '\0';
	return 0;
}

/* Skips a comment, processing instruction, declaration or end tag at x[i] == '<'; returns the
 * offset after it, 0 when x[i] starts a start tag, or SIZE_MAX when unterminated. */
static size_t xml_skip_other(const char *x, size_t len, size_t i)
{
	const char *endmark;
	if (len - i >= 4 && memcmp(x + i, "<!--", 4) == 0)
		endmark = "-->";
	else if (len - i >= 2 && x[i + 1] == '?')
		endmark = "?>";
	else if (len - i >= 2 && (x[i + 1] == '!' || x[i + 1] == '/'))
		endmark = ">";
	else
		return 0;
	const char *e = memmem(x + i + 2, len - i - 2, endmark, strlen(endmark));
	return e ? (size_t)(e - x) + strlen(endmark) : SIZE_MAX;
}

int rp_rsp_tdesc_parse(rp_rsp_tdesc *td, const char *xml, size_t len, rp_rsp_fetch_fn fetch,
		       void *ctx, const char *name, rp_err *err)
{
	size_t i = 0;
	while (i < len) {
		const char *lt = memchr(xml + i, '<', len - i);
		if (!lt)
			break;
		i = (size_t)(lt - xml);
		size_t next = xml_skip_other(xml, len, i);
		if (next == SIZE_MAX)
			return xml_error(err, name, i, "unterminated markup");
		if (next) {
			i = next;
			continue;
		}
		xml_tag t;
		int rc = xml_read_tag(&t, xml, len, i, name, err);
		if (rc < 0)
			return rc;
		if (tag_is(&t, "reg"))
			rc = tdesc_add_reg(td, &t, name, err);
		else if (tag_is(&t, "xi:include"))
			rc = tdesc_include(td, &t, fetch, ctx, name, err);
		else if (tag_is(&t, "architecture"))
			rc = tdesc_architecture(td, xml, len, t.end);
		if (rc < 0)
			return rc;
		i = t.end;
	}
	return 0;
}
