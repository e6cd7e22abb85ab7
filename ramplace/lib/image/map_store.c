/* map_store.c: what a link map holds once read (map.h), whichever linker wrote it: the string
 * blocks that hold every input section's names, appending input sections, sorting them by
 * address and marking their names (unique, compiler temporaries), finding a section or region,
 * opening the objects a map names (for map_align.c and map_ids.c), and freeing the map. The two readers (map.c: GNU ld's format, map_lld.c: ld.lld's) fill a map
 * through these; map_internal.h declares the shared ones. Owns the map's storage. Workload:
 * maps of up to a few hundred thousand input sections; the strings live in a few large blocks,
 * the names are counted in a hash. */
#include <ctype.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "map_internal.h"
#include "ramplace/map.h"
#include "ramplace/util.h"

/* A NUL-terminated copy of p[0..n) in the map's strings; NULL when memory ran out. */
char *rp_mapi_str_copy(rp_map *map, const char *p, size_t n)
{
	return rp_strpool_copy(&map->strings, p, n);
}


int rp_mapi_unallocated(const char *name)
{
	static const char *const prefixes[] = {
		".debug", ".zdebug", ".stab", ".comment", ".ARM.attributes", ".riscv.attributes",
		".gnu.attributes", ".gnu.build.attributes", ".note.GNU-stack", ".gnu_debuglink",
		".gnu.lto_", ".GCC.command.line", ".symtab", ".strtab", ".shstrtab",
		"/DISCARD/",
	};
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	return 0;
}


rp_map_insec *rp_mapi_new_insec(rp_map *map, size_t *cap, uint64_t addr, uint64_t size, size_t lineno, rp_err *err)
{
	if (rp_grow((void **)&map->insecs, cap, map->ninsecs + 1, sizeof(*map->insecs), err))
		return NULL;
	rp_map_insec *sec = &map->insecs[map->ninsecs];
	memset(sec, 0, sizeof(*sec));
	map->ninsecs++; /* counted now so that rp_map_free releases a half-filled entry */
	sec->addr = addr;
	sec->size = size;
	sec->line = lineno;
	return sec;
}

static int compare_insec(const void *a, const void *b)
{
	const rp_map_insec *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->outsec, y->outsec);
}

/* Whether the input sections are in compare_insec order already; a stable sort (and glibc's
 * merge sort is) would leave them as they are. */
static int insecs_sorted(const rp_map *map)
{
	for (size_t i = 1; i < map->ninsecs; i++)
		if (compare_insec(&map->insecs[i - 1], &map->insecs[i]) > 0)
			return 0;
	return 1;
}

/* GCC's temporary objects: "cc" and six characters from mkstemp, then ".o", or for LTO
 * ".ltransN.ltrans.o" / ".ltrans.o" (cc1Abc23.ltrans0.ltrans.o). */
static int is_temporary_object(const char *path)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	if (strncmp(base, "cc", 2) != 0 || strlen(base) < 10)
		return 0;
	for (int k = 2; k < 8; k++)
		if (!isalnum((unsigned char)base[k]))
			return 0;
	const char *rest = base + 8;
	if (strcmp(rest, ".o") == 0 || strcmp(rest, ".ltrans.o") == 0)
		return 1;
	if (strncmp(rest, ".ltrans", 7) != 0)
		return 0;
	rest += 7;
	while (isdigit((unsigned char)*rest))
		rest++;
	return strcmp(rest, ".ltrans.o") == 0;
}

static size_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;   /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (size_t)h;
}

/* name_unique and temporary of every input section. The names are counted in a hash (open
 * addressing, at most half full): maps hold up to a few hundred thousand sections, and a sort
 * of them by name was a tenth of reading the map. */
static int mark_names(rp_map *map, rp_err *err)
{
	size_t n = map->ninsecs, cap = 16;
	while (cap < 2 * n && cap <= SIZE_MAX / 4 / sizeof(size_t))
		cap *= 2;
	size_t *slot = cap >= 2 * n ? calloc(cap, sizeof(size_t)) : NULL;   /* index + 1 of a section */
	size_t *at = malloc((n ? n : 1) * sizeof(size_t));                  /* each section's slot */
	unsigned char *many = calloc(cap, 1);                                 /* per slot: seen twice */
	if (!slot || !at || !many) {
		free(slot);
		free(at);
		free(many);
		return rp_err_nomem(err, "indexing a link map");
	}
	for (size_t k = 0; k < n; k++) {
		rp_map_insec *sec = &map->insecs[k];
		sec->temporary = !sec->archive && is_temporary_object(sec->file);
		size_t h = name_hash(sec->name) & (cap - 1);
		while (slot[h] && strcmp(map->insecs[slot[h] - 1].name, sec->name) != 0)
			h = (h + 1) & (cap - 1);
		if (slot[h])
			many[h] = 1;
		else
			slot[h] = k + 1;
		at[k] = h;
	}
	for (size_t k = 0; k < n; k++)
		map->insecs[k].name_unique = !many[at[k]];
	free(slot);
	free(at);
	free(many);
	return 0;
}


int rp_mapi_finish(rp_map *map, rp_err *err)
{
	if (!insecs_sorted(map)) /* ld prints them in address order: the sort is rarely needed */
		rp_sort(map->insecs, map->ninsecs, sizeof(*map->insecs), compare_insec);
	return mark_names(map, err);
}


void rp_map_free(rp_map *map)
{
	if (!map)
		return;
	for (size_t i = 0; i < map->nregions; i++)
		free(map->regions[i].name);
	rp_strpool_release(&map->strings);   /* every input section's strings */
	for (size_t i = 0; i < map->nbinds; i++)
		free(map->binds[i].to_name);
	free(map->binds);
	for (size_t i = 0; i < map->nrefs; i++)
		free(map->refs[i].name);
	free(map->refs);
	if (map->ref_names)
		rp_name_index_release(map->ref_names);
	free(map->ref_names);
	free(map->regions);
	free(map->insecs);
	free(map->outsecs);
	free(map->inputs);
	free(map->path);
	free(map);
}

/* The index of the first section starting after addr (the sections are by address). */
static size_t first_after(const rp_map *map, uint64_t addr)
{
	return map ? RP_COUNT_AT_OR_BELOW(map->insecs, map->ninsecs, addr, addr) : 0;
}

const rp_map_insec *rp_map_insec_after(const rp_map *map, uint64_t addr)
{
	size_t i = first_after(map, addr);
	return map && i < map->ninsecs ? &map->insecs[i] : NULL;
}

const rp_map_insec *rp_map_insec_at(const rp_map *map, uint64_t addr)
{
	size_t lo = first_after(map, addr);
	/* sections sharing a start address (overlays) are all candidates, and a few before them:
	 * merged string sections lie inside an earlier one that holds their copy */
	for (size_t i = lo, back = 0; i > 0; i--) {
		const rp_map_insec *s = &map->insecs[i - 1];
		if (addr - s->addr < s->size)
			return s;
		if (s->addr != map->insecs[lo - 1].addr && ++back > 16)
			break;
	}
	return NULL;
}

const rp_map_outsec *rp_map_outsec_find(const rp_map *map, const char *name)
{
	for (size_t i = 0; map && i < map->noutsecs; i++)
		if (strcmp(map->outsecs[i].name, name) == 0)
			return &map->outsecs[i];
	return NULL;
}

const rp_map_region *rp_map_region_find(const rp_map *map, const char *name, uint64_t addr)
{
	for (size_t i = 0; map && i < map->nregions; i++) {
		const rp_map_region *r = &map->regions[i];
		if (name ? strcmp(r->name, name) == 0
			 : strcmp(r->name, "*default*") != 0 && addr >= r->origin && addr - r->origin < r->length)
			return r;
	}
	return NULL;
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
int rp_mapi_open_beside(const char *path, const char *map_path)
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
