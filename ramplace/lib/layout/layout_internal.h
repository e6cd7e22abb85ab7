/* layout_internal.h: what the pieces of the link model share (layout.h): walking a trace access
 * by access over the map's input sections (layout_trace.c), the callee table and the stubs
 * (layout_veneers.c), RISC-V relaxation (layout_relax.c) for the addresses (layout_assign.c).
 * Private to lib/layout. */
#ifndef RAMPLACE_LAYOUT_INTERNAL_H
#define RAMPLACE_LAYOUT_INTERNAL_H

#include <stdio.h>

#include "ramplace/callgraph.h"
#include "ramplace/layout.h"
#include "layout_link.h"

/* One access of the trace, placed: its input section (npieces: none) and offset in it (the
 * address itself outside every section), and for a fetch entering a section at a function's
 * entry (or its first byte) from another section's fetch, that section (else UINT32_MAX). */
typedef struct lt_access {
	rp_fm_op op;
	uint32_t piece, off, size, from;
	int window;            /* the first access of a sampled window (no run goes on across it) */
	int warm;              /* what the flash held before a window ("f|r" lines): replayed, not
				  counted */
} lt_access;

/* What a sampled trace says of itself (trace-window=, trace-period=). */
typedef struct lt_meta {
	uint64_t windows;      /* "# window at INDEX" lines */
	uint64_t total;        /* "# accesses TOTAL": every access the run made; 0 when not sampled */
	uint64_t warm_lines;   /* "f|r" lines: what the flash held before each window */
	int footprint;         /* "# footprint" seen: no access follows */
} lt_meta;

typedef int (*lt_visit)(void *ctx, const lt_access *a, rp_err *err);

/* Reads the trace from f (name for messages) and calls visit for each access in order; fills
 * *meta. RP_EINPUT naming name and line for a malformed line or an address above 4 GiB. */
int lt_walk(FILE *f, const char *name, const rp_map *map, const rp_image *img, lt_visit visit, void *ctx,
	    lt_meta *meta, rp_err *err);

/* The link's callee table (layout_veneers.c), built while the call graph is read: each edge's
 * callee f (in section sec, index to) called from section from, noted; then, with the trace's
 * entries into sections added, sorted (link->callees, link->direct_callees). */
typedef struct lt_callees {
	uint64_t *pairs;       /* per edge: from, then the callee's to << 32 | offset */
	size_t npairs, pairs_cap, callees_cap;
} lt_callees;
int lt_callee_note(rp_layout_link *link, lt_callees *b, uint32_t from, uint32_t to, const rp_func *f,
		   const rp_map_insec *sec, rp_err *err);
int lt_callees_finish(rp_layout_link *link, lt_callees *b, const rp_image *img, const rp_layout_trace *t,
		      rp_err *err);
/* Frees what b holds (the pairs), not the table it filled. */
void lt_callees_release(lt_callees *b);
/* Frees link's callee table (callees, direct_callees). */
void lt_callee_table_free(rp_layout_link *link);
/* The index in link->callees of the function at off in section piece; UINT32_MAX when the
 * section has none. Every entry of the link's own trace is in the table; off no entry there
 * (another trace of the build, rp_layout_price_full's file) gives the section's first callee. */
uint32_t lt_callee_index(const rp_layout_link *link, uint32_t piece, uint32_t off);
/* Whether section from calls the function at off in section piece directly (the call graph
 * says; without one every call counts): a veneer when they end up apart. */
int lt_is_direct_callee(const rp_layout_link *link, uint32_t from, uint32_t piece, uint32_t off);

/* a->veneer_key: a flash veneer per (calling output section's group, RAM function called),
 * sorted, their a->veneer_addr UINT64_MAX until laid out; *ram_veneer_bytes: the RAM side's
 * veneers (one per flash function called from RAM). */
int lt_assign_veneers(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
		      rp_layout_addrs *a, uint64_t *ram_veneer_bytes, rp_err *err);
/* The veneers of group g in a->veneer_key: [*lo, returned). */
size_t lt_group_veneers(const rp_layout_addrs *a, uint32_t g, size_t *lo);
/* a->veneer_slot[0 .. hi - lo): the veneers [lo, hi) of a block (one group's) in GNU ld's order,
 * each bucket << 32 | its index from lo; id: the id of the group's last code section (0:
 * unknown, the callees' order). */
void lt_stub_order(const rp_layout_link *link, rp_layout_addrs *a, size_t lo, size_t hi, uint32_t id);

/* Instructions the reset path's copy loop runs per word of the RAM code (layout_boot.c): read
 * from the copier's first loop after the copy site, LT_COPY_INSNS_DEFAULT when there is none
 * (a call to memcpy, no copy found) or it is no word-by-word loop. */
#define LT_COPY_INSNS_DEFAULT 4
#define LT_COPIER_MAX_INSNS 512
unsigned lt_copy_insns_per_word(const rp_image *img, const rp_callgraph *cg, const char *ram_outsec);

static inline uint64_t lt_align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

/* An input section's alignment, 4 when the map's objects did not say. */
static inline uint64_t lt_piece_align(const rp_map_insec *s)
{
	return s->align ? s->align : 4;
}

static inline int lt_by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* RISC-V relaxation (layout_relax.c). Each narrowable site's length as GNU ld gave it in the
 * layout as linked (once per link). */
int lt_size_as_linked(const rp_layout_trace *t, rp_layout_link *link, rp_err *err);

/* What relaxation changes under a plan: per section, the bytes it grows by, and each site
 * resized. */
typedef struct lt_growth {
	int64_t *by;                  /* per section */
	struct resized {
		uint32_t piece, off;
		int32_t delta;
	} *sites;
	size_t n, cap;
} lt_growth;
/* What each section grows by, and where (at: the addresses of a first pass, or NULL; ram, with
 * its slack: where the moved sections run, lt_ram_addrs). */
int lt_relax_growth(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
		    const uint64_t *at, const uint64_t *ram, uint64_t ram_slack, lt_growth *g, rp_err *err);
/* Section i's bytes with its growth. */
uint64_t lt_grown(const rp_layout_trace *t, const int64_t *grow, size_t i);
/* Where each moved section runs (*ram, npieces; the caller frees it) and the largest
 * alignment (*slack); NULL when nothing moves or the map does not say. */
int lt_ram_addrs(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
		 const int64_t *grow, uint64_t **ram, uint64_t *slack, rp_err *err);
void lt_growth_release(lt_growth *g);
/* out->shift from g: where the trace's offsets within a section move. */
int lt_keep_shifts(const rp_layout_trace *t, lt_growth *g, rp_layout_addrs *out, rp_err *err);

#endif
