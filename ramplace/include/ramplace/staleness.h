/* staleness.h: how much of a profile taken on other builds still fits the ELF being placed.
 *
 * Profiles are stored by function name (and file for statics), so a relink that only moves
 * addresses loses nothing; what is lost are samples of functions that were removed, renamed,
 * inlined away or moved to another file since. This module measures that share and names the
 * functions, guessing renames from compiler clone names, from a static that changed files, and,
 * when the ELF a run was taken on is still on disk with the same build-id, from identical code.
 * Names prove nothing across two different firmwares, so unless at least half of the profile
 * maps by name, a guess needs evidence of the function's own: a static of the same file, or
 * identical code. */
#ifndef RAMPLACE_STALENESS_H
#define RAMPLACE_STALENESS_H

#include <stdint.h>
#include <stddef.h>
#include "ramplace/error.h"
#include "ramplace/image.h"
#include "ramplace/profiledb.h"

typedef struct rp_stale_func {
	char *name;
	char *file;              /* as profiled; NULL for globals */
	uint64_t samples;
	char *now;               /* "bar" or "foo (b.c)" when it looks renamed to that, else NULL */
} rp_stale_func;

typedef struct rp_staleness {
	size_t nimages;          /* builds the profile's runs were taken on */
	size_t nother;           /* of those, builds other than the ELF's */
	uint64_t other_samples;  /* samples recorded on those other builds */
	char *other_build_id;    /* the other build with the most samples, NULL when none */
	char *other_path;        /* and its ELF path as recorded */
	uint64_t profiled;       /* samples attributed to a function ("<unknown>" excluded) */
	uint64_t mapped;         /* of those, in functions the ELF has under the same name */
	rp_stale_func *vanished; /* profiled functions the ELF lacks, most samples first */
	size_t nvanished;
	size_t nrenamed;         /* of those, with a guess in `now` */
} rp_staleness;

/* Compares the profile (its per-build summary and per-function totals) with img. */
int rp_staleness_assess(rp_staleness *out, const rp_image *img, const rp_db_image *images,
			size_t nimages, const rp_db_totals *totals, rp_err *err);
void rp_staleness_release(rp_staleness *s);

/* mapped / profiled, or 1.0 when nothing was profiled. */
double rp_staleness_mapped_share(const rp_staleness *s);

#endif
