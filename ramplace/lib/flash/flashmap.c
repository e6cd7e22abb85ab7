/* flashmap.c: one flash model per address range (flashmap.h). Owns nothing beyond the map
 * value itself (fixed arrays: the QEMU plugin and the library copy it freely). Pure C11 with
 * no other ramplace code, so the plugin names its models exactly as place spells them.
 * Workload: at most RP_FM_MAX_RANGES ranges, searched linearly. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/flashmap.h"

static int say(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (why && len)
		vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -1;
}

int rp_fm_map_add(rp_fm_map *m, const rp_fm_cfg *cfg, uint64_t lo, uint64_t hi, char *why, size_t whylen)
{
	if (m->n >= RP_FM_MAX_RANGES)
		return say(why, whylen, "more than %d flash ranges", RP_FM_MAX_RANGES);
	if (hi == 0 && m->n)
		return say(why, whylen, "a model without a range applies everywhere: it cannot share the flash with "
			   "others");
	if (hi != 0 && lo >= hi)
		return say(why, whylen, "flash range 0x%" PRIx64 "-0x%" PRIx64 ": the start must be below the end", lo, hi);
	for (size_t i = 0; i < m->n; i++) {
		const rp_fm_range *r = &m->r[i];
		if (r->hi == 0)
			return say(why, whylen, "a model without a range applies everywhere: it cannot share the flash with "
				   "others");
		if (lo < r->hi && r->lo < hi)
			return say(why, whylen, "flash range 0x%" PRIx64 "-0x%" PRIx64 " overlaps an earlier one", lo, hi);
	}
	m->r[m->n++] = (rp_fm_range){ lo, hi, *cfg };
	return 0;
}

int rp_fm_map_find(const rp_fm_map *m, uint64_t addr)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->r[i].hi == 0 || (addr >= m->r[i].lo && addr < m->r[i].hi))
			return (int)i;
	return -1;
}

int rp_fm_map_name(const rp_fm_map *m, char *buf, size_t len)
{
	size_t at = 0;
	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < m->n; i++) {
		const rp_fm_range *r = &m->r[i];
		int n = r->hi == 0 ? snprintf(buf + at, len - at, "%s", r->cfg.name)
				   : snprintf(buf + at, len - at, "%s%s@%" PRIx64 "-%" PRIx64, i ? ";" : "", r->cfg.name, r->lo, r->hi);
		if (n < 0 || (size_t)n >= len - at)
			return -1;
		at += (size_t)n;
	}
	return 0;
}

/* "SPEC@LO-HI" (or a bare SPEC, alone) of length n at s. */
static int parse_one(rp_fm_map *m, const char *s, size_t n, char *why, size_t whylen)
{
	char spec[160], *end;
	if (n >= sizeof(spec))
		return say(why, whylen, "a flash model name longer than %zu characters", sizeof(spec) - 1);
	memcpy(spec, s, n);
	spec[n] = '\0';
	char *at = strchr(spec, '@');
	uint64_t lo = 0, hi = 0;
	if (at) {
		*at = '\0';
		lo = strtoull(at + 1, &end, 16);
		if (end == at + 1 || *end != '-' || !end[1])
			return say(why, whylen, "'%s': expected SPEC@LO-HI (hex addresses)", spec);
		const char *h = end + 1;
		hi = strtoull(h, &end, 16);
		if (*end || hi == 0)
			return say(why, whylen, "'%s': expected SPEC@LO-HI (hex addresses, HI above 0)", spec);
	}
	rp_fm_cfg cfg;
	if (rp_fm_parse(&cfg, spec, why, whylen) != 0)
		return -1;
	return rp_fm_map_add(m, &cfg, lo, hi, why, whylen);
}

int rp_fm_map_parse(rp_fm_map *m, const char *name, char *why, size_t whylen)
{
	memset(m, 0, sizeof(*m));
	const char *p = name;
	for (;;) {
		const char *semi = strchr(p, ';');
		size_t n = semi ? (size_t)(semi - p) : strlen(p);
		if (parse_one(m, p, n, why, whylen) != 0)
			return -1;
		if (!semi)
			return 0;
		p = semi + 1;
	}
}
