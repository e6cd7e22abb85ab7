/* gmon.h: gprof's gmon.out, as glibc writes it and binutils' gprof reads it (also what eCos'
 * gprof package and OpenOCD's `profile` command write), read into memory and turned into
 * per-address samples the way gprof credits them.
 *
 * The file: a 20-byte header ("gmon", version 1, 12 spare bytes), then tagged records: 0 a time
 * histogram (low_pc, high_pc, number of bins, profiling rate, 15-byte dimension, 1-byte
 * abbreviation, then 16-bit bins), 1 a call arc (from_pc, self_pc, 32-bit count), 2 basic-block
 * counts (32-bit n, then n pairs of address and count). Addresses and counts are in the
 * target's byte order and address size, which come from the ELF, not from the host. */
#ifndef RAMPLACE_GMON_H
#define RAMPLACE_GMON_H

#include <stddef.h>
#include <stdint.h>
#include "ramplace/error.h"
#include "ramplace/image.h"
#include "ramplace/samples.h"

typedef struct rp_gmon_hist {
	uint64_t lowpc, highpc;
	uint32_t nbins;
	uint32_t rate;          /* profiling rate: samples per dimension unit (Hz for seconds) */
	char dimen[16];         /* "seconds", NUL-terminated */
	char abbrev;            /* 's' */
	uint64_t *bins;         /* nbins counts; records with the same range are summed here */
	size_t offset;          /* byte offset of the (first) record, for messages */
} rp_gmon_hist;

typedef struct rp_gmon_arc {
	uint64_t from_pc, self_pc, count;
} rp_gmon_arc;

typedef struct rp_gmon {
	rp_gmon_hist *hists;
	size_t nhists, hists_cap;
	rp_gmon_arc *arcs;
	size_t narcs, arcs_cap;
	size_t nbb;             /* basic-block counts read (validated, not used for time) */
	uint64_t saturated;     /* bins stuck at 65535: 16-bit counters that overflowed */
	uint64_t nsamples;      /* sum of every bin */
} rp_gmon;

typedef struct rp_gmon_opts {
	int addr_bytes;         /* 4 or 8: the ELF class */
	int big_endian;         /* the ELF's byte order */
	int bins_little_endian; /* OpenOCD writes its bins little-endian whatever the target */
} rp_gmon_opts;

void rp_gmon_init(rp_gmon *g);
void rp_gmon_release(rp_gmon *g);

/* Parses a whole gmon.out. Fails with "<name>: byte N: <what>" on a short, wrong-endian,
 * zero-bin, overlapping-with-another-scale or otherwise malformed file; g is then empty. */
int rp_gmon_parse(rp_gmon *g, const void *data, size_t len, const rp_gmon_opts *opts,
		  const char *name, rp_err *err);

/* Credits every bin to the functions of img it overlaps, in proportion to the overlap, exactly
 * as gprof's hist_assign_samples does (a function extends to the next function's start, bin
 * edges in 2-byte units). Counts land in s in units of 1/s->scale sample; s->scale is set
 * (s must be empty) and s->taken is the sum of the bins. Arcs are added as they are. */
int rp_gmon_to_samples(rp_samples *s, const rp_gmon *g, const rp_image *img, const char *name,
		       rp_err *err);

#endif
