/* callgraph.h: the static call graph of an image, from disassembly (disasm.h): direct calls
 * and tail branches between functions, and the functions whose address is taken (named by a
 * data word, a literal pool or a computed address: they may be called indirectly, e.g. from a
 * vector or opcode-handler table). Indirect calls themselves have no edge. */
#ifndef RAMPLACE_CALLGRAPH_H
#define RAMPLACE_CALLGRAPH_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include "ramplace/error.h"
#include "ramplace/image.h"

typedef struct rp_cg_edge {
	size_t from, to;       /* indices into image->funcs */
	unsigned ncalls;       /* call sites (bl, jal...) */
	unsigned nbranches;    /* tail or conditional branch sites */
	uint64_t first_site;   /* lowest site address */
	unsigned sites2, sites4, sites8; /* sites by encoded length (RISC-V relaxation: c.jal, jal,
					    auipc+jalr) */
	unsigned wide2, wide4, wide8; /* RISC-V: of sites2, sites4 and sites8, those not sure to be 2
					 bytes in a small region: a conditional branch (c.beqz
					 reaches 256 bytes), a call linking another register than ra
					 (jal t0, the -msave-restore millicode) */
	size_t site0;          /* its sites: cg->sites[site0 .. site0 + ncalls + nbranches) */
} rp_cg_edge;

/* One call or branch site of an edge: where GNU ld's RISC-V relaxation sizes it by its reach. */
typedef struct rp_cg_site {
	uint64_t addr;
	unsigned char len;     /* bytes as linked (2, 4, 8) */
	unsigned char wide;    /* not narrowable (rp_cg_edge's wide*) */
	unsigned char cond;    /* a conditional branch (the assembler sized it, not the linker) */
} rp_cg_site;

typedef struct rp_callgraph {
	const rp_image *img;   /* not owned */
	rp_cg_edge *edges;     /* one per (from, to), sorted by from then to */
	size_t nedges;
	size_t *first;         /* edges of function i: [first[i], first[i+1]) */
	rp_cg_site *sites;     /* every edge's sites, edge by edge, by address within one */
	size_t nsites;
	unsigned char *address_taken; /* per function */
	uint64_t *trailing;    /* per function: bytes past its .size that its own pc-relative loads
				  read before the next function (an ARM literal pool the assembler
				  put after a naked function's code, `.ltorg`); 0 for most. Its input
				  section holds them: moving the function moves them (issue 22) */
	size_t nfuncs;
	struct rp_disasm *disasm; /* owned: the decoder, kept for the reset-path walk (boot.h) so
				     that the mapping symbols are read once; NULL if none was made */
} rp_callgraph;

/* Disassembles every function in an executable section of img. */
int rp_callgraph_build(rp_callgraph **out, const rp_image *img, rp_err *err);
void rp_callgraph_free(rp_callgraph *cg);

/* The function a direct branch to target enters: the one starting there, or through a GNU ld
 * long-branch veneer there (ARMv7-M and ARMv6-M forms) its destination; NULL when neither. */
const rp_func *rp_callgraph_entered(const rp_image *img, uint64_t target);

/* Sets mark[i] = 1 for every function reachable from the roots (included) through direct calls
 * and branches; mark has nfuncs entries and is not cleared first. */
int rp_callgraph_reach(const rp_callgraph *cg, const size_t *roots, size_t nroots, unsigned char *mark,
		       rp_err *err);

/* The same, and for each function it marks that was not marked before, via[i] = the function
 * it was reached from (via has nfuncs entries; roots and marked functions keep theirs). */
int rp_callgraph_reach_via(const rp_callgraph *cg, const size_t *roots, size_t nroots, unsigned char *mark,
			   size_t *via, rp_err *err);

/* Text ("caller -> callee  call x2") or Graphviz DOT; only_from (may be NULL) limits the output
 * to what those marked functions reach. */
void rp_callgraph_write(const rp_callgraph *cg, FILE *fp, int dot, const unsigned char *only);

/* rp_callgraph_reach from the functions named names[0..n) (globals, or the first static of
 * the name); RP_EUSAGE naming the first that the image does not hold. */
int rp_callgraph_reach_names(const rp_callgraph *cg, const char *const *names, size_t n, unsigned char *mark,
			     rp_err *err);

#endif
