/* disasm.c: per-instruction decoding with libopcodes (see disasm.h).
 *
 * libopcodes prints text; what we need comes from two hooks: the printed text (its first word
 * is the mnemonic) and print_address_func, which every ARM and RISC-V decoder calls for each
 * address an instruction names (branch targets, literal-pool addresses, auipc/lui results).
 * Link or no link on RISC-V is read from the instruction bits (rd), which is simpler and
 * exact. Owns the decoder state and, for ARM, the sorted mapping symbols. Workload: every
 * function of an image once, tens of thousands of instructions. */
#define PACKAGE "ramplace"          /* bfd.h insists on a config.h-style definition */
#define PACKAGE_VERSION "0"
#include <dis-asm.h>
#include <elf.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/disasm.h"
#include "disasm_thumb.h"
#include "ramplace/util.h"

typedef struct mapsym {
	uint64_t addr;
	char kind;      /* 'd' data, 't' Thumb, 'a' ARM */
} mapsym;

struct rp_disasm {
	const rp_image *img;
	disassembler_ftype print;
	struct disassemble_info info;
	mapsym *maps;
	size_t nmaps;
	size_t map_cursor;  /* skip_data's last answer: a function's instructions come in address order */
	/* per instruction */
	char text[256];
	size_t textlen;
	uint64_t addrs[8];
	size_t naddrs;
	int prefilter;      /* Thumb: skip libopcodes for what cannot branch or name an address */
	int branches_only;  /* with prefilter: what it passes as plain is not reported at all */
	/* RISC-V: the last auipc, for the `addi rd, rd, 0` after it, whose address libopcodes
	 * does not report (it prints `mv rd, rd` without the comment it gives other offsets) */
	uint64_t auipc_next, auipc_value;
	unsigned auipc_rd;
};

/* Appends up to n bytes of s, truncating at the buffer's end as vsnprintf would. */
static void put_bytes(rp_disasm *d, const char *s, size_t n)
{
	size_t room = sizeof(d->text) - d->textlen - 1;
	if (n > room)
		n = room;
	memcpy(d->text + d->textlen, s, n);
	d->textlen += n;
	d->text[d->textlen] = '\0';
}

/* Whether fmt uses only %s, %d, %u, %x, %c and %% without flags, widths or length modifiers:
 * those put_text formats itself. */
static int simple_format(const char *fmt)
{
	for (const char *p = fmt; (p = strchr(p, '%')) != NULL; p += 2)
		if (!p[1] || !strchr("sduxc%", p[1]))
			return 0;
	return 1;
}

/* libopcodes prints an instruction in pieces ("%s", "#%d", "0x%x", literal text): those are
 * formatted here, and only the rest goes through vsnprintf, which took a sixth of place's
 * instructions on a 50,000-function firmware. */
static void put_text(rp_disasm *d, const char *fmt, va_list ap)
{
	if (d->textlen + 1 >= sizeof(d->text))
		return;
	if (!simple_format(fmt)) {
		int n = vsnprintf(d->text + d->textlen, sizeof(d->text) - d->textlen, fmt, ap);
		if (n > 0)
			d->textlen += (size_t)n < sizeof(d->text) - d->textlen ? (size_t)n : sizeof(d->text) - d->textlen - 1;
		return;
	}
	for (const char *p = fmt; *p;) {
		const char *pct = strchr(p, '%');
		if (!pct) {
			put_bytes(d, p, strlen(p));
			break;
		}
		put_bytes(d, p, (size_t)(pct - p));
		char num[24];
		const char *arg = num;
		switch (pct[1]) {
		case 's':
			arg = va_arg(ap, const char *);
			arg = arg ? arg : "(null)";
			break;
		case 'd':
			snprintf(num, sizeof(num), "%d", va_arg(ap, int));
			break;
		case 'u':
			snprintf(num, sizeof(num), "%u", va_arg(ap, unsigned));
			break;
		case 'x':
			snprintf(num, sizeof(num), "%x", va_arg(ap, unsigned));
			break;
		case 'c':
			num[0] = (char)va_arg(ap, int);
			num[1] = '\0';
			break;
		default:
			num[0] = '%';
			num[1] = '\0';
			break;
		}
		put_bytes(d, arg, strlen(arg));
		p = pct + 2;
	}
}

static int text_fn(void *stream, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	put_text(stream, fmt, ap);
	va_end(ap);
	return 0;
}

static int styled_fn(void *stream, enum disassembler_style style, const char *fmt, ...)
{
	(void)style;
	va_list ap;
	va_start(ap, fmt);
	put_text(stream, fmt, ap);
	va_end(ap);
	return 0;
}

static void address_fn(bfd_vma addr, struct disassemble_info *info)
{
	rp_disasm *d = info->application_data;
	if (d->naddrs < sizeof(d->addrs) / sizeof(d->addrs[0]))
		d->addrs[d->naddrs++] = addr;
	text_fn(d, "0x%llx", (unsigned long long)addr);
}

static uint64_t mapsym_key(const void *a)
{
	return ((const mapsym *)a)->addr;
}

static int by_addr(const void *a, const void *b)
{
	const mapsym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* ARM mapping symbols ($a, $t, $d and their "$d.N" forms) from the symbol table. */
static int load_mapping_symbols(rp_disasm *d, rp_err *err)
{
	const rp_image *img = d->img;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return rp_err_set(err, RP_EIO, "%s: libelf: %s", img->path, elf_errmsg(-1));
	/* libelf converts a foreign-endian image in place, so only that one is read from a copy
	 * (as rp_elfsyms_load does): copying every image was 2.5 % of `place` at 50,000 functions */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	int foreign = img->big_endian;
#else
	int foreign = 1;
#endif
	char *copy = foreign ? malloc(img->nbytes ? img->nbytes : 1) : NULL;
	if (foreign && !copy)
		return rp_err_nomem(err, "reading mapping symbols");
	if (foreign)
		memcpy(copy, img->bytes, img->nbytes);
	Elf *elf = elf_memory(foreign ? copy : (char *)img->bytes, img->nbytes);
	size_t cap = 0;
	int rc = 0;
	Elf_Scn *scn = NULL;
	while (elf && !rc && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || sh.sh_entsize == 0)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t nsyms = data ? data->d_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < nsyms && !rc; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(data, (int)i, &sym))
				break;
			const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || name[0] != '$' || !strchr("adt", name[1]) || (name[2] != '\0' && name[2] != '.'))
				continue;
			/* only code sections' markers: a "$d" of a debug or data section at a low
			 * address would otherwise turn the code there into data (missed calls) */
			if (sym.st_shndx >= img->nsections || !img->sections[sym.st_shndx].is_exec)
				continue;
			if ((rc = rp_grow((void **)&d->maps, &cap, d->nmaps + 1, sizeof(mapsym), err)))
				break;
			d->maps[d->nmaps++] = (mapsym){ sym.st_value & ~1ull, name[1] };
		}
	}
	if (elf)
		elf_end(elf);
	free(copy);
	if (!rc && d->nmaps)
		rp_sort_keyed(d->maps, d->nmaps, sizeof(mapsym), mapsym_key, by_addr);
	return rc;
}

/* Index of the last mapping symbol at or before addr, or SIZE_MAX. */
static size_t map_at(const rp_disasm *d, uint64_t addr)
{
	size_t lo = RP_COUNT_AT_OR_BELOW(d->maps, d->nmaps, addr, addr);
	return lo ? lo - 1 : SIZE_MAX;
}

int rp_disasm_is_data(const rp_disasm *d, uint64_t addr)
{
	size_t k = map_at(d, addr);
	return k != SIZE_MAX && d->maps[k].kind == 'd';
}

int rp_disasm_new(rp_disasm **out, const rp_image *img, rp_err *err)
{
	*out = NULL;
	enum bfd_architecture arch;
	unsigned long mach;
	if (img->machine == EM_ARM) {
		arch = bfd_arch_arm;
		mach = bfd_mach_arm_unknown;
	} else if (img->machine == EM_RISCV) {
		arch = bfd_arch_riscv;
		mach = img->elfclass == 64 ? bfd_mach_riscv64 : bfd_mach_riscv32;
	} else {
		return rp_err_set(err, RP_EINPUT, "%s: cannot disassemble %s code (ARM and RISC-V only)", img->path,
				  rp_image_arch(img));
	}
	rp_disasm *d = calloc(1, sizeof(*d));
	if (!d)
		return rp_err_nomem(err, "preparing the disassembler");
	d->img = img;
	d->prefilter = img->machine == EM_ARM && !img->code_big_endian;
	d->print = disassembler(arch, img->code_big_endian, mach, NULL);
	if (!d->print) {
		free(d);
		return rp_err_set(err, RP_EINPUT, "%s: libopcodes has no disassembler for %s", img->path, rp_image_arch(img));
	}
	init_disassemble_info(&d->info, d, text_fn, styled_fn);
	d->info.arch = arch;
	d->info.mach = mach;
	d->info.endian = img->code_big_endian ? BFD_ENDIAN_BIG : BFD_ENDIAN_LITTLE;
	d->info.endian_code = d->info.endian;
	d->info.application_data = d;
	d->info.print_address_func = address_fn;
	d->info.read_memory_func = buffer_read_memory;
	if (arch == bfd_arch_arm)
		d->info.disassembler_options = "force-thumb";
	disassemble_init_for_target(&d->info);
	int rc = arch == bfd_arch_arm ? load_mapping_symbols(d, err) : 0;
	if (rc) {
		rp_disasm_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

void rp_disasm_free(rp_disasm *d)
{
	if (!d)
		return;
	disassemble_free_target(&d->info);
	free(d->maps);
	free(d);
}

static int is_arm_cond(const char *s)
{
	static const char *const conds[] = { "eq", "ne", "cs", "cc", "hs", "lo", "mi", "pl", "vs",
					     "vc", "hi", "ls", "ge", "lt", "gt", "le", "al" };
	for (size_t i = 0; i < sizeof(conds) / sizeof(conds[0]); i++)
		if (strcmp(s, conds[i]) == 0)
			return 1;
	return 0;
}

/* ARM/Thumb by mnemonic: "bl", "blx", "bl<cond>" call; "b" jumps; "b<cond>", "cbz", "cbnz"
 * branch conditionally (".w"/".n" width suffixes ignored). */
static rp_insn_kind arm_kind(const char *m)
{
	char base[24];
	snprintf(base, sizeof(base), "%s", m);
	char *dot = strchr(base, '.');
	if (dot)
		*dot = '\0';
	if (strcmp(base, "bl") == 0 || strcmp(base, "blx") == 0)
		return RP_INSN_CALL;
	if (strncmp(base, "bl", 2) == 0 && is_arm_cond(base + 2))
		return RP_INSN_CALL;
	if (strcmp(base, "b") == 0)
		return RP_INSN_JUMP;
	if (base[0] == 'b' && is_arm_cond(base + 1))
		return RP_INSN_CONDJUMP;
	if (strcmp(base, "cbz") == 0 || strcmp(base, "cbnz") == 0)
		return RP_INSN_CONDJUMP;
	return RP_INSN_OTHER;
}

/* ARM/Thumb instructions after which control does not go on to the next one, other than the
 * b/cbz family: bx (return or jump through a register), pop/ldm loading pc, any other write of
 * pc as the first operand (ldr pc, mov pc, add pc), tbb/tbh (a switch table). Only the
 * unconditional forms: "bxne lr" in an IT block falls through when its condition fails. */
static int arm_no_fallthrough(const char *m, const char *ops)
{
	char base[24];
	snprintf(base, sizeof(base), "%s", m);
	char *dot = strchr(base, '.');
	if (dot)
		*dot = '\0';
	if (!strcmp(base, "bx") || !strcmp(base, "tbb") || !strcmp(base, "tbh"))
		return 1;
	const char *brace = strchr(ops, '{');
	if ((!strcmp(base, "pop") || !strncmp(base, "ldm", 3)) && brace && strstr(brace, "pc"))
		return !strcmp(base, "pop") || !strcmp(base, "ldm") || !strcmp(base, "ldmia") || !strcmp(base, "ldmfd") ||
		       !strcmp(base, "ldmdb") || !strcmp(base, "ldmea");
	if (!strncmp(ops, "pc,", 3))
		return !strcmp(base, "ldr") || !strcmp(base, "mov") || !strcmp(base, "add");
	return 0;
}

/* RISC-V returns from traps (mret, sret): no fall-through. */
static int riscv_trap_return(const uint8_t *p, unsigned len)
{
	if (len != 4)
		return 0;
	uint32_t insn = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	return insn == 0x30200073u || insn == 0x10200073u;
}

/* RISC-V from the bits: jal/jalr link when rd is ra (x1) or t0 (x5, the alternate link). */
static rp_insn_kind riscv_kind(const uint8_t *p, unsigned len)
{
	if (len >= 4 && (p[0] & 3) == 3) {
		uint32_t insn = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
		unsigned op = insn & 0x7f, rd = (insn >> 7) & 31;
		if (op == 0x6f || op == 0x67)
			return rd == 1 || rd == 5 ? RP_INSN_CALL : RP_INSN_JUMP;
		return op == 0x63 ? RP_INSN_CONDJUMP : RP_INSN_OTHER;
	}
	if (len != 2)
		return RP_INSN_OTHER;
	uint16_t h = (uint16_t)(p[0] | p[1] << 8);
	unsigned quad = h & 3, f3 = h >> 13;
	if (quad == 1 && f3 == 1)
		return RP_INSN_CALL;          /* c.jal (RV32) */
	if (quad == 1 && f3 == 5)
		return RP_INSN_JUMP;          /* c.j */
	if (quad == 1 && (f3 == 6 || f3 == 7))
		return RP_INSN_CONDJUMP;      /* c.beqz, c.bnez */
	if (quad == 2 && f3 == 4 && ((h >> 2) & 31) == 0 && ((h >> 7) & 31) != 0)
		return (h >> 12) & 1 ? RP_INSN_CALL : RP_INSN_JUMP;   /* c.jalr / c.jr */
	return RP_INSN_OTHER;
}

/* auipc rd, %pcrel_hi(x); addi rd, rd, 0: the address x, when %pcrel_lo(x) is 0 (a symbol on
 * a 4 KiB boundary from the auipc: an empty .ramtext's load address right after the copier) */
static void riscv_auipc_pair(rp_disasm *d, rp_insn *in, const uint8_t *p)
{
	if (d->img->machine != EM_RISCV || in->len != 4)
		return;
	uint32_t insn = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	unsigned op = insn & 0x7f, rd = (insn >> 7) & 31, rs1 = (insn >> 15) & 31;
	if (op == 0x17) {
		d->auipc_next = in->addr + 4;
		d->auipc_rd = rd;
		d->auipc_value = in->addr + (uint64_t)(int64_t)(int32_t)(insn & 0xfffff000u);
		if (d->img->elfclass != 64)
			d->auipc_value &= 0xffffffffu;
		return;
	}
	if (op == 0x13 && ((insn >> 12) & 7) == 0 && (insn >> 20) == 0 && rd == rs1 && rd == d->auipc_rd && rd &&
	    in->addr == d->auipc_next && !in->nrefs && !in->has_target) {
		in->refs[0] = in->ref_words[0] = d->auipc_value;
		in->nrefs = 1;
	}
	d->auipc_next = 0;
}

static void fill_insn(rp_disasm *d, rp_insn *in, const uint8_t *bytes, uint64_t base, uint64_t len)
{
	size_t k = strspn(d->text, " \t");
	size_t m = strcspn(d->text + k, " \t");
	if (m >= sizeof(in->mnemonic))
		m = sizeof(in->mnemonic) - 1;
	memcpy(in->mnemonic, d->text + k, m);
	in->mnemonic[m] = '\0';
	const uint8_t *p = bytes + (in->addr - base);
	in->kind = d->img->machine == EM_ARM ? arm_kind(in->mnemonic) : riscv_kind(p, in->len);
	const char *ops = d->text + k + m;
	ops += strspn(ops, " \t");
	int ldr_pc = d->img->machine == EM_ARM && strncmp(in->mnemonic, "ldr", 3) == 0 && strncmp(ops, "pc,", 3) == 0;
	size_t first = 0;
	if (in->kind != RP_INSN_OTHER && d->naddrs) {
		in->has_target = 1;
		in->target = d->img->machine == EM_ARM ? d->addrs[0] & ~1ull : d->addrs[0];
		first = 1;
	}
	for (size_t i = first; i < d->naddrs && in->nrefs < RP_INSN_MAX_REFS; i++) {
		uint64_t a = d->addrs[i];
		in->refs[in->nrefs] = a;
		in->ref_words[in->nrefs] = a;
		/* an ARM pc-relative load names its pool slot: what matters is the word stored there */
		uint8_t w[4];
		if (d->img->machine == EM_ARM && a % 4 == 0) {
			if (a >= base && a + 4 <= base + len)
				memcpy(w, bytes + (a - base), 4);
			else {
				rp_err ignored = RP_ERR_INIT;
				if (rp_image_read(d->img, a, w, 4, &ignored))
					goto next;
			}
			in->ref_words[in->nrefs] = rp_image_word32(d->img, w);
		}
next:
		in->nrefs++;
	}
	riscv_auipc_pair(d, in, p);
	in->site_len = in->len;
	in->site_wide = 0;
	if (d->img->machine == EM_RISCV && in->has_target && in->len == 4) {
		unsigned opcode = p[0] & 0x7f, rd = (unsigned)(p[0] >> 7 | p[1] << 1) & 31;
		if (opcode == 0x67)
			in->site_len = 8;   /* jalr resolved through the auipc before it */
		/* c.jal links ra, c.j and c.jr x0; c.beqz/c.bnez reach 256 bytes, from few registers */
		in->site_wide = opcode == 0x63 || ((opcode == 0x6f || opcode == 0x67) && rd > 1);
	} else if (d->img->machine == EM_RISCV && in->has_target) {
		in->site_wide = in->kind == RP_INSN_CONDJUMP;
	}
	/* "ldr pc, [pc, #n]": a jump through a literal (veneers, long tail calls) */
	if (ldr_pc && in->nrefs && (in->ref_words[0] & 1)) {
		in->kind = RP_INSN_JUMP;
		in->has_target = 1;
		in->target = in->ref_words[0] & ~1ull;
	}
	in->no_fallthrough = in->kind == RP_INSN_JUMP ||
			     (d->img->machine == EM_ARM ? arm_no_fallthrough(in->mnemonic, ops) : riscv_trap_return(p, in->len));
}

/* map_at(d, addr) for an address at or a little after the previous one: steps the cursor
 * forward (a binary search per instruction was 6 % of `place` at 50,000 functions), and falls
 * back to the search after a few steps or when addr went backwards. */
static size_t map_seek(rp_disasm *d, uint64_t addr)
{
	size_t k = d->map_cursor;
	if (k < d->nmaps && d->maps[k].addr <= addr) {
		for (int steps = 0; k + 1 < d->nmaps && d->maps[k + 1].addr <= addr; steps++, k++)
			if (steps == 8) {
				k = map_at(d, addr);
				break;
			}
	} else {
		k = map_at(d, addr);
	}
	d->map_cursor = k;
	return k;
}

/* Next address at or after pc that holds code: skips ARM data ($d) up to the next mapping symbol.
 * *code_until: up to where the answer stays "code" (the next mapping symbol), so that the walk
 * asks again only there rather than at every instruction. */
static uint64_t skip_data(rp_disasm *d, uint64_t pc, uint64_t end, uint64_t *code_until)
{
	*code_until = UINT64_MAX;
	if (d->img->machine != EM_ARM)
		return pc;
	size_t k = map_seek(d, pc);
	size_t after = k == SIZE_MAX ? 0 : k + 1;   /* the next mapping symbol: where the answer may change */
	uint64_t next = after < d->nmaps ? d->maps[after].addr : UINT64_MAX;
	if (k == SIZE_MAX || d->maps[k].kind != 'd') {
		*code_until = next;
		return pc;
	}
	*code_until = 0;   /* what follows the data is asked about afresh */
	return next < end ? next : end;
}

void rp_disasm_set_branches_only(rp_disasm *d, int on)
{
	d->branches_only = on;
}

void rp_disasm_set_prefilter(rp_disasm *d, int on)
{
	d->prefilter = on && d->img->machine == EM_ARM && !d->img->code_big_endian;
}

/* Walks f's instructions with libopcodes; with the Thumb prefilter, the plain ones (thumb_plain)
 * are passed on without it, and the four after an IT always go through it. */
static int walk_insns(rp_disasm *d, const rp_func *f, const uint8_t *bytes, uint64_t size, rp_insn_fn fn, void *ctx)
{
	uint64_t end = f->addr + size, code_until = 0;
	unsigned after_it = 0;
	int rc = 0;
	for (uint64_t pc = f->addr;;) {
		if (pc >= code_until)
			pc = skip_data(d, pc, end, &code_until);
		if (pc >= end)
			break;
		unsigned plain = d->prefilter && !after_it ? rp_thumb_plain(bytes + (pc - f->addr), end - pc) : 0;
		if (plain && d->branches_only) {
			pc += plain;
			continue;
		}
		/* the fields every path sets or leaves empty; refs and ref_words count by nrefs (a
		 * memset of the whole record per instruction was a tenth of the walk) */
		rp_insn in;
		in.addr = pc;
		in.len = in.site_len = 0;
		in.site_wide = 0;
		in.kind = RP_INSN_OTHER;
		in.has_target = 0;
		in.target = 0;
		in.nrefs = 0;
		in.no_fallthrough = 0;
		in.mnemonic[0] = '\0';
		if (plain) {
			in.len = in.site_len = plain;
		} else if (d->prefilter && !after_it && (rp_thumb_branch(bytes + (pc - f->addr), end - pc, pc, &in) ||
							  rp_thumb_return(bytes + (pc - f->addr), end - pc, &in))) {
			/* decoded from the bits */
		} else {
			d->textlen = 0;
			d->text[0] = '\0';
			d->naddrs = 0;
			int len = d->print(pc, &d->info);
			if (len <= 0)
				break;
			in.len = (unsigned)len;
			if (pc + (uint64_t)len <= end)
				fill_insn(d, &in, bytes, f->addr, size);
			const uint8_t *p = bytes + (pc - f->addr);
			if (after_it)
				after_it--;
			else if (len == 2 && p[1] == 0xbf && (p[0] & 0x0f))
				after_it = 4;        /* IT: libopcodes keeps its condition state */
		}
		if ((rc = fn(ctx, &in)) != 0)
			break;
		pc += in.len;
	}
	return rc;
}

int rp_disasm_func(rp_disasm *d, const rp_func *f, rp_insn_fn fn, void *ctx, rp_err *err)
{
	uint64_t size = rp_image_func_extent(d->img, f);
	d->auipc_next = 0;   /* an auipc pairs only within its own function */
	if (size == 0)
		return 0;
	if (size > d->img->nbytes)   /* cannot be backed by the file */
		return rp_err_set(err, RP_EINPUT, "%s: '%s' is %llu bytes, larger than the file", d->img->path, f->name,
				  (unsigned long long)size);
	/* the file's own bytes: a copy per function was a tenth of the call graph's time */
	const uint8_t *bytes = rp_image_bytes_at(d->img, f->addr, (size_t)size);
	if (!bytes)
		return rp_err_set(err, RP_EINPUT, "%s: no file contents at address 0x%llx (%llu bytes)", d->img->path,
				  (unsigned long long)f->addr, (unsigned long long)size);
	d->info.buffer = (bfd_byte *)(uintptr_t)bytes;
	d->info.buffer_vma = f->addr;
	d->info.buffer_length = size;
	return walk_insns(d, f, bytes, size, fn, ctx);
}
