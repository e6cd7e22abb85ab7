/* srcloc.h: where a function of a firmware ELF comes from in the sources, read from its DWARF
 * with libdw: the compilation unit's source file and the function's declaration file and line
 * (DW_AT_decl_file / DW_AT_decl_line of the DW_TAG_subprogram, through abstract origins, so a
 * compiler clone such as foo.part.0 leads back to foo's definition). */
#ifndef RAMPLACE_SRCLOC_H
#define RAMPLACE_SRCLOC_H

#include <stdint.h>
#include "ramplace/error.h"
#include "ramplace/image.h"

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

/* Whether a function has an input section of its own, as the compiler's recorded switches
 * (DW_AT_producer of its compilation unit, -grecord-gcc-switches is GCC's default) tell. */
enum {
	RP_FUNCSEC_UNKNOWN = 0, /* its compilation unit proves nothing: an assembler's ("GNU AS"),
				   or a compiler's that recorded no switches */
	RP_FUNCSEC_OWN = 1,     /* compiled with -ffunction-sections: .text.NAME */
	RP_FUNCSEC_SHARED = 2,  /* compiled without: it shares its object's .text */
	RP_FUNCSEC_NONE = 3,    /* no compilation unit covers it: its object has no debug information
				   (built without -g, while a library linked in has some) */
};

/* Fills own[i] (img->nfuncs entries, the caller's) with an RP_FUNCSEC_ value per function of img
 * whose DWARF is dw. Fails only on memory. */
int rp_dwarf_func_sections(unsigned char *own, const rp_image *img, rp_dwarf *dw, rp_err *err);

#endif
