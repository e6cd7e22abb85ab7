/* boot_bounds.c: what names a copied code section (boot.h): the addresses where it runs and
 * where it loads from, read from the linker's symbols and the section headers; which of them an
 * instruction names, directly or through a copy table in flash (CMSIS's, pico-sdk's); whether a
 * function refers to both (the copier); and every symbol's address, where a table ends. Owns
 * the sorted address list it returns. Workload: once per reset-path analysis, an instruction at
 * a time over the functions the walk decodes. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot_internal.h"
#include "ramplace/elfsyms.h"
#include "ramplace/util.h"


static void add_bound(bounds *b, uint64_t v, int kind)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->v[i] == v)
			return;
	if (b->n < sizeof(b->v) / sizeof(b->v[0])) {
		b->kind[b->n] = kind;
		b->v[b->n++] = v;
	}
}

/* The kind of bound v is, or -1. */
static int bound_kind(const bounds *b, uint64_t v)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->v[i] == v)
			return b->kind[i];
	return -1;
}

/* Linker symbols naming the section (__ramtext_start, _sramtext, __ramtext_load...; not sizes
 * such as __ramtext_size, which are numbers) and the section's own addresses. With the section
 * in the ELF, a symbol counts by where it points: into where the section runs (its start, end
 * or inside) or into where it loads from; any other symbol whose name happens to hold the
 * section's (pico-sdk's data_cpy_table for .data, a variable my_data) is not a bound. An empty
 * section shows no load address to compare with: any other value is where it loads from. */
void boot_collect_bounds(bounds *b, const rp_image *img, const rp_elfsyms *syms, const char *const *outsecs,
			 size_t n)
{
	for (size_t k = 0; k < n; k++) {
		const char *base = outsecs[k][0] == '.' ? outsecs[k] + 1 : outsecs[k];
		const rp_section *sec = rp_image_section(img, outsecs[k]);
		if (sec) {
			add_bound(b, sec->vma, BOUND_RUN);
			add_bound(b, sec->vma + sec->size, BOUND_RUN);
			if (sec->lma != sec->vma)
				add_bound(b, sec->lma, BOUND_LOAD);
		}
		for (size_t i = 0; *base && i < syms->nsyms; i++) {
			const rp_elfsym *s = &syms->syms[i];
			if (s->type == STT_FUNC || s->type == STT_SECTION || s->type == STT_FILE || s->type == STT_OBJECT ||
			    !strstr(s->name, base) || strstr(s->name, "size") || strstr(s->name, "len"))
				continue;
			if (!sec)
				add_bound(b, s->value, BOUND_ANY);
			else if (s->value >= sec->vma && s->value <= sec->vma + sec->size + 16)   /* an end past ALIGN() */
				add_bound(b, s->value, BOUND_RUN);
			else if (sec->lma == sec->vma || (s->value >= sec->lma && s->value <= sec->lma + sec->size))
				add_bound(b, s->value, BOUND_LOAD);   /* an empty section shows no load address */
		}
	}
}

/* The bounds an instruction names: the words it loads or the addresses it forms, and, when one
 * of those is a table in flash that holds both where a section runs and where it loads from
 * (pico-sdk's data_cpy_table of {load, start, end} triples, formed by adr; CMSIS's
 * __copy_table_start__, loaded from a pool), the table's bounds: a copy loop driven by a table
 * names the section only there. At most max values, each once. */
#define TABLE_WORDS 16

/* The allocated section with contents holding addr, or NULL. */
static const rp_section *section_at(const rp_image *img, uint64_t addr)
{
	for (size_t i = 0; i < img->nsections; i++) {
		const rp_section *s = &img->sections[i];
		if (s->is_alloc && !s->is_nobits && addr >= s->vma && addr - s->vma < s->size)
			return s;
	}
	return NULL;
}

static int by_address(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t address_key(const void *a)
{
	return *(const uint64_t *)a;
}

/* The addresses symbols name (not numbers, files or sections), sorted, each once. */
static void build_symaddrs(boot_symaddrs *a)
{
	const rp_elfsyms *syms = a->syms;
	a->built = -1;
	if (!syms || !(a->addrs = malloc((syms->nsyms ? syms->nsyms : 1) * sizeof(uint64_t))))
		return;
	size_t n = 0;
	for (size_t i = 0; i < syms->nsyms; i++)
		if (!syms->syms[i].absolute && syms->syms[i].type != STT_FILE && syms->syms[i].type != STT_SECTION)
			a->addrs[n++] = syms->syms[i].value & ~(uint64_t)1;   /* a Thumb function's address */
	rp_sort_keyed(a->addrs, n, sizeof(uint64_t), address_key, by_address);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (k == 0 || a->addrs[i] != a->addrs[k - 1])
			a->addrs[k++] = a->addrs[i];
	a->n = k;
	a->built = 1;
}

void boot_symaddrs_release(boot_symaddrs *a)
{
	free(a->addrs);
	a->addrs = NULL;
	a->n = 0;
	a->built = 0;
}

/* The first symbol address past addr (where the object holding a table at addr ends: the table
 * scan must not read into the next one), or end. */
static uint64_t next_symbol(const boot_refs *w, uint64_t addr, uint64_t end)
{
	boot_symaddrs *a = w->symaddrs;
	if (!a->built)
		build_symaddrs(a);
	if (a->built < 0)
		return addr + 4 < end ? addr + 4 : end;   /* no memory (the walk then fails): one word */
	size_t lo = rp_count_below(a->addrs, a->n, sizeof(*a->addrs), 0, sizeof(*a->addrs), addr, 1);
	return lo < a->n && a->addrs[lo] < end ? a->addrs[lo] : end;
}

static size_t insn_bounds(const boot_refs *w, const rp_insn *in, uint64_t *vals, int *kinds, size_t max)
{
	size_t n = 0;
	for (size_t k = 0; k < in->nrefs; k++) {
		uint64_t cand[2] = { in->ref_words[k], 0 };
		size_t ncand = 1;
		int kind = bound_kind(w->b, in->ref_words[k]);
		if (kind >= 0 && n < max) {
			vals[n] = in->ref_words[k];
			kinds[n++] = kind;
			continue;
		}
		/* adr (add rN, pc, #k) forms the table's address; a pool word or RISC-V's la holds it */
		if (w->img->machine == EM_ARM && (strncmp(in->mnemonic, "adr", 3) == 0 || strncmp(in->mnemonic, "add", 3) == 0))
			cand[ncand++] = in->refs[k];
		for (size_t c = 0; c < ncand; c++) {
			uint8_t buf[4 * TABLE_WORDS];
			const rp_section *sec = section_at(w->img, cand[c]);
			if (!sec || sec->is_nobits || sec->lma != sec->vma || cand[c] % 4)
				continue;   /* a table in flash, read where it runs */
			uint64_t avail = next_symbol(w, cand[c], sec->vma + sec->size) - cand[c];
			size_t nw = avail / 4 < TABLE_WORDS ? (size_t)(avail / 4) : TABLE_WORDS;
			rp_err ignored = RP_ERR_INIT;
			if (!nw || rp_image_read(w->img, cand[c], buf, 4 * nw, &ignored))
				continue;
			uint64_t tv[TABLE_WORDS];
			int tk[TABLE_WORDS], run = 0, load = 0, any = 0;
			size_t tn = 0;
			for (size_t i = 0; i < nw; i++) {
				uint64_t v = rp_image_word32(w->img, buf + 4 * i);
				int kd = bound_kind(w->b, v);
				if (kd < 0)
					continue;
				run |= kd == BOUND_RUN;
				load |= kd == BOUND_LOAD;
				any += kd == BOUND_ANY;
				tv[tn] = v;
				tk[tn++] = kd;
			}
			if (!(run && load) && any < 2)
				continue;
			for (size_t i = 0; i < tn && n < max; i++) {
				vals[n] = tv[i];
				kinds[n++] = tk[i];
			}
			break;
		}
	}
	return n;
}

/* Whether f copies the section: it refers to where the section loads and where it runs (or,
 * no telling, to two distinct bounds). Marks in is_ref the instructions that read the load
 * address (with no load address known, any bound): the copy starts from there; and in
 * is_bound every instruction naming any bound (the loop's guard compares them). */
int boot_copy_refs(const boot_refs *w, const insns *is, unsigned char *is_ref, unsigned char *is_bound)
{
	uint64_t first = 0, vals[RP_INSN_MAX_REFS * TABLE_WORDS];
	int kinds[RP_INSN_MAX_REFS * TABLE_WORDS];
	int distinct = 0, run = 0, load = 0, any = 0;
	for (size_t i = 0; i < is->n; i++) {
		size_t nb = insn_bounds(w, &is->v[i], vals, kinds, sizeof(vals) / sizeof(vals[0]));
		for (size_t k = 0; k < nb; k++) {
			if (!distinct)
				first = vals[k];
			distinct += distinct == 0 || (distinct == 1 && vals[k] != first);
			run |= kinds[k] == BOUND_RUN;
			any |= kinds[k] == BOUND_ANY;
			load |= kinds[k] == BOUND_LOAD;
		}
	}
	if (any ? distinct < 2 : !(run && load))
		return 0;
	for (size_t i = 0; i < is->n; i++) {
		size_t nb = insn_bounds(w, &is->v[i], vals, kinds, sizeof(vals) / sizeof(vals[0]));
		for (size_t k = 0; k < nb; k++) {
			if (!load || kinds[k] == BOUND_LOAD)
				is_ref[i] = 1;
			is_bound[i] = 1;
		}
	}
	return 1;
}
