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

/* region: the memory region (from the link map); outsecs: the code sections being placed, in
 * this region or others (not subtracted: their current contents are what is being placed, and
 * a relinked ELF already holds them); reserve: stack+heap bytes when no symbol says; align: the
 * budget is rounded down to it. Fails when nothing is left. */
int rp_budget_auto(const rp_image *img, const rp_map_region *region, const char *const *outsecs, size_t noutsecs,
		   uint64_t reserve, uint64_t align, rp_ram_map *out, rp_err *err);
void rp_ram_map_release(rp_ram_map *m);

#endif
