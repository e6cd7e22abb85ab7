/* image_query.c: what the image model answers once loaded (image.h): the function at or
 * below an address, by name (through the name index image.c builds), its extent, a section by
 * name, bytes at an address, a data symbol's address and size. No state of its own; reads
 * only the image and its file bytes. Workload: lookups by the hundred thousand on a large
 * firmware, each a binary search or a hash probe. */
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/image.h"
#include "ramplace/util.h"

const char *rp_image_arch(const rp_image *img)
{
	switch (img->machine) {
	case EM_ARM:
		return "arm";
	case EM_AARCH64:
		return "aarch64";
	case EM_RISCV:
		return img->elfclass == 64 ? "riscv64" : "riscv32";
	case EM_X86_64:
		return "x86_64";
	case EM_386:
		return "i386";
	default:
		return "unknown";
	}
}

const rp_func *rp_image_func_below(const rp_image *img, uint64_t pc)
{
	if (img->machine == EM_ARM)
		pc &= ~(uint64_t)1;
	size_t lo = RP_COUNT_AT_OR_BELOW(img->funcs, img->nfuncs, addr, pc);
	return lo ? &img->funcs[lo - 1] : NULL;
}

const rp_func *rp_image_func_at(const rp_image *img, uint64_t pc)
{
	if (img->machine == EM_ARM)
		pc &= ~(uint64_t)1;
	/* last function starting at or below pc */
	const rp_func *below = rp_image_func_below(img, pc);
	size_t lo = below ? (size_t)(below - img->funcs) + 1 : 0;
	/* nested or overlapping symbols: walk back over earlier starts that still cover pc */
	for (size_t i = lo; i-- > 0;) {
		const rp_func *f = &img->funcs[i];
		if (pc >= f->addr && pc - f->addr < f->size)
			return f;
		if (lo - i > 8)
			break;
	}
	/* a zero-size symbol (e.g. crtstuff's frame_dummy) covers up to the next function */
	if (lo > 0 && img->funcs[lo - 1].size == 0) {
		const rp_func *f = &img->funcs[lo - 1];
		if (pc - f->addr < rp_image_func_extent(img, f))
			return f;
	}
	return NULL;
}

/* as gprof and nm-based tools take a symbol without .size */
uint64_t rp_image_func_extent(const rp_image *img, const rp_func *f)
{
	if (f->size)
		return f->size;
	const rp_section *sec = f->section < img->nsections ? &img->sections[f->section] : NULL;
	if (!sec || f->addr < sec->vma || f->addr - sec->vma >= sec->size)
		return 0;
	uint64_t end = sec->vma + sec->size;
	for (size_t i = (size_t)(f - img->funcs) + 1; i < img->nfuncs; i++)
		if (img->funcs[i].addr > f->addr) {
			if (img->funcs[i].addr < end)
				end = img->funcs[i].addr;
			break;
		}
	return end - f->addr;
}

static const rp_func *func_by_name_scan(const rp_image *img, const char *name, const char *file)
{
	const rp_func *any_local = NULL;
	for (size_t i = 0; i < img->nfuncs; i++) {
		const rp_func *f = &img->funcs[i];
		if (strcmp(f->name, name) != 0)
			continue;
		if (file) {
			if (f->file && strcmp(f->file, file) == 0)
				return f;
			continue;
		}
		if (!f->is_local)
			return f;
		if (!any_local)
			any_local = f;
	}
	return any_local;
}

/* The first in address order, as the scan finds it: the index breaks ties by position. Globals
 * have no file, so they sort first within their name. */
const rp_func *rp_image_func_by_name(const rp_image *img, const char *name, const char *file)
{
	if (!img->by_name || !img->by_name->e)
		return func_by_name_scan(img, name, file);
	const rp_name_entry *e = rp_name_index_find(img->by_name, name, file, file != NULL);
	if (file || !e)
		return e ? &img->funcs[e->index] : NULL;
	size_t any_local = SIZE_MAX;
	for (; e; e = rp_name_index_next(img->by_name, e)) {
		if (!img->funcs[e->index].is_local)
			return &img->funcs[e->index];
		if (e->index < any_local)
			any_local = e->index;
	}
	return &img->funcs[any_local];
}

const rp_section *rp_image_section(const rp_image *img, const char *name)
{
	for (size_t i = 0; i < img->nsections; i++)
		if (img->sections[i].name && strcmp(img->sections[i].name, name) == 0)
			return &img->sections[i];
	return NULL;
}

uint64_t rp_image_word32(const rp_image *img, const unsigned char *p)
{
	return img->big_endian ? (uint64_t)p[0] << 24 | (uint64_t)p[1] << 16 | (uint64_t)p[2] << 8 | p[3]
			       : (uint64_t)p[3] << 24 | (uint64_t)p[2] << 16 | (uint64_t)p[1] << 8 | p[0];
}

const uint8_t *rp_image_bytes_at(const rp_image *img, uint64_t vma, size_t len)
{
	for (size_t i = 0; i < img->nsections; i++) {
		const rp_section *s = &img->sections[i];
		if (!s->is_alloc || s->is_nobits || vma < s->vma || vma - s->vma > s->size ||
		    len > s->size - (vma - s->vma))
			continue;
		if (s->file_offset > img->nbytes || s->size > img->nbytes - s->file_offset)
			continue; /* a corrupt header pointing past the end of the file */
		return img->bytes + s->file_offset + (vma - s->vma);
	}
	return NULL;
}

int rp_image_read(const rp_image *img, uint64_t vma, void *buf, size_t len, rp_err *err)
{
	const uint8_t *p = rp_image_bytes_at(img, vma, len);
	if (!p)
		return rp_err_set(err, RP_EINPUT, "%s: no file contents at address 0x%llx (%zu bytes)",
				  img->path, (unsigned long long)vma, len);
	memcpy(buf, p, len);
	return 0;
}

int rp_image_offset_to_addr(const rp_image *img, uint64_t offset, uint64_t *vaddr, rp_err *err)
{
	for (size_t i = 0; i < img->nsegments; i++) {
		const rp_segment *seg = &img->segments[i];
		if (offset >= seg->offset && offset - seg->offset < seg->filesz) {
			*vaddr = seg->vaddr + (offset - seg->offset);
			return 0;
		}
	}
	return rp_err_set(err, RP_EINPUT, "%s: file offset 0x%llx is in no loadable segment",
			  img->path, (unsigned long long)offset);
}

/* Scans one symbol table for a defined data symbol; *found: 2 global, 1 local. */
static int find_data_symbol(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, const char *want,
			    uint64_t *addr, uint64_t *size, int *found)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data || sh->sh_entsize == 0)
		return -1;
	size_t nsyms = sh->sh_size / sh->sh_entsize;
	for (size_t i = 1; i < nsyms && *found < 2; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			return -1;
		int type = GELF_ST_TYPE(sym.st_info);
		const char *name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || strcmp(name, want) != 0 || (type != STT_OBJECT && type != STT_NOTYPE) ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		int rank = GELF_ST_BIND(sym.st_info) == STB_LOCAL ? 1 : 2;
		if (rank > *found) {
			*found = rank;
			*addr = sym.st_value;
			*size = sym.st_size;
		}
	}
	return 0;
}

int rp_image_data_symbol(const rp_image *img, const char *name, uint64_t *addr, uint64_t *size,
			 rp_err *err)
{
	int found = 0, bad = 0;
	elf_version(EV_CURRENT);
	Elf *elf = elf_memory((char *)img->bytes, img->nbytes);
	if (!elf)
		return rp_err_set(err, RP_EINPUT, "%s: cannot read ELF: %s", img->path, elf_errmsg(-1));
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn && !bad; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			bad = 1;
		else if (sh.sh_type == SHT_SYMTAB)
			bad = find_data_symbol(elf, scn, &sh, name, addr, size, &found) != 0;
	}
	elf_end(elf);
	if (bad)
		return rp_err_set(err, RP_EINPUT, "%s: corrupt symbol table", img->path);
	if (!found)
		return rp_err_set(err, RP_EINPUT, "%s: no data symbol '%s' (is the firmware linked with it?)",
				  img->path, name);
	return 0;
}
