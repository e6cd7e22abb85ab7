/* dialects.h: emitters for linkers and build systems other than GNU ld, from the same plan.
 *
 *  lld     a fragment ld.lld accepts inside the same .ramtext output section (GNU ld's ":file"
 *          form, "not in an archive", is written as the plain file name, which is how lld
 *          names such files)
 *  esp-idf an ESP-IDF linker fragment (.lf): one [mapping] per archive, "obj:symbol (noflash)"
 *  zephyr  CMake lines for Zephyr's code relocation:
 *          zephyr_code_relocate(FILES src.c FILTER "^[.]text[.](a|b)$" LOCATION SRAM_TEXT)
 *
 * Each writes path atomically. Patterns come from a plan file and are hostile: each is parsed
 * (rp_ld_pattern_parse) before it is written anywhere. */
#ifndef RAMPLACE_LDGEN_DIALECTS_H
#define RAMPLACE_LDGEN_DIALECTS_H

#include "ramplace/error.h"
#include "ramplace/image.h"
#include "ramplace/plan.h"
#include "ramplace/srcloc.h"

/* One exact input-section pattern as `ramplace place` writes them. */
typedef struct rp_ld_pattern {
	int any_dir;        /* starts with "*" "/": the file in any directory */
	int no_archive;     /* starts with ":": a plain object, not an archive member */
	char file[256];     /* object or archive base name, "*" for a guessed pattern */
	char member[256];   /* archive member, "" otherwise */
	char section[256];  /* input section, e.g. ".text.op_add" */
} rp_ld_pattern;

/* Parses pat; fails with "'<pat>': <why>" on anything else. */
int rp_ld_pattern_parse(rp_ld_pattern *out, const char *pat, rp_err *err);

int rp_ldgen_lld_write(const rp_plan *plan, const char *path, rp_err *err);
int rp_ldgen_espidf_write(const rp_plan *plan, const char *path, rp_err *err);

/* location: Zephyr's LOCATION (e.g. SRAM_TEXT). img and dw may be NULL; with them the source
 * files come from DWARF (absolute paths), without them from the object names (a.c.obj -> a.c). */
int rp_ldgen_zephyr_write(const rp_plan *plan, const rp_image *img, rp_dwarf *dw, const char *location,
			  const char *path, rp_err *err);

#endif
