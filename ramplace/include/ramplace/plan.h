/* plan.h: a placement plan, what `ramplace place` decided and `ramplace check` verifies.
 *
 * Written beside the fragment as "<fragment>.plan" (line-based text, see docs/plan-format.md),
 * always atomically. Every field read back is hostile input: errors name file and line. */
#ifndef RAMPLACE_PLAN_H
#define RAMPLACE_PLAN_H

#include <stdint.h>
#include <stddef.h>
#include "ramplace/error.h"

/* The build input a plan is for (ldgen/): GNU ld's fragment (also what ld.lld, `emit`, reads);
 * Zephyr's code relocation, which moves the build's own sources only; ESP-IDF's ldgen, which
 * maps functions of the components' archives whose names fit its grammar; pico-sdk, whose link
 * gets copies of the objects (and archive members) with the planned sections renamed to the
 * SDK's .time_critical.*, which its own script copies to RAM inside .data. All but GNU ld's
 * need the map. */
enum { RP_DIALECT_GNU = 0, RP_DIALECT_ZEPHYR = 1, RP_DIALECT_ESPIDF = 2, RP_DIALECT_PICO = 3 };

/* What pico-sdk's link renames a planned input section to (.text.f -> .time_critical.ramplace.text.f):
 * the SDK's scripts copy *(.time_critical*) to RAM in .data, and the prefix tells what a plan put
 * there from the SDK's own RAM code in a later map. */
#define RP_PICO_SECTION_PREFIX ".time_critical.ramplace"

/* One table of the dialects: what place, check and emit need to know of each. */
typedef struct rp_dialect_info {
	const char *name;            /* "gnu", "zephyr", "esp-idf", "pico" */
	const char *outsec;          /* the output section its planned code goes to by default
					(NULL: the command line's, .ramtext) */
	const char *own_sections;    /* its output section is the SDK's, shared with the SDK's own code
					or data: how the plan's own sections are named there (NULL: the
					section is the plan's alone); see rp_dialect_own_sections */
	int loader_fills_ram;        /* a bootloader loads the RAM code before the application runs:
					no reset path to respect, and check judges what it loaded */
	int needs_map;               /* moves functions by object and archive, which only the map names */
	const char *emit_format;     /* `ramplace emit --format` that writes its build input */
} rp_dialect_info;

/* The dialect's row (GNU ld's for an unknown one). */
const rp_dialect_info *rp_dialect_info_of(int dialect);

/* "gnu", "zephyr", "esp-idf", "pico"; and back (-1 for another name). */
const char *rp_dialect_name(int dialect);
int rp_dialect_from_name(const char *name);

/* Where a dialect's output section is the SDK's, shared with its own code or data (pico-sdk's
 * .data, ESP-IDF's .iram0.text): how a plan's own input sections there are named, in a relinked
 * build's map (RP_PICO_SECTION_PREFIX; ESP-IDF's noflash_text keeps .text); NULL when the
 * output section holds the plan alone. Placement, budget auto and check all decide by it. */
const char *rp_dialect_own_sections(int dialect);

typedef struct rp_plan_func {
	char *name;
	char *file;              /* defining file for statics, NULL for globals */
} rp_plan_func;              /* in a data plan (is_data): a data object ("object" lines) */

typedef struct rp_plan_unit {
	char *name;              /* the unit: a function with its compiler clones */
	char *file;              /* NULL for globals */
	uint64_t size;           /* bytes of its input sections */
	uint64_t weight;         /* size rounded up to the unit's alignment */
	uint64_t samples;        /* in a data plan: the unit's flash reads (or their proxy) */
	char **patterns;         /* GNU ld input-section patterns that move it */
	size_t npatterns;
	rp_plan_func *funcs;     /* every function symbol that must end up in RAM */
	size_t nfuncs;
} rp_plan_unit;

typedef struct rp_plan {
	char *build_id;          /* of the ELF the plan was made from */
	char *outsec;            /* ".ramtext" */
	char *region;            /* "RAM", or NULL when unknown */
	uint64_t region_origin;
	uint64_t region_length;  /* 0 when unknown */
	uint64_t budget;
	uint64_t veneer_reserve; /* bytes kept free for RAM->flash call veneers */
	uint64_t used;           /* sum of unit weights */
	uint64_t total_samples;
	uint64_t moved_samples;
	uint64_t nveneers;       /* veneers expected in the section (optional key, 0 when absent) */
	uint64_t align;          /* unit alignment (optional key, 0 when absent: 4 assumed) */
	uint64_t link_reserve;   /* "link-reserve BYTES": budget kept free for what the previous link
				    added beyond its plan (place --link-reserve, the build loop's
				    correction); check allows the link that much above the plan */
	int is_data;             /* "kind data": units are read-only data objects (.ramdata), not code */
	char *data_plan;         /* a code plan's data plan beside it ("data-plan ramdata.ld.plan",
				    a file name in the same directory), so check finds it; NULL: none */
	int linker_lld;          /* "linker lld": made for ld.lld's thunks (0: GNU ld's veneers) */
	int allow_boot_path;     /* "boot-path allowed": made with place --allow-boot-path, so what the
				    reset path runs before the copy may be in RAM; check honours it */
	int sizes_estimated;     /* "sizes estimated": made without a link map, each unit's bytes an
				    upper bound read off the ELF (0: exact, from the map) */
	rp_plan_func *handlers;  /* "handler NAME FILE": interrupt handlers whose whole static reach
				    the plan moves to RAM (place --ram-handler(s)); check proves it */
	size_t nhandlers;
	char *dialect;           /* "dialect zephyr": made for a build input that moves less than a
				    GNU ld fragment, its inexpressible units left out (NULL: GNU ld's) */
	char *modeled_model;     /* "modeled MODEL BEFORE AFTER": the flash model the placement priced
				    the profiled workload under (NULL: none recorded), and its cycles */
	uint64_t modeled_before; /* from flash, and with the whole placement (every region, data), */
	uint64_t modeled_after;  /* as `place` printed them: `check --profile` reads its prediction here */
	rp_plan_unit *units;
	size_t nunits;
} rp_plan;


/* Frees everything the plan owns, including the plan itself. */
void rp_plan_free(rp_plan *plan);

/* The dialect a plan was made for: its dialect line, RP_DIALECT_GNU without one. */
int rp_plan_dialect(const rp_plan *plan);

int rp_plan_write(const rp_plan *plan, const char *path, rp_err *err);
int rp_plan_read(rp_plan **out, const char *path, rp_err *err);
int rp_plan_parse(rp_plan **out, const char *text, size_t len, const char *name, rp_err *err);

#endif
