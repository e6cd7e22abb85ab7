/* place_regions.c: the regions a placement fills (place.h): the command-line region or each
 * configured one, the memory of the link map it lives in (given, found from its output
 * section, or guessed), its budget (a number, checked against that memory, or `budget: auto`:
 * what .data, .bss, heap and stack leave free), and the warnings about budgets over free RAM. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/budget.h"
#include "place.h"

/* The map region a configured region lives in: its `memory`, else the one holding its output
 * section (for ESP-IDF, iram0_0_seg when the section is empty yet) or (first region only,
 * guessed) .data, else one called RAM. */
static int find_map_region(ctx *c, size_t r, const char *memory, rp_err *err)
{
	region *rg = &c->regions[r];
	rg->map_region = NULL;
	if (!c->map)
		return 0;
	if (memory) {
		rg->map_region = rp_map_region_find(c->map, memory, 0);
		return rg->map_region ? 0 : rp_err_set(err, RP_EUSAGE, "%s: no memory region '%s' in the map", c->map->path, memory);
	}
	const rp_section *own = rp_image_section(c->img, rg->outsec);
	rg->map_region = own ? rp_map_region_find(c->map, NULL, own->vma) : NULL;
	/* ESP-IDF: ld drops an empty .iram0.text from the flash-only build; its memory has one name */
	if (!rg->map_region && c->opts->dialect == RP_DIALECT_ESPIDF)
		rg->map_region = rp_map_region_find(c->map, "iram0_0_seg", 0);
	if (rg->map_region || r != 0)
		return 0;
	rg->memory_guessed = 1;
	const rp_section *data = own ? NULL : rp_image_section(c->img, ".data");
	rg->map_region = data ? rp_map_region_find(c->map, NULL, data->vma) : NULL;
	if (!rg->map_region)
		rg->map_region = rp_map_region_find(c->map, "RAM", 0);
	return 0;
}

/* The room map_region has for code (`budget: auto`): every region's output section is code
 * being placed, not data, also after a relink put it there. */
static int free_ram(const ctx *c, const rp_map_region *m, uint64_t reserve, uint64_t align, rp_ram_map *ram, rp_err *err)
{
	const char **outsecs = malloc(c->nregions * sizeof(char *));
	if (!outsecs)
		return rp_err_nomem(err, "computing the RAM map");
	for (size_t r = 0; r < c->nregions; r++)
		outsecs[r] = c->regions[r].outsec;
	/* pico-sdk's .data holds the program's data beside what a plan renamed into it */
	const char *own = rp_dialect_own_sections(c->opts->dialect);
	int rc = own ? rp_budget_auto_shared(c->img, c->map, m, c->regions[0].outsec, own, reserve, align, ram, err)
		     : rp_budget_auto(c->img, m, outsecs, c->nregions, reserve, align, ram, err);
	free(outsecs);
	return rc;
}

/* Whether region r is known to be in memory m (not just guessed to be). */
static int in_memory(const ctx *c, size_t r, const rp_map_region *m)
{
	return m && c->regions[r].map_region == m && !c->regions[r].memory_guessed;
}

static const char *region_label(const ctx *c, size_t r)
{
	return c->regions[r].name ? c->regions[r].name : "--budget";
}

/* Budgets given as numbers are checked, per memory, against what it leaves free after .data,
 * .bss, stack and heap (the `budget: auto` figure): more is only caught at link time otherwise,
 * and two regions in one memory may each fit while their sum does not. A warning, not a
 * refusal: the RAM map is only as good as the symbols the ELF declares. */
static int warn_over_free_ram(ctx *c, size_t first, rp_err *err)
{
	const rp_map_region *m = c->regions[first].map_region;
	uint64_t sum = 0;
	size_t shared = 0;
	char names[256] = "";
	for (size_t r = first; r < c->nregions; r++)
		if (r == first || (in_memory(c, r, m) && !c->regions[first].memory_guessed)) {
			sum += c->regions[r].budget;
			size_t len = strlen(names);
			if ((size_t)snprintf(names + len, sizeof(names) - len, "%s%s", shared++ ? ", " : "", region_label(c, r)) >= sizeof(names) - len)
				memcpy(names + sizeof(names) - 4, "...", 4);   /* cut: say so, the sum has them all */
		}
	rp_ram_map ram;
	rp_err ignored = RP_ERR_INIT;   /* no map of the RAM: nothing to compare against */
	if (free_ram(c, m, 0, 1, &ram, &ignored))
		return 0;
	int rc = 0;
	if (sum > ram.budget)
		rc = pl_note(c, err, "warning: %s: %llu bytes%s is more than the %llu bytes %s has free after its data, bss, stack and heap (see --budget auto); a plan that uses it all will not link",
			  names, (unsigned long long)sum, shared > 1 ? " together" : "", (unsigned long long)ram.budget, m->name);
	rp_ram_map_release(&ram);
	return rc;
}

static int resolve_budget(ctx *c, size_t r, const rp_region_cfg *cfg, rp_err *err)
{
	region *rg = &c->regions[r];
	const char *what = region_label(c, r);
	if (cfg && cfg->budget_auto) {
		if (!rg->map_region)
			return rp_err_set(err, RP_EUSAGE, "%s%s%sbudget auto needs the link map (--map) to know the RAM region",
					  cfg->name ? "region '" : "", cfg->name ? cfg->name : "", cfg->name ? "': " : "--budget: ");
		rp_ram_map ram;
		int rc = free_ram(c, rg->map_region, cfg->reserve, rg->align, &ram, err);
		if (rc)   /* the region is the map's: name the file to look at */
			return rp_err_wrap(err, "%s", c->map->path);
		rg->budget = ram.budget;
		for (size_t i = 0; !rc && i < ram.nlines; i++)
			rc = pl_note(c, err, "%s", ram.lines[i]);
		rp_ram_map_release(&ram);
		return rc;
	}
	if (rg->budget == 0 && !c->opts->zero_budget_ok)
		return rp_err_set(err, RP_EUSAGE, "%s: 0 bytes leaves no room to move anything", what);
	const rp_map_region *m = rg->map_region;
	if (m && m->length && rg->budget > m->length)
		return rp_err_set(err, RP_EUSAGE, "%s: %llu bytes is larger than the %s region (%llu bytes at 0x%llx)", what,
				  (unsigned long long)rg->budget, m->name, (unsigned long long)m->length,
				  (unsigned long long)m->origin);
	return 0;
}

/* `budget: auto` gives a region all the free room of its memory, so no other region can be
 * there. The config refuses this when both name the memory; here the memory may also come from
 * where an output section already is, or --budget auto may override the file. A guessed memory
 * (the first region before its section exists) proves nothing: it may be meant for ITCM. */
static int refuse_shared_auto(const ctx *c, rp_err *err)
{
	const rp_place_opts *o = c->opts;
	for (size_t r = 0; r < o->nregions; r++)
		for (size_t q = 0; q < c->nregions && o->regions[r].budget_auto && !c->regions[r].memory_guessed; q++)
			if (q != r && in_memory(c, q, c->regions[r].map_region))
				return rp_err_set(err, RP_EUSAGE, "regions '%s' and '%s' are both in memory %s: 'budget: auto' cannot split it; give '%s' a size",
						  region_label(c, r), region_label(c, q), c->regions[r].map_region->name, region_label(c, r));
	return 0;
}

/* Whether no region before r is known to be in its memory: the warning is given once per memory
 * (only the first region can have a guessed one, and it is warned about alone). */
static int first_in_memory(const ctx *c, size_t r)
{
	for (size_t q = 0; q < r; q++)
		if (in_memory(c, q, c->regions[r].map_region))
			return 0;
	return 1;
}

/* The regions to fill: the configured ones, or the single command-line region. */
int pl_resolve_regions(ctx *c, rp_err *err)
{
	const rp_place_opts *o = c->opts;
	size_t n = o->nregions ? o->nregions : 1;
	c->regions = calloc(n, sizeof(region));
	if (!c->regions)
		return rp_err_nomem(err, "preparing the placement");
	c->nregions = n;
	int rc = 0;
	for (size_t r = 0; r < n && !rc; r++) {
		const rp_region_cfg *cfg = o->nregions ? &o->regions[r] : NULL;
		region *rg = &c->regions[r];
		*rg = cfg ? (region){ cfg->name, cfg->outsec, NULL, cfg->budget, cfg->align, cfg->speed, 0, 0, 0 }
			  : (region){ NULL, o->outsec, NULL, o->budget, o->align, 1.0, 0, 0, 0 };
		rc = find_map_region(c, r, cfg ? cfg->memory : o->region, err);
	}
	if (n)
		c->regions[0].link_reserve = o->link_reserve;
	if (!rc)
		rc = refuse_shared_auto(c, err);
	for (size_t r = 0; r < n && !rc; r++)
		rc = resolve_budget(c, r, o->nregions ? &o->regions[r] : NULL, err);
	for (size_t r = 0; r < n && !rc; r++) {
		const rp_map_region *m = c->regions[r].map_region;
		int automatic = o->nregions && o->regions[r].budget_auto;
		if (m && m->length && !automatic && first_in_memory(c, r))
			rc = warn_over_free_ram(c, r, err);
	}
	return rc;
}
