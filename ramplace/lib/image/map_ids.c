/* map_ids.c: GNU ld's id of every input section the map keeps (rp_map_insec.bfd_id), and the
 * local function each starts with (entry_sym). ld builds an output section's veneers in the
 * order of its stub hash table, whose keys begin with the id of the stub group's last section
 * (elf32-arm.c: "%08x_%s+%x_%d"); to know which slot of a stub block each veneer takes, and so
 * which cache line, the layout model needs those ids (layout_price.c, lay_veneers).
 * BFD numbers sections with one counter as it opens files (section.c: _bfd_section_id, from
 * 0x10); a failed match of a format gives its numbers back (format.c), so an object takes one
 * per section BFD makes of it: every header but the symbol table, its string table, the section
 * names and the relocations of a section. What ld makes besides, measured against ld 2.40's
 * stub order on the FreeRTOS demo's relinks (every block of two or more veneers, 171 of 171):
 * the ARM emulation's four glue sections before any input (.glue_7, .glue_7t, .vfp11_veneer,
 * .v4_bx), and one ".text" after each input for the LTO plugin's dummy (ld/plugin.c), which gcc
 * always hands ld. Each LOAD of an archive opens it anew and checks its first member as an
 * object (ld/ldfile.c), which numbers that member's sections there; pulled later, it adds only
 * its dummy. A link by ld itself, without the plugin, numbers otherwise (as does a host whose
 * unsigned long has 32 bits, or --hash-size): the veneers then take another order within their
 * blocks, which only shifts which line each falls in.
 * Owns nothing past the call: an index of the sections by file, one libelf handle at a time.
 * Workload: the inputs of one link (a few thousand objects and archive members), each read once;
 * an archive is scanned once per member pulled from it. */
#include <elf.h>
#include <stdint.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "map_internal.h"
#include "ramplace/map.h"
#include "ramplace/util.h"

/* _bfd_section_id's start (0x10) plus the four glue sections armelf.em makes first. */
#define FIRST_INPUT_ID (0x10u + 4u)

static int by_file(const void *a, const void *b, void *ctx)
{
	const rp_map *map = ctx;
	const rp_map_insec *x = &map->insecs[*(const size_t *)a], *y = &map->insecs[*(const size_t *)b];
	int c = strcmp(x->file ? x->file : "", y->file ? y->file : "");
	return c ? c : (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

/* [*from, returned): the sections of file in idx (sorted by file). */
static size_t sections_of(const rp_map *map, const size_t *idx, size_t n, const char *file, size_t *from)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *f = map->insecs[idx[mid]].file;
		if (strcmp(f ? f : "", file) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*from = lo;
	while (hi < n && map->insecs[idx[hi]].file && strcmp(map->insecs[idx[hi]].file, file) == 0)
		hi++;
	return hi;
}

/* Whether BFD makes a section of header i (elf.c, bfd_section_from_shdr, for an object). */
static int makes_section(Elf *elf, size_t i, const GElf_Shdr *sh, size_t shstrndx, size_t symtab, size_t symstr,
			 size_t shnum)
{
	if (sh->sh_type == SHT_NULL || sh->sh_type == SHT_SYMTAB || sh->sh_type == SHT_SYMTAB_SHNDX)
		return 0;
	if (sh->sh_type == SHT_STRTAB)
		return i != shstrndx && i != symstr;
	if (sh->sh_type == SHT_REL || sh->sh_type == SHT_RELA) {   /* a section's relocations */
		GElf_Shdr target;
		Elf_Scn *t = sh->sh_info && sh->sh_info < shnum ? elf_getscn(elf, sh->sh_info) : NULL;
		return !(sh->sh_link == symtab && symtab && t && gelf_getshdr(t, &target) &&
			 target.sh_type != SHT_REL && target.sh_type != SHT_RELA);
	}
	return 1;
}

/* The symbol table's header index and its strings' (0 when none). */
static void find_symtab(Elf *elf, size_t *symtab, size_t *symstr)
{
	*symtab = *symstr = 0;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn)) != NULL;) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) {
			*symtab = elf_ndxscn(scn);
			*symstr = sh.sh_link;
			return;
		}
	}
}

/* entry_sym of the map's sections of elf: a local function at offset 0 (Thumb's bit 0 aside).
 * k_of_hdr[i] is the position in idx of the map's section that header i numbered, SIZE_MAX for
 * none (each header numbers at most one). */
static void entry_symbols(rp_map *map, const size_t *idx, const size_t *k_of_hdr, size_t shnum, Elf *elf,
			  size_t symtab)
{
	Elf_Scn *scn = symtab ? elf_getscn(elf, symtab) : NULL;
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	GElf_Shdr sh;
	if (!data || !gelf_getshdr(scn, &sh) || sh.sh_entsize == 0)
		return;
	size_t nsyms = data->d_size / sh.sh_entsize;
	for (size_t s = 1; s < nsyms; s++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)s, &sym) || GELF_ST_BIND(sym.st_info) != STB_LOCAL ||
		    GELF_ST_TYPE(sym.st_info) != STT_FUNC || (sym.st_value & ~(GElf_Addr)1) != 0 ||
		    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE || sym.st_shndx >= shnum ||
		    k_of_hdr[sym.st_shndx] == SIZE_MAX)
			continue;
		rp_map_insec *insec = &map->insecs[idx[k_of_hdr[sym.st_shndx]]];
		if (!insec->entry_sym)
			insec->entry_sym = (uint32_t)s;
	}
}

/* The map's sections of one object, ordered by (name, size, position) so that the first one
 * not yet numbered of a given name and size is found by a binary search and a cursor: a
 * one-step, unity or LTO build puts every function of a firmware in one object, and a scan per
 * header was quadratic in them (57 % of place's time at 50,000 functions). */
typedef struct same_key {
	const rp_map *map;
	const size_t *idx;
	size_t *ord;     /* positions k in idx, sorted by (name, size, k) */
	size_t *taken;   /* per run start in ord: how many of that run are numbered */
	size_t n;
} same_key;

static int by_name_size(const void *a, const void *b, void *ctx)
{
	const same_key *sk = ctx;
	size_t ka = *(const size_t *)a, kb = *(const size_t *)b;
	const rp_map_insec *x = &sk->map->insecs[sk->idx[ka]], *y = &sk->map->insecs[sk->idx[kb]];
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return (ka > kb) - (ka < kb);
}

/* Position in ord of the first entry named name of size size (n when none). */
static size_t key_lower_bound(const same_key *sk, const char *name, uint64_t size)
{
	size_t lo = 0, hi = sk->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const rp_map_insec *s = &sk->map->insecs[sk->idx[sk->ord[mid]]];
		int c = strcmp(s->name, name);
		if (c < 0 || (c == 0 && s->size < size))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The position k of the first section not yet numbered named name of size size, marked
 * numbered; SIZE_MAX when none is left. */
static size_t take_same_key(same_key *sk, const char *name, uint64_t size)
{
	size_t run = key_lower_bound(sk, name, size), at = run + sk->taken[run];
	if (at >= sk->n)
		return SIZE_MAX;
	const rp_map_insec *s = &sk->map->insecs[sk->idx[sk->ord[at]]];
	if (s->size != size || strcmp(s->name, name) != 0)
		return SIZE_MAX;
	sk->taken[run]++;
	return sk->ord[at];
}

static int same_key_init(same_key *sk, const rp_map *map, const size_t *idx, size_t from, size_t to, rp_err *err)
{
	*sk = (same_key){ .map = map, .idx = idx, .n = to - from };
	sk->ord = malloc((sk->n ? sk->n : 1) * sizeof(size_t));
	sk->taken = calloc(sk->n + 1, sizeof(size_t));
	if (!sk->ord || !sk->taken) {
		free(sk->ord);
		free(sk->taken);
		return rp_err_nomem(err, "numbering input sections");
	}
	for (size_t i = 0; i < sk->n; i++)
		sk->ord[i] = from + i;
	rp_sort_r(sk->ord, sk->n, sizeof(size_t), by_name_size, sk);
	return 0;
}

static void same_key_release(same_key *sk)
{
	free(sk->ord);
	free(sk->taken);
}

/* Numbers one object's sections from *next (then the plugin's dummy when dummy); the map's
 * sections of it (idx[from..to)) without an id yet take the id of the header with their name
 * and size. *lost when elf is no ELF object or the count would wrap. */
static int ids_of_object(rp_map *map, const size_t *idx, size_t from, size_t to, Elf *elf, int dummy, uint32_t *next,
			 int *lost, rp_err *err)
{
	size_t shstrndx, shnum, symtab, symstr;
	if (elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx) || elf_getshdrnum(elf, &shnum) ||
	    shnum >= UINT32_MAX - *next - 1) {
		*lost = 1;
		return 0;
	}
	find_symtab(elf, &symtab, &symstr);
	same_key sk;
	size_t *k_of_hdr = malloc((shnum ? shnum : 1) * sizeof(size_t));
	if (!k_of_hdr)
		return rp_err_nomem(err, "numbering input sections");
	int rc = same_key_init(&sk, map, idx, from, to, err);
	if (rc) {
		free(k_of_hdr);
		return rc;
	}
	uint32_t made = 0;
	for (size_t i = 0; i < shnum; i++) {
		k_of_hdr[i] = SIZE_MAX;
		Elf_Scn *scn = i ? elf_getscn(elf, i) : NULL;
		GElf_Shdr sh;
		const char *name;
		if (!scn || !gelf_getshdr(scn, &sh) || !makes_section(elf, i, &sh, shstrndx, symtab, symstr, shnum))
			continue;
		uint32_t id = *next + made++;
		if (!(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		size_t k = take_same_key(&sk, name, sh.sh_size);
		if (k == SIZE_MAX)
			continue;
		rp_map_insec *s = &map->insecs[idx[k]];
		s->bfd_id = s->bfd_id ? s->bfd_id : id;   /* an archive's first member: its first LOAD
							     numbered it */
		k_of_hdr[i] = k;
	}
	entry_symbols(map, idx, k_of_hdr, shnum, elf, symtab);
	same_key_release(&sk);
	free(k_of_hdr);
	*next += made + (dummy ? 1 : 0);   /* the LTO plugin's dummy input */
	return 0;
}

/* The member of archive ar named member (NULL: the first), or NULL. libelf also returns the
 * symbol table ("/") and the long names ("//"), which BFD does not count as members. */
static Elf *find_member(Elf *ar, const char *member)
{
	Elf_Cmd cmd = ELF_C_READ;
	Elf *m;
	while ((m = elf_begin(-1, cmd, ar)) != NULL) {
		Elf_Arhdr *hdr = elf_getarhdr(m);
		const char *name = hdr && hdr->ar_name ? hdr->ar_name : "/";
		if (member ? strcmp(name, member) == 0
			   : !(strcmp(name, "/") == 0 || strcmp(name, "//") == 0 || strcmp(name, "/SYM64/") == 0))
			return m;
		cmd = elf_next(m);
		elf_end(m);
	}
	return NULL;
}

/* What the ids of the inputs read so far leave: the next id, and each archive's first member
 * (numbered at its LOAD). */
typedef struct numbering {
	uint32_t next;
	int lost;                  /* an input could not be read: the ids after it stay unknown */
	struct first_member {
		char *archive, *member;
	} *firsts;
	size_t nfirsts, cap;
} numbering;

static const char *first_member_of(const numbering *nb, const char *archive)
{
	for (size_t i = 0; i < nb->nfirsts; i++)
		if (strcmp(nb->firsts[i].archive, archive) == 0)
			return nb->firsts[i].member;
	return NULL;
}

/* An archive's LOAD: its first member checked as an object, numbered without a dummy. */
static int ids_of_archive_load(rp_map *map, const size_t *idx, size_t n, const char *path, Elf *ar, numbering *nb,
			       rp_err *err)
{
	Elf *first = find_member(ar, NULL);
	Elf_Arhdr *hdr = first ? elf_getarhdr(first) : NULL;
	int rc = 0;
	if (hdr && hdr->ar_name && !first_member_of(nb, path)) {
		if (rp_grow((void **)&nb->firsts, &nb->cap, nb->nfirsts + 1, sizeof(*nb->firsts), err)) {
			elf_end(first);
			return err->code;
		}
		struct first_member *f = &nb->firsts[nb->nfirsts];
		if (rp_strdup(&f->archive, path, err) || rp_strdup(&f->member, hdr->ar_name, err)) {
			free(f->archive);
			elf_end(first);
			return err->code;
		}
		nb->nfirsts++;
	}
	if (hdr && hdr->ar_name && elf_kind(first) == ELF_K_ELF) {
		char name[4096];
		if ((size_t)snprintf(name, sizeof(name), "%s(%s)", path, hdr->ar_name) < sizeof(name)) {
			size_t from, to = sections_of(map, idx, n, name, &from);
			rc = ids_of_object(map, idx, from, to, first, 0, &nb->next, &nb->lost, err);
		} else {
			nb->lost = 1;
		}
	}
	elf_end(first);
	return rc;
}

/* One input: an object, an archive's LOAD, or "lib.a(member.o)". */
static int ids_of_input(rp_map *map, const size_t *idx, size_t n, const char *input, numbering *nb, rp_err *err)
{
	size_t from, to = sections_of(map, idx, n, input, &from), alen = strlen(input);
	const char *open_paren = alen && input[alen - 1] == ')' ? strrchr(input, '(') : NULL;
	char path[4096], member[1024];
	size_t plen = open_paren ? (size_t)(open_paren - input) : alen, mlen = open_paren ? alen - plen - 2 : 0;
	if (plen >= sizeof(path) || mlen >= sizeof(member)) {
		nb->lost = 1;
		return 0;
	}
	memcpy(path, input, plen);
	path[plen] = '\0';
	memcpy(member, open_paren ? open_paren + 1 : "", mlen);
	member[mlen] = '\0';
	const char *first = open_paren ? first_member_of(nb, path) : NULL;
	if (first && strcmp(first, member) == 0) {   /* numbered at its archive's LOAD */
		nb->next++;
		return 0;
	}
	int fd = rp_mapi_open_beside(path, map->path), rc = 0;
	if (fd < 0) {
		nb->lost = 1;
		return 0;
	}
	Elf *file = elf_begin(fd, ELF_C_READ, NULL), *elf = NULL;
	if (file && elf_kind(file) == ELF_K_AR && !open_paren)
		rc = ids_of_archive_load(map, idx, n, path, file, nb, err);
	else if (file && elf_kind(file) == ELF_K_AR)
		elf = find_member(file, member);
	else if (!open_paren)
		elf = file;
	if (elf)
		rc = ids_of_object(map, idx, from, to, elf, 1, &nb->next, &nb->lost, err);
	else if (!(file && elf_kind(file) == ELF_K_AR && !open_paren))
		nb->lost = 1;
	if (elf && elf != file)
		elf_end(elf);
	elf_end(file);
	close(fd);
	return rc;
}

int rp_map_read_ids(rp_map *map, rp_err *err)
{
	size_t n = map->ninsecs;
	if (map->ids_read || !map->ninputs)
		return 0;
	map->ids_read = 1;
	size_t *idx = malloc((n ? n : 1) * sizeof(size_t));
	if (!idx)
		return rp_err_nomem(err, "numbering input sections");
	for (size_t k = 0; k < n; k++)
		idx[k] = k;
	if (n > 1)
		rp_sort_r(idx, n, sizeof(size_t), by_file, map);
	elf_version(EV_CURRENT);
	numbering nb = { .next = FIRST_INPUT_ID };
	int rc = 0;
	for (size_t i = 0; !rc && !nb.lost && i < map->ninputs; i++)
		rc = ids_of_input(map, idx, n, map->inputs[i], &nb, err);
	for (size_t i = 0; i < nb.nfirsts; i++) {
		free(nb.firsts[i].archive);
		free(nb.firsts[i].member);
	}
	free(nb.firsts);
	free(idx);
	return rc;
}
