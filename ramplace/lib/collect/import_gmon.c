/* import_gmon.c: the gmon.out reader and gprof's bin-to-function crediting (see gmon.h).
 * Every read is bounds-checked against the file; messages name the byte offset of the field
 * or record at fault. Owns the histograms and arcs it reads (rp_gmon_release frees them).
 * Workload: one file of up to a few MiB of bins (16-bit bins over the profiled text). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/gmon.h"
#include "ramplace/util.h"

#define GMON_HEADER_SIZE 20
#define GMON_TAG_TIME_HIST 0
#define GMON_TAG_CG_ARC 1
#define GMON_TAG_BB_COUNT 2
#define GMON_SATURATED 0xffffu

typedef struct reader {
	const unsigned char *p;
	size_t len, off;
	const rp_gmon_opts *o;
	const char *name;
} reader;

void rp_gmon_init(rp_gmon *g)
{
	memset(g, 0, sizeof(*g));
}

void rp_gmon_release(rp_gmon *g)
{
	for (size_t i = 0; i < g->nhists; i++)
		free(g->hists[i].bins);
	free(g->hists);
	free(g->arcs);
	memset(g, 0, sizeof(*g));
}

static int truncated(reader *r, size_t need, const char *what, rp_err *err)
{
	return rp_err_set(err, RP_EINPUT, "%s: byte %zu: truncated: %s needs %zu bytes, %zu left",
			  r->name, r->off, what, need, r->len - r->off);
}

static uint64_t get_uint(const unsigned char *p, size_t n, int big_endian)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * (big_endian ? n - 1 - i : i));
	return v;
}

/* Reads an n-byte unsigned field in the target's byte order. */
static int read_uint(reader *r, size_t n, uint64_t *out, const char *what, rp_err *err)
{
	if (r->len - r->off < n)
		return truncated(r, n, what, err);
	*out = get_uint(r->p + r->off, n, r->o->big_endian);
	r->off += n;
	return 0;
}

static int check_header(reader *r, rp_err *err)
{
	if (r->len < 4 || memcmp(r->p, "gmon", 4) != 0)
		return rp_err_set(err, RP_EINPUT, "%s: byte 0: not a gmon.out file (no \"gmon\" cookie)", r->name);
	if (r->len < GMON_HEADER_SIZE)
		return rp_err_set(err, RP_EINPUT, "%s: byte %zu: truncated: the header needs %d bytes",
				  r->name, r->len, GMON_HEADER_SIZE);
	uint64_t version = get_uint(r->p + 4, 4, r->o->big_endian);
	uint64_t swapped = get_uint(r->p + 4, 4, !r->o->big_endian);
	if (version != 1 && swapped == 1)
		return rp_err_set(err, RP_EINPUT, "%s: byte 4: version is 1 in %s byte order, but the ELF is %s: "
				  "profile and ELF do not match", r->name, r->o->big_endian ? "little" : "big",
				  r->o->big_endian ? "big-endian" : "little-endian");
	if (version != 1)
		return rp_err_set(err, RP_EINPUT, "%s: byte 4: gmon version %llu; only version 1 is known",
				  r->name, (unsigned long long)version);
	r->off = GMON_HEADER_SIZE;
	return 0;
}

static double hist_scale(const rp_gmon_hist *h)
{
	/* gprof: (double)((highpc - lowpc) / sizeof(UNIT)) / num_bins, with 2-byte UNITs */
	return (double)((h->highpc - h->lowpc) / 2) / h->nbins;
}

/* gprof requires every histogram to share the first one's scale, dimension and abbreviation;
 * records for the same range are summed. Returns the record to add into, or NULL for a new one. */
static int match_hist(rp_gmon *g, const rp_gmon_hist *h, rp_gmon_hist **same, const char *name,
		      rp_err *err)
{
	*same = NULL;
	if (g->nhists == 0)
		return 0;
	const rp_gmon_hist *first = &g->hists[0];
	if (strcmp(first->dimen, h->dimen) != 0 || first->abbrev != h->abbrev)
		return rp_err_set(err, RP_EINPUT, "%s: byte %zu: histogram dimension '%s' differs from '%s' of the record at byte %zu",
				  name, h->offset, h->dimen, first->dimen, first->offset);
	for (size_t i = 0; i < g->nhists; i++) {
		rp_gmon_hist *o = &g->hists[i];
		int overlaps = h->lowpc < o->highpc && o->lowpc < h->highpc;
		if (fabs(hist_scale(o) - hist_scale(h)) > 0.000001)
			return rp_err_set(err, RP_EINPUT, "%s: byte %zu: histogram [0x%llx, 0x%llx) %s the record at byte %zu with a different scale (%.4g against %.4g bytes per bin)",
					  name, h->offset, (unsigned long long)h->lowpc, (unsigned long long)h->highpc,
					  overlaps ? "overlaps" : "does not share the scale of", o->offset,
					  2 * hist_scale(h), 2 * hist_scale(o));
		if (o->lowpc == h->lowpc && o->highpc == h->highpc && o->nbins == h->nbins)
			*same = o;
	}
	return 0;
}

static int read_hist(rp_gmon *g, reader *r, rp_err *err)
{
	rp_gmon_hist h;
	uint64_t nbins, rate;
	memset(&h, 0, sizeof(h));
	h.offset = r->off - 1;
	size_t ab = (size_t)r->o->addr_bytes;
	if (read_uint(r, ab, &h.lowpc, "the histogram's low_pc", err) ||
	    read_uint(r, ab, &h.highpc, "the histogram's high_pc", err) ||
	    read_uint(r, 4, &nbins, "the histogram's bin count", err) ||
	    read_uint(r, 4, &rate, "the histogram's profiling rate", err))
		return err->code;
	if (r->len - r->off < 16)
		return truncated(r, 16, "the histogram's dimension", err);
	memcpy(h.dimen, r->p + r->off, 15);
	h.abbrev = (char)r->p[r->off + 15];
	r->off += 16;
	h.nbins = (uint32_t)nbins;
	h.rate = (uint32_t)rate;
	if (nbins == 0)
		return rp_err_set(err, RP_EINPUT, "%s: byte %zu: histogram with zero bins", r->name, h.offset);
	if (h.highpc <= h.lowpc || (h.highpc - h.lowpc) / 2 == 0)
		return rp_err_set(err, RP_EINPUT, "%s: byte %zu: histogram range [0x%llx, 0x%llx) is empty or reversed",
				  r->name, h.offset, (unsigned long long)h.lowpc, (unsigned long long)h.highpc);
	if ((r->len - r->off) / 2 < nbins)
		return rp_err_set(err, RP_EINPUT, "%s: byte %zu: truncated: histogram declares %llu bins (%llu bytes), %zu bytes left",
				  r->name, r->off, (unsigned long long)nbins, (unsigned long long)nbins * 2, r->len - r->off);
	rp_gmon_hist *into;
	if (match_hist(g, &h, &into, r->name, err))
		return err->code;
	if (!into) {
		if (rp_grow((void **)&g->hists, &g->hists_cap, g->nhists + 1, sizeof(*g->hists), err))
			return err->code;
		if (!(h.bins = calloc(nbins, sizeof(*h.bins))))
			return rp_err_nomem(err, "reading a histogram");
		g->hists[g->nhists++] = h;
		into = &g->hists[g->nhists - 1];
	}
	int bins_be = r->o->bins_little_endian ? 0 : r->o->big_endian;
	for (uint64_t i = 0; i < nbins; i++, r->off += 2) {
		uint64_t c = get_uint(r->p + r->off, 2, bins_be);
		into->bins[i] += c;
		g->nsamples += c;
		g->saturated += c == GMON_SATURATED;
	}
	return 0;
}

static int read_arc(rp_gmon *g, reader *r, rp_err *err)
{
	rp_gmon_arc a;
	size_t ab = (size_t)r->o->addr_bytes;
	if (read_uint(r, ab, &a.from_pc, "the arc's from_pc", err) ||
	    read_uint(r, ab, &a.self_pc, "the arc's self_pc", err) ||
	    read_uint(r, 4, &a.count, "the arc's count", err))
		return err->code;
	if (rp_grow((void **)&g->arcs, &g->arcs_cap, g->narcs + 1, sizeof(*g->arcs), err))
		return err->code;
	g->arcs[g->narcs++] = a;
	return 0;
}

static int read_bb(rp_gmon *g, reader *r, rp_err *err)
{
	uint64_t n = 0;
	size_t ab = (size_t)r->o->addr_bytes;
	if (read_uint(r, 4, &n, "the basic-block record's count", err))
		return err->code;
	if ((r->len - r->off) / (2 * ab) < n)
		return rp_err_set(err, RP_EINPUT, "%s: byte %zu: truncated: %llu basic-block counts need %llu bytes, %zu left",
				  r->name, r->off, (unsigned long long)n, (unsigned long long)(n * 2 * ab), r->len - r->off);
	r->off += (size_t)n * 2 * ab;
	g->nbb += (size_t)n;
	return 0;
}

int rp_gmon_parse(rp_gmon *g, const void *data, size_t len, const rp_gmon_opts *opts,
		  const char *name, rp_err *err)
{
	reader r = { data, len, 0, opts, name };
	int rc = 0;
	rp_gmon_init(g);
	if (opts->addr_bytes != 4 && opts->addr_bytes != 8)
		return rp_err_set(err, RP_EINPUT, "%s: address size %d: only 4 and 8 are known", name, opts->addr_bytes);
	if ((rc = check_header(&r, err)))
		return rc;
	while (!rc && r.off < r.len) {
		unsigned tag = r.p[r.off++];
		if (tag == GMON_TAG_TIME_HIST)
			rc = read_hist(g, &r, err);
		else if (tag == GMON_TAG_CG_ARC)
			rc = read_arc(g, &r, err);
		else if (tag == GMON_TAG_BB_COUNT)
			rc = read_bb(g, &r, err);
		else
			rc = rp_err_set(err, RP_EINPUT, "%s: byte %zu: unknown record tag %u (0 histogram, 1 arc, 2 basic blocks)",
					name, r.off - 1, tag);
	}
	if (!rc && g->nhists == 0 && g->narcs == 0)
		rc = rp_err_set(err, RP_EINPUT, "%s: byte %zu: no histogram and no call arcs", name, r.off);
	if (rc)
		rp_gmon_release(g);
	return rc;
}

/* gprof's symbol ranges: each distinct function start, in 2-byte units, up to the next one. */
typedef struct sym_range {
	uint64_t low, high;     /* units */
	const rp_func *f;
} sym_range;

static int build_ranges(sym_range **out, size_t *n, const rp_image *img, rp_err *err)
{
	sym_range *r = calloc(img->nfuncs ? img->nfuncs : 1, sizeof(*r));
	size_t k = 0;
	if (!r)
		return rp_err_nomem(err, "splitting histogram bins");
	for (size_t i = 0; i < img->nfuncs; i++) {
		const rp_func *f = &img->funcs[i];
		if (k && r[k - 1].f->addr == f->addr)
			continue;  /* an alias: the earlier one (globals first) stands */
		if (k)
			r[k - 1].high = f->addr / 2;
		r[k++] = (sym_range){ f->addr / 2, (f->addr + f->size + 1) / 2, f };
	}
	*out = r;
	*n = k;
	return 0;
}

/* An address inside f for a credit starting at unit u, so that symbolizing it finds f even
 * when u lies in the alignment padding gprof counts to the function before it. */
static uint64_t pc_in(const rp_func *f, uint64_t u)
{
	uint64_t pc = u * 2;
	if (pc < f->addr)
		pc = f->addr;
	if (f->size && pc - f->addr >= f->size)
		pc = f->addr + f->size - 1;
	return pc;
}

static int credit(rp_samples *s, uint64_t pc, uint64_t overlap, uint64_t count, uint64_t nbins,
		  const char *name, rp_err *err)
{
	uint64_t v;
	if (__builtin_mul_overflow(overlap, count, &v) || __builtin_mul_overflow(v, nbins, &v) ||
	    v > (uint64_t)INT64_MAX || s->total + v > (uint64_t)INT64_MAX)
		return rp_err_set(err, RP_EINPUT, "%s: histogram too large to store exactly (%llu samples in a bin, %llu bins)",
				  name, (unsigned long long)count, (unsigned long long)nbins);
	return rp_samples_add(s, pc, v, err);
}

static int assign_hist(rp_samples *s, const rp_gmon_hist *h, double scale, uint64_t nbins1,
		       const sym_range *sr, size_t nsr, const char *name, rp_err *err)
{
	uint64_t lowpc = h->lowpc / 2;
	size_t k = 0;
	for (uint32_t i = 0; i < h->nbins; i++) {
		uint64_t c = h->bins[i];
		if (!c)
			continue;
		uint64_t lo = lowpc + (uint64_t)(scale * i), hi = lowpc + (uint64_t)(scale * (i + 1));
		uint64_t covered = 0;
		while (k < nsr && sr[k].high <= lo)
			k++;
		while (k > 0 && sr[k - 1].high > lo)
			k--;
		for (size_t j = k; j < nsr && sr[j].low < hi; j++) {
			uint64_t a = lo > sr[j].low ? lo : sr[j].low, b = hi < sr[j].high ? hi : sr[j].high;
			if (b <= a)
				continue;
			covered += b - a;
			if (credit(s, pc_in(sr[j].f, a), b - a, c, nbins1, name, err))
				return err->code;
		}
		/* outside every function: kept under "<unknown>" at the bin's address */
		if (hi - lo > covered && credit(s, lo * 2, hi - lo - covered, c, nbins1, name, err))
			return err->code;
	}
	return 0;
}

int rp_gmon_to_samples(rp_samples *s, const rp_gmon *g, const rp_image *img, const char *name,
		       rp_err *err)
{
	sym_range *sr = NULL;
	size_t nsr = 0;
	int rc = 0;
	/* credit = overlap * count / scale with scale = R / N (first record: R units, N bins), so
	 * overlap * count * N is exact in units of 1/R sample */
	if (g->nhists) {
		const rp_gmon_hist *first = &g->hists[0];
		s->scale = (first->highpc - first->lowpc) / 2;
		if ((rc = build_ranges(&sr, &nsr, img, err)))
			return rc;
		for (size_t i = 0; !rc && i < g->nhists; i++)
			rc = assign_hist(s, &g->hists[i], hist_scale(first), first->nbins, sr, nsr, name, err);
		free(sr);
	}
	s->taken = g->nsamples;
	for (size_t i = 0; !rc && i < g->narcs; i++)
		rc = rp_samples_add_arc(s, g->arcs[i].from_pc, g->arcs[i].self_pc, g->arcs[i].count, err);
	return rc;
}
