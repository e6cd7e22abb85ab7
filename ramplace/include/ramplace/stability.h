/* stability.h: how good is this profile? Bootstrap resampling of a profile's samples to tell how
 * far the placement chosen from it may be from the one an endless profile would give.
 *
 * The profile's n samples over k placeable items (functions with their clones, at their sizes)
 * and one "rest" bucket (samples no item can take) are treated as the truth; each resample draws
 * m = scale x n samples from it (multinomial) and re-solves the exact knapsack (knapsack.h) at
 * the same capacity. At scale 1 the spread says how much the choice depends on sampling noise:
 * the share of resamples choosing exactly the reference set, their mean Jaccard index with it,
 * each item's inclusion frequency, and the value (under the profile) that their choices keep of
 * the reference optimum. Scales above 1 ask how the choice would settle with more samples of the
 * same distribution, which estimates how much longer to record. The seed is fixed, so the same
 * profile gives the same verdict.
 *
 * The model is the plain knapsack over sampled functions at their symbol sizes: no veneers,
 * boot-path exclusions or pins. It measures the profile's noise, not the link's details. */
#ifndef RAMPLACE_STABILITY_H
#define RAMPLACE_STABILITY_H

#include <stdint.h>
#include <stddef.h>
#include "ramplace/error.h"
#include "ramplace/image.h"
#include "ramplace/profiledb.h"

typedef struct rp_stab_item {
	uint64_t weight;   /* bytes in RAM */
	uint64_t count;    /* samples */
	const char *name;  /* for reports; not owned */
} rp_stab_item;

/* Resamples are bounded twice: at most RP_STAB_MAX_RESAMPLES per scale, and fewer when the items
 * are many (items x resamples per scale at most RP_STAB_MAX_WORK), so a profile of thousands of
 * functions stays well under a second per scale. */
#define RP_STAB_MAX_RESAMPLES 2000u
#define RP_STAB_MIN_RESAMPLES 50u
#define RP_STAB_MAX_WORK 400000u
#define RP_STAB_MAX_LEVELS 24

typedef struct rp_stab_opts {
	unsigned resamples;   /* per scale (default 200), bounded as above */
	uint64_t seed;        /* of the generator; the default gives reproducible verdicts */
	double same_goal;     /* stable when this share of resamples picks the same set ... */
	double value_goal;    /* ... or when 95 % of them keep at least this share of the value */
	double max_scale;     /* the most samples tried, as a multiple of n (default 1024) */
	int fractions;        /* also resample at n/4 and n/2 (for a detailed report) */
} rp_stab_opts;

#define RP_STAB_OPTS_INIT { .resamples = 200, .seed = 0x5eed5eedu, .same_goal = 0.95, .value_goal = 0.99, \
			    .max_scale = 1024.0, .fractions = 0 }

/* The spread at one sample count. */
typedef struct rp_stab_level {
	double scale;         /* samples per resample as a multiple of n */
	unsigned resamples;
	double same;          /* share of resamples choosing exactly the reference set */
	double jaccard;       /* their mean Jaccard index with the reference set */
	double value_p05;     /* 5th percentile of the value their sets keep of the optimum */
	double value_median;
	int stable;
} rp_stab_level;

typedef struct rp_stability {
	uint64_t capacity;
	uint64_t samples;         /* n: the items' counts plus the rest */
	uint64_t value;           /* the reference optimum's samples */
	unsigned char *chosen;    /* owned, per item: the reference set */
	double *inclusion;        /* owned, per item: share of the scale-1 resamples choosing it */
	size_t nitems, nchosen;
	double share_lo, share_hi; /* 5th and 95th percentile of the reference set's share of the
				      samples across the scale-1 resamples (the spread of its gain) */
	rp_stab_level levels[RP_STAB_MAX_LEVELS]; /* in increasing scale; scale 1 is `at_one` */
	size_t nlevels, at_one;
	int stable;               /* at scale 1 */
	double need_scale;        /* smallest tried scale that is stable; 0: none up to max_scale */
} rp_stability;

/* Resamples items (plus `rest` samples no item takes) at capacity bytes. Fails on memory, on
 * counts whose sum overflows, or as rp_knapsack_solve does. out is released by
 * rp_stability_release, also after a failure. */
int rp_stability_run(rp_stability *out, const rp_stab_item *items, size_t n, uint64_t rest,
		     uint64_t capacity, const rp_stab_opts *opts, rp_err *err);
void rp_stability_release(rp_stability *s);

/* What the profile was taken over, for the advice on how much more to take. */
typedef struct rp_stab_basis {
	double seconds;  /* how long the profile took; 0: unknown (advice in samples) */
	size_t runs;     /* its runs */
	int whole_runs;  /* every run covered the program to its exit: more time adds nothing, more runs do */
} rp_stab_basis;

/* One plain sentence for a decision at capacity bytes: "the 4 KiB choice is stable: 97 % of 200
 * resamples pick the same functions" or "too few samples for a 16 KiB decision (...): record
 * about 40 s more" ("... about 3 more whole runs into the same profile.db" when each run already
 * covered the program; in samples when basis is NULL or its seconds unknown). */
void rp_stability_verdict(char *buf, size_t size, const rp_stability *s, const rp_stab_basis *basis);

/* The items of a profile on an image: each sampled function found in img, its clones (foo.part.0,
 * foo.cold) joined to it, its size rounded up to align; samples of functions the image lacks, of
 * "<unknown>", and of functions under min_share of all samples (those `place` leaves in flash,
 * placement.h) go to rest. names are the units' names, owned by out. */
typedef struct rp_stab_items {
	rp_stab_item *items;
	char **names;
	size_t n;
	uint64_t rest;
	uint64_t total;
} rp_stab_items;

int rp_stab_items_build(rp_stab_items *out, const rp_image *img, const rp_db_totals *totals,
			uint64_t align, double min_share, rp_err *err);
void rp_stab_items_release(rp_stab_items *it);

#endif
