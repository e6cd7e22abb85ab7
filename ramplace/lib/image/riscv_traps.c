/* riscv_traps.c: a RISC-V firmware's trap handlers, found where its code writes their address
 * into mtvec (`la t0, trap_entry; csrw mtvec, t0`, or FreeRTOS's `csrw mtvec, %0` from C): the
 * handler itself in direct mode, each `j handler` of the table in vectored mode (address | 1).
 * A RISC-V core has no vector table in the image to read, as a Cortex-M has; the write to mtvec
 * is what tells. The code is read as raw instructions, each function in address order, with the
 * constants that auipc/lui/addi/ori/c.li/c.addi/c.mv build tracked per register (any other write
 * to a register forgets it): enough for the address loads compilers and assemblers emit right
 * before the write. Owns nothing past the call but the list it returns. Workload: every function
 * of one image, scanned once; a few thousand bytes of code each. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/boot.h"
#include "ramplace/util.h"

#define CSR_MTVEC 0x305u
#define MAX_VECTORS 64u

typedef struct regs {
	uint64_t val[32];
	unsigned char known[32];
} regs;

static int64_t sext(uint64_t v, unsigned bits)
{
	uint64_t m = 1ull << (bits - 1);
	v &= (1ull << bits) - 1;
	return (int64_t)((v ^ m) - m);
}

static void set_reg(regs *r, unsigned rd, int known, uint64_t v)
{
	if (rd == 0)
		return;
	r->known[rd] = (unsigned char)known;
	r->val[rd] = v & 0xffffffffull;   /* RV32: addresses are 32 bits */
}

/* Steps one 32-bit instruction at pc; returns the mtvec value it writes (1 in *wrote), if any. */
static uint64_t step32(regs *r, uint32_t in, uint64_t pc, int *wrote)
{
	unsigned op = in & 0x7f, rd = (in >> 7) & 0x1f, f3 = (in >> 12) & 7, rs1 = (in >> 15) & 0x1f;
	*wrote = 0;
	switch (op) {
	case 0x17:   /* auipc */
		set_reg(r, rd, 1, pc + (uint64_t)sext(in & 0xfffff000u, 32));
		break;
	case 0x37:   /* lui */
		set_reg(r, rd, 1, (uint64_t)sext(in & 0xfffff000u, 32));
		break;
	case 0x13:   /* addi, ori; any other op-imm forgets rd */
		if ((f3 == 0 || f3 == 6) && r->known[rs1] && rs1 != 0)
			set_reg(r, rd, 1, f3 == 0 ? r->val[rs1] + (uint64_t)sext(in >> 20, 12) : r->val[rs1] | (uint64_t)sext(in >> 20, 12));
		else if (f3 == 0 && rs1 == 0)
			set_reg(r, rd, 1, (uint64_t)sext(in >> 20, 12));   /* li */
		else
			set_reg(r, rd, 0, 0);
		break;
	case 0x73:   /* system: csrrw x?, mtvec, rs1 */
		if (f3 == 1 && (in >> 20) == CSR_MTVEC && r->known[rs1]) {
			*wrote = 1;
			return r->val[rs1];
		}
		if (f3 != 0)
			set_reg(r, rd, 0, 0);
		break;
	case 0x03: case 0x1b: case 0x33: case 0x3b: case 0x6f: case 0x67: case 0x07: case 0x2f:
		set_reg(r, rd, 0, 0);
		break;
	default:
		break;
	}
	return 0;
}

/* Steps one compressed instruction (RV32C): c.li, c.addi, c.mv tracked; any other form that
 * writes a register forgets that register. */
static void step16(regs *r, uint16_t in)
{
	unsigned q = in & 3, f3 = in >> 13, rd = (in >> 7) & 0x1f, rs2 = (in >> 2) & 0x1f;
	unsigned rdp_lo = 8 + ((in >> 2) & 7), rdp_hi = 8 + ((in >> 7) & 7);   /* rd' fields */
	int64_t imm6 = sext(((in >> 7) & 0x20) | ((in >> 2) & 0x1f), 6);
	if (q == 1 && f3 == 2)   /* c.li */
		set_reg(r, rd, 1, (uint64_t)imm6);
	else if (q == 1 && f3 == 0)   /* c.addi */
		set_reg(r, rd, r->known[rd], r->val[rd] + (uint64_t)imm6);
	else if (q == 2 && f3 == 4 && !(in & 0x1000) && rs2 != 0)   /* c.mv */
		set_reg(r, rd, r->known[rs2], r->val[rs2]);
	else if (q == 0 && f3 <= 3)   /* c.addi4spn, c.lw, c.flw, c.fld */
		set_reg(r, rdp_lo, 0, 0);
	else if ((q == 1 && f3 == 3) || (q == 2 && f3 <= 3) || (q == 2 && f3 == 4 && rs2 != 0))
		set_reg(r, rd, 0, 0);   /* c.lui, c.addi16sp, c.slli, c.lwsp, c.add */
	else if (q == 1 && f3 == 4)   /* c.srli, c.srai, c.andi, c.sub ... */
		set_reg(r, rdp_hi, 0, 0);
	else if ((q == 1 && f3 == 1) || (q == 2 && f3 == 4 && (in & 0x1000) && rs2 == 0 && rd != 0))
		set_reg(r, 1, 0, 0);   /* c.jal, c.jalr write ra */
}

static int add_handler(const rp_image *img, uint64_t addr, size_t **out, size_t *n, size_t *cap, rp_err *err)
{
	const rp_func *f = rp_image_func_at(img, addr);
	if (!f || f->addr != addr)
		return 0;
	size_t fi = (size_t)(f - img->funcs);
	for (size_t j = 0; j < *n; j++)
		if ((*out)[j] == fi)
			return 0;
	if (rp_grow((void **)out, cap, *n + 1, sizeof(size_t), err))
		return err->code;
	(*out)[(*n)++] = fi;
	return 0;
}

/* mtvec's value: the handler (direct mode), or a table of `j handler` entries (vectored). */
static int handlers_of(const rp_image *img, uint64_t mtvec, size_t **out, size_t *n, size_t *cap, rp_err *err)
{
	uint64_t base = mtvec & ~3ull;
	if ((mtvec & 3) == 0)
		return add_handler(img, base, out, n, cap, err);
	for (unsigned k = 0; k < MAX_VECTORS; k++) {
		unsigned char b[4];
		rp_err local = RP_ERR_INIT;
		if (rp_image_read(img, base + 4 * k, b, 4, &local))
			break;
		uint32_t in = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
		if ((in & 0xfff) != 0x06f)   /* jal x0 (j), or the table ends */
			break;
		uint64_t imm = ((in >> 31) & 1) << 20 | ((in >> 12) & 0xff) << 12 | ((in >> 20) & 1) << 11 |
			       ((in >> 21) & 0x3ff) << 1;
		int rc = add_handler(img, base + 4 * k + (uint64_t)sext(imm, 21), out, n, cap, err);
		if (rc)
			return rc;
	}
	return 0;
}

int rp_riscv_trap_handlers(const rp_image *img, size_t **out, size_t *n, rp_err *err)
{
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < img->nfuncs; i++) {
		const rp_func *f = &img->funcs[i];
		uint64_t len = rp_image_func_extent(img, f);
		unsigned char *code = len && len < (1u << 20) ? malloc(len) : NULL;
		rp_err local = RP_ERR_INIT;
		if (!code || rp_image_read(img, f->addr, code, len, &local)) {
			free(code);
			continue;
		}
		regs r = { { 0 }, { 0 } };
		for (uint64_t off = 0; off + 2 <= len;) {
			uint16_t lo = (uint16_t)(code[off] | code[off + 1] << 8);
			if ((lo & 3) != 3) {
				step16(&r, lo);
				off += 2;
				continue;
			}
			if (off + 4 > len)
				break;
			uint32_t in = lo | (uint32_t)(code[off + 2] | code[off + 3] << 8) << 16;
			int wrote;
			uint64_t v = step32(&r, in, f->addr + off, &wrote);
			int rc = wrote ? handlers_of(img, v, out, n, &cap, err) : 0;
			if (rc) {
				free(code);
				free(*out);
				*out = NULL;
				*n = 0;
				return rc;
			}
			off += 4;
		}
		free(code);
	}
	return 0;
}
