/* calls.c: decodes direct branches out of a function (see calls.h). Only the encodings that
 * leave a function are decoded; everything else is skipped by instruction length. Literal
 * pools inside a function may decode as branches: a false target is harmless for the callers
 * (a few extra reserved veneer bytes), a missed call would not be. */
#include <stdlib.h>

#include <elf.h>

#include "ramplace/calls.h"

static uint32_t half_at(const uint8_t *p, int big_endian)
{
	return big_endian ? (uint32_t)p[0] << 8 | p[1] : (uint32_t)p[1] << 8 | p[0];
}

static int64_t sign_extend(uint64_t value, unsigned bits)
{
	uint64_t m = 1ull << (bits - 1);
	value &= (1ull << bits) - 1;
	return (int64_t)((value ^ m) - m);
}

/* BL and B.W (T4): S:I1:I2:imm10:imm11:0 with I = NOT(J XOR S) */
static int64_t thumb_t4_offset(uint32_t hw1, uint32_t hw2)
{
	uint32_t s = (hw1 >> 10) & 1, j1 = (hw2 >> 13) & 1, j2 = (hw2 >> 11) & 1;
	uint32_t i1 = !(j1 ^ s), i2 = !(j2 ^ s);
	uint64_t imm = (uint64_t)s << 24 | (uint64_t)i1 << 23 | (uint64_t)i2 << 22 |
		       (uint64_t)(hw1 & 0x3ff) << 12 | (uint64_t)(hw2 & 0x7ff) << 1;
	return sign_extend(imm, 25);
}

/* conditional B.W (T3): S:J2:J1:imm6:imm11:0 */
static int64_t thumb_t3_offset(uint32_t hw1, uint32_t hw2)
{
	uint32_t s = (hw1 >> 10) & 1, j1 = (hw2 >> 13) & 1, j2 = (hw2 >> 11) & 1;
	uint64_t imm = (uint64_t)s << 20 | (uint64_t)j2 << 19 | (uint64_t)j1 << 18 |
		       (uint64_t)(hw1 & 0x3f) << 12 | (uint64_t)(hw2 & 0x7ff) << 1;
	return sign_extend(imm, 21);
}

int rp_calls_scan_thumb(const uint8_t *code, uint64_t len, uint64_t addr, int big_endian,
			rp_call_fn fn, void *ctx)
{
	for (uint64_t off = 0; off + 2 <= len;) {
		uint32_t hw1 = half_at(code + off, big_endian);
		int wide = (hw1 >> 11) == 0x1d || (hw1 >> 11) == 0x1e || (hw1 >> 11) == 0x1f;
		if (!wide || off + 4 > len) {
			off += 2;
			continue;
		}
		uint32_t hw2 = half_at(code + off + 2, big_endian);
		int64_t delta = 0;
		int is_branch = 0;
		if ((hw1 >> 11) == 0x1e && (hw2 & 0xd000) == 0xd000) {          /* BL */
			delta = thumb_t4_offset(hw1, hw2);
			is_branch = 1;
		} else if ((hw1 >> 11) == 0x1e && (hw2 & 0xd000) == 0x9000) {   /* B.W */
			delta = thumb_t4_offset(hw1, hw2);
			is_branch = 1;
		} else if ((hw1 >> 11) == 0x1e && (hw2 & 0xd000) == 0x8000 &&
			   ((hw1 >> 6) & 0xf) < 0xe) {                          /* B<cond>.W */
			delta = thumb_t3_offset(hw1, hw2);
			is_branch = 1;
		}
		if (is_branch) {
			uint64_t target = addr + off + 4 + (uint64_t)delta;
			if (target < addr || target >= addr + len) {
				int rc = fn(ctx, addr + off, target);
				if (rc)
					return rc;
			}
		}
		off += 4;
	}
	return 0;
}

static uint32_t word_at(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int64_t jal_offset(uint32_t insn)
{
	uint64_t imm = (uint64_t)((insn >> 31) & 1) << 20 | (uint64_t)((insn >> 12) & 0xff) << 12 |
		       (uint64_t)((insn >> 20) & 1) << 11 | (uint64_t)((insn >> 21) & 0x3ff) << 1;
	return sign_extend(imm, 21);
}

static int64_t cj_offset(uint32_t h)
{
	uint64_t imm = (uint64_t)((h >> 12) & 1) << 11 | (uint64_t)((h >> 11) & 1) << 4 |
		       (uint64_t)((h >> 9) & 3) << 8 | (uint64_t)((h >> 8) & 1) << 10 |
		       (uint64_t)((h >> 7) & 1) << 6 | (uint64_t)((h >> 6) & 1) << 7 |
		       (uint64_t)((h >> 3) & 7) << 1 | (uint64_t)((h >> 2) & 1) << 5;
	return sign_extend(imm, 12);
}

static int report_outside(uint64_t target, uint64_t addr, uint64_t len, uint64_t site,
			  rp_call_fn fn, void *ctx)
{
	if (target >= addr && target < addr + len)
		return 0;
	return fn(ctx, site, target);
}

/* RISC-V: 32-bit JAL; AUIPC rd followed by JALR x, rd (the `call`/`tail` pair); RV32 C.JAL and
 * C.J. Little-endian only, as the ISA is. */
int rp_calls_scan_riscv(const uint8_t *code, uint64_t len, uint64_t addr, rp_call_fn fn, void *ctx)
{
	for (uint64_t off = 0; off + 2 <= len;) {
		uint32_t h = (uint32_t)code[off] | (uint32_t)code[off + 1] << 8;
		uint64_t site = addr + off;
		int rc = 0;
		if ((h & 3) != 3) {
			uint32_t funct3 = h >> 13;
			if ((h & 3) == 1 && (funct3 == 1 || funct3 == 5))   /* C.JAL, C.J */
				rc = report_outside(site + (uint64_t)cj_offset(h), addr, len, site, fn, ctx);
			off += 2;
		} else {
			if (off + 4 > len)
				break;
			uint32_t insn = word_at(code + off);
			if ((insn & 0x7f) == 0x6f) {
				rc = report_outside(site + (uint64_t)jal_offset(insn), addr, len, site, fn, ctx);
			} else if ((insn & 0x7f) == 0x17 && off + 8 <= len) {
				uint32_t next = word_at(code + off + 4);
				uint32_t rd = (insn >> 7) & 31;
				if ((next & 0x707f) == 0x67 && ((next >> 15) & 31) == rd && rd != 0) {
					int64_t hi = sign_extend(insn & 0xfffff000u, 32);
					int64_t lo = sign_extend(next >> 20, 12);
					rc = report_outside(site + (uint64_t)(hi + lo), addr, len, site, fn, ctx);
					off += 4;
				}
			}
			off += 4;
		}
		if (rc)
			return rc;
	}
	return 0;
}

int rp_calls_scan(const rp_image *img, const rp_func *f, rp_call_fn fn, void *ctx, rp_err *err)
{
	uint64_t size = rp_image_func_extent(img, f);
	if (size == 0)
		return 0;
	uint8_t *code = malloc(size);
	if (!code)
		return rp_err_nomem(err, "decoding calls");
	int rc = rp_image_read(img, f->addr, code, size, err);
	if (rc == 0) {
		if (img->machine == EM_ARM && f->is_thumb)
			rc = rp_calls_scan_thumb(code, size, f->addr, img->code_big_endian, fn, ctx);
		else if (img->machine == EM_RISCV)
			rc = rp_calls_scan_riscv(code, size, f->addr, fn, ctx);
	}
	free(code);
	return rc;
}
