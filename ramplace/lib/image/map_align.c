/* map_align.c: the alignment of every input section a link map names (map.h), which the map
 * itself does not print. It decides how many bytes a section takes when moved: a 2-aligned -Os
 * Thumb function packs tighter than the 4 bytes a guess would round it to. Owns, while it runs,
 * an index of the map's input sections by file and the libelf handle of one file at a time.
 * Workload: a map of up to a few hundred thousand input sections in a few thousand objects and
 * archives; each object or archive is opened once, and its section headers are matched to the
 * map's sections by binary search (O(n log n) in all). */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ramplace/map.h"
#include "ramplace/util.h"

typedef struct index_ctx {
	const rp_map *map;
} index_ctx;

/* Input sections ordered by the file they come from (archive or object), then member, then name. */
static const char *container(const rp_map_insec *s)
{
	return s->archive ? s->archive : s->file;
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int by_file(const void *a, const void *b, void *ctx)
{
	const rp_map_insec *x = &((const index_ctx *)ctx)->map->insecs[*(const size_t *)a];
	const rp_map_insec *y = &((const index_ctx *)ctx)->map->insecs[*(const size_t *)b];
	int d = cmp_str(container(x), container(y));
	if (!d)
		d = cmp_str(x->member, y->member);
	return d ? d : cmp_str(x->name, y->name);
}

static int same_object(const rp_map_insec *a, const rp_map_insec *b)
{
	return cmp_str(container(a), container(b)) == 0 && cmp_str(a->member, b->member) == 0;
}

/* Opens a regular file (a FIFO named in a map must not block) or returns -1. */
static int open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Opens path as given, else relative to the map's directory. */
static int open_beside(const char *path, const char *map_path)
{
	int fd = open_regular(path);
	if (fd >= 0 || path[0] == '/')
		return fd;
	const char *slash = strrchr(map_path, '/');
	if (!slash)
		return -1;
	char joined[4096];
	if ((size_t)snprintf(joined, sizeof(joined), "%.*s/%s", (int)(slash - map_path), map_path, path) >= sizeof(joined))
		return -1;
	return open_regular(joined);
}

/* The first of idx[from..to) (sorted by name within one object) named name, or to. */
static size_t first_named(const rp_map *map, const size_t *idx, size_t from, size_t to, const char *name)
{
	while (from < to) {
		size_t mid = from + (to - from) / 2;
		if (cmp_str(map->insecs[idx[mid]].name, name) < 0)
			from = mid + 1;
		else
			to = mid;
	}
	return from;
}

/* Sets align of the sections idx[from..to) (one object: same container and member, sorted by
 * name) from the section headers of elf; each header finds its map sections by binary search,
 * as an object compiled with -ffunction-sections holds thousands. */
static void align_from_object(rp_map *map, const size_t *idx, size_t from, size_t to, Elf *elf)
{
	size_t shstrndx;
	if (elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn)) != NULL;) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		for (size_t k = first_named(map, idx, from, to, name); k < to; k++) {
			rp_map_insec *s = &map->insecs[idx[k]];
			if (cmp_str(s->name, name) != 0)
				break;
			/* hostile input: an alignment that is no power of two, or beyond a page, is
			 * left to inference rather than wrapping the sizes it rounds */
			rp_err ignored = RP_ERR_INIT;
			uint64_t a = sh.sh_addralign ? sh.sh_addralign : 1;
			if (!s->align && rp_check_align(a, name, &ignored) == 0)
				s->align = a;
		}
	}
}

/* The archive members named in idx[from..to) (all of one archive), each found in elf. */
static void align_from_archive(rp_map *map, const size_t *idx, size_t from, size_t to, Elf *ar)
{
	Elf *member;
	Elf_Cmd cmd = ELF_C_READ;
	while ((member = elf_begin(-1, cmd, ar)) != NULL) {
		Elf_Arhdr *hdr = elf_getarhdr(member);
		for (size_t k = from; hdr && hdr->ar_name && k < to;) {
			size_t end = k;
			const char *m = map->insecs[idx[k]].member;
			while (end < to && cmp_str(map->insecs[idx[end]].member, m) == 0)
				end++;
			if (m && strcmp(m, hdr->ar_name) == 0)
				align_from_object(map, idx, k, end, member);
			k = end;
		}
		cmd = elf_next(member);
		elf_end(member);
	}
}

static void align_from_file(rp_map *map, const size_t *idx, size_t from, size_t to)
{
	int fd = open_beside(container(&map->insecs[idx[from]]), map->path);
	if (fd < 0)
		return;
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_AR)
		align_from_archive(map, idx, from, to, elf);
	else if (elf)
		for (size_t k = from, end; k < to; k = end) {   /* sorted by name within a member */
			for (end = k + 1; end < to && same_object(&map->insecs[idx[end]], &map->insecs[idx[k]]); end++)
				;
			align_from_object(map, idx, k, end, elf);
		}
	elf_end(elf);
	close(fd);
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
	if (!idx)
		return rp_err_nomem(err, "reading input-section alignments");
	for (size_t k = 0; k < n; k++)
		idx[k] = k;
	if (n > 1)
		rp_sort_r(idx, n, sizeof(size_t), by_file, &(index_ctx){ map });
	elf_version(EV_CURRENT);
	for (size_t from = 0, to; from < n; from = to) {
		const char *file = container(&map->insecs[idx[from]]);
		for (to = from + 1; to < n && cmp_str(container(&map->insecs[idx[to]]), file) == 0; to++)
			;
		align_from_file(map, idx, from, to);
	}
	infer_alignments(map, idx, default_align);
	free(idx);
	return 0;
}
