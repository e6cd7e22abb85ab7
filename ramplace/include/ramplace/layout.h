/* layout.h: where code lies in flash, priced exactly against a flash model (docs/layout.md).
 *
 * On an XIP cache what costs time is misses, and misses depend on the addresses of what stays
 * in flash, not only on what moved to RAM. The QEMU plugin's access trace (trace=FILE: "F|R
 * hex-addr size" per access, of the flash-only build) is compressed into runs: a maximal
 * stretch of sequential fetches (or data reads) inside one input section of the link map. A
 * layout gives every input section a new address (or RAM); a run then touches the same
 * words or lines in the same order wherever its section lies, so replaying the runs through
 * flashmodel.c prices the layout. For cache models this is exact: an LRU cache's state does
 * not change on a hit of the line just used. For ws and art models with prefetch the time a
 * prefetch had depends on where each fetch starts: kept for runs up to 128 bytes, spread by
 * bytes over longer ones (the error against a full replay, rp_layout_price_full, is stated in
 * docs/layout.md).
 *
 * The new addresses come from a model of the link (rp_layout_arrange): the output sections
 * of flash in their order (what lies outside the text's memory region keeps its address), the
 * RAM output section's load image grown by what moved, the text
 * output section's code aligned when asked, the ordered sections first in the text output section, the
 * rest in the old order at their own alignment (sections the map shows overlapping, merged
 * strings, keep their overlap), GNU ld's veneer block after its last code section (and so in
 * every other output section whose code calls into RAM, aligned to 8; ld.lld: one thunk per
 * callee, with the text's).
 * Flash-to-RAM calls run a veneer in flash (one fetch and its literal); RAM-to-flash calls one
 * in RAM; the boot copy reads the load image once. */
#ifndef RAMPLACE_LAYOUT_H
#define RAMPLACE_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "ramplace/error.h"
#include "ramplace/flashmodel.h"
#include "ramplace/image.h"
#include "ramplace/map.h"

/* A run of the trace: n sequential accesses of one kind covering [off, off+len) of a piece. */
typedef struct rp_layout_run {
	uint32_t piece;        /* input section index in the map, or the trace's pseudo piece */
	uint32_t off, len;
	uint32_t n;            /* accesses merged */
	uint64_t starts;       /* fetches: bit i set when one starts at off + 2i (runs of at most
				  RP_FM_RUN_STARTS_BYTES); 0 when longer: then spread by bytes */
	uint32_t from;         /* a fetch run entering a piece at a function's first instruction
				  (or the piece's first byte) from another piece: that piece (a
				  call or tail call: a veneer when they end up apart); else
				  UINT32_MAX */
	uint8_t op;            /* RP_FM_FETCH or RP_FM_READ */
	uint8_t warm;          /* a sampled window's warm-up, or what the flash held before it
				  (the plugin's "f|r" lines): fed to the model, its cost not
				  counted (but for cold misses, rp_fm_cold) */
	uint8_t window;        /* the first run of a sampled window */
} rp_layout_run;

/* The trace over a map's input sections (an arena: everything is freed together). */
typedef struct rp_layout_trace {
	const rp_map *map;     /* borrowed */
	rp_layout_run *runs;
	size_t nruns;
	uint64_t accesses, fetches, reads;
	uint64_t outside;      /* accesses in no input section of the map: they keep their address */
	uint64_t windows;      /* a sampled trace (the plugin's trace-window=, trace-period=): its
				  windows; 0 for a whole one */
	double scale;          /* every access over those counted (1 for a whole one): what the
				  runs cost is scaled by it; the boot copy and the cold misses
				  (each line's first with `warmed`, else those of sets that never
				  evict: rp_fm_cold) are not */
	uint64_t total;        /* every access of the run (a sampled trace's "# accesses N") */
	uint64_t *window_warm; /* per window: its first accesses, RP_LAYOUT_WARMUP of them in
				  whole runs, that warm the model and are not counted. A window
				  starts in another phase than the last one ended in: counted,
				  the misses of lines the last phase pushed out would be scaled
				  by the sampling as if they were the steady state's */
	size_t nwindow_warm;   /* windows holding an access (window_warm's length) */
	int warmed;            /* each window starts from what the flash held (the plugin's "f|r"
				  lines, runs marked warm): no warm-up of its own, and a line's
				  first miss is counted once, every other one scaled
				  (rp_fm_first_touch) */
	uint64_t *piece_fetches;  /* per input section: fetch accesses (hotness) */
	uint64_t *piece_reads;
	size_t npieces;        /* map->ninsecs; runs outside them use piece == npieces, off = addr */
} rp_layout_trace;

#define RP_LAYOUT_WARMUP 0.1

/* Reads path (the plugin's trace=FILE) against map and the image it links (its functions'
 * entries tell calls from returns). RP_EINPUT naming the file and line for a malformed line. */
int rp_layout_trace_load(rp_layout_trace **out, const rp_map *map, const rp_image *img, const char *path,
			 rp_err *err);
/* The same from memory (name for messages): the fuzz target's entry. */
int rp_layout_trace_parse(rp_layout_trace **out, const rp_map *map, const rp_image *img, const char *text, size_t len,
			  const char *name, rp_err *err);
void rp_layout_trace_free(rp_layout_trace *t);

/* A candidate layout. */
typedef struct rp_layout_plan {
	const unsigned char *in_ram;  /* per input section: 1 when it moves to RAM (NULL: none) */
	const size_t *order;          /* input sections laid first in the text output section */
	size_t norder;
	uint64_t order_align;         /* each ordered section aligned to this too (0/1: its own) */
	uint64_t text_align;          /* the text output section's code starts at a multiple of this
					 (0/1: where it falls): what follows the load image keeps its
					 lines and sets however much moved */
	uint64_t tail_line;           /* a pad after the ordered sections keeps what follows the
					 text (.rodata) at its offset within a line of this size
					 (0/1: none) */
	const size_t *ram_secs;       /* the moved sections in the fragment's order within an
					 alignment (its units by value): where each runs in RAM, for
					 the RISC-V calls between them (NULL: by index) */
	size_t nram_secs;
} rp_layout_plan;

/* What the link looks like around the layout, read once from the image, map and trace: the
 * output sections and memory regions, the veneers' size and cost, the calls between input
 * sections, the linker's groups of sections and its stubs (layout_link.h has it). */
typedef struct rp_layout_link rp_layout_link;

/* The link from the image (veneers, call graph), the map (output sections, regions) and the
 * trace (the text output section is the one with the most fetches) into *out, freed with
 * rp_layout_link_free. RP_EINPUT when no output section holds fetches (a trace of another
 * build). */
int rp_layout_link_new(rp_layout_link **out, const rp_image *img, const rp_map *map, const rp_layout_trace *t,
		       const char *ram_outsec, rp_err *err);
void rp_layout_link_free(rp_layout_link *link);
/* RISC-V: whether the linker relaxed a call between them (an auipc more when they are apart). */
int rp_layout_was_relaxed(const rp_layout_link *link, uint32_t from, uint32_t to);

/* RV32C: how many of the narrowable calls and tail jumps (*checked) the link model sizes
 * otherwise than the linker did (*wrong), applying its rule to the layout as linked (0 and 0
 * elsewhere). */
void rp_layout_rvc_check(const rp_layout_link *link, size_t *wrong, size_t *checked);

/* New address of every input section (addr[i], npieces of them; RAM ones keep the old), and of
 * the veneer block and the load image. */
typedef struct rp_layout_addrs {
	uint64_t *addr;
	uint64_t veneer_base;         /* the text output section's flash veneer block */
	uint64_t load_addr, load_size;/* the RAM section's load image */
	uint64_t *veneer_key;         /* per flash-to-RAM veneer: the caller's group (link) << 32 |
					 the RAM function it reaches (its index in link->callees);
					 sorted */
	uint64_t *veneer_addr;        /* per veneer: where it lies (UINT64_MAX: not laid out) */
	uint64_t *veneer_slot;        /* scratch per veneer: a block's order (lay_veneers) */
	size_t nveneers;
	size_t nstubs;                /* every veneer ld builds: the flash ones and the RAM side's */
	uint64_t tail_pad;            /* bytes after the ordered sections (plan's tail_line) */
	struct rp_layout_shift {      /* RISC-V: a call site that relaxation resized, within its
					 section: what lies after it in the section moves by delta */
		uint32_t off;
		int32_t delta;
	} *shift;                     /* by section, then offset */
	size_t *shift_first;          /* per section i: shift[shift_first[i] .. shift_first[i + 1]);
					 NULL when no site changed */
} rp_layout_addrs;

int rp_layout_arrange(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
		      rp_layout_addrs *out, rp_err *err);
void rp_layout_addrs_release(rp_layout_addrs *a);

/* The layout a relink actually made (layout_relinked.c): each input section of the trace's
 * build (old, linked with the map) at the address its first function has in relinked, in_ram
 * (npieces bytes, the caller's) set where that is outside flash; sections without a function
 * where the relink's map (relinked_map, or NULL) has them, else moved with their output
 * section; veneers and the load image where relinked has them. Prices a relinked firmware
 * from the flash-only trace, to separate the link model's error from the pricing's. */
int rp_layout_addrs_relinked(const rp_layout_trace *t, const rp_layout_link *link, const rp_image *old,
			     const rp_image *relinked, const rp_map *relinked_map, unsigned char *in_ram,
			     rp_layout_addrs *out, rp_err *err);

/* What a layout costs beyond the instructions of the flash-only run. */
typedef struct rp_layout_cost {
	uint64_t stall;               /* flash stall cycles (fetches and reads) */
	uint64_t extra_insns;         /* veneers executed and the boot copy */
	uint64_t misses;
	uint64_t cycles;              /* stall + extra_insns */
	uint64_t pad;                 /* bytes of the tail pad the layout needed (addrs' tail_pad) */
} rp_layout_cost;

/* What a layout must price below a simpler one to be chosen (RP_LAYOUT_MARGIN or
 * RP_LAYOUT_MARGIN_EXACT of the run's cycles: the trace's fetches, scaled, plus the flash-only
 * stall). */
double rp_layout_margin(const rp_layout_trace *t, const rp_layout_cost *flash_only);
/* What one placement's layout must price below another's (both past that margin): the same
 * trace and model price both, so their errors mostly agree, and what tells them apart is the
 * stall and veneers they pay, not the run's instructions: RP_LAYOUT_MARGIN_BETWEEN of the lower
 * of the two prices. (0.1 % of the run's cycles kept, under phasevm's accelerator at 4 KiB, a
 * set priced 8 % above the other's and measured above it.) */
double rp_layout_margin_between(const rp_layout_cost *a, const rp_layout_cost *b);

/* Replays the runs through a new model of cfg at the addresses of a. */
int rp_layout_price(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
		    const rp_layout_addrs *a, const rp_fm_cfg *cfg, rp_layout_cost *out, rp_err *err);
/* What each function of img costs under the layout: per_func[i] (img->nfuncs of them, the
 * caller's) the stall its own fetches and reads pay and that of the misses it causes by
 * evicting another's line (moving it to RAM saves both: cycles.c's weights), scaled by the
 * sampling; a function with no code in flash, nothing. The placement's weights for this layout
 * rather than the flash-only build's. */
int rp_layout_attribute(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
			const rp_layout_addrs *a, const rp_fm_cfg *cfg, const rp_image *img, double *per_func,
			rp_err *err);
/* The same from the full trace at path, access by access (the reference the runs are measured
 * against). */
int rp_layout_price_full(const char *path, const rp_image *img, const rp_layout_trace *t, const rp_layout_link *link,
			 const rp_layout_plan *lp, const rp_layout_addrs *a, const rp_fm_cfg *cfg, rp_layout_cost *out,
			 rp_err *err);

/* The layout search (layout_search.c): given the input sections a placement moves, in the
 * order it values them (units[k] lists unit k's sections), chooses how many of them to move
 * (a prefix: the rest do not pay for their copy and veneers under this model) and the order of
 * the hot sections that stay in flash. */
typedef struct rp_layout_choice {
	size_t nunits_kept;           /* the first nunits_kept units move */
	size_t *order;                /* owned: sections laid first in the text output section */
	size_t norder;
	uint64_t order_align;
	uint64_t text_align;
	uint64_t tail_line;           /* kept: the pad is tail_pad bytes */
	uint64_t tail_pad;
	rp_layout_cost flash_only;    /* nothing moved, the old order */
	rp_layout_cost as_placed;     /* every unit moved, the old order */
	rp_layout_cost chosen;
	size_t evaluations;
	double seconds;
} rp_layout_choice;

typedef struct rp_layout_units {
	const size_t *secs;           /* sections of unit k: secs[first[k] .. first[k+1]) */
	const size_t *first;
	size_t nunits;
	size_t min_kept;              /* never fewer units moved (pins, closures, handlers) */
	int all_or_none;              /* only min_kept or all of them (a sampled trace: too coarse
					 to judge unit by unit) */
} rp_layout_units;

/* ordered: 0 keeps the old order (the RAM set only). The prefixes take up to three pricings per
 * unit; the improvement of the best at most RP_LAYOUT_MAX_EVALUATIONS in all, and at most
 * RP_LAYOUT_MAX_RUNS_PRICED runs of the trace priced (a long trace gets fewer improvements:
 * a pricing replays every run, and 600 of an interpreter's 4.7 M runs took 413 s). A count of
 * work, not a clock, so the same inputs give the same layout on any machine. RP_EUSAGE when
 * min_kept exceeds nunits. */
#define RP_LAYOUT_MAX_EVALUATIONS 600
#define RP_LAYOUT_MAX_RUNS_PRICED 150000000ull
/* A layout is chosen over a simpler one (nothing moved, or the solver's placement, in the
 * link's order) only when it prices lower by this share of the run's cycles: a sampled trace's
 * error (layout_search.c, docs/layout.md); traced whole, where the link model matches the
 * relinks (ARM, and RISC-V with each relaxed call sized as GNU ld sizes it), by
 * RP_LAYOUT_MARGIN_EXACT. */
#define RP_LAYOUT_MARGIN 0.005
#define RP_LAYOUT_MARGIN_EXACT 0.001
/* Between two placements' layouts, a share of the lower price (rp_layout_margin_between): on
 * the Cortex-M3 example under a 2 KiB cache at 8 KiB two sets priced 0.4 % apart measured the
 * other way round. */
#define RP_LAYOUT_MARGIN_BETWEEN 0.01
int rp_layout_search(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_units *units,
		     const rp_fm_cfg *cfg, int ordered, rp_layout_choice *out, rp_err *err);
void rp_layout_choice_release(rp_layout_choice *c);

#endif
