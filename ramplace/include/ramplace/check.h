/* check.h: proves on a relinked ELF that a plan landed: every planned function sits inside the
 * plan's output section in the RAM region, the section fits the budget, and nothing planned
 * stayed in flash. */
#ifndef RAMPLACE_CHECK_H
#define RAMPLACE_CHECK_H

#include <stdint.h>
#include <stddef.h>
#include "ramplace/error.h"
#include "ramplace/image.h"
#include "ramplace/plan.h"

typedef struct rp_check_result {
	char **failures;          /* one line each, e.g. "'crc32' is at 0x00001234 in flash, not in .ramtext" */
	size_t nfailures;
	uint64_t outsec_size;     /* bytes of the output section in the relinked ELF */
	uint64_t planned_bytes;   /* plan->used */
	size_t nveneers;          /* __*_veneer symbols found inside the output section */
	size_t nfuncs_checked;
	size_t nfuncs_placed;     /* of those, found inside the output section (and region) */
} rp_check_result;

/* Fills res; returns 0 when the check could be done (even with failures), negative on error. */
int rp_check_run(const rp_image *relinked, const rp_plan *plan, rp_check_result *res, rp_err *err);
void rp_check_result_release(rp_check_result *res);

#endif
