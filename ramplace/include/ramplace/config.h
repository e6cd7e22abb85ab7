/* config.h: ramplace.yaml, the placement configuration (see docs/config.md): RAM regions,
 * pinned, excluded and closure functions, the cost model, run weighting and solver limits.
 *
 * Parsed with libyaml and validated strictly: unknown keys, wrong types, duplicates and
 * impossible combinations are refused with "<file>:<line>:<column>: <what>". Command-line
 * options override what the file says (cmd_place.c applies them). */
#ifndef RAMPLACE_CONFIG_H
#define RAMPLACE_CONFIG_H

#include <stdint.h>
#include <stddef.h>
#include "ramplace/error.h"
#include "ramplace/flashmodel.h"

typedef struct rp_region_cfg {
	char *name;          /* label, unique: "sram", "itcm" */
	char *memory;        /* MEMORY region in the link map; NULL: the one holding the section or .data */
	uint64_t budget;     /* bytes for code and veneers; 0 when budget_auto */
	int budget_auto;     /* the region's free room after .data, .bss, heap and stack */
	uint64_t reserve;    /* auto: bytes kept for stack+heap when the ELF does not say; 0 */
	uint64_t align;      /* unit alignment, a power of two; 4 */
	char *outsec;        /* output section; ".ramtext" */
	char *fragment;      /* fragment file; NULL: ramtext.ld for the first region, else <outsec>.ld */
	double speed;        /* fetch speed relative to zero-wait-state memory, (0, 1]; 1 */
} rp_region_cfg;

/* cost.flash[]: one flash model for an address range or a MEMORY region of the map. */
typedef struct rp_flash_cfg {
	rp_fm_cfg model;
	char *memory;        /* MEMORY region name (resolved against the map by place); NULL: range */
	uint64_t lo, hi;     /* range: [lo, hi) */
	char *where;         /* "file:line:col" of the entry, for messages when memory is unknown */
} rp_flash_cfg;

typedef struct rp_cost_model {
	double flash_fetch_cycles;   /* cycles per instruction fetch from flash; 1 + wait states */
	int64_t veneer_bytes;        /* per RAM->flash call target; -1: by architecture */
	double veneer_cycles;        /* extra cycles per call through a veneer; -1: by architecture */
	rp_fm_cfg model;             /* cost.model: the flash model placement weighs cycles with */
	int have_model;
	rp_flash_cfg *flash;         /* cost.flash: a model per range (owned by the config); NULL */
	size_t nflash;
} rp_cost_model;

#define RP_COST_MODEL_INIT { 1.0, -1, -1.0, { 0 }, 0, NULL, 0 }

typedef enum rp_weighting {
	RP_WEIGHT_SAMPLES = 0,   /* runs add up as sampled */
	RP_WEIGHT_EQUAL          /* every run counts the same, whatever its length */
} rp_weighting;

typedef struct rp_config {
	char *path;
	rp_region_cfg *regions;
	size_t nregions;
	char **pin, **exclude, **closure;   /* function names or globs */
	size_t npin, nexclude, nclosure;
	rp_cost_model cost;
	int have_cost;               /* a cost: section was given */
	rp_weighting weighting;
	double time_limit_s;         /* ILP time limit; 10 */
	int data;                    /* `data: on|off`: 1 on, 0 off, -1 not given (off unless
					`pin-data` names objects) */
	int allow_boot_path;         /* `allow-boot-path: yes`: as place --allow-boot-path (0: no) */
	char **handlers;             /* `ram-handlers: [names or globs]`: as place --ram-handler */
	size_t nhandlers;
	int all_handlers;            /* `ram-handlers: all`: as place --ram-handlers */
	char **pin_data;             /* `pin-data`: const objects (globs) that must go to .ramdata */
	size_t npin_data;
} rp_config;

int rp_config_load(rp_config **out, const char *path, rp_err *err);
/* Parses text held in memory; name is used in messages. */
int rp_config_parse(rp_config **out, const char *text, size_t len, const char *name, rp_err *err);
void rp_config_free(rp_config *cfg);

/* A region with the defaults (".ramtext", align 4, speed 1), for configs made in code. */
void rp_region_cfg_defaults(rp_region_cfg *r);

#endif
