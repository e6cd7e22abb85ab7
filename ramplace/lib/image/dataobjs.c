/* dataobjs.c: data objects as RAM candidates (see dataobjs.h): which STT_OBJECT symbols are
 * proven read-only and flash-resident, and which input section of the map holds each alone.
 *
 * Owns the objects' strings (rp_dataobjs_release frees them). Works on a private copy of the ELF
 * bytes because libelf may convert a foreign-endian image in place. Workload: a few thousand
 * objects; one pass over the symbol table, one sort, one map lookup per object. */
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/dataobjs.h"
#include "ramplace/util.h"

/* What an object's section says about it, or "" when it is read-only and flash-resident. */
static void judge_section(rp_dataobj *o, const GElf_Shdr *sh, const rp_image *img)
{
	const rp_section *sec = rp_image_section(img, o->section);
	if (sh->sh_flags & SHF_WRITE)
		snprintf(o->why, sizeof(o->why), "writable, not const (in %s)", o->section);
	else if (sh->sh_type == SHT_NOBITS)
		snprintf(o->why, sizeof(o->why), "no contents in the ELF (in %s)", o->section);
	else if (sh->sh_flags & SHF_EXECINSTR)
		snprintf(o->why, sizeof(o->why), "in executable section %s", o->section);
	else if (!sec || sec->lma != sec->vma)
		snprintf(o->why, sizeof(o->why), "not flash-resident (%s is copied at boot)", o->section);
}

/* Flash-resident by the map's memory regions: not in the region .data runs in, and not in a
 * writable one unless that is some other memory (segment flags prove nothing: GNU ld merges
 * flash output sections into one RWX segment as soon as one of them, .init_array, is writable). */
static void judge_region(rp_dataobj *o, const rp_image *img, const rp_map *map)
{
	const rp_map_region *r = rp_map_region_find(map, NULL, o->addr);
	const rp_section *data = rp_image_section(img, ".data");
	const rp_map_region *ram = data ? rp_map_region_find(map, NULL, data->vma) : NULL;
	if (!r)
		snprintf(o->why, sizeof(o->why), "in no memory region of the map");
	else if (r == ram)
		snprintf(o->why, sizeof(o->why), "in %.60s, the memory .data runs in, not flash", r->name);
}

static int add_object(rp_dataobjs *out, size_t *cap, const GElf_Sym *sym, const char *name, const char *file,
		      Elf *elf, size_t shstrndx, const rp_image *img, rp_err *err)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_getscn(elf, sym->st_shndx);
	if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
		return 0;
	const char *secname = elf_strptr(elf, shstrndx, sh.sh_name);
	if (rp_grow((void **)&out->objs, cap, out->n + 1, sizeof(*out->objs), err))
		return err->code;
	rp_dataobj *o = &out->objs[out->n];
	memset(o, 0, sizeof(*o));
	o->addr = sym->st_value;
	o->size = sym->st_size;
	o->insec_size = sym->st_size;
	o->insec_align = 1;
	out->n++;
	if (rp_strdup(&o->name, name, err) || rp_strdup(&o->section, secname ? secname : "?", err) ||
	    (file && rp_strdup(&o->file, file, err)))
		return err->code;
	judge_section(o, &sh, img);
	return 0;
}

static int read_symtab(rp_dataobjs *out, Elf *elf, const rp_image *img, rp_err *err)
{
	size_t cap = 0, shstrndx;
	Elf_Scn *scn = NULL;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return rp_err_set(err, RP_EINPUT, "%s: libelf: %s", img->path, elf_errmsg(-1));
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || sh.sh_entsize == 0)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t nsyms = data ? data->d_size / sh.sh_entsize : 0;
		const char *file = NULL;   /* STT_FILE before a run of local symbols names their file */
		for (size_t i = 1; i < nsyms; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(data, (int)i, &sym))
				break;
			const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
			int type = GELF_ST_TYPE(sym.st_info), local = GELF_ST_BIND(sym.st_info) == STB_LOCAL;
			if (type == STT_FILE)
				file = name;
			if (type != STT_OBJECT || !name || !*name || sym.st_size == 0 || sym.st_shndx == SHN_UNDEF ||
			    sym.st_shndx >= SHN_LORESERVE)
				continue;
			if (add_object(out, &cap, &sym, name, local ? file : NULL, elf, shstrndx, img, err))
				return err->code;
		}
	}
	return 0;
}

static int by_addr(const void *a, const void *b)
{
	const rp_dataobj *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* With the map: the object's own input section, which must be a per-object section (.rodata.X,
 * .srodata.X from -fdata-sections) holding no other object. Objects are sorted by address, so
 * neighbours in one input section are adjacent. */
static int judge_input_section(rp_dataobjs *d, size_t i, const rp_image *img, const rp_map *map, rp_err *err)
{
	rp_dataobj *o = &d->objs[i];
	if (o->why[0])
		return 0;
	if (!map) {
		snprintf(o->why, sizeof(o->why), "no --map: only the link map shows an object's own input section");
		return 0;
	}
	judge_region(o, img, map);
	if (o->why[0])
		return 0;
	const rp_map_insec *in = rp_map_insec_at(map, o->addr);
	if (!in || o->size > in->size || o->addr - in->addr > in->size - o->size) {
		snprintf(o->why, sizeof(o->why), "no input section of the map holds it whole");
		return 0;
	}
	int own = strncmp(in->name, ".rodata.", 8) == 0 || strncmp(in->name, ".srodata.", 9) == 0;
	if (!own || strncmp(in->name, ".rodata.str", 11) == 0 || strncmp(in->name, ".rodata.cst", 11) == 0) {
		snprintf(o->why, sizeof(o->why), "its input section %.60s is shared (compile with -fdata-sections)", in->name);
		return 0;
	}
	for (int side = -1; side <= 1; side += 2) {
		if ((side < 0 && i == 0) || (side > 0 && i + 1 >= d->n))
			continue;
		const rp_dataobj *n = &d->objs[side < 0 ? i - 1 : i + 1];
		if (n->addr >= in->addr && n->addr - in->addr < in->size && strcmp(n->name, o->name) != 0) {
			snprintf(o->why, sizeof(o->why), "shares %.60s with '%.60s'", in->name, n->name);
			return 0;
		}
	}
	rp_err why = RP_ERR_INIT;
	if (rp_map_insec_pattern(&o->pattern, in, &why)) {
		if (why.code == RP_ENOMEM)
			return rp_err_nomem(err, "reading data objects");
		snprintf(o->why, sizeof(o->why), "%.180s", why.msg);
		return 0;
	}
	o->insec_size = in->size;
	o->insec_align = in->align ? in->align : 1;
	return 0;
}

int rp_dataobjs_load(rp_dataobjs *out, const rp_image *img, const rp_map *map, rp_err *err)
{
	memset(out, 0, sizeof(*out));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return rp_err_set(err, RP_EIO, "%s: libelf: %s", img->path, elf_errmsg(-1));
	if (!img->bytes || !img->nbytes)
		return 0;
	char *copy = malloc(img->nbytes);
	if (!copy)
		return rp_err_nomem(err, "reading data objects");
	memcpy(copy, img->bytes, img->nbytes);
	Elf *elf = elf_memory(copy, img->nbytes);
	int rc = elf ? read_symtab(out, elf, img, err) : rp_err_set(err, RP_EINPUT, "%s: libelf: %s", img->path, elf_errmsg(-1));
	if (elf)
		elf_end(elf);
	free(copy);
	if (!rc)
		rp_sort(out->objs, out->n, sizeof(*out->objs), by_addr);
	for (size_t i = 0; !rc && i < out->n; i++)
		rc = judge_input_section(out, i, img, map, err);
	if (rc)
		rp_dataobjs_release(out);
	return rc;
}

void rp_dataobjs_release(rp_dataobjs *d)
{
	for (size_t i = 0; d && i < d->n; i++) {
		free(d->objs[i].name);
		free(d->objs[i].file);
		free(d->objs[i].section);
		free(d->objs[i].pattern);
	}
	if (d) {
		free(d->objs);
		memset(d, 0, sizeof(*d));
	}
}

const rp_dataobj *rp_dataobjs_at(const rp_dataobjs *d, uint64_t addr)
{
	size_t lo = RP_COUNT_AT_OR_BELOW(d->objs, d->n, addr, addr);   /* lo - 1: the last at or below addr */
	if (lo == 0)
		return NULL;
	const rp_dataobj *o = &d->objs[lo - 1];
	return addr - o->addr < o->size ? o : NULL;
}

const rp_dataobj *rp_dataobjs_find(const rp_dataobjs *d, const char *name, const char *file)
{
	const rp_dataobj *any = NULL;
	for (size_t i = 0; i < d->n; i++) {
		const rp_dataobj *o = &d->objs[i];
		if (strcmp(o->name, name) != 0)
			continue;
		if (file ? (o->file && strcmp(o->file, file) == 0) : !o->file)
			return o;
		if (!file && !any)
			any = o;
	}
	return any;
}
