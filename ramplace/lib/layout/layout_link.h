/* layout_link.h: the link model's view of the link (rp_layout_link, opaque in layout.h): what
 * layout_link.c reads once from the image, map and trace, and what the arrangement, relaxation,
 * stubs and pricing of lib/layout read from it. Private to lib/layout and its white-box tests
 * (tests/unit/test_layout*.c, bench_layout_eval.c), which include it as "layout/layout_link.h". */
#ifndef RAMPLACE_LAYOUT_LINK_H
#define RAMPLACE_LAYOUT_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "ramplace/layout.h"

struct rp_layout_link {
	const char *text_outsec;      /* the output section of the hottest code (".text") */
	const char *ram_outsec;       /* where moved code runs (".ramtext") */
	uint64_t ram_lma;             /* its load address in the flash-only link */
	int ram_lma_known;            /* 0: the load image is assumed after everything in flash */
	uint64_t ram_base_size;       /* what it holds already (code placed by attribute) */
	uint64_t ram_vma;             /* where it runs (ram_lma_known: the map says) */
	uint64_t flash_lo, flash_hi;  /* the memory region of the text: only what lies there moves */
	uint64_t veneer_size;         /* bytes per veneer (0: none, RISC-V) */
	uint64_t veneer_block_align;
	unsigned veneer_insns;        /* instructions a veneer executes */
	unsigned copy_insns;          /* instructions the boot copy's loop runs per word (its loop's,
					 read from the reset path; 4 when it cannot be read) */
	struct rp_layout_call {       /* a direct call or branch's site: section from, offset off in
					 it, to the function at to_off in section to; by (from, off) */
		uint32_t from, off, to, to_off;
	} *calls;                     /* owned */
	size_t ncalls;
	int all_direct;               /* no call graph (not disassembled): every call counts as direct */
	struct rp_layout_relax {      /* RISC-V: calls the linker relaxed (jal, c.jal) between two
					 sections; apart, each is auipc+jalr again */
		uint32_t from, to;
		uint32_t to_off;         /* the callee's entry within section to */
		uint32_t site0, nsites;  /* its sites of 2 and 4 bytes: sites[site0 .. site0 + nsites) */
	} *relax;                     /* owned, by (from, to) */
	size_t nrelax;
	struct rp_layout_site {       /* a call or jump ld relaxed, sized by where its target lies */
		uint32_t off;            /* within section from */
		unsigned char len;       /* 2 (c.jal, c.j) or 4 (jal, j) as linked */
		unsigned char narrow;    /* RV32C: c.jal or c.j when in reach (not jal t0, a branch) */
		unsigned char relaxed;   /* a call or jump ld shortened from 8 bytes (not a branch) */
		unsigned char as_linked; /* RV32C, narrowable: the length the model gives it in the
					    layout as linked (what a layout's is compared with) */
	} *sites;                     /* owned */
	size_t nsites;
	uint64_t rvc_reach;           /* RV32 with C: c.jal's reach (2048); 0 elsewhere */
	uint64_t rvc_slack;           /* what ld adds to a distance before it tries c.jal: the text
					 output section's alignment (a later alignment could widen
					 the distance) */
	uint32_t *group;              /* owned: per input section, the first one of its run of one
					 output section in the map. GNU ld writes a block of veneers
					 into each output section that calls across, after its last
					 code section (a script that leaves .text.* orphans has one
					 per function) */
	uint32_t text_group;          /* the text output section's group */
	unsigned char *code;          /* owned: per input section, non-zero when it holds code: GNU
					 ld puts an output section's stubs after its last code
					 section, ahead of the strings and tables the script also
					 puts there; bit 2: an empty code section ends its output
					 section (its stubs' order is unknown) */
	int per_section_veneers;      /* GNU ld: flash veneers per calling output section; ld.lld:
					 one per callee (keyed under text_group) */
	struct rp_layout_callee {     /* a function called directly from another section, or an
					 entry point the trace enters from another section: ld
					 writes a veneer per calling group (GNU ld) or one (ld.lld)
					 for each symbol a call names (the model: one per address,
					 an alias's calls sharing it) */
		uint64_t at;             /* its section << 32 | its entry's offset there */
		char *stub_key;          /* owned, GNU ld on ARM: its stubs' key in ld's stub table
					    after the stub group's id: "name+0_22" (a global, stub
					    type 22, v7-M's), "id:sym+0_22" (a local starting its
					    section: the section's id, the symbol's index); NULL where
					    unknown (lt_stub_order: the block in callee order) */
	} *callees;                   /* owned, by at */
	size_t ncallees;
	uint64_t *direct_callees;     /* owned, sorted: from << 32 | callee index for each section and
					 function it calls directly in another section */
	size_t ndirect_callees;
};

#endif
