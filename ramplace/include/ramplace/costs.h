/* costs.h: what a flash model charged a run, beside its samples (docs/cost-models.md): stall
 * cycles per code address, and reads with their stall cycles per data address, as the QEMU
 * plugin's model= option writes them (import format "qemu", version 3). Filled by the importer,
 * symbolized and stored by profiledb (rp_db_store_costs) in the same transaction as the run.
 * The histograms reuse rp_samples' hash table: counts here are cycles or reads, not samples. */
#ifndef RAMPLACE_COSTS_H
#define RAMPLACE_COSTS_H

#include <stdint.h>
#include "ramplace/error.h"
#include "ramplace/samples.h"

/* Misses on lines an earlier access evicted (version 4's "e" lines): what the evictor's move to
 * RAM would save besides its own stall cycles. */
typedef struct rp_evict {
	uint64_t by, victim;     /* addresses of the evicting and of the missing access */
	uint8_t by_data, victim_data;   /* 1: that access was a data read, 0: a fetch */
	uint64_t stall;          /* stall cycles of those misses */
} rp_evict;

/* An interrupt handler's entry as the plugin's entry=ADDR measured it (version 5's "h" lines):
 * the stall cycles the model charged in the first window instructions of each invocation. */
/* The most handler entries one file may list (the plugin measures RP_PLUGIN_ENTRIES): bounds the
 * check for an entry given twice. */
#define RP_MAX_ENTRIES 4096
/* The entry= options the QEMU plugin takes (qemu-plugin/entry_stall.c; callgraph --handlers
 * prints at most these). */
#define RP_PLUGIN_ENTRIES 16

typedef struct rp_entry_stall {
	uint64_t addr;           /* the handler's entry (bit 0 clear) */
	uint64_t invocations;
	uint64_t worst;          /* the worst invocation's stall cycles in the window */
	uint64_t sum;            /* every invocation's, summed (the mean's numerator) */
	uint64_t returned;       /* invocations seen to return (exception return) */
	uint64_t inv_worst;      /* the worst of those, entry to return, nested handlers included */
	unsigned window;         /* instructions counted from each entry */
} rp_entry_stall;

typedef struct rp_costs {
	rp_samples fetch_stall;  /* code address -> stall cycles of its instruction fetches */
	rp_samples data_reads;   /* data address in flash -> reads */
	rp_samples data_stall;   /* data address -> stall cycles of those reads */
	rp_evict *evict;         /* by (evictor, victim) pair; a pair may repeat (several files) */
	size_t nevict, evict_cap;
	rp_entry_stall *entries; /* handlers measured (entry=), in the file's order; may repeat */
	size_t nentries, entries_cap;
	unsigned entry_window;   /* the last "# entries" line's window */
	uint64_t entries_declared; /* the count it announced (checked against the "h" lines) */
	size_t entries_first;    /* entries before the file being read (several files: merged) */
	uint64_t misses;         /* flash reads on demand (words, lines) the model counted */
	char model[96];          /* the model's spelling ("ws:5", "cache:rp2040"); "" when none */
} rp_costs;

void rp_costs_init(rp_costs *c);
void rp_costs_release(rp_costs *c);
/* Appends one eviction record; 0 or RP_ENOMEM-style error. */
int rp_costs_add_evict(rp_costs *c, const rp_evict *e, rp_err *err);
/* Appends from's eviction records to into's (the histograms merge with rp_samples_merge). */
int rp_costs_merge_evict(rp_costs *into, const rp_costs *from, rp_err *err);
/* Appends one handler entry's measurement; from's to into's. */
int rp_costs_add_entry(rp_costs *c, const rp_entry_stall *e, rp_err *err);
int rp_costs_merge_entries(rp_costs *into, const rp_costs *from, rp_err *err);
/* Whether the run had a flash model. */
static inline int rp_costs_have(const rp_costs *c)
{
	return c->model[0] != '\0';
}

#endif
