/* samples.h: an in-memory histogram of program-counter samples and caller->callee arcs for one
 * run, before it is symbolized against an image and written to profile.db in one transaction.
 * Collectors (record, import) fill it; profiledb consumes it. */
#ifndef RAMPLACE_SAMPLES_H
#define RAMPLACE_SAMPLES_H

#include <stdint.h>
#include <stddef.h>
#include "ramplace/error.h"

typedef struct rp_pc_count {
	uint64_t pc;
	uint64_t count;
} rp_pc_count;

typedef struct rp_arc_count {
	uint64_t from_pc;  /* return address (LR/ra) or call site */
	uint64_t self_pc;  /* sampled pc in the callee */
	uint64_t count;
} rp_arc_count;

typedef struct rp_samples {
	rp_pc_count *pcs;   /* hash table, open addressing; empty slots have count 0 */
	size_t pcs_cap;
	size_t pcs_used;
	rp_arc_count *arcs; /* plain array, merged on flush */
	size_t narcs, arcs_cap;
	uint64_t total;     /* sum of all pc counts */
	/* Histogram imports (gmon.out) split a bin between the functions it overlaps, so their
	 * counts are stored in units of 1/scale sample to stay exact integers; 0 means 1. */
	uint64_t scale;
	uint64_t taken;     /* samples taken, when it differs from total/scale (gmon: sum of the bins); 0: unknown */
} rp_samples;

void rp_samples_init(rp_samples *s);
void rp_samples_release(rp_samples *s);

/* Adds count samples at pc. */
int rp_samples_add(rp_samples *s, uint64_t pc, uint64_t count, rp_err *err);

/* Adds src's samples, arcs and taken count to dst. Both must count in the same units (scale)
 * unless dst is still empty, in which case it takes src's; otherwise RP_EINPUT naming `name`. */
int rp_samples_merge(rp_samples *dst, const rp_samples *src, const char *name, rp_err *err);

/* Adds a sampled arc. */
int rp_samples_add_arc(rp_samples *s, uint64_t from_pc, uint64_t self_pc, uint64_t count, rp_err *err);

#endif
