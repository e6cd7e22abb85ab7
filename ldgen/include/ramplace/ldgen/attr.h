/* attr.h: the attribute emitter: a unified diff that marks the definitions of a plan's functions
 * with a section attribute, so that the sources place them without a linker fragment.
 *
 * The definitions are found through a locator (locator.h; the CLI's reads DW_AT_decl_file and
 * DW_AT_decl_line from DWARF). The patch adds `MACRO(name)` in front of each definition,
 * `#include "<header>"` after the file's includes, and creates the header, which defines
 * MACRO(name) as
 * __attribute__((section("<outsec>.name"), noinline, noclone)) (each optional but the section),
 * so the compiler can neither inline nor clone the function back into flash. Paths in the patch
 * are relative to a source root, for `git apply` or `patch -p1` there. */
#ifndef RAMPLACE_LDGEN_ATTR_H
#define RAMPLACE_LDGEN_ATTR_H

#include <stddef.h>
#include "ramplace/ldgen/locator.h"
#include "ramplace/error.h"
#include "ramplace/plan.h"

typedef struct rp_attr_opts {
	const char *root;        /* source tree the patch applies to */
	const char *header;      /* header to create, relative to root; NULL: ramplace_ramfunc.h in
				    the directory of the first annotated file */
	const char *macro;       /* name of the attribute macro */
	int noinline;
	int noclone;
} rp_attr_opts;

#define RP_ATTR_OPTS_INIT { ".", NULL, "RAMPLACE_RAMFUNC", 1, 1 }

typedef struct rp_attr_result {
	char **annotated;        /* "op_add interp.c:40", one per annotated definition */
	size_t nannotated;
	char **skipped;          /* "memcpy: no debug information (library code?)" */
	size_t nskipped;
} rp_attr_result;

/* Builds the patch for plan's functions, whose definitions loc finds. *patch (NUL-terminated,
 * *len bytes, the caller's to free) is empty when nothing can be annotated. Functions loc
 * cannot place, and source files that cannot be read or lie outside the root, are skipped and
 * named in res, not errors; a failure of loc itself is. */
int rp_attr_make_patch(char **patch, size_t *len, rp_attr_result *res, const rp_plan *plan,
		       const rp_ldgen_locator *loc, const rp_attr_opts *opts, rp_err *err);
void rp_attr_result_release(rp_attr_result *res);

/* The header's text for macro and the plan's output section; the caller frees it. */
int rp_attr_header_text(char **out, const rp_attr_opts *opts, const char *outsec, const char *path,
			rp_err *err);

#endif
