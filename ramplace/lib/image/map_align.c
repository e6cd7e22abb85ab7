/* map_align.c: the alignment of every input section a link map names (map.h), which the map
 * itself does not print. It decides how many bytes a section takes when moved: a 2-aligned -Os
 * Thumb function packs tighter than the 4 bytes a guess would round it to. Owns, while it runs,
 * an index of the map's input sections by file and the libelf handle of one file at a time.
 * Workload: a map of up to a few hundred thousand input sections in a few thousand objects and
 * archives; each object or archive is opened once, and its section headers are matched to the
 * map's sections through a hash index of their names (linear in all). The same objects'
 * relocations are read by map_relocs.c while each is open. */
#include <elf.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "map_internal.h"
#include "ramplace/map.h"
#include "ramplace/util.h"

/* Input sections ordered by the object they come from: a hash of the archive or object, then
 * it and the member, then their place in the map. Objects, and an archive's members, are
 * neighbours (each file is opened once); the order between files does not matter. A radix sort
 * on the hash (rp_sort_keyed): a string sort of every section by (file, name) was a fifth of `place` with a
 * map of 50,000 functions in one object. */
typedef struct by_object_entry {
	uint64_t key;
	const char *container, *member, *file;
	size_t insec;
} by_object_entry;

static const char *container(const rp_map_insec *s)
{
	return s->archive ? s->archive : s->file;
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static uint64_t object_key_of(const void *a)
{
	return ((const by_object_entry *)a)->key;
}

static int by_object(const void *a, const void *b)
{
	const by_object_entry *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	int d = 0;
	if (x->file != y->file && !(d = cmp_str(x->container, y->container)))   /* neighbours share the string */
		d = cmp_str(x->member, y->member);
	return d ? d : x->insec < y->insec ? -1 : x->insec > y->insec;
}

static int same_object(const rp_map_insec *a, const rp_map_insec *b)
{
	return a->file == b->file || (cmp_str(container(a), container(b)) == 0 && cmp_str(a->member, b->member) == 0);
}

/* Sets align of the sections idx[from..to) (one object: same container and member) from the
 * section headers of elf each was matched to (map_match.c), as an object compiled with
 * -ffunction-sections holds thousands. Then its relocations. */
static int align_from_object(rp_map *map, rp_mapi_caps *cap, const size_t *idx, size_t from, size_t to, Elf *elf, rp_err *err)
{
	size_t shstrndx;
	if (elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	rp_mapi_match match;
	if (rp_mapi_match_object(map, idx, from, to, elf, shstrndx, &match, err))
		return err->code;
	for (size_t k = from; k < to && match.shndx_of; k++) {
		GElf_Shdr sh;
		Elf_Scn *scn = match.shndx_of[k - from] == SIZE_MAX ? NULL : elf_getscn(elf, match.shndx_of[k - from]);
		if (!scn || !gelf_getshdr(scn, &sh))
			continue;
		rp_map_insec *s = &map->insecs[idx[k]];
		/* hostile input: an alignment that is no power of two, or beyond a page, is left to
		 * inference rather than wrapping the sizes it rounds */
		rp_err ignored = RP_ERR_INIT;
		uint64_t a = sh.sh_addralign ? sh.sh_addralign : 1;
		if (!s->align && rp_check_align(a, s->name ? s->name : "", &ignored) == 0)
			s->align = a;
		if (!s->exec)
			s->exec = sh.sh_flags & SHF_EXECINSTR ? 1 : 2;
	}
	int rc = rp_mapi_relocs_from_object(map, cap, &match, elf, shstrndx, err);
	rp_mapi_match_release(&match);
	return rc;
}

/* The archive members named in idx[from..to) (all of one archive), each found in elf. */
static int align_from_archive(rp_map *map, rp_mapi_caps *cap, const size_t *idx, size_t from, size_t to, Elf *ar, rp_err *err)
{
	Elf *member;
	Elf_Cmd cmd = ELF_C_READ;
	int rc = 0;
	while (!rc && (member = elf_begin(-1, cmd, ar)) != NULL) {
		Elf_Arhdr *hdr = elf_getarhdr(member);
		for (size_t k = from; hdr && hdr->ar_name && k < to;) {
			size_t end = k;
			const char *m = map->insecs[idx[k]].member;
			while (end < to && cmp_str(map->insecs[idx[end]].member, m) == 0)
				end++;
			if (!rc && m && strcmp(m, hdr->ar_name) == 0)
				rc = align_from_object(map, cap, idx, k, end, member, err);
			k = end;
		}
		cmd = elf_next(member);
		elf_end(member);
	}
	return rc;
}

static int align_from_file(rp_map *map, rp_mapi_caps *cap, const size_t *idx, size_t from, size_t to, rp_err *err)
{
	int fd = rp_mapi_open_beside(container(&map->insecs[idx[from]]), map->path), rc = 0;
	if (fd < 0)
		return 0;
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_AR)
		rc = align_from_archive(map, cap, idx, from, to, elf, err);
	else if (elf)
		for (size_t k = from, end; !rc && k < to; k = end) {
			for (end = k + 1; end < to && same_object(&map->insecs[idx[end]], &map->insecs[idx[k]]); end++)
				;
			rc = align_from_object(map, cap, idx, k, end, elf, err);
		}
	elf_end(elf);
	close(fd);
	return rc;
}

/* The link's own evidence for section k (sorted by address): 2 when it starts 2 past a multiple
 * of 4, 4 when ld skipped 2 bytes to reach a multiple of 4 before it, else 0 (no evidence). */
static uint64_t align_seen(const rp_map *map, size_t k)
{
	const rp_map_insec *s = &map->insecs[k];
	if (s->addr % 4)
		return s->addr % 2 ? 1 : 2;
	if (k == 0)
		return 0;
	uint64_t end = map->insecs[k - 1].addr + map->insecs[k - 1].size;
	return end % 4 == 2 && s->addr == end + 2 ? 4 : 0;
}

/* For sections no object told about: the link's evidence, else the smallest alignment another
 * section of the same object shows (a compiler aligns an object's functions alike), else the
 * default. idx is sorted by file, so an object's sections are neighbours in it. */
static void infer_alignments(rp_map *map, const size_t *idx, uint64_t default_align)
{
	size_t n = map->ninsecs;
	for (size_t k = 0; k < n; k++) {
		rp_map_insec *s = &map->insecs[k];
		if (!s->align && (s->align = align_seen(map, k)) != 0)
			s->align_inferred = 1;
	}
	for (size_t from = 0, to; from < n; from = to) {
		const rp_map_insec *first = &map->insecs[idx[from]];
		uint64_t shown = 0;
		/* only code sections speak for code: a .rodata.str1.1 shows 1 */
		for (to = from; to < n && same_object(&map->insecs[idx[to]], first); to++) {
			const rp_map_insec *s = &map->insecs[idx[to]];
			if (s->align && strncmp(s->name, ".text", 5) == 0 && (!shown || s->align < shown))
				shown = s->align;
		}
		for (size_t k = from; k < to; k++) {
			rp_map_insec *s = &map->insecs[idx[k]];
			if (!s->align) {
				s->align = shown ? shown : default_align;
				s->align_inferred = 1;
			}
		}
	}
}

int rp_map_read_alignments(rp_map *map, uint64_t default_align, rp_err *err)
{
	size_t n = map->ninsecs;
	size_t *idx = malloc((n ? n : 1) * sizeof(size_t));
	by_object_entry *order = malloc((n ? n : 1) * sizeof(by_object_entry));
	if (!idx || !order) {
		free(idx);
		free(order);
		return rp_err_nomem(err, "reading input-section alignments");
	}
	for (size_t k = 0; k < n; k++) {
		const rp_map_insec *s = &map->insecs[k];
		uint64_t key = k && s->file == map->insecs[k - 1].file ? order[k - 1].key
			       : rp_str_hash(container(s));
		order[k] = (by_object_entry){ key, container(s), s->member, s->file, k };
	}
	rp_sort_keyed(order, n, sizeof(by_object_entry), object_key_of, by_object);
	for (size_t k = 0; k < n; k++)
		idx[k] = order[k].insec;
	free(order);
	elf_version(EV_CURRENT);
	rp_mapi_caps cap = { 0, 0 };
	int rc = 0;
	for (size_t from = 0, to; !rc && from < n; from = to) {
		const char *file = container(&map->insecs[idx[from]]);
		for (to = from + 1; to < n && cmp_str(container(&map->insecs[idx[to]]), file) == 0; to++)
			;
		rc = align_from_file(map, &cap, idx, from, to, err);
	}
	if (!rc)
		infer_alignments(map, idx, default_align);
	if (!rc)
		rp_mapi_sort_refs(map);
	free(idx);
	return rc;
}
