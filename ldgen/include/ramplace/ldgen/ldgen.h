/* ldgen.h: emitters that turn a plan into build input. One emitter per dialect. */
#ifndef RAMPLACE_LDGEN_H
#define RAMPLACE_LDGEN_H

#include <stddef.h>
#include "ramplace/error.h"
#include "ramplace/plan.h"
#include "ramplace/ldgen/dialects.h"
#include "ramplace/ldgen/locator.h"

/* Writes a GNU ld fragment to path (atomically): the input-section patterns of every unit,
 * meant to be INCLUDEd inside the .ramtext output section. An empty plan (or NULL) writes a
 * valid fragment that moves nothing, so a first build links. */
int rp_ldgen_gnu_write(const rp_plan *plan, const char *path, rp_err *err);

/* `emit`: the plan written to path in format (gnu, lld, esp-idf, zephyr, pico; ldgen_emit.c,
 * the one table of the formats). */
typedef struct rp_ldgen_emit_opts {
	const rp_ldgen_locator *locator;   /* zephyr: each object's source file; NULL: from its name */
	rp_ldgen_zephyr_opts zephyr;       /* zephyr: location, phdr, nokeep (its ndropped is ignored) */
} rp_ldgen_emit_opts;

typedef struct rp_ldgen_emit_result {
	size_t ndropped;                   /* sections left as comments: no form in the format */
	char warnings[3][1200];            /* what the plan earns in the format, for the user */
	size_t nwarnings;
} rp_ldgen_emit_result;

/* Whether format names one of the formats. */
int rp_ldgen_format_known(const char *format);
/* Writes; RP_EUSAGE for an unknown format. out's warnings say what the fragment leaves out. */
int rp_ldgen_emit(const char *format, const rp_plan *plan, const rp_ldgen_emit_opts *o, const char *path,
		  rp_ldgen_emit_result *out, rp_err *err);

#endif
