/* flashmap.h: several flash timing models at once, one per address range (flashmap.c,
 * docs/cost-models.md "Several flashes"). A part can have two flashes with different timing
 * (an STM32H7's internal flash behind its accelerator and an external QSPI flash in XIP with
 * its own cache; the RP2040's cached XIP window and its no-cache alias): each range gets its
 * own model, and an access is charged by the model of the range holding its address.
 *
 * The map's name is what the QEMU plugin writes as "# model" and what place compares with the
 * profile's: one model without a range is spelled as the model ("ws:5"); otherwise each model
 * with its range, hex, end exclusive, in order: "ws:5@0-200000;cache:rp2040@200000-400000".
 *
 * Pure C11 without the rest of the library, like flashmodel.c: the QEMU plugin compiles it too.
 * Workload: a handful of ranges, looked up once per translated instruction or data read. */
#ifndef RAMPLACE_FLASHMAP_H
#define RAMPLACE_FLASHMAP_H

#include <stddef.h>
#include <stdint.h>
#include "ramplace/flashmodel.h"

#define RP_FM_MAX_RANGES 8

typedef struct rp_fm_range {
	uint64_t lo, hi;     /* [lo, hi); hi 0: everywhere (the single-model shorthand) */
	rp_fm_cfg cfg;
} rp_fm_range;

typedef struct rp_fm_map {
	size_t n;
	rp_fm_range r[RP_FM_MAX_RANGES];
} rp_fm_map;

/* Adds cfg for [lo, hi) (hi 0: everywhere, only as the one entry). Returns 0, or -1 with a
 * one-line reason in why: lo not below hi, a range overlapping an earlier one, too many. */
int rp_fm_map_add(rp_fm_map *m, const rp_fm_cfg *cfg, uint64_t lo, uint64_t hi, char *why, size_t whylen);

/* The index of the range holding addr, or -1 when no range does. */
int rp_fm_map_find(const rp_fm_map *m, uint64_t addr);

/* The map's name (above) into buf; -1 when it does not fit in len bytes. */
int rp_fm_map_name(const rp_fm_map *m, char *buf, size_t len);

/* Parses a name written by rp_fm_map_name (a profile's "ws:5@0-200000;..."). 0, or -1 with
 * a reason in why. */
int rp_fm_map_parse(rp_fm_map *m, const char *name, char *why, size_t whylen);

#endif
