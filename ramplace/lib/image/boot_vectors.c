/* boot_vectors.c: where the reset path starts (boot.h): the Cortex-M vector table (a section of
 * a known name whose second word is a Thumb function, or a symbol naming the table), its
 * handlers for --ram-handlers, else the ELF entry or a Reset_Handler/_start symbol. Owns
 * nothing but the handler list it returns. Workload: once per place or check. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot_internal.h"
#include "ramplace/boot.h"
#include "ramplace/elfsyms.h"
#include "ramplace/util.h"

static const rp_func *thumb_func(const rp_image *img, uint64_t word)
{
	if (!(word & 1))
		return NULL;
	const rp_func *f = rp_image_func_at(img, word & ~1ull);
	return f && f->addr == (word & ~1ull) ? f : NULL;
}

static const char *const vector_sections[] = { ".vectors", ".isr_vector", ".vector_table", ".intvecs" };
/* The names startup code gives the table when it sits inside .text (pico-sdk's crt0: __vectors
 * and CMSIS's __VECTOR_TABLE at the start of .text, the ELF entry a trampoline through it). */
static const char *const vector_symbols[] = { "__VECTOR_TABLE", "__vectors", "__Vectors", "__isr_vector",
					       "g_pfnVectors", "_vector_table", "__vector_table" };

/* A Cortex-M vector table: where it is, how many bytes are known to be table (all words up to
 * size; a symbol without a size: the table ends at the first word that is neither 0 nor a
 * handler), and what named it. */
typedef struct vtable {
	uint64_t addr, size;
	int sized;
	char name[40];
} vtable;

/* Word k of a vector table; 0 when it cannot be read. */
static uint64_t vector_word(const rp_image *img, const vtable *t, size_t k)
{
	unsigned char w[4];
	rp_err ignored = RP_ERR_INIT;
	if (t->size < 4 * (uint64_t)(k + 1) || rp_image_read(img, t->addr + 4 * k, w, 4, &ignored))
		return 0;
	return rp_image_word32(img, w);
}

/* The symbol-named table at sym (in a section with contents), sized by the symbol or, without
 * a size, up to 512 words (16 system + 496 external exceptions) within its section. */
static int symbol_table(const rp_image *img, const rp_elfsym *sym, vtable *t)
{
	for (size_t i = 0; i < img->nsections; i++) {
		const rp_section *s = &img->sections[i];
		if (!s->is_alloc || s->is_nobits || sym->value < s->vma || sym->value - s->vma >= s->size)
			continue;
		uint64_t room = s->vma + s->size - sym->value;
		t->addr = sym->value;
		t->sized = sym->size != 0;
		t->size = sym->size ? (sym->size < room ? sym->size : room) : (room < 4 * 512 ? room : 4 * 512);
		snprintf(t->name, sizeof(t->name), "%s", sym->name);
		return 1;
	}
	return 0;
}

/* Cortex-M: the vector table whose word 1 (the reset handler, with the Thumb bit) is a
 * function: an output section of its own, else a symbol of syms naming it (syms NULL: the
 * symbols could not be read, so sections only). */
static int vector_table(const rp_image *img, const rp_elfsyms *syms, vtable *t, const rp_func **reset)
{
	if (img->machine != EM_ARM)
		return 0;
	for (size_t i = 0; i < sizeof(vector_sections) / sizeof(vector_sections[0]); i++) {
		const rp_section *s = rp_image_section(img, vector_sections[i]);
		if (!s)
			continue;
		*t = (vtable){ s->vma, s->size, 1, "" };
		snprintf(t->name, sizeof(t->name), "%s", vector_sections[i]);
		if ((*reset = thumb_func(img, vector_word(img, t, 1))))
			return 1;
	}
	int found = 0;
	for (size_t i = 0; syms && !found && i < sizeof(vector_symbols) / sizeof(vector_symbols[0]); i++) {
		const rp_elfsym *sym = rp_elfsyms_find(syms, vector_symbols[i]);
		found = sym && symbol_table(img, sym, t) && (*reset = thumb_func(img, vector_word(img, t, 1))) != NULL;
	}
	return found;
}

static const rp_func *from_vector_table(const rp_image *img, const rp_elfsyms *syms, char *how, size_t howlen)
{
	const rp_func *f = NULL;
	vtable t;
	if (!vector_table(img, syms, &t, &f))
		return NULL;
	snprintf(how, howlen, "the vector table (%s)", t.name);
	return f;
}

int rp_boot_vector_handlers(const rp_image *img, size_t **out, size_t *n, rp_err *err)
{
	return rp_boot_vector_slots(img, out, NULL, n, err);
}

int rp_boot_vector_slots(const rp_image *img, size_t **out, uint64_t **slots, size_t *n, rp_err *err)
{
	size_t slots_cap = 0;
	*out = NULL;
	*n = 0;
	if (slots)
		*slots = NULL;
	if (img->machine == EM_RISCV) {
		int rc = rp_riscv_trap_handlers(img, out, n, err);
		if (!rc && !*n)
			rc = rp_err_set(err, RP_EINPUT, "%s: no trap handler found: no code writes a function's address "
					"(or a table of jumps) into mtvec; name the handlers with --ram-handler NAME", img->path);
		return rc;
	}
	const rp_func *reset = NULL;
	vtable t;
	const rp_elfsyms *syms = NULL;
	rp_err ignored = RP_ERR_INIT;
	int have_syms = rp_image_syms(img, &syms, &ignored) == 0;
	int found = vector_table(img, have_syms ? syms : NULL, &t, &reset);
	if (!found)
		return rp_err_set(err, RP_EINPUT, "%s: no Cortex-M vector table (.vectors, .isr_vector, .vector_table or "
				  ".intvecs whose second word is the reset handler, or a symbol such as __vectors or "
				  "__VECTOR_TABLE naming one) to take the interrupt handlers from", img->path);
	size_t cap = 0;
	for (size_t k = 2; k < t.size / 4; k++) {
		uint64_t word = vector_word(img, &t, k);
		const rp_func *f = thumb_func(img, word);
		if (!f && word && !t.sized)
			break;   /* past the end of a table no size bounds */
		if (!f || f == reset)
			continue;
		size_t fi = (size_t)(f - img->funcs), j = 0;
		while (j < *n && (*out)[j] != fi)
			j++;
		if (j < *n)
			continue;   /* one handler in many slots (a default handler) */
		if (rp_grow((void **)out, &cap, *n + 1, sizeof(size_t), err) ||
		    (slots && rp_grow((void **)slots, &slots_cap, *n + 1, sizeof(uint64_t), err))) {
			free(*out);
			*out = NULL;
			if (slots) {
				free(*slots);
				*slots = NULL;
			}
			*n = 0;
			return err->code;
		}
		if (slots)
			(*slots)[*n] = t.addr + 4 * (uint64_t)k;
		(*out)[(*n)++] = fi;
	}
	return 0;
}

const rp_func *boot_find_reset(const rp_image *img, const rp_elfsyms *syms, char *how, size_t howlen)
{
	const rp_func *f = from_vector_table(img, syms, how, howlen);
	if (f)
		return f;
	f = img->entry ? rp_image_func_at(img, img->entry & (img->machine == EM_ARM ? ~1ull : ~0ull)) : NULL;
	if (f) {
		snprintf(how, howlen, "the ELF entry point");
		return f;
	}
	static const char *const names[] = { "Reset_Handler", "_start" };
	for (size_t i = 0; i < 2; i++)
		if ((f = rp_image_func_by_name(img, names[i], NULL))) {
			snprintf(how, howlen, "the symbol %s", names[i]);
			return f;
		}
	return NULL;
}

