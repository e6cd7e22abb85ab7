/* check.c: verifies a plan on the relinked ELF (see check.h): every planned function is inside
 * the plan's output section (and its region, when the plan knows it), the section fits the
 * budget and is loaded from flash (LMA != VMA), and counts the call veneers GNU ld put in it
 * with their bytes (a plan made for another veneer shape shows there). A data plan's objects
 * (.ramdata) are checked the same way, by their data symbols, and must keep their size. Separately, the reset
 * path (boot.h) on the relinked ELF: each function of it in RAM, with the chain of calls to it.
 *
 * Owns the failure lines of an rp_check_result (rp_check_result_release frees them). The image
 * model lists only functions, and ld's "__NAME_veneer" symbols may be STT_FUNC or STT_NOTYPE,
 * so the veneers are counted from the ELF symbol table with libelf, on a private copy of the
 * bytes (libelf may convert a foreign-endian image in place). */
#include <stdarg.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/boot.h"
#include "ramplace/callgraph.h"
#include "ramplace/check.h"
#include "ramplace/elfsyms.h"
#include "ramplace/util.h"

int rp_check_add_failure(rp_check_result *res, rp_err *err, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	char **grown = realloc(res->failures, (res->nfailures + 1) * sizeof(*grown));
	if (!grown)
		return rp_err_nomem(err, "checking a plan");
	res->failures = grown;
	res->failures[res->nfailures] = strdup(line);
	if (!res->failures[res->nfailures])
		return rp_err_nomem(err, "checking a plan");
	res->nfailures++;
	return 0;
}

static int addr_width(const rp_image *img)
{
	return img->elfclass == 64 ? 16 : 8;
}

/* Whether [addr, addr+size) lies inside [lo, lo+len). */
static int range_inside(uint64_t addr, uint64_t size, uint64_t lo, uint64_t len)
{
	return addr >= lo && addr - lo <= len && size <= len - (addr - lo);
}

/* Where a function outside the output section sits: "in flash" when its section runs where it
 * is loaded (LMA == VMA), else the section's name. */
static void describe_place(char *buf, size_t n, const rp_image *img, const rp_func *f)
{
	const rp_section *sec = f->section < img->nsections ? &img->sections[f->section] : NULL;
	if (!sec)
		snprintf(buf, n, "outside any section");
	else if (sec->lma == sec->vma)
		snprintf(buf, n, "in flash");
	else
		snprintf(buf, n, "in %s", sec->name);
}

/* The section holding f when it runs from RAM, copied there from flash (LMA != VMA, contents in
 * the file) within the plan's region when the plan knows one: placed, whatever its name. */
static const rp_section *ram_copy_of(const rp_image *img, const rp_plan *plan, const rp_func *f)
{
	const rp_section *sec = f->section < img->nsections ? &img->sections[f->section] : NULL;
	if (!sec || !sec->is_alloc || sec->is_nobits || !range_inside(f->addr, f->size, sec->vma, sec->size))
		return NULL;
	int in_region = plan->region_length && range_inside(f->addr, f->size, plan->region_origin, plan->region_length);
	if (plan->region_length && !in_region)
		return NULL;
	/* a loader may put code in RAM without a copy the ELF shows: ESP-IDF's .iram0.text has no
	 * AT> (its bootloader loads the image's segments), so its LMA is its VMA; in the plan's RAM
	 * region, code is RAM code */
	if (sec->lma == sec->vma && !(in_region && sec->is_exec))
		return NULL;
	return sec;
}

/* A section ld placed by its own name because no rule of the script names it keeps its input
 * name: ".ramtext.vm_run", ".time_critical.x", ".text.f" (an output section has one dot). */
static int looks_orphan(const rp_section *sec)
{
	return sec->name[0] == '.' && strchr(sec->name + 1, '.') != NULL;
}

/* Whether name is one of the comma-separated holders. */
static int is_holder(const rp_check_result *res, const char *name)
{
	size_t n = strlen(name);
	if (!n)
		return 0;   /* a section without a name (a hostile ELF's) is never one */
	for (const char *h = res->holders; (h = strstr(h, name)) != NULL; h += n)
		if ((h == res->holders || h[-1] == ' ') && (h[n] == ',' || h[n] == '\0'))
			return 1;
	return 0;
}

static void note_holder(rp_check_result *res, const rp_section *sec)
{
	res->nby_memory++;
	size_t len = strlen(res->holders);
	if (!is_holder(res, sec->name))
		snprintf(res->holders + len, sizeof(res->holders) - len, "%s%s", len ? ", " : "", sec->name);
}

/* A static function's (name, file) can name two functions: newlib compiles vfprintf.c twice
 * (vfprintf.o, and vfiprintf.o with INTEGER_ONLY), each with its own static __sbprintf. The
 * plan means the one in the section when one of them is there. */
static const rp_func *same_name_inside(const rp_image *img, const rp_plan_func *pf, const rp_section *outsec)
{
	for (size_t i = 0; outsec && pf->file && i < img->nfuncs; i++) {
		const rp_func *g = &img->funcs[i];
		if (g->file && strcmp(g->name, pf->name) == 0 && strcmp(g->file, pf->file) == 0 &&
		    range_inside(g->addr, g->size, outsec->vma, outsec->size))
			return g;
	}
	return NULL;
}

static int check_func(const rp_image *img, const rp_plan *plan, const rp_section *outsec,
		      const rp_plan_func *pf, rp_check_result *res, rp_err *err)
{
	char file_note[512] = "";
	if (pf->file)
		snprintf(file_note, sizeof(file_note), " (%s)", pf->file);
	res->nfuncs_checked++;
	const rp_func *f = rp_image_func_by_name(img, pf->name, pf->file);
	if (!f)
		return rp_check_add_failure(res, err, "'%s'%s is not in the relinked ELF: inlined or renamed?", pf->name, file_note);
	if (outsec && !range_inside(f->addr, f->size, outsec->vma, outsec->size) && same_name_inside(img, pf, outsec))
		f = same_name_inside(img, pf, outsec);
	if (!outsec || !range_inside(f->addr, f->size, outsec->vma, outsec->size)) {
		const rp_section *ram = ram_copy_of(img, plan, f);
		if (ram) {
			note_holder(res, ram);
			res->nfuncs_placed++;
			return 0;
		}
		char place[256];
		describe_place(place, sizeof(place), img, f);
		const rp_section *sec = f->section < img->nsections ? &img->sections[f->section] : NULL;
		if (sec && sec->lma == sec->vma && looks_orphan(sec))
			return rp_check_add_failure(res, err, "'%s'%s is at 0x%0*llx %s, not in %s: its section '%s' is an orphan (no rule "
					   "of the linker script names it, so ld put it in flash by its name)", pf->name,
					   file_note, addr_width(img), (unsigned long long)f->addr, place, plan->outsec, sec->name);
		return rp_check_add_failure(res, err, "'%s'%s is at 0x%0*llx %s, not in %s", pf->name, file_note, addr_width(img),
				   (unsigned long long)f->addr, place, plan->outsec);
	}
	if (plan->region_length && !range_inside(f->addr, f->size, plan->region_origin, plan->region_length))
		return rp_check_add_failure(res, err, "'%s'%s is at 0x%0*llx, outside region %s [0x%llx, 0x%llx)", pf->name,
				   file_note, addr_width(img), (unsigned long long)f->addr,
				   plan->region ? plan->region : "?", (unsigned long long)plan->region_origin,
				   (unsigned long long)(plan->region_origin + plan->region_length));
	res->nfuncs_placed++;
	return 0;
}

/* A planned data object (a data plan's "object" line): in the output section and region, as
 * large as the one input section its unit moved, so the copy at boot holds all of it. */
static int check_object(const rp_image *img, const rp_plan *plan, const rp_section *outsec, const rp_plan_unit *u,
			const rp_plan_func *po, rp_check_result *res, rp_err *err)
{
	uint64_t addr, size;
	rp_err why = RP_ERR_INIT;
	res->nfuncs_checked++;
	if (rp_image_data_symbol(img, po->name, &addr, &size, &why))
		return rp_check_add_failure(res, err, "data object '%s' is not in the relinked ELF: removed or renamed?", po->name);
	if (!outsec || !range_inside(addr, size, outsec->vma, outsec->size))
		return rp_check_add_failure(res, err, "data object '%s' is at 0x%0*llx, not in %s", po->name, addr_width(img),
				   (unsigned long long)addr, plan->outsec);
	if (plan->region_length && !range_inside(addr, size, plan->region_origin, plan->region_length))
		return rp_check_add_failure(res, err, "data object '%s' is at 0x%0*llx, outside region %s", po->name,
				   addr_width(img), (unsigned long long)addr, plan->region ? plan->region : "?");
	if (u->nfuncs == 1 && size != u->size)
		return rp_check_add_failure(res, err, "data object '%s' is %llu bytes in the relinked ELF, the plan moved %llu",
				   po->name, (unsigned long long)size, (unsigned long long)u->size);
	res->nfuncs_placed++;
	return 0;
}

/* Whether some planned function runs from RAM in the relinked ELF in another section than the
 * plan's output section: the plan is then checked by memory. */
static int any_in_ram_outside(const rp_image *img, const rp_plan *plan, const rp_section *outsec)
{
	for (size_t i = 0; !plan->is_data && i < plan->nunits; i++)
		for (size_t k = 0; k < plan->units[i].nfuncs; k++) {
			const rp_func *f = rp_image_func_by_name(img, plan->units[i].funcs[k].name, plan->units[i].funcs[k].file);
			if (f && ram_copy_of(img, plan, f) && (!outsec || !range_inside(f->addr, f->size, outsec->vma, outsec->size)))
				return 1;
		}
	return 0;
}

/* The output section itself: present when the plan moves anything (or its functions are in RAM
 * under another section's name), within budget and region, and copied from flash at boot. */
static int check_outsec(const rp_image *img, const rp_plan *plan, const rp_section *outsec, int by_memory,
			int loader_loaded, rp_check_result *res, rp_err *err)
{
	if (!outsec)
		return plan->nunits == 0 || by_memory ? 0
		     : rp_check_add_failure(res, err, "'%s' is not in the relinked ELF: is the fragment INCLUDEd in the linker script?",
				   plan->outsec);
	if (!by_memory && outsec->size > plan->budget &&
	    rp_check_add_failure(res, err, "'%s' is %llu bytes, over the budget of %llu by %llu", plan->outsec,
			(unsigned long long)outsec->size, (unsigned long long)plan->budget,
			(unsigned long long)(outsec->size - plan->budget)))
		return err->code;
	if (outsec->size == 0)
		return 0;
	if (plan->region_length && !range_inside(outsec->vma, outsec->size, plan->region_origin, plan->region_length) &&
	    rp_check_add_failure(res, err, "'%s' at 0x%0*llx is outside region %s", plan->outsec, addr_width(img),
			(unsigned long long)outsec->vma, plan->region ? plan->region : "?"))
		return err->code;
	if (outsec->is_nobits)
		return rp_check_add_failure(res, err, "'%s' has no contents in the ELF (NOLOAD?): its code would not be copied",
				   plan->outsec);
	/* ESP-IDF's bootloader loads IRAM from the image's segments: no AT>, and no copy at boot */
	if (outsec->lma == outsec->vma && !loader_loaded)
		return rp_check_add_failure(res, err, "'%s' is not loaded from flash (its LMA is its VMA 0x%0*llx): use AT> FLASH",
				   plan->outsec, addr_width(img), (unsigned long long)outsec->vma);
	return 0;
}

static int in_section(const rp_section *sec, uint64_t addr)
{
	return sec && addr >= sec->vma && addr - sec->vma < sec->size;
}

/* Whether addr lies in a section that holds planned functions found by memory: its veneers serve
 * them (or the SDK's own RAM code: counted too, an upper bound). */
static int in_holder(const rp_image *img, const rp_check_result *res, uint64_t addr)
{
	for (size_t i = 0; res->nby_memory && i < img->nsections; i++)
		if (in_section(&img->sections[i], addr) && img->sections[i].is_alloc && is_holder(res, img->sections[i].name))
			return 1;
	return 0;
}

/* Per function of img, whether a planned function calls it (through a veneer or not). */
static int planned_callees(const rp_image *img, const rp_plan *plan, unsigned char **out, rp_err *err)
{
	rp_callgraph *cg = NULL;
	int rc = rp_callgraph_build(&cg, img, err);
	unsigned char *called = rc ? NULL : calloc(img->nfuncs ? img->nfuncs : 1, 1);
	if (!rc && !called)
		rc = rp_err_nomem(err, "checking a plan");
	for (size_t i = 0; !rc && i < plan->nunits; i++)
		for (size_t k = 0; k < plan->units[i].nfuncs; k++) {
			const rp_func *f = rp_image_func_by_name(img, plan->units[i].funcs[k].name, plan->units[i].funcs[k].file);
			size_t fi = f ? (size_t)(f - img->funcs) : SIZE_MAX;
			for (size_t e = fi != SIZE_MAX ? cg->first[fi] : 0; fi != SIZE_MAX && e < cg->first[fi + 1]; e++)
				called[cg->edges[e].to] = 1;
		}
	rp_callgraph_free(cg);
	if (rc)
		free(called);
	*out = rc ? NULL : called;
	return rc;
}

/* Veneer symbols may be STT_FUNC or STT_NOTYPE, so the image's function list misses some:
 * count them in the full symbol table, with their bytes (the symbol's size, else the
 * architecture's veneer size: image.h). In an SDK's shared RAM section (shared: pico-sdk's
 * .data) the SDK's own RAM code has veneers of its own, in the flash-only build already: only
 * those leading to a function a planned function calls are the plan's. */
static int count_veneers(const rp_image *img, const rp_plan *plan, const rp_section *outsec, int shared,
			 rp_check_result *res, rp_err *err)
{
	res->nveneers = 0;
	res->veneer_bytes = 0;
	if ((!outsec || outsec->size == 0) && !res->nby_memory)
		return 0;
	const rp_elfsyms *syms;
	unsigned char *called = NULL;
	int rc = rp_image_syms(img, &syms, err);
	if (!rc && shared && (rc = planned_callees(img, plan, &called, err)) == RP_EINPUT) {
		err->code = 0;   /* no disassembler for this architecture: every veneer counts */
		rc = 0;
	}
	for (size_t i = 0; !rc && i < syms->nsyms; i++) {
		uint64_t addr = syms->syms[i].value & ~(uint64_t)1; /* Thumb bit */
		if (!rp_image_is_veneer_name(syms->syms[i].name) || !(in_section(outsec, addr) || in_holder(img, res, addr)))
			continue;
		const rp_func *to = called ? rp_callgraph_entered(img, addr) : NULL;
		if (to && !strstr(to->name, "_veneer") && !called[to - img->funcs])
			continue;
		res->nveneers++;
		res->veneer_bytes += syms->syms[i].size ? syms->syms[i].size : img->veneer_size;
	}
	free(called);
	return rc;
}

static int check_accounting(const rp_image *img, const rp_plan *plan, const rp_section *outsec, rp_check_result *res,
			    rp_err *err);

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The bytes of the placed planned functions, each address once (a unit lists aliases such as
 * __udivsi3 and __aeabi_uidiv at one address), a symbol without .size to the next function. */
static int count_placed_bytes(const rp_image *img, const rp_plan *plan, const rp_section *outsec, rp_check_result *res,
			      rp_err *err)
{
	size_t n = 0, cap = 0;
	uint64_t *addrs = NULL;
	res->placed_bytes = 0;
	for (size_t i = 0; i < plan->nunits; i++)
		for (size_t k = 0; k < plan->units[i].nfuncs; k++) {
			const rp_func *f = rp_image_func_by_name(img, plan->units[i].funcs[k].name, plan->units[i].funcs[k].file);
			if (!f || !((outsec && range_inside(f->addr, f->size, outsec->vma, outsec->size)) || ram_copy_of(img, plan, f)))
				continue;
			if (n == cap) {
				size_t c2 = cap ? 2 * cap : 16;
				uint64_t *g = realloc(addrs, c2 * 2 * sizeof(uint64_t));
				if (!g) {
					free(addrs);
					return rp_err_nomem(err, "checking a plan");
				}
				addrs = g;
				cap = c2;
			}
			addrs[2 * n] = f->addr;
			addrs[2 * n + 1] = rp_image_func_extent(img, f);
			n++;
		}
	rp_sort(addrs, n, 2 * sizeof(uint64_t), by_value);   /* pairs by address */
	for (size_t i = 0; i < n; i++)
		if (i == 0 || addrs[2 * i] != addrs[2 * (i - 1)])
			res->placed_bytes += addrs[2 * i + 1];
	free(addrs);
	return 0;
}

/* Functions found by memory share their sections with code the plan did not move (pico-sdk's
 * .data holds its own __not_in_flash functions): the plan's functions, those in its output
 * section and those elsewhere in RAM, with the output section's veneers, must fit the budget. */
static int check_memory_budget(const rp_plan *plan, rp_check_result *res, rp_err *err)
{
	uint64_t bytes = res->placed_bytes + res->veneer_bytes;
	res->planned_total = plan->used + plan->veneer_reserve;
	res->planned_veneers = plan->nveneers;
	res->difference = 0;
	if (bytes <= plan->budget)
		return 0;
	return rp_check_add_failure(res, err, "the planned functions in RAM take %llu bytes with %zu veneer(s) (in %s and %s), over "
			   "the budget of %llu", (unsigned long long)bytes, res->nveneers, plan->outsec, res->holders,
			   (unsigned long long)plan->budget);
}

int rp_check_run(const rp_image *relinked, const rp_plan *plan, rp_check_result *res, rp_err *err)
{
	memset(res, 0, sizeof(*res));
	if (!relinked || !plan || !plan->outsec)
		return rp_err_set(err, RP_EINPUT, "check: needs a relinked image and a plan with an output section");
	const rp_section *outsec = rp_image_section(relinked, plan->outsec);
	res->outsec_size = outsec ? outsec->size : 0;
	res->planned_bytes = plan->used;
	/* pico-sdk's .data and ESP-IDF's .iram0.text also hold the program's data or the SDK's own
	 * RAM code: only the planned functions' bytes can be held against the budget */
	int espidf = rp_dialect_info_of(rp_plan_dialect(plan))->loader_fills_ram;
	int shared = res->shared_outsec = rp_dialect_own_sections(rp_plan_dialect(plan)) != NULL;
	int by_memory = shared || any_in_ram_outside(relinked, plan, outsec);
	int rc = check_outsec(relinked, plan, outsec, by_memory, espidf, res, err);
	for (size_t i = 0; !rc && i < plan->nunits; i++)
		for (size_t k = 0; !rc && k < plan->units[i].nfuncs; k++)
			rc = plan->is_data ? check_object(relinked, plan, outsec, &plan->units[i], &plan->units[i].funcs[k], res, err)
					   : check_func(relinked, plan, outsec, &plan->units[i].funcs[k], res, err);
	if (!rc)
		rc = count_veneers(relinked, plan, outsec, shared, res, err);
	if (!rc && (res->nby_memory || shared) && !(rc = count_placed_bytes(relinked, plan, outsec, res, err)))
		rc = check_memory_budget(plan, res, err);
	else if (!rc)
		rc = check_accounting(relinked, plan, outsec, res, err);
	if (rc)
		rp_check_result_release(res);
	return rc;
}

/* Exact accounting: what the plan claimed (code + veneers) against what the linker put in the
 * section. The plan lays every input section out at its own alignment, so the two agree within
 * the section's end alignment; more means a size model that lies (unplanned code in the section,
 * veneers the plan did not expect). ld.lld lays out its thunks and padding its own way, and the
 * plan reserves for the worst: an lld link may come in below the plan, never above; so may a
 * RISC-V link that GNU ld relaxed, and a link of a plan made without a map. */
static int check_accounting(const rp_image *img, const rp_plan *plan, const rp_section *outsec, rp_check_result *res,
			    rp_err *err)
{
	uint64_t align = plan->align ? plan->align : 4;
	res->planned_total = plan->used + plan->veneer_reserve;
	res->planned_veneers = plan->nveneers;
	res->difference = (int64_t)res->outsec_size - (int64_t)res->planned_total;
	if (!outsec || plan->nunits == 0)
		return 0;
	uint64_t off = res->difference < 0 ? (uint64_t)-res->difference : (uint64_t)res->difference;
	/* a plan without a `veneers` count (hand-written, or older) holds its veneer reserve as
	 * room kept free, not a prediction: only claiming too little is wrong then */
	int exact = plan->nveneers > 0 || plan->veneer_reserve == 0;
	if (off <= align || (!exact && res->difference <= 0))
		return 0;
	/* the build loop measured this much more on the previous link and kept it free */
	if (res->difference > 0 && off <= plan->link_reserve + align)
		return 0;
	if (img->linker_lld && res->difference < 0)
		return 0;   /* lld pads and places thunks its own way: below the plan is all that holds */
	/* RISC-V: GNU ld relaxes by default; a call between two moved functions (auipc+jalr, 8
	 * bytes) comes within reach and shrinks to jal or c.jal (4 or 2): a relaxed link comes in
	 * below the plan, never above it */
	if (img->machine == EM_RISCV && res->difference < 0)
		return 0;
	/* without a map the plan's sizes are upper bounds read off the ELF (a function's alignment
	 * guessed from its address, its literal pool from the gap after it): below is all that holds */
	if (plan->sizes_estimated && res->difference < 0)
		return 0;
	/* the usual cause on Cortex-M0/M0+: veneers of another shape than the plan reserved for */
	char why[200] = "";
	uint64_t planned_each = plan->nveneers ? plan->veneer_reserve / plan->nveneers : 0;
	uint64_t linked_each = res->nveneers ? res->veneer_bytes / res->nveneers : 0;
	if (img->linker_lld != plan->linker_lld)   /* the plan's thunk or veneer shapes are another linker's */
		snprintf(why, sizeof(why), "; the plan was made for %s, the ELF was linked by %s: place again with --linker %s",
			 plan->linker_lld ? "ld.lld" : "GNU ld", img->linker_lld ? "ld.lld" : "GNU ld",
			 img->linker_lld ? "lld" : "gnu");
	else if (planned_each && linked_each > planned_each)
		snprintf(why, sizeof(why), "; ld wrote %zu veneer(s) of %llu bytes, the plan reserved %llu bytes each (re-place: the veneer size comes from the ELF's architecture)",
			 res->nveneers, (unsigned long long)linked_each, (unsigned long long)planned_each);
	return rp_check_add_failure(res, err, "accounting: '%s' is %llu bytes, the plan claimed %llu (%llu code + %llu veneer bytes): %+lld bytes, more than the %llu-byte unit alignment%s",
			   plan->outsec, (unsigned long long)res->outsec_size, (unsigned long long)res->planned_total,
			   (unsigned long long)plan->used, (unsigned long long)plan->veneer_reserve,
			   (long long)res->difference, (unsigned long long)align, why);
}

int rp_check_runs_from_ram(const rp_image *img, const rp_func *f, const char *const *outsecs, size_t n)
{
	const rp_section *sec = f->section < img->nsections ? &img->sections[f->section] : NULL;
	if (!sec)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (strcmp(sec->name, outsecs[i]) == 0)
			return 1;
	return sec->lma != sec->vma;
}

int rp_check_reset_path(const rp_image *relinked, const char *const *outsecs, size_t noutsecs,
			rp_check_result *res, size_t *nchecked, rp_err *err)
{
	rp_callgraph *cg = NULL;
	rp_boot boot;
	*nchecked = 0;
	int rc = rp_callgraph_build(&cg, relinked, err);
	if (rc == RP_EINPUT) {
		err->code = 0;
		return 0;   /* no disassembler for this architecture: nothing to check */
	}
	if (!rc)
		rc = rp_boot_analyze(&boot, relinked, cg, outsecs, noutsecs, err);
	if (rc) {
		rp_callgraph_free(cg);
		return rc;
	}
	const char *reset = boot.reset != SIZE_MAX ? relinked->funcs[boot.reset].name : "?";
	const char *copier = boot.copier != SIZE_MAX ? relinked->funcs[boot.copier].name : reset;
	for (size_t i = 0; !rc && i < relinked->nfuncs; i++) {
		if (!boot.keep[i])
			continue;
		(*nchecked)++;
		const rp_func *f = &relinked->funcs[i];
		if (!rp_check_runs_from_ram(relinked, f, outsecs, noutsecs))
			continue;
		char chain[512];
		rp_boot_chain(&boot, relinked, i, chain, sizeof(chain));
		int w = addr_width(relinked);
		unsigned long long at = (unsigned long long)f->addr;
		if (boot.copy_found)
			rc = rp_check_add_failure(res, err, "reset path: '%s' runs before %s copies the code (at 0x%llx) but sits in RAM at 0x%0*llx: the firmware would jump into uncopied RAM: %s",
					 f->name, copier, (unsigned long long)boot.copy_site, w, at, chain);
		else if (boot.main_func != SIZE_MAX)
			rc = rp_check_add_failure(res, err, "reset path: '%s' runs before %s calls main, maybe before the code is copied (where was not found), but sits in RAM at 0x%0*llx: %s",
					 f->name, reset, w, at, chain);
		else
			rc = rp_check_add_failure(res, err, "reset path: '%s' is reached by %s, which may run it before the code is copied (where was not found), but sits in RAM at 0x%0*llx: %s",
					 f->name, reset, w, at, chain);
	}
	rp_boot_release(&boot);
	rp_callgraph_free(cg);
	return rc;
}

void rp_check_result_release(rp_check_result *res)
{
	if (!res)
		return;
	for (size_t i = 0; i < res->nfailures; i++)
		free(res->failures[i]);
	free(res->failures);
	memset(res, 0, sizeof(*res));
}
