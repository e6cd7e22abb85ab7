/* runtime.c: host side of the target-side sampling runtime: the descriptor decoder, the fetch
 * of the histogram through a gdbserver, the reset, and the gmon.out writer (runtime.h). Owns
 * the bins and arcs of an rp_runtime_profile. The target's data is untrusted: every size is
 * checked against the descriptor and capped before it is allocated or read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/runtime.h"

#define GMON_HDR_SIZE 20
#define GMON_HIST_HDR_SIZE 33 /* tag, low_pc, high_pc, hist_size, prof_rate, dimen[15], abbrev */
#define GMON_ARC_REC_SIZE 13  /* tag, from_pc, self_pc, count */

static uint32_t get32(const unsigned char *p, int be)
{
	return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
		  : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static void put32(unsigned char *p, uint32_t v, int be)
{
	for (int i = 0; i < 4; i++)
		p[be ? 3 - i : i] = (unsigned char)(v >> (8 * i));
}

void rp_runtime_profile_init(rp_runtime_profile *p)
{
	memset(p, 0, sizeof(*p));
}

void rp_runtime_profile_release(rp_runtime_profile *p)
{
	free(p->bins);
	free(p->arcs);
	rp_runtime_profile_init(p);
}

static int desc_check(const rp_runtime_desc *d, const char *name, rp_err *err)
{
	if (d->magic != RP_RUNTIME_MAGIC)
		return rp_err_set(err, RP_EINPUT, "%s: no profile: magic 0x%08x instead of 0x%08x (has profile_on run?)",
				  name, d->magic, RP_RUNTIME_MAGIC);
	if (d->version != RP_RUNTIME_VERSION)
		return rp_err_set(err, RP_EINPUT, "%s: descriptor version %u; this ramplace reads version %u",
				  name, d->version, RP_RUNTIME_VERSION);
	if (d->nbins == 0 || d->nbins > RP_RUNTIME_MAX_BINS)
		return rp_err_set(err, RP_EINPUT, "%s: %u bins (expected 1..%u)", name, d->nbins, RP_RUNTIME_MAX_BINS);
	if (d->shift == 0 || d->shift > 24)
		return rp_err_set(err, RP_EINPUT, "%s: bucket shift %u (expected 1..24)", name, d->shift);
	uint64_t span = (uint64_t)d->nbins << d->shift;
	if ((uint64_t)d->low_pc + span != d->high_pc)
		return rp_err_set(err, RP_EINPUT, "%s: high_pc 0x%08x is not low_pc 0x%08x + %u bins x %u bytes",
				  name, d->high_pc, d->low_pc, d->nbins, 1u << d->shift);
	if (d->bins_addr == 0 || (uint64_t)d->bins_addr + 2ull * d->nbins > 0x100000000ull)
		return rp_err_set(err, RP_EINPUT, "%s: bins at 0x%08x do not fit the address space", name, d->bins_addr);
	if (d->narcs > RP_RUNTIME_MAX_ARCS || (d->narcs && (d->arcs_addr == 0 ||
	    (uint64_t)d->arcs_addr + (uint64_t)RP_RUNTIME_ARC_SIZE * d->narcs > 0x100000000ull)))
		return rp_err_set(err, RP_EINPUT, "%s: %u arc slots at 0x%08x (expected at most %u, inside the address space)",
				  name, d->narcs, d->arcs_addr, RP_RUNTIME_MAX_ARCS);
	if (d->rate_hz == 0)
		return rp_err_set(err, RP_EINPUT, "%s: sampling rate 0 Hz", name);
	return 0;
}

int rp_runtime_desc_parse(rp_runtime_desc *d, const unsigned char *buf, size_t len, int big_endian,
			  const char *name, rp_err *err)
{
	if (len < RP_RUNTIME_DESC_SIZE)
		return rp_err_set(err, RP_EINPUT, "%s: descriptor truncated at byte %zu of %d", name, len,
				  RP_RUNTIME_DESC_SIZE);
	uint32_t w[16];
	for (int i = 0; i < 16; i++)
		w[i] = get32(buf + 4 * i, big_endian);
	rp_runtime_desc t = { w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7],
			      w[8], w[9], w[10], w[11], w[12], w[13], w[14], w[15] };
	if (t.magic == __builtin_bswap32(RP_RUNTIME_MAGIC))
		return rp_err_set(err, RP_EINPUT, "%s: descriptor is in the other byte order than the ELF says", name);
	int rc = desc_check(&t, name, err);
	if (rc == 0)
		*d = t;
	return rc;
}

int rp_runtime_profile_decode(rp_runtime_profile *p, const unsigned char *bins, size_t bins_len,
			      const unsigned char *arcs, size_t arcs_len, int big_endian,
			      const char *name, rp_err *err)
{
	const rp_runtime_desc *d = &p->desc;
	if (bins_len != 2ull * d->nbins || arcs_len != (size_t)RP_RUNTIME_ARC_SIZE * d->narcs)
		return rp_err_set(err, RP_EINPUT, "%s: %zu bytes of bins and %zu of arcs for %u bins and %u arc slots",
				  name, bins_len, arcs_len, d->nbins, d->narcs);
	uint16_t *b = malloc(2ull * d->nbins);
	rp_runtime_arc *a = d->narcs ? calloc(d->narcs, sizeof(*a)) : NULL;
	if (!b || (d->narcs && !a)) {
		free(b);
		free(a);
		return rp_err_nomem(err, "decoding the runtime's histogram");
	}
	uint64_t total = 0;
	for (uint32_t i = 0; i < d->nbins; i++) {
		const unsigned char *q = bins + 2 * i;
		b[i] = big_endian ? (uint16_t)(q[0] << 8 | q[1]) : (uint16_t)(q[1] << 8 | q[0]);
		total += b[i];
	}
	size_t n = 0;
	for (uint32_t i = 0; i < d->narcs; i++) {
		const unsigned char *q = arcs + RP_RUNTIME_ARC_SIZE * i;
		rp_runtime_arc arc = { get32(q, big_endian), get32(q + 4, big_endian), get32(q + 8, big_endian) };
		if (arc.count)
			a[n++] = arc;
	}
	free(p->bins);
	free(p->arcs);
	p->bins = b;
	p->arcs = a;
	p->narcs = n;
	p->samples = total;
	return 0;
}

int rp_runtime_fetch(rp_runtime_profile *p, rp_rsp *rsp, uint64_t desc_addr, int big_endian,
		     rp_err *err)
{
	unsigned char raw[RP_RUNTIME_DESC_SIZE];
	char name[320];
	snprintf(name, sizeof(name), "%s: " RP_RUNTIME_SYMBOL " at 0x%llx", rp_rsp_name(rsp),
		 (unsigned long long)desc_addr);
	int rc = rp_rsp_read_mem(rsp, desc_addr, raw, sizeof(raw), err);
	if (rc == 0)
		rc = rp_runtime_desc_parse(&p->desc, raw, sizeof(raw), big_endian, name, err);
	if (rc < 0)
		return rc;
	size_t blen = 2ull * p->desc.nbins, alen = (size_t)RP_RUNTIME_ARC_SIZE * p->desc.narcs;
	unsigned char *bins = malloc(blen), *arcs = malloc(alen ? alen : 1);
	if (!bins || !arcs)
		rc = rp_err_nomem(err, "reading the runtime's histogram");
	if (rc == 0)
		rc = rp_rsp_read_mem(rsp, p->desc.bins_addr, bins, blen, err);
	if (rc == 0 && alen)
		rc = rp_rsp_read_mem(rsp, p->desc.arcs_addr, arcs, alen, err);
	if (rc == 0)
		rc = rp_runtime_profile_decode(p, bins, blen, arcs, alen, big_endian, name, err);
	free(bins);
	free(arcs);
	return rc;
}

int rp_runtime_reset(rp_rsp *rsp, const rp_runtime_profile *p, uint64_t desc_addr, rp_err *err)
{
	const rp_runtime_desc *d = &p->desc;
	size_t blen = 2ull * d->nbins, alen = (size_t)RP_RUNTIME_ARC_SIZE * d->narcs;
	size_t zlen = blen > alen ? blen : alen;
	unsigned char *zeros = calloc(1, zlen > 16 ? zlen : 16);
	if (!zeros)
		return rp_err_nomem(err, "resetting the runtime's histogram");
	int rc = rp_rsp_write_mem(rsp, d->bins_addr, zeros, blen, err);
	if (rc == 0 && alen) /* a zero count frees a slot */
		rc = rp_rsp_write_mem(rsp, d->arcs_addr, zeros, alen, err);
	/* ticks, outside, saturated: words 8..10 */
	if (rc == 0)
		rc = rp_rsp_write_mem(rsp, desc_addr + 4 * 8, zeros, 12, err);
	if (rc == 0)
		rc = rp_rsp_write_mem(rsp, desc_addr + 4 * 14, zeros, 4, err); /* arcs_lost */
	free(zeros);
	return rc;
}

int rp_runtime_gmon(unsigned char **out, size_t *len, const rp_runtime_profile *p, int big_endian,
		    rp_err *err)
{
	const rp_runtime_desc *d = &p->desc;
	size_t n = GMON_HDR_SIZE + GMON_HIST_HDR_SIZE + 2ull * d->nbins + GMON_ARC_REC_SIZE * p->narcs;
	unsigned char *g = calloc(1, n);
	if (!g)
		return rp_err_nomem(err, "writing gmon.out");
	memcpy(g, "gmon", 4);
	put32(g + 4, 1, big_endian); /* GMON_VERSION, then 12 spare bytes */
	unsigned char *r = g + GMON_HDR_SIZE;
	r[0] = 0; /* GMON_TAG_TIME_HIST */
	put32(r + 1, d->low_pc, big_endian);
	put32(r + 5, d->high_pc, big_endian);
	put32(r + 9, d->nbins, big_endian);
	put32(r + 13, d->rate_hz, big_endian);
	memcpy(r + 17, "seconds", 7); /* dimen[15], NUL padded */
	r[32] = 's';
	r += GMON_HIST_HDR_SIZE;
	for (uint32_t i = 0; i < d->nbins; i++, r += 2) {
		r[big_endian ? 0 : 1] = (unsigned char)(p->bins[i] >> 8);
		r[big_endian ? 1 : 0] = (unsigned char)p->bins[i];
	}
	for (size_t i = 0; i < p->narcs; i++, r += GMON_ARC_REC_SIZE) {
		r[0] = 1; /* GMON_TAG_CG_ARC */
		put32(r + 1, p->arcs[i].from_pc, big_endian);
		put32(r + 5, p->arcs[i].self_pc, big_endian);
		put32(r + 9, p->arcs[i].count, big_endian);
	}
	*out = g;
	*len = n;
	return 0;
}
