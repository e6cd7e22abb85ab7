/* disasm.h: machine code of the image's functions, one instruction at a time, decoded by
 * libopcodes (binutils) for ARM/Thumb and RISC-V.
 *
 * For each instruction it says whether it is a call, a jump or a conditional jump, its direct
 * target when the instruction (or, on RISC-V, an auipc/lui pair before it) names one, and the
 * other addresses the instruction refers to (ARM literal-pool words, RISC-V computed
 * addresses) with the word found there. ARM literal pools are skipped with the ELF's mapping
 * symbols ($d/$t), so data is not read as instructions. */
#ifndef RAMPLACE_DISASM_H
#define RAMPLACE_DISASM_H

#include <stdint.h>
#include <stddef.h>
#include "ramplace/error.h"
#include "ramplace/image.h"

typedef enum rp_insn_kind {
	RP_INSN_OTHER = 0,
	RP_INSN_CALL,        /* bl, blx, jal/jalr with a link register */
	RP_INSN_JUMP,        /* b, j, jr, jalr zero: no link */
	RP_INSN_CONDJUMP     /* b<cond>, cbz/cbnz, RISC-V branches */
} rp_insn_kind;

#define RP_INSN_MAX_REFS 4

typedef struct rp_insn {
	uint64_t addr;
	unsigned len;
	unsigned site_len;       /* bytes of the call sequence: 8 for a RISC-V auipc+jalr pair, else len */
	int site_wide;           /* RISC-V: the site is not sure to be 2 bytes in a small region
				    (a conditional branch, a call linking another register than ra
				    or x0) */
	rp_insn_kind kind;
	int has_target;          /* direct (or auipc-resolved) target known */
	uint64_t target;         /* Thumb bit cleared */
	size_t nrefs;
	uint64_t refs[RP_INSN_MAX_REFS];     /* addresses named by the instruction (not the target);
						the first nrefs are set, the rest undefined */
	uint64_t ref_words[RP_INSN_MAX_REFS];/* the 32-bit word stored there (ARM pools), else the address */
	int no_fallthrough;      /* control never goes on to the next instruction: a return (bx lr,
				    pop {..., pc}, ret, mret), a jump through a register or a table
				    (tbb), or any unconditional jump (JUMP); conditional forms fall through */
	char mnemonic[24];
} rp_insn;

typedef struct rp_disasm rp_disasm;

/* Prepares a decoder for img's architecture; RP_EINPUT for one libopcodes is not set up for
 * here (only ARM and RISC-V). */
int rp_disasm_new(rp_disasm **out, const rp_image *img, rp_err *err);
void rp_disasm_free(rp_disasm *d);

/* Called once per instruction, in address order; non-zero stops the walk and is returned. */
typedef int (*rp_insn_fn)(void *ctx, const rp_insn *insn);

/* On (the default for little-endian ARM code): Thumb instructions that cannot branch or name an
 * address, and b, b<cond> and bl outside IT blocks, are decoded from their bits without
 * libopcodes (mnemonic empty), which makes the call graph of a large image several times faster;
 * off: every instruction through libopcodes. Kinds, targets, refs
 * and lengths are the same either way (tests/unit/test_callgraph.c compares them). */
void rp_disasm_set_prefilter(rp_disasm *d, int on);

/* On: with the prefilter, the instructions it finds can neither branch nor name an address are
 * not passed to the callback at all (a walk that looks only at calls, jumps and references, the
 * call graph's, skips most of an image); off (the default): every instruction. */
void rp_disasm_set_branches_only(rp_disasm *d, int on);

/* Decodes f's bytes. Returns 0, RP_EINPUT when f's bytes are not in the file, or fn's value. */
int rp_disasm_func(rp_disasm *d, const rp_func *f, rp_insn_fn fn, void *ctx, rp_err *err);

/* Whether a 4-byte aligned word at addr lies in an ARM literal pool or other data ($d). */
int rp_disasm_is_data(const rp_disasm *d, uint64_t addr);

#endif
