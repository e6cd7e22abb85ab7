/* flashmodel.h: flash timing models (docs/cost-models.md). A model is fed the stream of
 * accesses a core makes to flash (address, size, instruction fetch or data read) in program
 * order and answers, per access, the stall cycles it costs beyond the one cycle the same access
 * costs from zero-wait-state RAM. Three kinds:
 *
 *   ws:N[,width=W,prefetch=0|1]          wait states per flash word with sequential prefetch
 *                                        (STM32F4 without ART: a W-byte word per read)
 *   art:ws=N[,line=L,lines=M,dlines=D,prefetch=0|1]   accelerator: L-byte line fills into M
 *                                        instruction and D data lines (LRU), hits free
 *   cache:PRESET[,k=v...] | cache:size=S,ways=W,line=L,penalty=P[,dcache=0|1]
 *                                        XIP cache, LRU per set, P cycles per line fill;
 *                                        presets rp2040, fe310, esp32
 *
 * Pure C11 without the rest of the library (no rp_err, no util), so that the QEMU plugin
 * compiles this same file and its stall cycles agree with what the solver and the tests run.
 * Workload: one call per executed instruction, hundreds of millions per run: no allocation
 * after rp_fm_new. */
#ifndef RAMPLACE_FLASHMODEL_H
#define RAMPLACE_FLASHMODEL_H

#include <stddef.h>
#include <stdint.h>

typedef enum rp_fm_kind { RP_FM_WS = 0, RP_FM_ART, RP_FM_CACHE } rp_fm_kind;
typedef enum rp_fm_op { RP_FM_FETCH = 0, RP_FM_READ } rp_fm_op;

typedef struct rp_fm_cfg {
	rp_fm_kind kind;
	unsigned ws;         /* ws, art: wait states of one flash read */
	unsigned width;      /* ws: bytes per flash word (4) */
	unsigned prefetch;   /* ws, art: the next sequential word/line is read while the current runs */
	unsigned line;       /* art, cache: bytes per line (power of two) */
	unsigned lines;      /* art: instruction lines held (64); 1: a single buffer */
	unsigned dlines;     /* art: data lines held (8) */
	unsigned size, ways; /* cache: bytes, associativity */
	unsigned penalty;    /* cache: stall cycles per line fill (and per uncached data read) */
	unsigned dcache;     /* cache: data reads go through the cache (else each costs penalty) */
	char name[96];       /* canonical spelling, e.g. "ws:5", "cache:rp2040" */
} rp_fm_cfg;

/* Parses "ws:5", "art:ws=5,line=16", "cache:rp2040", "cache:rp2040,penalty=40" ... into *out.
 * Returns 0, or -1 with a one-line reason in why (of whylen bytes). */
int rp_fm_parse(rp_fm_cfg *out, const char *spec, char *why, size_t whylen);

/* What the model costs per instruction fetch when no access stream is known (a sampled
 * profile): a demand read for ws and art, a line fill every line/4 fetches for a cache. An
 * upper estimate; the plugin's stall cycles are the exact figure. */
double rp_fm_fetch_estimate(const rp_fm_cfg *cfg);

/* A phrase for output: "5 wait states", "an RP2040 XIP cache (16 KiB, 2-way, 8-byte lines)". */
void rp_fm_describe(const rp_fm_cfg *cfg, char *buf, size_t len);

typedef struct rp_fm rp_fm;

/* A model in its reset state (empty cache, no word buffered); NULL when out of memory. */
rp_fm *rp_fm_new(const rp_fm_cfg *cfg);
void rp_fm_free(rp_fm *m);
/* Back to the reset state. */
void rp_fm_reset(rp_fm *m);
/* One access of size bytes (1..16) at addr; returns its stall cycles. */
uint64_t rp_fm_access(rp_fm *m, uint64_t addr, unsigned size, rp_fm_op op);

/* n accesses of one kind (n >= 1) running sequentially over [addr, addr+len) (layout.h's runs):
 * each word or line they touch is accessed once, in order. For fetches, the time a prefetch had
 * is the fetches since the last read: with starts (bit i: an access starts at addr + 2i; runs of
 * at most 128 bytes) counted exactly as n single accesses would count it, else spread over the
 * words or lines by bytes. Exact for cache models either way (a hit on the line just used
 * changes no LRU decision), and for ws and art with starts; close to it without. Returns the
 * stall cycles; the stats count n accesses. rp_fm_last_evictions gives the run's first
 * RP_FM_MAX_UNITS misses on evicted lines (a run of more lines drops the rest). */
#define RP_FM_RUN_STARTS_BYTES 128
uint64_t rp_fm_access_run(rp_fm *m, uint64_t addr, uint64_t len, uint64_t n, uint64_t starts, rp_fm_op op);

/* The most words/lines one access touches: 16 bytes over 1-byte words, plus one. */
#define RP_FM_MAX_UNITS 17

/* A miss on a line that an earlier access evicted (art and cache instruction/unified lines):
 * without that eviction it would have hit, so moving the evicting code (or data) to RAM saves
 * it as surely as moving the code that missed. */
typedef struct rp_fm_evict {
	uint64_t by;        /* address of the access that evicted the line */
	rp_fm_op by_op;     /* and whether it was a fetch or a data read */
	uint64_t victim;    /* address of the access that missed (the last one fed) */
	rp_fm_op victim_op;
	uint64_t stall;     /* what the miss cost */
} rp_fm_evict;

/* The evicted-line misses of the last access (0 to RP_FM_MAX_UNITS), in *out until the next. */
size_t rp_fm_last_evictions(const rp_fm *m, const rp_fm_evict **out);

typedef struct rp_fm_stats {
	uint64_t fetches, reads;       /* accesses fed */
	uint64_t misses;               /* words/lines read from flash on demand */
	uint64_t stall;                /* stall cycles returned */
} rp_fm_stats;
void rp_fm_get_stats(const rp_fm *m, rp_fm_stats *out);

/* For a trace sampled in windows: the misses the run pays once, not once per window scaled
 * by the sampling. A set of lines that never evicts one by the end of the trace held every
 * line it was asked for: its misses are compulsory, paid once by the whole run too (scaled,
 * they priced a 16 KiB cache's flash-only build at 15x its stall). A set that evicts keeps
 * all its misses scaled: whether one was a change of phase or the steady state's, a window
 * cannot tell. Only lines used since the first window count as evicted (the boot copy's data
 * lines leave once). rp_fm_window: a window starts (nothing is tallied before the first). */
void rp_fm_window(rp_fm *m);
/* warm: what is fed from now on is a window's warm-up (its stall is not counted; its misses in
 * sets that never evict are). */
void rp_fm_set_warm(rp_fm *m, int warm);
/* The stall of the misses in sets that have not evicted a line: *counted of those fed while not
 * warm, *all of every one. After rp_fm_first_touch: of each line's first miss instead. */
void rp_fm_cold(const rp_fm *m, uint64_t *counted, uint64_t *all);
/* For a sampled trace whose windows start from what the flash held (the plugin's recency
 * lines, replayed warm): every miss but a line's first is the steady state's and scales; a
 * line's first, wherever it falls (boot, a window, the warm replay), is paid once by the run
 * too. Tallies those from the first rp_fm_window on, for up to `lines` distinct lines (more
 * scale like the rest). 0, or -1 when out of memory. */
int rp_fm_first_touch(rp_fm *m, size_t lines);

#endif
