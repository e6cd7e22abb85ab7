/* disasm_thumb.c: the Thumb prefilter (disasm_thumb.h): the common Thumb encodings read from
 * their bits, so that libopcodes (whose printed text costs a microsecond an instruction) sees
 * only what may branch, name an address or write the PC. Pure functions of the bytes.
 * Workload: every instruction of a large Cortex-M image once, on the call graph's path. */
#include <stdint.h>

#include "ramplace/disasm.h"
#include "disasm_thumb.h"

/* The length (2 or 4) of a Thumb instruction that can neither branch nor name an address, so
 * that libopcodes (whose text costs a microsecond an instruction) has nothing to add: 0 for
 * anything else. Conservative: every encoding that may write the PC, read it as a base, or be
 * an IT (which conditions the next four) goes to libopcodes. Little-endian code (BE8) only. */
unsigned rp_thumb_plain(const uint8_t *p, uint64_t avail)
{
	if (avail < 2)
		return 0;
	unsigned h = (unsigned)p[0] | (unsigned)p[1] << 8;
	unsigned top5 = h >> 11;
	if (top5 < 0x1d) {                           /* 16-bit */
		if ((h & 0xf800) == 0x4800 || (h & 0xf800) == 0xa000)
			return 0;                    /* ldr literal, adr */
		if ((h & 0xf000) == 0xd000 || (h & 0xf800) == 0xe000)
			return 0;                    /* b<cond>, svc, udf, b */
		if ((h & 0xfc00) == 0x4400)
			return 0;                    /* add/mov/cmp high registers (pc), bx, blx */
		if ((h & 0xf500) == 0xb100 || (h & 0xff00) == 0xbf00)
			return 0;                    /* cbz/cbnz, it/hints */
		if ((h & 0xff00) == 0xbd00)
			return 0;                    /* pop {..., pc}: a return */
		return 2;
	}
	if (avail < 4)
		return 0;
	unsigned h2 = (unsigned)p[2] | (unsigned)p[3] << 8;
	if (top5 == 0x1d && (h & 0x0600) == 0x0200 && (h & 0x000f) != 0xf && (h2 & 0x0f00) != 0x0f00)
		return 4;                            /* data processing, shifted register: no pc */
	if (top5 == 0x1e && !(h2 & 0x8000) && (h & 0x000f) != 0xf && (h2 & 0x0f00) != 0x0f00)
		return 4;                            /* data processing, immediate: no pc */
	if (top5 == 0x1f && (h & 0x0e00) == 0x0800 && (h & 0x000f) != 0xf && (h2 & 0xf000) != 0xf000)
		return 4;                            /* loads and stores, not pc-relative, not to pc */
	if (top5 == 0x1f && (h & 0x0f00) >= 0x0a00 && (h & 0x0f00) <= 0x0b00)
		return 4;                            /* data processing (register), multiply, divide */
	return 0;
}

/* Thumb b, b<cond> (16-bit) and bl (32-bit), the branches every function has, decoded from
 * the bits as libopcodes would print them: 1 when in is filled in, else 0. */
int rp_thumb_branch(const uint8_t *p, uint64_t avail, uint64_t pc, rp_insn *in)
{
	unsigned h = avail >= 2 ? (unsigned)p[0] | (unsigned)p[1] << 8 : 0;
	int64_t off;
	if ((h & 0xf800) == 0xe000) {
		off = (int64_t)((h & 0x7ff) ^ 0x400) - 0x400;
		in->kind = RP_INSN_JUMP;
		in->len = 2;
	} else if ((h & 0xf000) == 0xd000 && (h & 0x0e00) != 0x0e00) {   /* not udf, svc */
		off = (int64_t)((h & 0xff) ^ 0x80) - 0x80;
		in->kind = RP_INSN_CONDJUMP;
		in->len = 2;
	} else if ((h & 0xf800) == 0xf000 && avail >= 4 && (p[3] & 0xd0) == 0xd0) {
		unsigned h2 = (unsigned)p[2] | (unsigned)p[3] << 8;
		unsigned sbit = (h >> 10) & 1, i1 = !(((h2 >> 13) & 1) ^ sbit), i2 = !(((h2 >> 11) & 1) ^ sbit);
		uint32_t v = sbit << 23 | i1 << 22 | i2 << 21 | (h & 0x3ff) << 11 | (h2 & 0x7ff);
		off = (int64_t)(v ^ 0x800000u) - 0x800000;
		in->kind = RP_INSN_CALL;
		in->len = 4;
	} else {
		return 0;
	}
	in->no_fallthrough = in->kind == RP_INSN_JUMP;
	in->site_len = in->len;
	in->has_target = 1;
	in->target = (pc + 4 + (uint64_t)(off * 2)) & ~1ull;
	return 1;
}

/* Thumb returns every function ends with, 16-bit "pop {..., pc}" and "bx Rm" (not pc): 1 when
 * in is filled in as fill_insn would (no kind, no target, no fall-through), else 0. */
int rp_thumb_return(const uint8_t *p, uint64_t avail, rp_insn *in)
{
	unsigned h = avail >= 2 ? (unsigned)p[0] | (unsigned)p[1] << 8 : 0;
	if ((h & 0xff00) != 0xbd00 && ((h & 0xff87) != 0x4700 || (h & 0x0078) == 0x0078))
		return 0;
	in->len = in->site_len = 2;
	in->no_fallthrough = 1;
	return 1;
}
