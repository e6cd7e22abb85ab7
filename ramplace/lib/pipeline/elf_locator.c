/* elf_locator.c: the ldgen locator (ldgen/locator.h) on top of the firmware ELF
 * (elf_locator.h): a function is found by name in its symbols (rp_image), its place in its
 * DWARF (srcloc.h). It lives above ldgen so that ldgen knows plans only, not ELF files or
 * DWARF; `emit --format zephyr --elf` and `annotate` use it.
 *
 * Owns the DWARF handle and the last answer, whose strings the locator lends out until the
 * next call. One lookup per planned function, a few hundred at most: nothing is cached. */
#include <string.h>

#include "ramplace/elf_locator.h"

static int locate(void *ctx, const char *func, const char *file, rp_ldgen_loc *loc, rp_err *err)
{
	rp_elf_locator *s = ctx;
	const rp_func *f = rp_image_func_by_name(s->img, func, file);
	memset(loc, 0, sizeof(*loc));
	rp_srcloc_release(&s->last);
	if (!f)
		return RP_LDGEN_LOC_NO_FUNC;
	int rc = rp_dwarf_locate(s->dw, f->addr, &s->last, err);
	if (rc != 0)
		return rc < 0 ? rc : RP_LDGEN_LOC_NO_DEBUG;
	loc->name = s->last.name;
	loc->cu_file = s->last.cu_file;
	loc->decl_file = s->last.decl_file;
	loc->decl_line = s->last.decl_line;
	return 0;
}

int rp_elf_locator_open(rp_elf_locator *s, const rp_image *img, rp_err *err)
{
	memset(s, 0, sizeof(*s));
	s->img = img;
	return rp_dwarf_open(&s->dw, img->path, err);
}

void rp_elf_locator_close(rp_elf_locator *s)
{
	rp_srcloc_release(&s->last);
	rp_dwarf_close(s->dw);
	memset(s, 0, sizeof(*s));
}

rp_ldgen_locator rp_elf_locator_get(rp_elf_locator *s)
{
	rp_ldgen_locator lc = { locate, s };
	return lc;
}
