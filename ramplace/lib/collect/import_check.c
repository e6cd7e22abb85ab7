/* import_check.c: does an imported profile belong to the ELF it is imported against (see
 * import.h, rp_import_check)? A profile of another firmware still parses, and its addresses
 * still land somewhere, so each weighted sample is checked against what the ELF holds there:
 * the instruction bytes QEMU ran (plugin files of version 2, -d in_asm logs), else the address
 * alone (in a function, and for exact PCs on an instruction start, found by decoding the
 * function with libopcodes where disasm.h can, else by the architecture's alignment).
 * Workload: up to a few hundred thousand distinct addresses; each function that holds one is
 * decoded once. Owns nothing beyond a call. */
#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/disasm.h"
#include "ramplace/import.h"
#include "ramplace/util.h"

enum { WHY_OUTSIDE = 1, WHY_NOT_INSN, WHY_DIFFER, WHY_TARGET };

void rp_import_check_init(rp_import_check *c)
{
	memset(c, 0, sizeof(*c));
}

/* Keeps the heaviest sample that did not verify, to show in the message. */
static void note_bad(rp_import_check *c, unsigned why, uint64_t pc, uint64_t weight, const uint8_t *ran,
		     const uint8_t *elf, size_t n)
{
	if (weight <= c->bad_count)
		return;
	c->bad_why = why;
	c->bad_pc = pc;
	c->bad_count = weight;
	c->bad_len = (unsigned)(n > sizeof(c->bad_ran) ? sizeof(c->bad_ran) : n);
	if (ran)
		memcpy(c->bad_ran, ran, c->bad_len);
	if (elf)
		memcpy(c->bad_elf, elf, c->bad_len);
}

void rp_import_check_target(rp_import_check *c, const rp_image *img, const char *target)
{
	const char *arch = rp_image_arch(img);
	if (!target[0] || strcmp(target, "unknown") == 0 || strcmp(arch, "unknown") == 0 || strcmp(target, arch) == 0)
		return;
	snprintf(c->target, sizeof(c->target), "%s", target);
}

void rp_import_check_bytes(rp_import_check *c, const rp_image *img, uint64_t addr, const uint8_t *bytes,
			   size_t n, uint64_t weight)
{
	uint8_t have[16];
	rp_err ignored = RP_ERR_INIT;
	c->checked += weight;
	c->by_bytes = 1;
	if (c->target[0]) {
		c->other_target += weight;
		note_bad(c, WHY_TARGET, addr, weight, NULL, NULL, 0);
		return;
	}
	if (n > sizeof(have))
		n = sizeof(have);
	/* QEMU may take a 16-bit Thumb instruction at a page end as 4 bytes: the last 2 belong to
	 * the next instruction and may lie past the section; compare the part the ELF holds */
	size_t k = n;
	int readable = k && rp_image_read(img, addr, have, 1, &ignored) == 0;
	while (readable && k > 2 && rp_image_read(img, addr, have, k, &ignored) != 0)
		k--;
	if (!readable || rp_image_read(img, addr, have, k, &ignored) != 0) {
		c->outside += weight;
		note_bad(c, WHY_OUTSIDE, addr, weight, bytes, NULL, n);
	} else if (memcmp(have, bytes, k) != 0) {
		c->differ += weight;
		note_bad(c, WHY_DIFFER, addr, weight, bytes, have, k);
	} else {
		c->verified += weight;
	}
}

/* ---- by address ---- */

typedef struct starts {
	uint64_t *at;
	size_t n, cap;
} starts;

static int add_start(void *ctx, const rp_insn *insn)
{
	starts *s = ctx;
	rp_err err = RP_ERR_INIT;
	if (rp_grow((void **)&s->at, &s->cap, s->n + 1, sizeof(uint64_t), &err))
		return 1;   /* out of memory: the function is judged by alignment instead */
	s->at[s->n++] = insn->addr;
	return 0;
}

static int cmp_pc(const void *a, const void *b)
{
	uint64_t x = ((const rp_pc_count *)a)->pc, y = ((const rp_pc_count *)b)->pc;
	return x < y ? -1 : x > y;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Without a decoder: an instruction starts at a multiple of the smallest instruction size
 * (Thumb and compressed RISC-V: 2, ARM: 4); other machines are not judged. */
static int aligned(const rp_image *img, const rp_func *f, uint64_t pc)
{
	if (img->machine == EM_ARM)
		return f->is_thumb ? pc % 2 == 0 : pc % 4 == 0;
	if (img->machine == EM_RISCV)
		return pc % 2 == 0;
	return 1;
}

typedef struct walker {
	const rp_image *img;
	rp_disasm *dis;          /* NULL: this machine is judged by alignment */
	const rp_func *f;        /* the function `st` holds, NULL before the first */
	int decoded;             /* st holds f's instruction starts */
	starts st;
} walker;

/* Whether pc, inside f, is where an instruction starts. libopcodes decodes Thumb only (the
 * project's ARM targets are Cortex-M), so ARM-state functions are judged by alignment. */
static int insn_start(walker *w, const rp_func *f, uint64_t pc)
{
	if (f != w->f) {
		rp_err ignored = RP_ERR_INIT;
		w->f = f;
		w->st.n = 0;
		w->decoded = w->dis && (w->img->machine != EM_ARM || f->is_thumb) &&
			     rp_disasm_func(w->dis, f, add_start, &w->st, &ignored) == 0 && w->st.n;
		if (w->decoded)
			rp_sort(w->st.at, w->st.n, sizeof(uint64_t), cmp_u64);
	}
	if (!w->decoded)
		return aligned(w->img, f, pc);
	return bsearch(&pc, w->st.at, w->st.n, sizeof(uint64_t), cmp_u64) != NULL;
}

/* Whether addr lies in an executable section of img. */
static int in_code(const rp_image *img, uint64_t addr)
{
	for (size_t i = 0; i < img->nsections; i++) {
		const rp_section *sec = &img->sections[i];
		if (sec->is_exec && sec->is_alloc && addr >= sec->vma && addr - sec->vma < sec->size)
			return 1;
	}
	return 0;
}

int rp_import_check_pcs(rp_import_check *c, const rp_image *img, const rp_samples *s, unsigned how,
			rp_err *err)
{
	rp_pc_count *pcs = malloc((s->pcs_cap ? s->pcs_cap : 1) * sizeof(*pcs));
	size_t n = 0;
	if (!pcs)
		return rp_err_nomem(err, "checking the profile against the ELF");
	for (size_t i = 0; i < s->pcs_cap; i++)
		if (s->pcs[i].count)
			pcs[n++] = s->pcs[i];
	/* in address order, so that each function is decoded once */
	rp_sort(pcs, n, sizeof(*pcs), cmp_pc);
	walker w = { img, NULL, NULL, 0, { NULL, 0, 0 } };
	if (how & RP_CHECK_INSN_START) {
		rp_err ignored = RP_ERR_INIT;
		if (rp_disasm_new(&w.dis, img, &ignored) != 0)
			w.dis = NULL;
	}
	c->by_address = 1;
	for (size_t i = 0; i < n; i++) {
		uint64_t pc = pcs[i].pc, weight = pcs[i].count;
		const rp_func *f = rp_image_func_at(img, pc);
		c->checked += weight;
		if (c->target[0]) {
			c->other_target += weight;
			note_bad(c, WHY_TARGET, pc, weight, NULL, NULL, 0);
		} else if (!f && (how & RP_CHECK_IN_CODE) && in_code(img, pc)) {
			c->verified += weight;
		} else if (!f) {
			c->outside += weight;
			note_bad(c, WHY_OUTSIDE, pc, weight, NULL, NULL, 0);
		} else if ((how & RP_CHECK_INSN_START) && !insn_start(&w, f, pc)) {
			c->not_insn += weight;
			note_bad(c, WHY_NOT_INSN, pc, weight, NULL, NULL, 0);
		} else {
			c->verified += weight;
		}
	}
	rp_disasm_free(w.dis);
	free(w.st.at);
	free(pcs);
	return 0;
}

double rp_import_check_share(const rp_import_check *c)
{
	return c->checked ? (double)c->verified / (double)c->checked : 1.0;
}

double rp_import_check_samples(const rp_import_check *c, uint64_t weight)
{
	return (double)weight / (double)(c->scale ? c->scale : 1);
}

/* Bytes in memory order, "0a 24", as the message shows them. */
static void hex(char *out, size_t size, const uint8_t *b, size_t n)
{
	size_t used = 0;
	out[0] = '\0';
	for (size_t i = 0; i < n && used + 4 <= size; i++)
		used += (size_t)snprintf(out + used, size - used, "%s%02x", i ? " " : "", b[i]);
}

/* Appends to buf, keeping it NUL-terminated when it runs out of room. */
static void put(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put(char *buf, size_t size, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;
	if (used + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, size - used, fmt, ap);
	va_end(ap);
}

void rp_import_check_details(char *buf, size_t size, const rp_import_check *c, const rp_image *img)
{
	const char *sep = "";
	buf[0] = '\0';
	if (c->target[0]) {
		put(buf, size, "recorded by QEMU for %s, but the ELF is %s", c->target, rp_image_arch(img));
		return;
	}
	if (c->hist_apart)
		put(buf, size, "the histogram covers [0x%llx, 0x%llx), none of the ELF's code; ",
		    (unsigned long long)c->hist_lo, (unsigned long long)c->hist_hi);
	if (c->outside) {
		put(buf, size, "%.0f outside its %s", rp_import_check_samples(c, c->outside),
		    c->by_bytes && !c->by_address ? "code" : "functions");
		sep = ", ";
	}
	if (c->not_insn) {
		put(buf, size, "%s%.0f not on an instruction start", sep, rp_import_check_samples(c, c->not_insn));
		sep = ", ";
	}
	if (c->differ)
		put(buf, size, "%s%.0f on instruction bytes other than the ELF's", sep, rp_import_check_samples(c, c->differ));
	if (!c->bad_count)
		return;
	char ran[64], elf[64];
	const rp_func *f = rp_image_func_at(img, c->bad_pc);
	unsigned long long pc = (unsigned long long)c->bad_pc;
	hex(ran, sizeof(ran), c->bad_ran, c->bad_len);
	hex(elf, sizeof(elf), c->bad_elf, c->bad_len);
	if (c->bad_why == WHY_DIFFER)
		put(buf, size, "; e.g. at 0x%llx QEMU ran the bytes %s, the ELF has %s", pc, ran, elf);
	else if (c->bad_why == WHY_NOT_INSN && f)
		put(buf, size, "; e.g. 0x%llx is %s+0x%llx, between instructions", pc, f->name,
		    (unsigned long long)(c->bad_pc - f->addr));
	else if (c->bad_why == WHY_OUTSIDE)
		put(buf, size, "; e.g. 0x%llx is in %s", pc, c->by_bytes && c->bad_len ? "no section of the ELF" : "no function");
}
