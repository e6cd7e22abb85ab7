/* check.h: proves on a relinked ELF that a plan landed: every planned function sits inside the
 * plan's output section in the RAM region, the section fits the budget, nothing planned stayed
 * in flash, and the bytes the plan claimed (code + veneers) are what the linker put there,
 * within the unit alignment. Separately, that nothing the reset handler runs before the copy
 * lives in RAM. */
#ifndef RAMPLACE_CHECK_H
#define RAMPLACE_CHECK_H

#include <stdint.h>
#include <stddef.h>
#include "ramplace/error.h"
#include "ramplace/image.h"
#include "ramplace/plan.h"

typedef struct rp_check_result {
	char **failures;          /* one line each, e.g. "'crc32' is at 0x00001234 in flash, not in .ramtext" */
	size_t nfailures;
	uint64_t outsec_size;     /* bytes of the output section in the relinked ELF */
	uint64_t planned_bytes;   /* plan->used */
	size_t nveneers;          /* __*_veneer symbols found inside the output section */
	uint64_t veneer_bytes;    /* their bytes (symbol sizes; the image's veneer size when 0) */
	size_t nfuncs_checked;
	size_t nfuncs_placed;     /* of those, found inside the output section (and region) */
	uint64_t planned_total;   /* plan->used + plan->veneer_reserve */
	int64_t difference;       /* outsec_size - planned_total */
	uint64_t planned_veneers; /* plan->nveneers */
	/* Planned functions found by memory rather than by section name: in a section loaded from
	 * flash and run from RAM (within the plan's region when it has one) other than the plan's
	 * output section, as SDKs name theirs (pico-sdk's .data, Zephyr's .ram_text_reloc, ESP-IDF's
	 * .iram0.text). Such a function is placed; the exact accounting of the output section is
	 * then left out and the budget is checked on the planned functions' bytes. */
	size_t nby_memory;
	char holders[256];        /* those sections' names, comma-separated (truncated) */
	uint64_t placed_bytes;    /* the symbol bytes of every placed planned function */
	int shared_outsec;        /* the plan's output section holds more than the plan (pico-sdk's
				     .data): checked by memory as above, in that section too */
} rp_check_result;

/* Fills res; returns 0 when the check could be done (even with failures), negative on error. A
 * planned function is placed when it lies in the plan's output section, or else in any section
 * run from RAM and loaded from flash (res->nby_memory); one left in flash in a section no rule of
 * the linker script placed (an orphan, kept under its input name) is named with that cause. */
int rp_check_run(const rp_image *relinked, const rp_plan *plan, rp_check_result *res, rp_err *err);
void rp_check_result_release(rp_check_result *res);

/* Whether f runs from RAM: in a section copied from flash (LMA != VMA), or in one of outsecs. */
int rp_check_runs_from_ram(const rp_image *img, const rp_func *f, const char *const *outsecs, size_t n);

/* Adds one failure line (printf-style) to res; fails only when out of memory. */
int rp_check_add_failure(rp_check_result *res, rp_err *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* For each interrupt handler (name, file for a static), walks its static reach in the relinked
 * ELF (direct calls and tail branches, veneers seen through) and adds a failure naming the path
 * to the first function that runs from flash (not in a section copied to RAM, nor in one of
 * outsecs). *nreached: the functions the handlers reach, all together. */
int rp_check_handlers(const rp_image *relinked, const rp_plan_func *handlers, size_t nhandlers,
		      const char *const *outsecs, size_t noutsecs, rp_check_result *res, size_t *nreached, rp_err *err);

/* Appends to *out (grown with realloc; *nout entries so far, the caller's to free; the strings
 * are img's) the functions of img matching globs, and with all every vector-table handler but
 * the reset handler, each once. RP_EUSAGE for a glob matching nothing, RP_EINPUT for all without
 * a vector table. */
int rp_check_find_handlers(const rp_image *img, const char *const *globs, size_t nglobs, int all, rp_plan_func **out,
			   size_t *nout, rp_err *err);

/* Adds a failure to res for every function the reset handler may run before it copies the code
 * (boot.h: at any call depth, through calls and tail jumps) that sits in RAM in the relinked ELF
 * (a section loaded from elsewhere, or one of outsecs), naming the chain of calls from the reset
 * handler down to it. *nchecked gets how many reset-path functions were looked at. */
int rp_check_reset_path(const rp_image *relinked, const char *const *outsecs, size_t noutsecs,
			rp_check_result *res, size_t *nchecked, rp_err *err);

#endif
