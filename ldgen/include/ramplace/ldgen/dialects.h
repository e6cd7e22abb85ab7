/* dialects.h: emitters for linkers and build systems other than GNU ld, from the same plan.
 *
 *  lld     a fragment ld.lld accepts inside the same .ramtext output section (GNU ld's ":file"
 *          form, "not in an archive", is written as the plain file name, which is how lld
 *          names such files)
 *  esp-idf an ESP-IDF linker fragment (.lf): one [mapping] per archive, "obj:symbol (noflash_text)"
 *  pico    section renames for pico-sdk's link: FILE MEMBER .text.f .time_critical.ramplace.text.f
 *  zephyr  CMake lines for Zephyr's code relocation:
 *          zephyr_code_relocate(FILES src.c FILTER "^[.]text[.](a|b)$" LOCATION RAM_TEXT)
 *
 * Each writes path atomically. Patterns come from a plan file and are hostile: each is parsed
 * (rp_ld_pattern_parse) before it is written anywhere. */
#ifndef RAMPLACE_LDGEN_DIALECTS_H
#define RAMPLACE_LDGEN_DIALECTS_H

#include <stddef.h>

#include "ramplace/ldgen/locator.h"
#include "ramplace/error.h"
#include "ramplace/plan.h"

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

/* Called once per pattern of a unit u: text as the plan has it, p parsed from it. */
typedef int (*rp_ld_pattern_fn)(void *ctx, const rp_plan_unit *u, const char *text, const rp_ld_pattern *p,
				rp_err *err);

/* Calls fn on every pattern of every unit, in plan order. Stops at the first pattern that does
 * not parse or the first negative return of fn, and returns that code. */
int rp_ld_pattern_each(const rp_plan *plan, rp_ld_pattern_fn fn, void *ctx, rp_err *err);

/* Like rp_ld_pattern_each, but fn also gets slot, a fresh element of elem_size bytes, and
 * returns 1 to keep it, 0 to drop it (after saying why in the output) or a negative code. The
 * kept elements (*out, the caller's to free; NULL when none) are then sorted with cmp. On
 * failure *out is NULL and *n is 0. */
typedef int (*rp_ld_collect_fn)(void *ctx, void *slot, const rp_plan_unit *u, const char *text,
				const rp_ld_pattern *p, rp_err *err);
int rp_ld_pattern_collect(void **out, size_t *n, const rp_plan *plan, size_t elem_size, rp_ld_collect_fn fn,
			  void *ctx, int (*cmp)(const void *, const void *), rp_err *err);

int rp_ldgen_lld_write(const rp_plan *plan, const char *path, rp_err *err);
/* pico-sdk: "FILE MEMBER SECTION .time_critical.ramplace<SECTION>" lines for the link launcher
 * (ldgen_pico.c); *ndropped (may be NULL): guessed patterns, which name no object. */
int rp_ldgen_pico_write(const rp_plan *plan, const char *path, size_t *ndropped, rp_err *err);
/* *ndropped (may be NULL): the patterns ESP-IDF's ldgen cannot take, listed as comments. */
int rp_ldgen_espidf_write(const rp_plan *plan, const char *path, size_t *ndropped, rp_err *err);
/* A ready ESP-IDF component in dir (created when missing): ramplace.lf as above, and a
 * CMakeLists.txt registering it (idf_component_register(LDFRAGMENTS ramplace.lf)). */
int rp_ldgen_espidf_component(const rp_plan *plan, const char *dir, size_t *ndropped, rp_err *err);

/* How the Zephyr lines relocate: LOCATION (RAM_TEXT: the RAM memory Zephyr's Cortex-M and
 * RISC-V maps define; ITCM_TEXT, SRAM2_TEXT... where a board has them), PHDR (NULL: none) and
 * NOKEEP (the generated script marks nothing KEEP). */
typedef struct rp_ldgen_zephyr_opts {
	const char *location;
	const char *phdr;
	int nokeep;
	size_t *ndropped;   /* out, may be NULL: the patterns left as comments (not relocatable) */
} rp_ldgen_zephyr_opts;

#define RP_LDGEN_ZEPHYR_OPTS_INIT { .location = "RAM_TEXT", .phdr = NULL, .nokeep = 0, .ndropped = NULL }

/* loc may be NULL; with it the source files are the compiled files it gives (absolute paths),
 * without it they come from the object names (a.c.obj -> a.c), which zephyr_code_relocate()
 * looks for beside the CMakeLists.txt that includes the lines. Objects in archives are the
 * application's when CMake named them (libapp.a's interp.c.obj -> interp.c); other archive
 * members (a toolchain library's lib_a-memcpy.o) are listed in a comment, not relocatable. */
int rp_ldgen_zephyr_write(const rp_plan *plan, const rp_ldgen_locator *loc, const rp_ldgen_zephyr_opts *o,
			  const char *path, rp_err *err);

#endif
