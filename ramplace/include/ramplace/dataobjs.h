/* dataobjs.h: the firmware's data objects (STT_OBJECT symbols) as candidates for RAM, read from
 * an ELF with libelf and, for their input sections, its GNU ld map.
 *
 * An object can move to .ramdata only when it is proven read-only (an allocated, non-writable,
 * non-executable section with contents), flash-resident (the section runs where it is loaded,
 * in a segment that is not writable) and alone in an input section a pattern can name (the map
 * shows .rodata.NAME from -fdata-sections, holding no other object). Every other object keeps
 * the reason it cannot move, so that a hot one is reported, never silently skipped. */
#ifndef RAMPLACE_DATAOBJS_H
#define RAMPLACE_DATAOBJS_H

#include <stdint.h>
#include <stddef.h>
#include "ramplace/error.h"
#include "ramplace/image.h"
#include "ramplace/map.h"

typedef struct rp_dataobj {
	char *name;
	char *file;          /* defining file for local (static) objects (STT_FILE), NULL for globals */
	uint64_t addr;
	uint64_t size;
	char *section;       /* output section, e.g. ".rodata" */
	char *pattern;       /* the exact input-section pattern that moves it (map), or NULL */
	uint64_t insec_size; /* its input section's bytes and alignment (map); else size and 1 */
	uint64_t insec_align;
	char why[192];       /* empty: a candidate; else why it must stay where it is */
} rp_dataobj;

typedef struct rp_dataobjs {
	rp_dataobj *objs;    /* sorted by address, then name */
	size_t n;
} rp_dataobjs;

/* Reads every defined, allocated STT_OBJECT symbol of img with a size. map may be NULL: then no
 * object is a candidate (only the map shows an object's own input section), each saying so.
 * Fails on memory or an ELF libelf cannot read; never on what an object is. */
int rp_dataobjs_load(rp_dataobjs *out, const rp_image *img, const rp_map *map, rp_err *err);
void rp_dataobjs_release(rp_dataobjs *d);

/* The object whose [addr, addr+size) holds addr, or NULL. */
const rp_dataobj *rp_dataobjs_at(const rp_dataobjs *d, uint64_t addr);

/* An object by name; file disambiguates statics (NULL: prefer the global, then any). */
const rp_dataobj *rp_dataobjs_find(const rp_dataobjs *d, const char *name, const char *file);

#endif
