/* map_internal.h: what the two link-map readers (map.c: GNU ld's format, map_lld.c: ld.lld's)
 * share, kept in map_store.c so that neither reader calls the other back. Private to lib/image. */
#ifndef RAMPLACE_IMAGE_MAP_INTERNAL_H
#define RAMPLACE_IMAGE_MAP_INTERNAL_H

#include <stddef.h>
#include "ramplace/map.h"

/* A NUL-terminated copy of p[0..n) in the map's string blocks (freed with the map); NULL when
 * memory ran out. */
char *rp_mapi_str_copy(rp_map *map, const char *p, size_t n);
/* A new, zeroed input section at the end of map->insecs (cap: its capacity), counted at once
 * so that rp_map_free releases it half-filled; NULL when memory ran out (err set). */
rp_map_insec *rp_mapi_new_insec(rp_map *map, size_t *cap, uint64_t addr, uint64_t size, size_t lineno, rp_err *err);
/* Output sections that occupy no memory (debug information, attributes, symbol tables). */
int rp_mapi_unallocated(const char *name);
/* After the input sections are in: sorts them by address when needed and marks their names
 * (name_unique, temporary). Fails only on memory. */
int rp_mapi_finish(rp_map *map, rp_err *err);
/* Whether text is an ld.lld map: its first line is lld's column header. */
int rp_mapi_is_lld(const char *text, size_t len);
/* Reads an ld.lld -Map file (map_lld.c) into map, whose path is set. */
int rp_mapi_parse_lld(rp_map *map, const char *text, size_t len, rp_err *err);

/* Opens path as given, else relative to the map's directory; -1 when neither is a readable
 * regular file (a FIFO named in a map must not block). */
int rp_mapi_open_beside(const char *path, const char *map_path);

/* Growth capacities of the map's binds and refs while map_align.c reads the objects. */
typedef struct rp_mapi_caps {
	size_t binds, refs;
} rp_mapi_caps;
struct Elf;
/* One open object's section headers and the map sections of that object (map_match.c). */
typedef struct rp_mapi_match {
	size_t *insec_of;      /* per section header: its map section, SIZE_MAX none or not one */
	size_t nshdr;
	size_t *shndx_of;      /* per map section idx[from..to): its header, SIZE_MAX none */
	size_t ambiguous;      /* headers several map sections share a name with (COMDAT) */
} rp_mapi_match;
/* Matches the headers of elf (shstrndx: their names' table) to the map sections idx[from..to),
 * which are of that one object. Fails only on memory. */
int rp_mapi_match_object(rp_map *map, const size_t *idx, size_t from, size_t to, struct Elf *elf, size_t shstrndx,
			 rp_mapi_match *out, rp_err *err);
void rp_mapi_match_release(rp_mapi_match *m);
/* The binds (RISC-V) or refs (Arm, see rp_map_want_refs) of one open object (map_relocs.c),
 * whose sections match has matched to the map's. Fails only on memory. */
int rp_mapi_relocs_from_object(rp_map *map, rp_mapi_caps *cap, const rp_mapi_match *match, struct Elf *elf,
			       size_t shstrndx, rp_err *err);
/* Orders map->refs by section (rp_map_refs_of's binary search). */
void rp_mapi_sort_refs(rp_map *map);

#endif
