/* runtime.h: the host side of ramplace's target-side sampling runtime (ramplace/runtime/):
 * decodes the `ramplace_profile` descriptor and the histogram read from target memory, and
 * turns them into gmon.out bytes, exactly as the runtime itself writes them over semihosting
 * (glibc's format in the target's byte order; 32-bit targets).
 *
 * The descriptor and everything it points to come from the target: untrusted. The decoder
 * checks the magic, the version and that sizes and addresses are consistent and bounded before
 * anything is read or allocated from them. */
#ifndef RAMPLACE_RUNTIME_H
#define RAMPLACE_RUNTIME_H

#include <stddef.h>
#include <stdint.h>
#include "ramplace/error.h"
#include "ramplace/rsp.h"

#define RP_RUNTIME_SYMBOL "ramplace_profile"
#define RP_RUNTIME_READY_SYMBOL "ramplace_profile_ready"
#define RP_RUNTIME_MAGIC 0x46505052u
#define RP_RUNTIME_VERSION 1u
#define RP_RUNTIME_DESC_SIZE 64       /* 16 words */
#define RP_RUNTIME_MAX_BINS (1u << 22) /* 8 MiB of bins: more than any MCU's RAM */
#define RP_RUNTIME_MAX_ARCS (1u << 20)
#define RP_RUNTIME_ARC_SIZE 12

/* The descriptor, fields as in ramplace_profile.h (struct ramplace_profile_state). */
typedef struct rp_runtime_desc {
	uint32_t magic, version, low_pc, high_pc, nbins, shift, rate_hz, running;
	uint32_t ticks, outside, saturated, bins_addr, arcs_addr, narcs, arcs_lost, prng;
} rp_runtime_desc;

typedef struct rp_runtime_arc {
	uint32_t from_pc, self_pc, count;
} rp_runtime_arc;

/* A histogram read from a target: the descriptor, the bins (host order) and the arcs in use. */
typedef struct rp_runtime_profile {
	rp_runtime_desc desc;
	uint16_t *bins;          /* desc.nbins */
	rp_runtime_arc *arcs;    /* slots with a nonzero count */
	size_t narcs;
	uint64_t samples;        /* sum of the bins */
} rp_runtime_profile;

void rp_runtime_profile_init(rp_runtime_profile *p);
void rp_runtime_profile_release(rp_runtime_profile *p);

/* Decodes and validates RP_RUNTIME_DESC_SIZE bytes in the given byte order. Fails with
 * RP_EINPUT "<name>: <what>" when profile_on never ran (no magic), for another version, or for
 * inconsistent fields (high_pc != low_pc + nbins << shift, too many bins, ...). */
int rp_runtime_desc_parse(rp_runtime_desc *d, const unsigned char *buf, size_t len, int big_endian,
			  const char *name, rp_err *err);

/* Decodes the bins (2 bytes each) and arc slots (12 bytes each) read from the target into p,
 * whose desc is already set; keeps the arcs with a nonzero count. */
int rp_runtime_profile_decode(rp_runtime_profile *p, const unsigned char *bins, size_t bins_len,
			      const unsigned char *arcs, size_t arcs_len, int big_endian,
			      const char *name, rp_err *err);

/* Reads the descriptor at desc_addr, then the bins and arcs, from the halted target. */
int rp_runtime_fetch(rp_runtime_profile *p, rp_rsp *rsp, uint64_t desc_addr, int big_endian,
		     rp_err *err);

/* Zeroes the target's bins, arc table and counters (ticks, outside, saturated, arcs_lost);
 * zeros need no byte order. */
int rp_runtime_reset(rp_rsp *rsp, const rp_runtime_profile *p, uint64_t desc_addr, rp_err *err);

/* The gmon.out image of p (header, one GMON_TAG_TIME_HIST record, one GMON_TAG_CG_ARC record
 * per arc), 32-bit addresses in the given byte order. *out is the caller's to free. */
int rp_runtime_gmon(unsigned char **out, size_t *len, const rp_runtime_profile *p, int big_endian,
		    rp_err *err);

#endif
