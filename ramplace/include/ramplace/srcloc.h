/* srcloc.h: where a function of a firmware ELF comes from in the sources, read from its DWARF
 * with libdw: the compilation unit's source file and the function's declaration file and line
 * (DW_AT_decl_file / DW_AT_decl_line of the DW_TAG_subprogram, through abstract origins, so a
 * compiler clone such as foo.part.0 leads back to foo's definition). */
#ifndef RAMPLACE_SRCLOC_H
#define RAMPLACE_SRCLOC_H

#include <stdint.h>
#include "ramplace/error.h"

typedef struct rp_dwarf rp_dwarf;

typedef struct rp_srcloc {
	char *name;        /* the subprogram's name ("foo" for foo.part.0) */
	char *cu_file;     /* the compiled source file, absolute when the DWARF says where */
	char *decl_file;   /* the file of the definition, absolute likewise */
	int decl_line;     /* 1-based; 0 when unknown */
} rp_srcloc;

/* Opens the DWARF of an ELF. Fails with "<path>: no DWARF debug information (build with -g)"
 * when it has none. */
int rp_dwarf_open(rp_dwarf **out, const char *path, rp_err *err);
void rp_dwarf_close(rp_dwarf *dw);

/* Finds the subprogram whose code holds addr. Returns 0 with *loc filled (release it), 1 when
 * no DWARF describes addr (library code built without -g), or a negative code. */
int rp_dwarf_locate(rp_dwarf *dw, uint64_t addr, rp_srcloc *loc, rp_err *err);
void rp_srcloc_release(rp_srcloc *loc);

#endif
