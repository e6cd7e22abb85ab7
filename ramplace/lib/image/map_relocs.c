/* map_relocs.c: what the objects' relocations tell about the calls between input sections
 * (map.h), read while map_align.c has each object open: on RISC-V the jumps of fixed reach that
 * tie their two ends to one side of the move (rp_map_bind); on Arm the calls to the names a
 * caller asked about, functions known under several names at one address, each of which gets
 * a veneer of its own (rp_map_ref). Owns the binds and refs it adds to the map. Workload: every
 * relocation section of every object a map names, once; a symbol's name looked up in a hash
 * index only for a call or jump relocation. */
#include <elf.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "map_internal.h"
#include "ramplace/map.h"
#include "ramplace/util.h"

/* RISC-V relocations of a fixed reach (see rp_map_bind). */
static int fixed_reach(unsigned type)
{
	return type == 17 /* R_RISCV_JAL */ || type == 45 /* R_RISCV_RVC_JUMP */ ||
	       type == 16 /* R_RISCV_BRANCH */ || type == 44 /* R_RISCV_RVC_BRANCH */;
}

static int add_bind(rp_map *map, rp_mapi_caps *cap, size_t from, size_t to, const char *to_name, rp_err *err)
{
	for (size_t i = map->nbinds; i-- > 0 && map->binds[i].from == from;)   /* this object's, so far */
		if (map->binds[i].to == to && (to != SIZE_MAX || strcmp(map->binds[i].to_name, to_name) == 0))
			return 0;
	if (rp_grow((void **)&map->binds, &cap->binds, map->nbinds + 1, sizeof(rp_map_bind), err))
		return err->code;
	rp_map_bind *b = &map->binds[map->nbinds];
	b->from = from;
	b->to = to;
	b->to_name = NULL;
	if (to == SIZE_MAX && rp_strdup(&b->to_name, to_name, err))
		return err->code;
	map->nbinds++;
	return 0;
}

/* The map section that the object's section scn_index is, or SIZE_MAX (not kept by the link,
 * not in the map, or one of several of its name: map_match.c). */
static size_t map_section(const rp_mapi_match *match, size_t scn_index)
{
	return scn_index < match->nshdr ? match->insec_of[scn_index] : SIZE_MAX;
}

/* One relocation of an object, as the walk below hands it on. */
typedef struct reloc {
	size_t src;             /* the map section it applies to */
	size_t src_shndx;       /* that section's index in the object */
	GElf_Sym sym;
	const char *name;       /* the symbol's, NULL or "" when it has none */
} reloc;

typedef struct reloc_walk {
	rp_map *map;
	rp_mapi_caps *cap;
	const rp_mapi_match *match;  /* the object's sections matched to the map's */
	Elf *elf;
	size_t shstrndx;
} reloc_walk;

/* Every relocation (REL or RELA) of the object whose type `wanted_type` takes, from a section
 * the map kept, with its symbol, to `fn`. */
static int each_reloc(const reloc_walk *w, int (*wanted_type)(unsigned), int (*fn)(const reloc_walk *, const reloc *, rp_err *),
		      rp_err *err)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(w->elf, scn)) != NULL;) {
		GElf_Shdr rsh, symsh;
		if (!gelf_getshdr(scn, &rsh) || (rsh.sh_type != SHT_REL && rsh.sh_type != SHT_RELA) || !rsh.sh_entsize)
			continue;
		reloc r = { .src = map_section(w->match, rsh.sh_info), .src_shndx = rsh.sh_info };
		Elf_Scn *symscn = elf_getscn(w->elf, rsh.sh_link);
		Elf_Data *rdata = elf_getdata(scn, NULL), *sdata = symscn ? elf_getdata(symscn, NULL) : NULL;
		if (r.src == SIZE_MAX || !rdata || !sdata || !gelf_getshdr(symscn, &symsh))
			continue;
		for (size_t i = 0; i < rsh.sh_size / rsh.sh_entsize; i++) {
			GElf_Rel rel;
			GElf_Rela rela;
			if (rsh.sh_type == SHT_RELA ? !gelf_getrela(rdata, (int)i, &rela) : !gelf_getrel(rdata, (int)i, &rel))
				continue;
			GElf_Xword info = rsh.sh_type == SHT_RELA ? rela.r_info : rel.r_info;
			if (!wanted_type((unsigned)GELF_R_TYPE(info)) || !gelf_getsym(sdata, (int)GELF_R_SYM(info), &r.sym))
				continue;
			r.name = elf_strptr(w->elf, symsh.sh_link, r.sym.st_name);
			if (fn(w, &r, err))
				return err->code;
		}
	}
	return 0;
}

/* A RISC-V jump of fixed reach into another section of the object or to a symbol defined
 * elsewhere: a bind. */
static int bind_one(const reloc_walk *w, const reloc *r, rp_err *err)
{
	if (r->sym.st_shndx == SHN_UNDEF)
		return r->name && *r->name ? add_bind(w->map, w->cap, r->src, SIZE_MAX, r->name, err) : 0;
	if (r->sym.st_shndx >= SHN_LORESERVE || r->sym.st_shndx == r->src_shndx)
		return 0;
	size_t dst = map_section(w->match, r->sym.st_shndx);
	return dst != SIZE_MAX && dst != r->src ? add_bind(w->map, w->cap, r->src, dst, NULL, err) : 0;
}

/* Arm relocations of a call or a tail jump (see rp_map_ref). */
static int arm_call(unsigned type)
{
	return type == 10 /* R_ARM_THM_CALL */ || type == 30 /* R_ARM_THM_JUMP24 */ || type == 28 /* R_ARM_CALL */ ||
	       type == 29 /* R_ARM_JUMP24 */ || type == 51 /* R_ARM_THM_JUMP19 */;
}

/* The wanted name a call to name reaches as the link resolved it: an undefined reference under
 * --wrap goes to __wrap_NAME when the image has it, else to name itself; a defined symbol is
 * itself. NULL when neither is wanted. */
static const char *wanted(const rp_map *map, const char *name, int undefined)
{
	const rp_name_index *ix = map->ref_names;
	char wrapped[256];
	if (undefined && strlen(name) + 8 <= sizeof(wrapped)) {
		memcpy(wrapped, "__wrap_", 7);
		strcpy(wrapped + 7, name);
		const rp_name_entry *w = rp_name_index_find(ix, wrapped, NULL, 0);
		if (w)
			return w->name;
	}
	const rp_name_entry *e = rp_name_index_find(ix, name, NULL, 0);
	return e ? e->name : NULL;
}

static int add_ref(rp_map *map, rp_mapi_caps *cap, size_t from, const char *name, rp_err *err)
{
	for (size_t i = map->nrefs; i-- > 0 && map->refs[i].from == from;)   /* this section's, so far */
		if (strcmp(map->refs[i].name, name) == 0)
			return 0;
	if (rp_grow((void **)&map->refs, &cap->refs, map->nrefs + 1, sizeof(rp_map_ref), err))
		return err->code;
	rp_map_ref *r = &map->refs[map->nrefs];
	r->from = from;
	if (rp_strdup(&r->name, name, err))
		return err->code;
	map->nrefs++;
	return 0;
}

/* An Arm call to a global symbol that is wanted: a ref. */
static int ref_one(const reloc_walk *w, const reloc *r, rp_err *err)
{
	if (GELF_ST_BIND(r->sym.st_info) == STB_LOCAL || !r->name || !*r->name)
		return 0;
	const char *called = wanted(w->map, r->name, r->sym.st_shndx == SHN_UNDEF);
	return called ? add_ref(w->map, w->cap, r->src, called, err) : 0;
}

int rp_mapi_relocs_from_object(rp_map *map, rp_mapi_caps *cap, const rp_mapi_match *match, Elf *elf,
			       size_t shstrndx, rp_err *err)
{
	GElf_Ehdr eh;
	reloc_walk w = { map, cap, match, elf, shstrndx };
	if (!gelf_getehdr(elf, &eh))
		return 0;
	if (eh.e_machine == EM_RISCV)
		return each_reloc(&w, fixed_reach, bind_one, err);
	if (eh.e_machine == EM_ARM && map->ref_names && ((rp_name_index *)map->ref_names)->n)
		return each_reloc(&w, arm_call, ref_one, err);
	return 0;
}

int rp_map_want_refs(rp_map *map, const char *const *names, size_t n, rp_err *err)
{
	rp_name_index *ix = calloc(1, sizeof(*ix));
	if (!ix)
		return rp_err_nomem(err, "indexing the names of aliased functions");
	if (rp_name_index_init(ix, n, err)) {
		free(ix);
		return err->code;
	}
	for (size_t i = 0; i < n; i++)
		ix->e[i] = (rp_name_entry){ names[i], NULL, i, 0 };
	rp_name_index_sort(ix);
	if (map->ref_names)
		rp_name_index_release(map->ref_names);
	free(map->ref_names);
	map->ref_names = ix;
	return 0;
}

static int by_from(const void *a, const void *b)
{
	const rp_map_ref *x = a, *y = b;
	return x->from < y->from ? -1 : x->from > y->from;
}

void rp_mapi_sort_refs(rp_map *map)
{
	rp_sort(map->refs, map->nrefs, sizeof(rp_map_ref), by_from);
}

const rp_map_ref *rp_map_refs_of(const rp_map *map, size_t insec, size_t *n)
{
	size_t lo = map ? RP_COUNT_BELOW(map->refs, map->nrefs, from, insec) : 0;
	size_t end = lo;
	while (map && end < map->nrefs && map->refs[end].from == insec)
		end++;
	*n = end - lo;
	return *n ? &map->refs[lo] : NULL;
}
