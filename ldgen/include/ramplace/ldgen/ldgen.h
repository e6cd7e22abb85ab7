/* ldgen.h: emitters that turn a plan into build input. One emitter per dialect. */
#ifndef RAMPLACE_LDGEN_H
#define RAMPLACE_LDGEN_H

#include "ramplace/error.h"
#include "ramplace/plan.h"

/* Writes a GNU ld fragment to path (atomically): the input-section patterns of every unit,
 * meant to be INCLUDEd inside the .ramtext output section. An empty plan (or NULL) writes a
 * valid fragment that moves nothing, so a first build links. */
int rp_ldgen_gnu_write(const rp_plan *plan, const char *path, rp_err *err);

#endif
