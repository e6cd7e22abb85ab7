/* budget.h: `budget: auto`, the room a RAM region has left for code: its length minus the
 * allocated sections the ELF already puts there (.data, .bss, heap or stack sections...) and
 * the stack and heap reservations the linker script declares by symbol (_Min_Stack_Size,
 * __stack_size, _Min_Heap_Size, __heap_min_size, ...), or a configured reserve when it declares
 * none. The result is explained line by line as a RAM map for the report. */
#ifndef RAMPLACE_BUDGET_H
#define RAMPLACE_BUDGET_H

#include <stdint.h>
#include <stddef.h>
#include "ramplace/error.h"
#include "ramplace/image.h"
#include "ramplace/map.h"

typedef struct rp_ram_map {
	char **lines;     /* "  0x20000000  .data  2488" ... */
	size_t nlines;
	uint64_t budget;
} rp_ram_map;

/* A stack or heap reservation the linker script declares only by a size symbol. */
typedef struct rp_ram_reserve {
	const char *what;     /* "stack" or "heap" */
	const char *symbol;   /* "_Min_Stack_Size", "__heap_min_size", ... (static text) */
	uint64_t bytes;
} rp_ram_reserve;

/* The reservations of region by symbol, stack first (*n: 0 to 2); none when an allocated
 * section of the region already holds a stack or heap (its bytes are counted as a section).
 * Fails on memory or an unreadable symbol table. */
int rp_budget_reserves(const rp_image *img, const rp_map_region *region, rp_ram_reserve out[2], size_t *n,
		       rp_err *err);

/* region: the memory region (from the link map); outsecs: the code sections being placed, in
 * this region or others (not subtracted: their current contents are what is being placed, and
 * a relinked ELF already holds them); reserve: stack+heap bytes when no symbol says; align: the
 * budget is rounded down to it. Fails when nothing is left. */
int rp_budget_auto(const rp_image *img, const rp_map_region *region, const char *const *outsecs, size_t noutsecs,
		   uint64_t reserve, uint64_t align, rp_ram_map *out, rp_err *err);
/* The same for a plan whose output section `shared` also holds the program's data (pico-sdk's
 * .data): that section counts, less the input sections named with prefix that an earlier plan
 * put there (from map). */
int rp_budget_auto_shared(const rp_image *img, const rp_map *map, const rp_map_region *region, const char *shared,
			  const char *prefix, uint64_t reserve, uint64_t align, rp_ram_map *out, rp_err *err);
void rp_ram_map_release(rp_ram_map *m);

#endif
