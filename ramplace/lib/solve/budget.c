/* budget.c: `budget: auto` (see budget.h). Owns the RAM map lines it returns. */
#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/budget.h"
#include "ramplace/elfsyms.h"

static int line(rp_ram_map *m, rp_err *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int line(rp_ram_map *m, rp_err *err, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	char **bigger = realloc(m->lines, (m->nlines + 1) * sizeof(char *));
	if (!bigger || !(bigger[m->nlines] = strdup(buf))) {
		if (bigger)
			m->lines = bigger;
		return rp_err_nomem(err, "writing the RAM map");
	}
	m->lines = bigger;
	m->nlines++;
	return 0;
}

/* The first absolute symbol of the list the ELF defines (sizes are absolute symbols): its
 * value, and its name from the list (static text). */
static const char *first_abs(const rp_elfsyms *syms, const char *const *names, uint64_t *value)
{
	for (size_t i = 0; names[i]; i++) {
		const rp_elfsym *s = rp_elfsyms_find(syms, names[i]);
		if (s && (s->absolute || s->type == STT_NOTYPE) && s->value < (1ull << 32)) {
			*value = s->value;
			return names[i];
		}
	}
	return NULL;
}

static int in_region(const rp_map_region *r, uint64_t addr)
{
	return addr >= r->origin && addr - r->origin < r->length;
}

static int is_placed(const char *name, const char *const *outsecs, size_t noutsecs)
{
	for (size_t k = 0; k < noutsecs; k++)
		if (strcmp(name, outsecs[k]) == 0)
			return 1;
	return 0;
}

static int has_stack_section(const rp_image *img, const rp_map_region *region)
{
	for (size_t i = 0; i < img->nsections; i++) {
		const rp_section *s = &img->sections[i];
		if (s->is_alloc && s->size && in_region(region, s->vma) && (strstr(s->name, "stack") || strstr(s->name, "heap")))
			return 1;
	}
	return 0;
}

int rp_budget_reserves(const rp_image *img, const rp_map_region *region, rp_ram_reserve out[2], size_t *n,
		       rp_err *err)
{
	static const char *const stack_names[] = { "_Min_Stack_Size", "__stack_size", "_stack_size", "__STACK_SIZE",
						   "STACK_SIZE", NULL };
	static const char *const heap_names[] = { "_Min_Heap_Size", "__heap_min_size", "__heap_size", "_heap_size",
						  "__HEAP_SIZE", "HEAP_SIZE", NULL };
	*n = 0;
	if (has_stack_section(img, region))
		return 0;
	const rp_elfsyms *syms;
	int rc = rp_image_syms(img, &syms, err);
	if (rc)
		return rc;
	uint64_t v = 0;
	const char *name = first_abs(syms, stack_names, &v);
	if (name)
		out[(*n)++] = (rp_ram_reserve){ "stack", name, v };
	if ((name = first_abs(syms, heap_names, &v)))
		out[(*n)++] = (rp_ram_reserve){ "heap", name, v };
	return 0;
}

/* Whether the ELF says the heap ends at the region's end: __HeapLimit there. */
static int heap_to_end(const rp_image *img, const rp_map_region *region)
{
	const rp_elfsyms *syms;
	rp_err ignored = RP_ERR_INIT;
	if (rp_image_syms(img, &syms, &ignored))
		return 0;
	const rp_elfsym *s = rp_elfsyms_find(syms, "__HeapLimit");
	return s && !s->absolute && s->value == region->origin + region->length;
}

/* ESP-IDF's shared SRAM (the ELF has .dram0.dummy, which skips in DRAM the IRAM in use): the
 * bytes of every other allocated section of the DRAM view's region, each listed; 0 otherwise. */
static uint64_t shared_dram(const rp_image *img, const rp_map *map, const rp_map_region *iram, rp_ram_map *out,
			    int *rc, rp_err *err)
{
	const rp_section *dummy = rp_image_section(img, ".dram0.dummy");
	const rp_map_region *dr = dummy ? rp_map_region_find(map, NULL, dummy->vma) : NULL;
	if (!dr || dr == iram || dr->length != iram->length)
		return 0;
	uint64_t bytes = 0;
	*rc = line(out, err, "  the same SRAM seen as %s [0x%llx, 0x%llx) (.dram0.dummy skips the IRAM above):", dr->name,
		   (unsigned long long)dr->origin, (unsigned long long)(dr->origin + dr->length));
	for (size_t i = 0; !*rc && i < img->nsections; i++) {
		const rp_section *s = &img->sections[i];
		if (!s->is_alloc || !s->size || s == dummy || !in_region(dr, s->vma))
			continue;
		bytes += s->size;
		*rc = line(out, err, "  0x%08llx %8llu  %s", (unsigned long long)s->vma, (unsigned long long)s->size, s->name);
	}
	return bytes;
}

/* The bytes of shared that an earlier plan's code takes: its input sections named with prefix. */
static uint64_t earlier_plan_bytes(const rp_map *map, const rp_section *shared, const char *prefix)
{
	uint64_t bytes = 0;
	for (size_t i = 0; map && shared && i < map->ninsecs; i++) {
		const rp_map_insec *s = &map->insecs[i];
		if (s->outsec && strcmp(s->outsec, shared->name) == 0 && strncmp(s->name, prefix, strlen(prefix)) == 0)
			bytes += s->size;
	}
	return bytes;
}

/* rp_budget_auto, and with shared (an output section both the plan's code and the program's data
 * go to) that section counted less what an earlier plan put there (map, prefix). */
static int budget_auto(const rp_image *img, const rp_map_region *region, const char *const *outsecs, size_t noutsecs,
		       const rp_map *map, const char *shared, const char *prefix, uint64_t reserve, uint64_t align,
		       rp_ram_map *out, rp_err *err)
{
	memset(out, 0, sizeof(*out));
	uint64_t taken = 0;
	int rc = line(out, err, "RAM map of %s [0x%llx, 0x%llx), %llu bytes:", region->name,
		      (unsigned long long)region->origin, (unsigned long long)(region->origin + region->length),
		      (unsigned long long)region->length);
	for (size_t i = 0; !rc && i < img->nsections; i++) {
		const rp_section *s = &img->sections[i];
		if (!s->is_alloc || !s->size || !in_region(region, s->vma) || is_placed(s->name, outsecs, noutsecs))
			continue;
		uint64_t earlier = shared && strcmp(s->name, shared) == 0 ? earlier_plan_bytes(map, s, prefix) : 0;
		if (earlier > s->size)
			earlier = s->size;
		taken += s->size - earlier;
		rc = earlier ? line(out, err, "  0x%08llx %8llu  %s (less %llu bytes of code an earlier plan put there)",
				    (unsigned long long)s->vma, (unsigned long long)(s->size - earlier), s->name,
				    (unsigned long long)earlier)
			     : line(out, err, "  0x%08llx %8llu  %s", (unsigned long long)s->vma, (unsigned long long)s->size, s->name);
	}
	rp_ram_reserve res[2];
	size_t nres = 0;
	if (!rc)
		rc = rp_budget_reserves(img, region, res, &nres, err);
	for (size_t i = 0; !rc && i < nres; i++) {
		taken += res[i].bytes;
		rc = line(out, err, "  %10s %8llu  %s (%s)", "", (unsigned long long)res[i].bytes, res[i].what, res[i].symbol);
	}
	if (!rc && !nres && !has_stack_section(img, region)) {
		taken += reserve;
		rc = line(out, err, "  %10s %8llu  stack and heap (configured reserve: the ELF declares no sizes)", "",
			  (unsigned long long)reserve);
	}
	/* ESP-IDF (C3, C6...): IRAM and DRAM are two views of one SRAM; its script skips the IRAM it
	 * used in DRAM with .dram0.dummy, so what DRAM holds besides takes from the same room */
	if (!rc && map)
		taken += shared_dram(img, map, region, out, &rc, err);
	if (!rc && taken >= region->length)
		rc = rp_err_set(err, RP_EINPUT, "budget auto: region %s (%llu bytes) has no room left: the data, bss, stack and heap of %s take %llu",
				region->name, (unsigned long long)region->length, img->path, (unsigned long long)taken);
	if (!rc) {
		out->budget = (region->length - taken) / (align ? align : 1) * (align ? align : 1);
		rc = line(out, err, "  free for code: %llu bytes (budget auto)", (unsigned long long)out->budget);
	}
	/* pico-sdk's script ends the heap at the region's end, not at .heap's: what code takes
	 * here, malloc can no longer have */
	if (!rc && heap_to_end(img, region))
		rc = line(out, err, "  the heap may grow to the region's end (__HeapLimit): the budget comes out of it");
	if (rc)
		rp_ram_map_release(out);
	return rc;
}

int rp_budget_auto(const rp_image *img, const rp_map_region *region, const char *const *outsecs, size_t noutsecs,
		   uint64_t reserve, uint64_t align, rp_ram_map *out, rp_err *err)
{
	return budget_auto(img, region, outsecs, noutsecs, NULL, NULL, NULL, reserve, align, out, err);
}

int rp_budget_auto_shared(const rp_image *img, const rp_map *map, const rp_map_region *region, const char *shared,
			  const char *prefix, uint64_t reserve, uint64_t align, rp_ram_map *out, rp_err *err)
{
	return budget_auto(img, region, NULL, 0, map, shared, prefix, reserve, align, out, err);
}

void rp_ram_map_release(rp_ram_map *m)
{
	for (size_t i = 0; i < m->nlines; i++)
		free(m->lines[i]);
	free(m->lines);
	memset(m, 0, sizeof(*m));
}
