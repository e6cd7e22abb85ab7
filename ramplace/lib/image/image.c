/* image.c: loads the image model (image.h) from an ELF with libelf: functions from the symbol
 * table (STT_FILE gives statics their file), sections with VMA/LMA from the program headers,
 * and the GNU build-id; the architecture's veneer shape comes from arch.c. The input is hostile:
 * every offset is checked against the file size.
 * Owns a copy of the file bytes for code reads; libelf's handle does not outlive loading. */
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/elfsyms.h"
#include "ramplace/image.h"
#include "ramplace/util.h"
#include "image_arch.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

typedef struct loader {
	rp_image *img;
	Elf *elf;
	const char *name;
	size_t funcs_cap;
	uint32_t e_flags;   /* checked against e_machine once the sections are known */
	const char *file_seen, *file_copy;  /* the last STT_FILE name copied, and its copy: the
					       locals after one share it */
} loader;

/* A copy of s in the image's string pool (rp_strpool_copy): NULL stays NULL. */
static int pool_copy(rp_image *img, const char **out, const char *s, rp_err *err)
{
	*out = NULL;
	if (s && !(*out = rp_strpool_copy(&img->strings, s, strlen(s))))
		return rp_err_nomem(err, "loading an ELF");
	return 0;
}

static int fail(rp_err *err, const char *name, const char *what)
{
	return rp_err_set(err, RP_EINPUT, "%s: %s", name, what);
}

static int fail_elf(rp_err *err, const char *name, const char *what)
{
	return rp_err_set(err, RP_EINPUT, "%s: %s: %s", name, what, elf_errmsg(-1));
}

static int load_header(loader *ld, rp_err *err)
{
	GElf_Ehdr eh;
	if (elf_kind(ld->elf) != ELF_K_ELF)
		return fail(err, ld->name, "not an ELF file");
	if (!gelf_getehdr(ld->elf, &eh))
		return fail_elf(err, ld->name, "corrupt ELF header");
	if (eh.e_shoff > ld->img->nbytes || (uint64_t)eh.e_shnum * eh.e_shentsize > ld->img->nbytes - eh.e_shoff)
		return rp_err_set(err, RP_EINPUT, "%s: truncated or corrupt: section headers at offset 0x%llx run past the end of the file (%zu bytes)",
				  ld->name, (unsigned long long)eh.e_shoff, ld->img->nbytes);
	if (eh.e_phoff > ld->img->nbytes || (uint64_t)eh.e_phnum * eh.e_phentsize > ld->img->nbytes - eh.e_phoff)
		return rp_err_set(err, RP_EINPUT, "%s: truncated or corrupt: program headers at offset 0x%llx run past the end of the file (%zu bytes)",
				  ld->name, (unsigned long long)eh.e_phoff, ld->img->nbytes);
	ld->img->machine = eh.e_machine;
	ld->img->elfclass = eh.e_ident[EI_CLASS] == ELFCLASS64 ? 64 : 32;
	ld->img->big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	ld->img->code_big_endian = ld->img->big_endian && !(eh.e_machine == EM_ARM && (eh.e_flags & EF_ARM_BE8));
	ld->img->entry = eh.e_entry;
	ld->e_flags = eh.e_flags;
	return 0;
}

static int load_segments(loader *ld, rp_err *err)
{
	size_t n;
	if (elf_getphdrnum(ld->elf, &n) != 0)
		return fail_elf(err, ld->name, "corrupt program headers");
	if (n == 0)
		return 0;
	ld->img->segments = calloc(n, sizeof(rp_segment));
	if (!ld->img->segments)
		return rp_err_nomem(err, "reading program headers");
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(ld->elf, (int)i, &ph))
			return fail_elf(err, ld->name, "corrupt program header");
		if (ph.p_type != PT_LOAD)
			continue;
		ld->img->segments[ld->img->nsegments++] = (rp_segment){
			ph.p_vaddr, ph.p_paddr, ph.p_offset, ph.p_filesz, ph.p_memsz, ph.p_flags
		};
	}
	return 0;
}

/* The LMA is where the loader puts the bytes: the segment's paddr plus the section's offset in
 * it. Sections outside every segment (or NOBITS) are not relocated: LMA = VMA. */
static uint64_t section_lma(const rp_image *img, const rp_section *sec)
{
	for (size_t i = 0; i < img->nsegments; i++) {
		const rp_segment *seg = &img->segments[i];
		if (sec->is_nobits || !sec->is_alloc)
			break;
		if (sec->file_offset >= seg->offset && sec->file_offset < seg->offset + seg->filesz &&
		    sec->vma >= seg->vaddr && sec->vma < seg->vaddr + seg->memsz)
			return seg->paddr + (sec->file_offset - seg->offset);
	}
	return sec->vma;
}

static int load_sections(loader *ld, rp_err *err)
{
	size_t nscn, shstrndx;
	if (elf_getshdrnum(ld->elf, &nscn) != 0 || elf_getshdrstrndx(ld->elf, &shstrndx) != 0)
		return fail_elf(err, ld->name, "corrupt section headers");
	ld->img->sections = calloc(nscn ? nscn : 1, sizeof(rp_section));
	if (!ld->img->sections)
		return rp_err_nomem(err, "reading sections");
	/* indexed like the ELF's own section table, so st_shndx maps directly */
	ld->img->nsections = nscn;
	for (Elf_Scn *scn = elf_nextscn(ld->elf, NULL); scn; scn = elf_nextscn(ld->elf, scn)) {
		GElf_Shdr sh;
		size_t idx = elf_ndxscn(scn);
		if (!gelf_getshdr(scn, &sh) || idx >= nscn)
			return fail_elf(err, ld->name, "corrupt section header");
		const char *name = elf_strptr(ld->elf, shstrndx, sh.sh_name);
		rp_section *sec = &ld->img->sections[idx];
		if (pool_copy(ld->img, (const char **)&sec->name, name ? name : "", err))
			return err->code;
		sec->vma = sh.sh_addr;
		sec->size = sh.sh_size;
		sec->align = sh.sh_addralign;
		sec->file_offset = sh.sh_offset;
		sec->is_exec = (sh.sh_flags & SHF_EXECINSTR) != 0;
		sec->is_alloc = (sh.sh_flags & SHF_ALLOC) != 0;
		sec->is_nobits = sh.sh_type == SHT_NOBITS;
		/* every section with file contents is read later (hash, code): bound it here */
		if (!sec->is_nobits && (sh.sh_size || sh.sh_type != SHT_NULL) &&
		    (sh.sh_offset > ld->img->nbytes || sh.sh_size > ld->img->nbytes - sh.sh_offset))
			return rp_err_set(err, RP_EINPUT, "%s: section '%s' at offset 0x%llx runs past the end of the file",
					  ld->name, sec->name, (unsigned long long)sh.sh_offset);
		sec->lma = section_lma(ld->img, sec);
	}
	return 0;
}

static int add_func(loader *ld, const GElf_Sym *sym, const char *name, const char *file, rp_err *err)
{
	rp_image *img = ld->img;
	if (rp_grow((void **)&img->funcs, &ld->funcs_cap, img->nfuncs + 1, sizeof(rp_func), err))
		return err->code;
	rp_func *f = &img->funcs[img->nfuncs];
	memset(f, 0, sizeof(*f));
	f->is_local = GELF_ST_BIND(sym->st_info) == STB_LOCAL;
	f->is_thumb = img->machine == EM_ARM && (sym->st_value & 1);
	f->addr = img->machine == EM_ARM ? (sym->st_value & ~(GElf_Addr)1) : sym->st_value;
	f->size = sym->st_size;
	f->section = sym->st_shndx < img->nsections ? sym->st_shndx : SIZE_MAX;
	/* a size past the function's section (0xfffffff0 in a hostile ELF) would make every later
	 * read of its code fail quietly, and the call graph come out empty */
	const rp_section *sec = f->section != SIZE_MAX ? &img->sections[f->section] : NULL;
	if (sec && sec->is_alloc && (f->addr < sec->vma || f->addr - sec->vma > sec->size ||
				     f->size > sec->size - (f->addr - sec->vma))) {
		char shown[96];
		return rp_err_set(err, RP_EINPUT, "%s: function '%s' (0x%llx, %llu bytes) does not fit its section '%s' (0x%llx, %llu bytes)",
				  ld->name, rp_escape_name(name, shown, sizeof(shown)), (unsigned long long)f->addr,
				  (unsigned long long)f->size, sec->name, (unsigned long long)sec->vma,
				  (unsigned long long)sec->size);
	}
	if (f->is_local && file && file != ld->file_seen) {
		if (pool_copy(ld->img, &ld->file_copy, file, err))
			return err->code;
		ld->file_seen = file;
	}
	if (pool_copy(ld->img, (const char **)&f->name, name, err))
		return err->code;
	f->file = f->is_local && file ? (char *)ld->file_copy : NULL;
	img->nfuncs++;
	return 0;
}

static int load_symtab(loader *ld, Elf_Scn *scn, const GElf_Shdr *sh, rp_err *err)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data || sh->sh_entsize == 0)
		return fail_elf(err, ld->name, "corrupt symbol table");
	size_t nsyms = sh->sh_size / sh->sh_entsize;
	const char *file = NULL;
	for (size_t i = 1; i < nsyms; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			return fail_elf(err, ld->name, "corrupt symbol");
		const char *name = elf_strptr(ld->elf, sh->sh_link, sym.st_name);
		if (!name)
			return rp_err_set(err, RP_EINPUT, "%s: symbol %zu has a bad name offset", ld->name, i);
		int type = GELF_ST_TYPE(sym.st_info);
		if (type == STT_FILE) {
			file = name;
			continue;
		}
		if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE || !*name)
			continue;
		int untyped = type == STT_NOTYPE && GELF_ST_BIND(sym.st_info) != STB_LOCAL && name[0] != '$' &&
			      sym.st_shndx < ld->img->nsections && ld->img->sections[sym.st_shndx].is_exec;
		if (untyped) {   /* a linker-script symbol may lie anywhere (_estack): only code counts */
			const rp_section *sec = &ld->img->sections[sym.st_shndx];
			uint64_t a = ld->img->machine == EM_ARM ? (sym.st_value & ~(GElf_Addr)1) : sym.st_value;
			untyped = a >= sec->vma && a - sec->vma < sec->size;
		}
		if (type != STT_FUNC && !untyped)
			continue;
		if (add_func(ld, &sym, name, file, err))
			return err->code;
		ld->img->funcs[ld->img->nfuncs - 1].untyped = untyped;
	}
	return 0;
}

/* An untyped global is an entry point only where no typed function is: inside one (or at its
 * start) it is a label, at or past its section's end a linker-script marker (_etext,
 * __ramtext_end). Those are dropped; funcs are sorted by address. */
static void drop_untyped_labels(rp_image *img)
{
	size_t keep = 0;
	uint64_t covered = 0;   /* the end of the typed functions seen so far */
	for (size_t i = 0, j; i < img->nfuncs; i = j) {
		uint64_t a = img->funcs[i].addr, group_end = covered;
		int typed_here = 0;
		for (j = i; j < img->nfuncs && img->funcs[j].addr == a; j++)
			if (!img->funcs[j].untyped) {
				typed_here = 1;
				if (img->funcs[j].size <= UINT64_MAX - a && a + img->funcs[j].size > group_end)
					group_end = a + img->funcs[j].size;
			}
		for (size_t k = i; k < j; k++) {
			rp_func f = img->funcs[k];
			const rp_section *sec = f.section < img->nsections ? &img->sections[f.section] : NULL;
			if (f.untyped && (typed_here || a < covered || !sec || a - sec->vma >= sec->size))
				continue;   /* its strings stay in the image's pool */
			img->funcs[keep++] = f;
		}
		covered = group_end;
	}
	img->nfuncs = keep;
}

static int load_symbols(loader *ld, rp_err *err)
{
	Elf_Scn *dynsym = NULL;
	GElf_Shdr dynsh;
	for (Elf_Scn *scn = elf_nextscn(ld->elf, NULL); scn; scn = elf_nextscn(ld->elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			return fail_elf(err, ld->name, "corrupt section header");
		if (sh.sh_type == SHT_SYMTAB)
			return load_symtab(ld, scn, &sh, err);
		if (sh.sh_type == SHT_DYNSYM) {
			dynsym = scn;
			dynsh = sh;
		}
	}
	if (dynsym)
		return load_symtab(ld, dynsym, &dynsh, err);
	return 0;
}

static int hexify(char *out, size_t outsize, const unsigned char *bytes, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	if (n * 2 + 1 > outsize)
		n = (outsize - 1) / 2;
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[bytes[i] >> 4];
		out[2 * i + 1] = digits[bytes[i] & 15];
	}
	out[2 * n] = '\0';
	return 0;
}

static int find_build_id(loader *ld)
{
	for (Elf_Scn *scn = elf_nextscn(ld->elf, NULL); scn; scn = elf_nextscn(ld->elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;
		while (data && off < data->d_size &&
		       (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && nh.n_descsz > 0 &&
			    memcmp((char *)data->d_buf + name_off, "GNU", 4) == 0) {
				hexify(ld->img->build_id, sizeof(ld->img->build_id),
				       (unsigned char *)data->d_buf + desc_off, nh.n_descsz);
				return 1;
			}
		}
	}
	return 0;
}

/* Without a build-id, two FNV-1a streams over the loadable contents and the section layout
 * stand in: any change to code, data or addresses changes it. */
static void content_hash(rp_image *img)
{
	uint64_t h1 = 0xcbf29ce484222325ull, h2 = 0x84222325cbf29ce4ull;
	for (size_t i = 0; i < img->nsections; i++) {
		const rp_section *s = &img->sections[i];
		if (!s->is_alloc)
			continue;
		uint64_t head[2] = { s->vma, s->size };
		const unsigned char *p = (const unsigned char *)head;
		for (size_t k = 0; k < sizeof(head); k++) {
			h1 = (h1 ^ p[k]) * 0x100000001b3ull;
			h2 = (h2 ^ p[k]) * 0x100000001b3ull + 1;
		}
		/* a corrupt header may point past the end of the file: hash only what is there */
		if (s->is_nobits || s->file_offset > img->nbytes || s->size > img->nbytes - s->file_offset)
			continue;
		for (uint64_t k = 0; k < s->size; k++) {
			unsigned char b = img->bytes[s->file_offset + k];
			h1 = (h1 ^ b) * 0x100000001b3ull;
			h2 = (h2 ^ b) * 0x100000001b3ull + 1;
		}
	}
	unsigned char raw[16];
	for (int k = 0; k < 8; k++) {
		raw[k] = (unsigned char)(h1 >> (56 - 8 * k));
		raw[8 + k] = (unsigned char)(h2 >> (56 - 8 * k));
	}
	hexify(img->build_id, sizeof(img->build_id), raw, sizeof(raw));
	img->build_id_is_hash = 1;
}

static uint64_t func_key_addr(const void *a)
{
	return ((const rp_func *)a)->addr;
}

static int func_cmp_addr(const void *a, const void *b)
{
	const rp_func *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->is_local != y->is_local)
		return x->is_local - y->is_local;  /* globals first at a shared address */
	return strcmp(x->name, y->name);
}

/* Lookups by name come from every stage (samples, arcs, clones, keep lists): one sorted index
 * makes each O(log n) rather than a scan of every function. */
static int index_names(rp_image *img, rp_err *err)
{
	if (!(img->by_name = calloc(1, sizeof(*img->by_name))))
		return rp_err_nomem(err, "indexing the functions' names");
	if (rp_name_index_init(img->by_name, img->nfuncs, err))
		return err->code;
	for (size_t i = 0; i < img->nfuncs; i++)
		img->by_name->e[i] = (rp_name_entry){ img->funcs[i].name, img->funcs[i].file, i, 0 };
	rp_name_index_sort(img->by_name);
	return 0;
}

static int load_all(loader *ld, rp_err *err)
{
	int rc;
	if ((rc = load_header(ld, err)) || (rc = load_segments(ld, err)) ||
	    (rc = load_sections(ld, err)) || (rc = rp_image_arch_check(ld->img, ld->e_flags, err)) ||
	    (rc = load_symbols(ld, err)))
		return rc;
	rp_sort_keyed(ld->img->funcs, ld->img->nfuncs, sizeof(rp_func), func_key_addr, func_cmp_addr);
	drop_untyped_labels(ld->img);
	ld->img->riscv_rvc = ld->img->machine == EM_RISCV && (ld->e_flags & 1);
	if (ld->img->nfuncs == 0)
		return fail(err, ld->name, "no function symbols (stripped? build with symbols, e.g. -g or without -s)");
	if (!find_build_id(ld))
		content_hash(ld->img);
	if ((rc = index_names(ld->img, err)))
		return rc;
	rp_image_arch_init(ld->img);
	/* an untyped label carries no Thumb bit; on an M-profile core (Thumb only) it is Thumb code */
	for (size_t i = 0; ld->img->machine == EM_ARM && ld->img->arm_profile == 'M' && i < ld->img->nfuncs; i++)
		if (ld->img->funcs[i].untyped)
			ld->img->funcs[i].is_thumb = 1;
	return 0;
}

/* Loads the ELF in bytes[0..len), which the image takes (freed with it, also on failure). */
static int load_owned(rp_image **out, unsigned char *bytes, size_t len, const char *name, rp_err *err)
{
	*out = NULL;
	if (len == 0) {
		free(bytes);
		return fail(err, name, "empty file, not an ELF file");
	}
	rp_image *img = calloc(1, sizeof(*img));
	if (!img || rp_strdup(&img->path, name, err)) {
		free(bytes);
		rp_image_free(img);
		return rp_err_nomem(err, "loading an ELF");
	}
	img->bytes = bytes;
	img->nbytes = len;
	elf_version(EV_CURRENT);
	loader ld = { img, elf_memory((char *)img->bytes, len), name, 0, 0, NULL, NULL };
	int rc = ld.elf ? load_all(&ld, err) : fail_elf(err, name, "cannot read ELF");
	if (ld.elf)
		elf_end(ld.elf);
	if (rc) {
		rp_image_free(img);
		return rc;
	}
	*out = img;
	return 0;
}

int rp_image_load_mem(rp_image **out, const void *buf, size_t len, const char *name, rp_err *err)
{
	*out = NULL;
	unsigned char *copy = malloc(len ? len : 1);
	if (!copy)
		return rp_err_nomem(err, "loading an ELF");
	memcpy(copy, buf, len);
	return load_owned(out, copy, len, name, err);
}

int rp_image_load(rp_image **out, const char *path, rp_err *err)
{
	char *buf;
	size_t len;
	*out = NULL;
	int rc = rp_read_file(&buf, &len, path, err);
	if (rc)
		return rc;
	/* read once, not copied; the reader's buffer grew by doubling: trimmed to the file */
	char *fit = len ? realloc(buf, len) : NULL;
	return load_owned(out, (unsigned char *)(fit ? fit : buf), len, path, err);
}

void rp_image_free(rp_image *img)
{
	if (!img)
		return;
	rp_strpool_release(&img->strings);   /* every function's and section's name */
	free(img->funcs);
	if (img->by_name)
		rp_name_index_release(img->by_name);
	free(img->by_name);
	if (img->syms_cache)
		rp_elfsyms_release(img->syms_cache);
	free(img->syms_cache);
	free(img->sections);
	free(img->segments);
	free(img->bytes);
	free(img->path);
	free(img);
}
