/* elfsyms.c: the full symbol table (see elfsyms.h). Works on a private copy of the bytes
 * because libelf may convert a foreign-endian image in place. Owns the names. */
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/elfsyms.h"
#include "ramplace/util.h"

static int read_symtab(rp_elfsyms *out, Elf *elf, rp_err *err)
{
	size_t cap = 0;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || sh.sh_entsize == 0)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t nsyms = data ? data->d_size / sh.sh_entsize : 0;
		for (size_t i = 1; i < nsyms; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(data, (int)i, &sym))
				break;
			const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			if (rp_grow((void **)&out->syms, &cap, out->nsyms + 1, sizeof(rp_elfsym), err))
				return err->code;
			rp_elfsym *s = &out->syms[out->nsyms];
			*s = (rp_elfsym){ NULL, sym.st_value, sym.st_size, GELF_ST_TYPE(sym.st_info), sym.st_shndx == SHN_ABS };
			if (rp_strdup(&s->name, name, err))
				return err->code;
			out->nsyms++;
		}
	}
	return 0;
}

int rp_elfsyms_load(rp_elfsyms *out, const rp_image *img, rp_err *err)
{
	memset(out, 0, sizeof(*out));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return rp_err_set(err, RP_EIO, "%s: libelf: %s", img->path, elf_errmsg(-1));
	if (!img->bytes || !img->nbytes)
		return 0;
	char *copy = malloc(img->nbytes);
	if (!copy)
		return rp_err_nomem(err, "reading symbols");
	memcpy(copy, img->bytes, img->nbytes);
	Elf *elf = elf_memory(copy, img->nbytes);
	int rc = elf ? read_symtab(out, elf, err) : rp_err_set(err, RP_EINPUT, "%s: libelf: %s", img->path, elf_errmsg(-1));
	if (elf)
		elf_end(elf);
	free(copy);
	if (rc)
		rp_elfsyms_release(out);
	return rc;
}

void rp_elfsyms_release(rp_elfsyms *s)
{
	for (size_t i = 0; s && i < s->nsyms; i++)
		free(s->syms[i].name);
	if (s)
		free(s->syms);
	if (s)
		memset(s, 0, sizeof(*s));
}

const rp_elfsym *rp_elfsyms_find(const rp_elfsyms *s, const char *name)
{
	for (size_t i = 0; i < s->nsyms; i++)
		if (strcmp(s->syms[i].name, name) == 0)
			return &s->syms[i];
	return NULL;
}
