/* boot.h: the reset path. Code that runs before the RAM code sections are copied from flash
 * must stay in flash. This finds the reset handler (vector table, else the ELF entry, else a
 * Reset_Handler/_start symbol), finds where it copies the code section(s) (its last reference
 * to their bounds: __ramtext_start-style symbols or the sections' addresses), and splits its
 * direct callees into those called before the copy is done (including a memcpy-style call
 * that does the copy) and those called after. What must stay in flash is the reset handler,
 * the pre-copy callees and their whole static call closure; when the copy is not found, every
 * direct callee (the safe, old rule). */
#ifndef RAMPLACE_BOOT_H
#define RAMPLACE_BOOT_H

#include <stdint.h>
#include <stddef.h>
#include "ramplace/callgraph.h"
#include "ramplace/error.h"
#include "ramplace/image.h"

typedef struct rp_boot {
	size_t reset;             /* function index, SIZE_MAX when there is none */
	char found_by[64];        /* "the vector table (.vectors)", "the ELF entry point", ... */
	int copy_found;
	uint64_t copy_site;       /* address of the last reference to the code section's bounds */
	size_t *pre, npre;        /* direct callees reached before the copy is done */
	size_t *post, npost;      /* direct callees called after it */
	unsigned char *keep;      /* per function: must stay in flash */
	size_t nkeep;
} rp_boot;

/* outsecs: the output sections holding code that the reset handler copies (".ramtext"...). */
int rp_boot_analyze(rp_boot *out, const rp_image *img, const rp_callgraph *cg, const char *const *outsecs,
		    size_t noutsecs, rp_err *err);
void rp_boot_release(rp_boot *b);

#endif
