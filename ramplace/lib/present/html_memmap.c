/* html_memmap.c: the RAM and flash maps (present.h): one bar per memory region, one piece per
 * allocated section of the ELF at the address it runs from (.data, .bss, heap, stack, code,
 * .ramtext ...), the load images of copied sections (.data's and .ramtext's bytes in flash),
 * the plan's bytes where the ELF does not hold them yet, the stack and heap the linker script
 * reserves only by a size symbol (budget.h: what `budget: auto` subtracts; drawn in the region
 * that holds .bss: the heap after the sections, the stack at the region's end), and the free
 * rest. Regions come from
 * the link map's Memory Configuration; without a map, sections are grouped by the top four
 * address bits and no length (so no free space) is known. Every piece carries its exact bytes
 * (data-bytes), which add up to the ELF's section sizes. Owns its scratch list. Workload: tens
 * of sections, a handful of regions. */
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "ramplace/budget.h"
#include "ramplace/util.h"

typedef struct mm_region {
	const char *name;      /* from the map, or NULL (guessed) */
	uint64_t origin, length; /* length 0: unknown */
	unsigned key;          /* guessed: the top address bits */
} mm_region;

typedef struct mm_piece {
	const char *name;
	const char *kind;      /* CSS class: code, data, bss, ... */
	uint64_t addr, bytes;
	int load;              /* the load image of a copied section */
} mm_piece;

static unsigned top_bits(uint64_t addr)
{
	return (unsigned)((addr >> 28) & 0xf);
}

static int in_region(const mm_region *r, uint64_t addr)
{
	if (!r->name)
		return top_bits(addr) == r->key;
	return addr >= r->origin && addr - r->origin < r->length;
}

static const char *kind_of(const rp_section *s, const rp_present_in *in)
{
	const char *n = s->name;
	for (size_t r = 0; in->placement && r < in->placement->nplans; r++)
		if (!strcmp(n, in->placement->plans[r]->outsec))
			return "ramtext";
	if (s->is_exec)
		return s->lma != s->vma ? "ramtext" : "code";
	if (strstr(n, "stack"))
		return "stack";
	if (strstr(n, "heap"))
		return "heap";
	if (s->is_nobits || !strncmp(n, ".bss", 4) || !strncmp(n, ".sbss", 5))
		return "bss";
	if (!strncmp(n, ".data", 5) || !strncmp(n, ".sdata", 6))
		return "data";
	if (!strncmp(n, ".rodata", 7) || !strncmp(n, ".srodata", 8))
		return "rodata";
	return "other";
}

static int by_addr(const void *a, const void *b)
{
	const mm_piece *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->load - y->load;
}

/* The pieces of region r, by address; n is set. */
static int collect(const rp_present_in *in, const mm_region *r, mm_piece **out, size_t *n, rp_err *err)
{
	const rp_image *img = in->img;
	mm_piece *p = calloc(2 * img->nsections + 1, sizeof(mm_piece));
	if (!p)
		return rp_err_nomem(err, "drawing the memory map");
	*n = 0;
	for (size_t i = 0; i < img->nsections; i++) {
		const rp_section *s = &img->sections[i];
		if (!s->is_alloc || !s->size)
			continue;
		if (in_region(r, s->vma))
			p[(*n)++] = (mm_piece){ s->name, kind_of(s, in), s->vma, s->size, 0 };
		if (s->lma != s->vma && !s->is_nobits && in_region(r, s->lma))
			p[(*n)++] = (mm_piece){ s->name, "load", s->lma, s->size, 1 };
	}
	rp_sort(p, *n, sizeof(mm_piece), by_addr);
	*out = p;
	return 0;
}

/* The plan's bytes for region r that the ELF does not hold yet (a flash-only build). */
static uint64_t planned_bytes(const rp_present_in *in, const mm_region *r, const char **outsec)
{
	uint64_t bytes = 0;
	for (size_t k = 0; in->placement && r->name && k < in->placement->nplans; k++) {
		const rp_plan *pl = in->placement->plans[k];
		const rp_section *s = rp_image_section(in->img, pl->outsec);
		if ((s && s->size) || !pl->region || strcmp(pl->region, r->name) != 0)
			continue;
		bytes += pl->used + pl->veneer_reserve;
		*outsec = pl->outsec;
	}
	return bytes;
}

static void seg(FILE *out, const char *cls, const char *name, uint64_t addr, uint64_t bytes, double width)
{
	char b[32];
	fprintf(out, "<div class=\"seg %s\" data-name=\"", cls);
	html_text(out, name);
	fprintf(out, "\" data-addr=\"0x%llx\" data-bytes=\"%llu\" style=\"width:%.3f%%\" title=\"", (unsigned long long)addr,
		(unsigned long long)bytes, width);
	html_text(out, name);
	fprintf(out, ": %s at 0x%llx\">", rp_present_bytes(bytes, b, sizeof(b)), (unsigned long long)addr);
	html_text(out, name);
	fputs("</div>", out);
}

static void legend(FILE *out, const mm_piece *p, size_t n)
{
	fputs("<table class=\"legend\"><tbody>\n", out);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "<tr><td><span class=\"seg %s\" style=\"display:inline-block;width:10px\">&nbsp;</span> ", p[i].kind);
		html_text(out, p[i].name);
		fprintf(out, "%s</td><td>0x%08llx</td><td class=\"n\">%llu</td></tr>\n", p[i].load ? " (load image)" : "",
			(unsigned long long)p[i].addr, (unsigned long long)p[i].bytes);
	}
	fputs("</tbody></table>\n", out);
}

/* The region holds .bss (or another allocated section without bits that is not a stack or
 * heap): the RAM where the reservations of the linker script go. */
static int holds_bss(const rp_image *img, const mm_region *r)
{
	for (size_t i = 0; i < img->nsections; i++) {
		const rp_section *s = &img->sections[i];
		if (s->is_alloc && s->is_nobits && s->size && !s->is_exec && in_region(r, s->vma))
			return 1;
	}
	return 0;
}

/* The stack and heap of region r declared only by symbols (budget.h), when it holds .bss. */
static int reserves_of(const rp_present_in *in, const mm_region *r, rp_ram_reserve res[2], size_t *n, rp_err *err)
{
	*n = 0;
	if (!holds_bss(in->img, r))
		return 0;
	rp_map_region mr = { (char *)(r->name ? r->name : "memory"), r->origin, r->length, "" };
	if (!r->name)
		mr.length = 1ull << 28;   /* guessed: the sections' top address bits */
	return rp_budget_reserves(in->img, &mr, res, n, err);
}

static void draw_reserve(FILE *out, const rp_ram_reserve *res, uint64_t addr, uint64_t scale)
{
	char cls[48], name[96];
	snprintf(cls, sizeof(cls), "%s reserve", res->what);
	snprintf(name, sizeof(name), "%s (%s)", res->what, res->symbol);
	seg(out, cls, name, addr, res->bytes, scale ? 100.0 * (double)res->bytes / (double)scale : 0);
}

static int region_bar(FILE *out, const rp_present_in *in, const mm_region *r, rp_err *err)
{
	mm_piece *p = NULL;
	size_t n = 0, nres = 0;
	rp_ram_reserve res[2];
	int rc = reserves_of(in, r, res, &nres, err);
	if (rc || (rc = collect(in, r, &p, &n, err)))
		return rc;
	const char *outsec = NULL;
	uint64_t used = 0, end = r->origin, plan = planned_bytes(in, r, &outsec), reserved = 0;
	for (size_t i = 0; i < n; i++) {
		used += p[i].bytes;
		if (p[i].addr + p[i].bytes > end)
			end = p[i].addr + p[i].bytes;
	}
	for (size_t i = 0; i < nres; i++)
		reserved += res[i].bytes;
	uint64_t scale = r->length > used + plan + reserved ? r->length : used + plan + reserved;
	char title[64], b1[32], b2[32];
	if (r->name)
		snprintf(title, sizeof(title), "%s", r->name);
	else
		snprintf(title, sizeof(title), "memory at 0x%llx", (unsigned long long)r->key << 28);
	fputs("<div class=\"region\" data-region=\"", out);
	html_text(out, title);
	fprintf(out, "\" data-origin=\"0x%llx\" data-length=\"%llu\" data-used=\"%llu\"><div><b>", (unsigned long long)r->origin,
		(unsigned long long)r->length, (unsigned long long)used);
	html_text(out, title);
	fprintf(out, "</b> %s used", rp_present_bytes(used, b1, sizeof(b1)));
	if (r->length)
		fprintf(out, " of %s (%.1f %%)", rp_present_bytes(r->length, b2, sizeof(b2)), 100.0 * (double)used / (double)r->length);
	if (plan)
		fprintf(out, "; the plan adds %llu bytes", (unsigned long long)plan);
	for (size_t i = 0; i < nres; i++)
		fprintf(out, "; %s %s reserved by <code>%s</code>", rp_present_bytes(res[i].bytes, b1, sizeof(b1)), res[i].what,
			res[i].symbol);
	fputs("</div>\n<div class=\"bar\">", out);
	for (size_t i = 0; i < n; i++) {
		char cls[32];   /* "sec": a section of the ELF, as against the plan and free pieces */
		snprintf(cls, sizeof(cls), "%s sec", p[i].load ? "load" : p[i].kind);
		seg(out, cls, p[i].name, p[i].addr, p[i].bytes, scale ? 100.0 * (double)p[i].bytes / (double)scale : 0);
	}
	if (plan) {
		char name[80];
		snprintf(name, sizeof(name), "%s (planned)", outsec);
		seg(out, "plan", name, r->origin + used, plan, 100.0 * (double)plan / (double)scale);
	}
	/* the heap grows up from the end of the sections, the stack down from the region's end */
	const rp_ram_reserve *stack = NULL;
	for (size_t i = 0; i < nres; i++)
		if (strcmp(res[i].what, "stack") != 0 || !r->length)
			draw_reserve(out, &res[i], end + plan, scale);
		else
			stack = &res[i];
	if (r->length > used + plan + reserved)
		seg(out, "free", "free", end + plan + reserved - (stack ? stack->bytes : 0), r->length - used - plan - reserved,
		    100.0 * (double)(r->length - used - plan - reserved) / (double)scale);
	if (stack)
		draw_reserve(out, stack, r->origin + r->length - stack->bytes, scale);
	fputs("</div>\n", out);
	legend(out, p, n);
	fputs("</div>\n", out);
	free(p);
	return 0;
}

/* Without a map: one region per distinct top nibble of the sections' addresses. */
static size_t guess_regions(const rp_image *img, mm_region *out)
{
	unsigned seen = 0;
	size_t n = 0;
	for (size_t i = 0; i < img->nsections; i++) {
		const rp_section *s = &img->sections[i];
		uint64_t addrs[2] = { s->vma, s->lma };
		for (int k = 0; k < 2 && s->is_alloc && s->size; k++) {
			unsigned t = top_bits(addrs[k]);
			if (!(seen & (1u << t))) {
				seen |= 1u << t;
				out[n++] = (mm_region){ NULL, (uint64_t)t << 28, 0, t };
			}
		}
	}
	return n;
}

int html_memmap(FILE *out, const rp_present_in *in, rp_err *err)
{
	fputs("<h2 id=\"memory\">The memory map</h2>\n", out);
	int rc = 0;
	if (in->map && in->map->nregions) {
		for (size_t i = 0; !rc && i < in->map->nregions; i++) {
			const rp_map_region *m = &in->map->regions[i];
			mm_region r = { m->name, m->origin, m->length, 0 };
			if (m->length && strcmp(m->name, "*default*") != 0)
				rc = region_bar(out, in, &r, err);
		}
		return rc;
	}
	mm_region r[16];
	size_t n = guess_regions(in->img, r);
	fputs("<p class=\"muted\">No link map (--map): sections grouped by address, region sizes unknown.</p>\n", out);
	for (size_t i = 0; !rc && i < n; i++)
		rc = region_bar(out, in, &r[i], err);
	return rc;
}
