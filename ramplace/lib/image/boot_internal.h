/* boot_internal.h: what the pieces of the reset-path analysis share (boot.h): boot.c walks,
 * boot_bounds.c knows what names a copied section, boot_vectors.c where the walk starts.
 * Private to lib/image. */
#ifndef RAMPLACE_BOOT_INTERNAL_H
#define RAMPLACE_BOOT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ramplace/disasm.h"
#include "ramplace/elfsyms.h"
#include "ramplace/image.h"

/* The addresses that name a copied code section: where it runs (start, end) and where it is
 * loaded from in flash; BOUND_ANY when the section is not in the ELF, so no telling. */
enum { BOUND_ANY, BOUND_RUN, BOUND_LOAD };

typedef struct bounds {
	uint64_t v[64];
	int kind[64];
	size_t n;
} bounds;

/* One function's instructions, in address order. */
typedef struct insns {
	rp_insn *v;
	size_t n, cap;
	rp_err *err;
} insns;

/* Every symbol's address (not numbers, files or sections), sorted, each once: where a table
 * ends. Sorted on the first question only (boot_next_symbol): most reset paths never ask, and
 * sorting 200,000 symbols was a twentieth of `place`. */
typedef struct boot_symaddrs {
	const rp_elfsyms *syms;
	uint64_t *addrs;          /* owned once built */
	size_t n;
	int built;                /* 1 built, -1 no memory (then every table is read one word long) */
} boot_symaddrs;

/* What boot_copy_refs reads: the image, the bounds, the symbols' addresses. */
typedef struct boot_refs {
	const rp_image *img;
	const bounds *b;
	boot_symaddrs *symaddrs;
} boot_refs;

/* The bounds of the code sections outsecs names: from the __NAME_start/_end/_load-style symbols
 * and the section headers. */
void boot_collect_bounds(bounds *b, const rp_image *img, const rp_elfsyms *syms, const char *const *outsecs,
			 size_t noutsecs);
/* Whether is copies a section: it refers to where one loads and where it runs (or, no telling,
 * to two distinct bounds); marks in is_ref the instructions reading the load address and in
 * is_bound every one naming a bound. */
int boot_copy_refs(const boot_refs *w, const insns *is, unsigned char *is_ref, unsigned char *is_bound);
/* Frees the addresses boot_symaddrs built. */
void boot_symaddrs_release(boot_symaddrs *a);
/* The reset handler: the vector table's, the ELF entry's, or Reset_Handler/_start; how says
 * which. NULL when none. */
const rp_func *boot_find_reset(const rp_image *img, const rp_elfsyms *syms, char *how, size_t howlen);

#endif
