/* import_prof.c: "offset count" sample files in the style of the Itsy profiler's profd (see
 * import.h, docs/import-formats.md): a header of `key value` lines, then `offset count` lines
 * where offset is a hex byte offset into the executable file, mapped to an address through the
 * ELF's program headers; and the file names `name-imageid[-pid].prof` that tie a file to its
 * image. Owns nothing beyond a call. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/import.h"
#include "ramplace/util.h"

typedef struct pline {
	const char *p, *end;
	size_t lineno, offset;
} pline;

static int bad(const char *name, const pline *l, const char *what, rp_err *err)
{
	int shown = (int)(l->end - l->p > 60 ? 60 : l->end - l->p);
	return rp_err_set(err, RP_EINPUT, "%s: line %zu (byte %zu): %s: '%.*s%s'", name, l->lineno, l->offset,
			  what, shown, l->p, l->end - l->p > 60 ? "..." : "");
}

static int parse_uint(const char **p, const char *end, int base, uint64_t *out)
{
	uint64_t v = 0;
	const char *q = *p;
	int digits = 0;
	if (base == 16 && end - q >= 2 && q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))
		q += 2;
	for (; q < end && (base == 16 ? isxdigit((unsigned char)*q) : isdigit((unsigned char)*q)); q++, digits++) {
		int d = isdigit((unsigned char)*q) ? *q - '0' : tolower((unsigned char)*q) - 'a' + 10;
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return -1;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	if (!digits)
		return -1;
	*p = q;
	*out = v;
	return 0;
}

/* A header key: a word that is not a number (profd's keys: image, version, ...). */
static int is_key(const char *p, const char *end)
{
	int alpha = 0;
	const char *q = p;
	if (!isalpha((unsigned char)*p) || (end - p > 1 && p[0] == '0'))
		return 0;
	for (; q < end && (isalnum((unsigned char)*q) || *q == '_' || *q == '-' || *q == '.'); q++)
		alpha |= isalpha((unsigned char)*q) && !isxdigit((unsigned char)*q);
	return q > p && alpha && (q == end || *q == ' ' || *q == '\t' || *q == ':');
}

static void header_value(rp_prof_header *h, const char *p, const char *end)
{
	const char *k = p;
	while (p < end && *p != ' ' && *p != '\t' && *p != ':')
		p++;
	size_t klen = (size_t)(p - k);
	while (p < end && (*p == ' ' || *p == '\t' || *p == ':'))
		p++;
	int vlen = (int)(end - p);
	if ((klen == 5 && !memcmp(k, "image", 5)) || (klen == 4 && !memcmp(k, "path", 4)))
		snprintf(h->image, sizeof(h->image), "%.*s", vlen, p);
	else if ((klen == 7 && !memcmp(k, "imageid", 7)) || (klen == 9 && !memcmp(k, "signature", 9)))
		snprintf(h->image_id, sizeof(h->image_id), "%.*s", vlen, p);
	else if (klen == 7 && !memcmp(k, "version", 7))
		snprintf(h->version, sizeof(h->version), "%.*s", vlen, p);
}

int rp_prof_detect(const char *text, size_t len)
{
	rp_lines lines;
	const char *p;
	size_t n;
	rp_lines_init(&lines, text, len);
	while (rp_lines_next(&lines, &p, &n)) {
		const char *e = p + n;
		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		if (p < e && *p != '#' && *p != '\r')
			return is_key(p, e);
	}
	return 0;
}

int rp_import_prof(rp_samples *s, rp_prof_header *h, const rp_image *img, const char *text, size_t len,
		   const char *name, rp_err *err)
{
	rp_lines lines;
	pline l = { 0 };
	int in_header = 1, rc = 0;
	uint64_t data_lines = 0;
	memset(h, 0, sizeof(*h));
	rp_samples scratch;
	rp_samples_init(&scratch);
	rp_lines_init(&lines, text, len);
	const char *p;
	size_t n;
	while (!rc && rp_lines_next(&lines, &p, &n)) {
		l = (pline){ p, p + n, lines.lineno, lines.offset };
		if (!lines.ended) {
			rc = bad(name, &l, "truncated: the last line has no newline", err);
			break;
		}
		if (n && memchr(l.p, '\0', n)) {
			rc = bad(name, &l, "NUL byte in a text file", err);
			break;
		}
		const char *q = l.p;
		while (q < l.end && (*q == ' ' || *q == '\t'))
			q++;
		if (q == l.end || *q == '#')
			continue;
		if (in_header && is_key(q, l.end)) {
			header_value(h, q, l.end);
			continue;
		}
		in_header = 0;
		uint64_t off, count, addr;
		if (parse_uint(&q, l.end, 16, &off) || q == l.end || (*q != ' ' && *q != '\t')) {
			rc = bad(name, &l, "expected 'hex-offset decimal-count'", err);
			break;
		}
		while (q < l.end && (*q == ' ' || *q == '\t'))
			q++;
		if (parse_uint(&q, l.end, 10, &count) || q != l.end) {
			rc = bad(name, &l, "expected 'hex-offset decimal-count'", err);
			break;
		}
		if (count > INT64_MAX || scratch.total + count > INT64_MAX) {
			rc = bad(name, &l, "count too large", err);
			break;
		}
		if (img && img->nsegments) {
			rp_err why = RP_ERR_INIT;
			if (rp_image_offset_to_addr(img, off, &addr, &why)) {
				rc = bad(name, &l, "offset is in no loadable segment of the ELF", err);
				break;
			}
		} else {
			addr = off;   /* no ELF for this image: kept as file offsets under "<unknown>" */
		}
		data_lines++;
		rc = rp_samples_add(&scratch, addr, count, err);
	}
	if (!rc && scratch.total == 0)
		rc = rp_err_set(err, RP_EINPUT, "%s: byte %zu: no 'offset count' lines with samples", name, len);
	if (!rc)
		rc = rp_samples_merge(s, &scratch, name, err);
	rp_samples_release(&scratch);
	return rc;
}

static int is_id(const char *p, size_t n)
{
	if (n != 8)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)p[i]))
			return 0;
	return 1;
}

/* profd names files name-imageid[-pid].prof, the image id being 8 hex digits. */
int rp_prof_name_parse(const char *path, char *image, size_t image_size, char *image_id, size_t id_size)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(base);
	if (n < 6 || strcmp(base + n - 5, ".prof") != 0)
		return -1;
	n -= 5;
	const char *last = memrchr(base, '-', n);
	if (!last)
		return -1;
	size_t last_len = (size_t)(base + n - last - 1);
	const char *id = NULL, *name_end = NULL;
	if (is_id(last + 1, last_len)) {
		id = last + 1;
		name_end = last;
	} else if (last > base) {
		int pid = last_len > 0;
		for (size_t i = 0; i < last_len; i++)
			pid &= isdigit((unsigned char)last[1 + i]) != 0;
		const char *prev = memrchr(base, '-', (size_t)(last - base));
		if (pid && prev && is_id(prev + 1, (size_t)(last - prev - 1))) {
			id = prev + 1;
			name_end = prev;
		}
	}
	if (!id || name_end == base)
		return -1;
	snprintf(image, image_size, "%.*s", (int)(name_end - base), base);
	snprintf(image_id, id_size, "%.8s", id);
	return 0;
}
