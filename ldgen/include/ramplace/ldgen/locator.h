/* locator.h: how an emitter learns where a planned function is defined in the sources.
 *
 * ldgen knows plans, not ELF files or DWARF: the emitters that want source files or lines (the
 * Zephyr dialect, the attribute emitter) ask a locator, which the caller builds on what it has
 * (the CLI: the ELF's symbols and DWARF, ramplace/cli/cli_srcloc.c). */
#ifndef RAMPLACE_LDGEN_LOCATOR_H
#define RAMPLACE_LDGEN_LOCATOR_H

#include "ramplace/error.h"

/* Where a function is defined. The strings belong to the locator and stay valid until its next
 * call (or until the caller releases it). */
typedef struct rp_ldgen_loc {
	const char *name;        /* the function's source name ("foo" for the clone foo.part.0) */
	const char *cu_file;     /* the compiled source file, absolute when known */
	const char *decl_file;   /* the file of the definition, absolute likewise; NULL when unknown */
	int decl_line;           /* 1-based; 0 when unknown */
} rp_ldgen_loc;

/* What locate returns besides 0 (found, *loc filled) and a negative rp_code (err filled). */
enum {
	RP_LDGEN_LOC_NO_FUNC = 1,   /* no such function in the firmware */
	RP_LDGEN_LOC_NO_DEBUG = 2,  /* no debug information describes it (library code?) */
};

typedef struct rp_ldgen_locator {
	/* Finds func; file is its defining file for a static, NULL for a global (as in the plan). */
	int (*locate)(void *ctx, const char *func, const char *file, rp_ldgen_loc *loc, rp_err *err);
	void *ctx;
} rp_ldgen_locator;

#endif
