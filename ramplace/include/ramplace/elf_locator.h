/* elf_locator.h: where a planned function is defined, for the emitters that want source files
 * or lines (ldgen/locator.h), read from the firmware ELF's symbols and DWARF (elf_locator.c). */
#ifndef RAMPLACE_ELF_LOCATOR_H
#define RAMPLACE_ELF_LOCATOR_H

#include "ramplace/error.h"
#include "ramplace/image.h"
#include "ramplace/ldgen/locator.h"
#include "ramplace/srcloc.h"

typedef struct rp_elf_locator {
	const rp_image *img;
	rp_dwarf *dw;
	rp_srcloc last;          /* the answer whose strings the locator lent out last */
} rp_elf_locator;

/* Opens the DWARF of img (fails as rp_dwarf_open does). img must outlive s. */
int rp_elf_locator_open(rp_elf_locator *s, const rp_image *img, rp_err *err);
/* Closes s; also one zeroed or whose open failed. */
void rp_elf_locator_close(rp_elf_locator *s);
/* A locator reading s: functions by name in img, their places from its DWARF. */
rp_ldgen_locator rp_elf_locator_get(rp_elf_locator *s);

#endif
