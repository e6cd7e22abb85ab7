/* elfsyms.c: the full symbol table (see elfsyms.h). Works on a private copy of the bytes when
 * libelf may convert them in place (a foreign-endian image), else on the image's own bytes, which
 * libelf then only reads: the copy of a 4 MB image was a tenth of this file's time. Owns the
 * names (one copy of each string table, not one allocation per name). Workload: loaded by the
 * reset-path analysis and by the free-RAM check of every place, on firmware of up to 200,000
 * symbols, and asked for a handful of names: the load is the cost, kept to one pass without an
 * allocation per symbol; a lookup is a scan of the names, which lie one after another. */
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/elfsyms.h"
#include "ramplace/util.h"

/* The string table a symbol table names: its bytes, or NULL when it is none (elf_strptr would
 * return NULL for every name in it). */
static Elf_Data *strtab_of(Elf *elf, const GElf_Shdr *sym_sh)
{
	Elf_Scn *scn = elf_getscn(elf, sym_sh->sh_link);
	GElf_Shdr sh;
	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_STRTAB)
		return NULL;
	Elf_Data *d = elf_getdata(scn, NULL);
	return d && d->d_buf && d->d_size ? d : NULL;
}

/* Bytes of every string table the symbol tables name, so that one allocation holds them all. */
static int names_size(Elf *elf, size_t *total, rp_err *err)
{
	*total = 0;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || sh.sh_entsize == 0)
			continue;
		Elf_Data *str = strtab_of(elf, &sh);
		if (str && (str->d_size > SIZE_MAX - *total - 1))
			return rp_err_nomem(err, "reading symbols");
		*total += str ? str->d_size : 0;
	}
	*total += 1;
	return 0;
}

/* One symbol table: its string table copied to names + *used, the names pointing into it. A name
 * past the table's last NUL is not terminated inside it: skipped, as elf_strptr refuses it. */
static int read_symtab(rp_elfsyms *out, size_t *cap, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, size_t *used,
		       rp_err *err)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	Elf_Data *str = strtab_of(elf, sh);
	size_t nsyms = data ? data->d_size / sh->sh_entsize : 0;
	size_t symsz = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	if (!str || nsyms < 2 || !symsz)
		return 0;
	/* room for what gelf_getsym can return, whatever a hostile sh_entsize claims */
	size_t most = data->d_size / symsz < nsyms ? data->d_size / symsz : nsyms;
	if (most > 1 && (most - 1 > SIZE_MAX - out->nsyms ||
			 rp_grow((void **)&out->syms, cap, out->nsyms + most - 1, sizeof(rp_elfsym), err)))
		return err->code ? err->code : rp_err_nomem(err, "reading symbols");
	char *base = out->names + *used;
	memcpy(base, str->d_buf, str->d_size);
	*used += str->d_size;
	size_t last_nul = str->d_size;
	while (last_nul > 0 && base[last_nul - 1] != '\0')
		last_nul--;
	if (!last_nul)
		return 0;
	for (size_t i = 1; i < nsyms; i++) {
		GElf_Sym sym;
		if (i >= most || !gelf_getsym(data, (int)i, &sym))
			break;
		if (sym.st_name >= last_nul || !base[sym.st_name])
			continue;   /* past the last NUL (unterminated), or no name */
		out->syms[out->nsyms++] = (rp_elfsym){ base + sym.st_name, sym.st_value, sym.st_size,
						      GELF_ST_TYPE(sym.st_info), sym.st_shndx == SHN_ABS };
	}
	return 0;
}

static int read_symtabs(rp_elfsyms *out, Elf *elf, rp_err *err)
{
	size_t total, used = 0, cap = 0;
	if (names_size(elf, &total, err))
		return err->code;
	out->names = malloc(total);
	if (!out->names)
		return rp_err_nomem(err, "reading symbols");
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB && sh.sh_entsize != 0 &&
		    read_symtab(out, &cap, elf, scn, &sh, &used, err))
			return err->code;
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
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	int foreign = img->big_endian;
#else
	int foreign = 1;   /* a host of another or unknown byte order: always a copy */
#endif
	char *copy = foreign ? malloc(img->nbytes) : NULL;
	if (foreign && !copy)
		return rp_err_nomem(err, "reading symbols");
	if (foreign)
		memcpy(copy, img->bytes, img->nbytes);
	Elf *elf = elf_memory(foreign ? copy : (char *)img->bytes, img->nbytes);
	int rc = elf ? read_symtabs(out, elf, err) : rp_err_set(err, RP_EINPUT, "%s: libelf: %s", img->path, elf_errmsg(-1));
	if (elf)
		elf_end(elf);
	free(copy);
	if (rc)
		rp_elfsyms_release(out);
	return rc;
}

void rp_elfsyms_release(rp_elfsyms *s)
{
	if (!s)
		return;
	free(s->syms);
	free(s->names);
	memset(s, 0, sizeof(*s));
}

const rp_elfsym *rp_elfsyms_find(const rp_elfsyms *s, const char *name)
{
	for (size_t i = 0; i < s->nsyms; i++)   /* the first byte decides most without a call */
		if (s->syms[i].name[0] == name[0] && strcmp(s->syms[i].name, name) == 0)
			return &s->syms[i];
	return NULL;
}

int rp_image_syms(const rp_image *img, const rp_elfsyms **out, rp_err *err)
{
	static const rp_elfsyms none = { NULL, 0, NULL };
	*out = img->syms_cache;
	if (*out)
		return 0;
	if (!img->bytes || !img->nbytes) {   /* an image put together by hand: nothing to keep */
		*out = &none;
		return 0;
	}
	rp_elfsyms *loaded = malloc(sizeof(*loaded));
	if (!loaded)
		return rp_err_nomem(err, "reading symbols");
	int rc = rp_elfsyms_load(loaded, img, err);
	if (rc) {
		free(loaded);
		return rc;
	}
	((rp_image *)(uintptr_t)img)->syms_cache = loaded;   /* a cache: the image's content is unchanged */
	*out = loaded;
	return 0;
}
