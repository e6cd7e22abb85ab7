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

/* The first absolute symbol of the list the ELF defines (sizes are absolute symbols). */
static const rp_elfsym *first_abs(const rp_elfsyms *syms, const char *const *names)
{
	for (size_t i = 0; names[i]; i++) {
		const rp_elfsym *s = rp_elfsyms_find(syms, names[i]);
		if (s && (s->absolute || s->type == STT_NOTYPE) && s->value < (1ull << 32))
			return s;
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

int rp_budget_auto(const rp_image *img, const rp_map_region *region, const char *const *outsecs, size_t noutsecs,
		   uint64_t reserve, uint64_t align, rp_ram_map *out, rp_err *err)
{
	static const char *const stack_names[] = { "_Min_Stack_Size", "__stack_size", "_stack_size", "__STACK_SIZE",
						   "STACK_SIZE", NULL };
	static const char *const heap_names[] = { "_Min_Heap_Size", "__heap_min_size", "__heap_size", "_heap_size",
						  "__HEAP_SIZE", "HEAP_SIZE", NULL };
	memset(out, 0, sizeof(*out));
	uint64_t taken = 0;
	int rc = line(out, err, "RAM map of %s [0x%llx, 0x%llx), %llu bytes:", region->name,
		      (unsigned long long)region->origin, (unsigned long long)(region->origin + region->length),
		      (unsigned long long)region->length);
	int has_stack_section = 0;
	for (size_t i = 0; !rc && i < img->nsections; i++) {
		const rp_section *s = &img->sections[i];
		if (!s->is_alloc || !s->size || !in_region(region, s->vma) || is_placed(s->name, outsecs, noutsecs))
			continue;
		has_stack_section |= strstr(s->name, "stack") || strstr(s->name, "heap");
		taken += s->size;
		rc = line(out, err, "  0x%08llx %8llu  %s", (unsigned long long)s->vma, (unsigned long long)s->size, s->name);
	}
	rp_elfsyms syms;
	if (!rc)
		rc = rp_elfsyms_load(&syms, img, err);
	if (rc) {
		rp_ram_map_release(out);
		return rc;
	}
	const rp_elfsym *st = has_stack_section ? NULL : first_abs(&syms, stack_names);
	const rp_elfsym *hp = has_stack_section ? NULL : first_abs(&syms, heap_names);
	if (st) {
		taken += st->value;
		rc = line(out, err, "  %10s %8llu  stack (%s)", "", (unsigned long long)st->value, st->name);
	}
	if (!rc && hp) {
		taken += hp->value;
		rc = line(out, err, "  %10s %8llu  heap (%s)", "", (unsigned long long)hp->value, hp->name);
	}
	if (!rc && !st && !hp && !has_stack_section) {
		taken += reserve;
		rc = line(out, err, "  %10s %8llu  stack and heap (configured reserve: the ELF declares no sizes)", "",
			  (unsigned long long)reserve);
	}
	rp_elfsyms_release(&syms);
	if (!rc && taken >= region->length)
		rc = rp_err_set(err, RP_EINPUT, "budget auto: region %s (%llu bytes) has no room left: the data, bss, stack and heap of %s take %llu",
				region->name, (unsigned long long)region->length, img->path, (unsigned long long)taken);
	if (!rc) {
		out->budget = (region->length - taken) / (align ? align : 1) * (align ? align : 1);
		rc = line(out, err, "  free for code: %llu bytes (budget auto)", (unsigned long long)out->budget);
	}
	if (rc)
		rp_ram_map_release(out);
	return rc;
}

void rp_ram_map_release(rp_ram_map *m)
{
	for (size_t i = 0; i < m->nlines; i++)
		free(m->lines[i]);
	free(m->lines);
	memset(m, 0, sizeof(*m));
}
