/* map_match.c: one object's section headers matched to the sections the link map lists for it
 * (map_internal.h, rp_mapi_match_object), for map_align.c (each section's alignment) and
 * map_relocs.c (which map section a relocation applies to). Owns the match while the object is
 * open. Why not a name index alone: an object built with -ffunction-sections holds one section
 * per function, and a one-step, unity or LTO build puts every function of the firmware in one
 * object (200,000 sections); hashing and sorting every name was a tenth of `place`. The link
 * keeps an object's sections in their order within each output section, so walking the
 * headers with one cursor per output section matches nearly all of them by one string
 * comparison each; what the walk leaves (a section a rule placed out of order, one the link
 * discarded) is matched by name afterwards, through an index of the leftovers only.
 * Workload: objects of a few to a few hundred thousand sections, each matched once. */
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "map_internal.h"
#include "ramplace/util.h"

#define MAX_CURSORS 8   /* output sections one object feeds; past that, every header by name */
#define AMBIGUOUS (SIZE_MAX - 1)

typedef struct cursor {
	const char *outsec;
	size_t *pos;            /* the object's map sections in this output section, by address */
	size_t n, at;
} cursor;

typedef struct leftover {
	size_t shndx;
	const char *name;
} leftover;

typedef struct matcher {
	rp_map *map;
	const size_t *idx;      /* the object's map sections: idx[from..to) */
	size_t from, to;
	unsigned char *done;    /* per map section of the object (k - from): matched */
	cursor cur[MAX_CURSORS];
	size_t ncur;
	size_t *slots;          /* storage of the cursors' pos */
	leftover *left;
	size_t nleft;
	rp_mapi_match *out;
} matcher;

static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* One cursor per output section of the object's map sections, each in address order; 0 when
 * there are more output sections than cursors (then every header is matched by name). */
static int make_cursors(matcher *m)
{
	size_t n = m->to - m->from, count[MAX_CURSORS] = { 0 };
	unsigned char *which = malloc(n ? n : 1);
	if (!which)
		return -1;
	for (size_t k = 0; k < n; k++) {
		const char *o = m->map->insecs[m->idx[m->from + k]].outsec;
		size_t j = 0;
		while (j < m->ncur && !same_str(m->cur[j].outsec, o))
			j++;
		if (j == MAX_CURSORS) {
			m->ncur = 0;
			free(which);
			return 0;
		}
		if (j == m->ncur)
			m->cur[m->ncur++] = (cursor){ o, NULL, 0, 0 };
		which[k] = (unsigned char)j;
		count[j]++;
	}
	for (size_t j = 0, used = 0; j < m->ncur; used += count[j++])
		m->cur[j].pos = m->slots + used;
	/* idx is by object, then by map position, so each cursor's list comes out in address order */
	for (size_t k = 0; k < n; k++)
		m->cur[which[k]].pos[m->cur[which[k]].n++] = m->from + k;
	free(which);
	return 0;
}

static const char *entry_name(const matcher *m, size_t k)
{
	const char *s = m->map->insecs[m->idx[k]].name;
	return s ? s : "";
}

/* The map section (an index into idx) at cursor c's position or the one after it whose name is
 * name, or SIZE_MAX: the link keeps the object's order, and a single section a rule placed
 * elsewhere is stepped over. */
static size_t cursor_take(matcher *m, cursor *c, const char *name)
{
	while (c->at < c->n && m->done[c->pos[c->at] - m->from])
		c->at++;
	for (size_t ahead = c->at, seen = 0; ahead < c->n && seen < 2; ahead++) {
		size_t k = c->pos[ahead];
		if (m->done[k - m->from])
			continue;
		seen++;
		if (strcmp(entry_name(m, k), name) == 0) {
			if (ahead > c->at) {
				/* the one stepped over moves up to here, so no done entry stays behind the
				 * cursor to be stepped over again at every later header (quadratic) */
				c->pos[ahead] = c->pos[c->at];
				c->at = ahead;
			} else {
				c->at++;
			}
			return k;
		}
	}
	return SIZE_MAX;
}

static void take(matcher *m, size_t shndx, size_t k)
{
	m->done[k - m->from] = 1;
	m->out->shndx_of[k - m->from] = shndx;
	m->out->insec_of[shndx] = m->idx[k];
}

/* Sections the walk left, matched by name: each map section to the first leftover header of
 * its name. */
static int match_leftovers(matcher *m, rp_err *err)
{
	size_t unmatched = 0;
	for (size_t k = m->from; k < m->to; k++)
		unmatched += !m->done[k - m->from];
	if (!unmatched || !m->nleft)
		return 0;
	rp_name_index ix;
	if (rp_name_index_init(&ix, m->nleft, err))
		return err->code;
	for (size_t i = 0; i < m->nleft; i++)
		ix.e[i] = (rp_name_entry){ m->left[i].name, NULL, i, 0 };
	rp_name_index_sort(&ix);
	for (size_t k = m->from; k < m->to; k++) {
		if (m->done[k - m->from])
			continue;
		const rp_name_entry *e = rp_name_index_find(&ix, entry_name(m, k), NULL, 0);
		if (!e)
			continue;
		size_t sh = m->left[e->index].shndx;
		/* one header, several map sections (never from one link of a well-formed object):
		 * alignment for each, but no relocation can say which of them it applies to */
		m->out->insec_of[sh] = m->out->insec_of[sh] == SIZE_MAX ? m->idx[k] : AMBIGUOUS;
		m->out->shndx_of[k - m->from] = sh;
		m->done[k - m->from] = 1;
	}
	rp_name_index_release(&ix);
	return 0;
}

/* Two map sections of one name in one object (COMDAT groups of C++ inline functions) could be
 * told apart only by order, which a discarded group breaks: a relocation is not pinned on
 * either. Only names the map holds more than once are checked. */
static int unpin_duplicates(matcher *m, rp_err *err)
{
	size_t n = 0;
	for (size_t k = m->from; k < m->to; k++)
		n += !m->map->insecs[m->idx[k]].name_unique;
	if (n < 2)
		return 0;
	rp_name_index ix;
	if (rp_name_index_init(&ix, n, err))
		return err->code;
	n = 0;
	for (size_t k = m->from; k < m->to; k++)
		if (!m->map->insecs[m->idx[k]].name_unique)
			ix.e[n++] = (rp_name_entry){ entry_name(m, k), NULL, m->idx[k], 0 };
	rp_name_index_sort(&ix);
	for (size_t sh = 0; sh < m->out->nshdr; sh++) {
		size_t s = m->out->insec_of[sh];
		if (s == SIZE_MAX || s == AMBIGUOUS || m->map->insecs[s].name_unique)
			continue;
		const rp_name_entry *e = rp_name_index_find(&ix, m->map->insecs[s].name ? m->map->insecs[s].name : "", NULL, 0);
		if (e && rp_name_index_next(&ix, e))
			m->out->insec_of[sh] = AMBIGUOUS;
	}
	rp_name_index_release(&ix);
	return 0;
}

/* Relocations, symbol and string tables are never placed. */
static int placeable(const GElf_Shdr *sh)
{
	return sh->sh_type != SHT_REL && sh->sh_type != SHT_RELA && sh->sh_type != SHT_SYMTAB &&
	       sh->sh_type != SHT_STRTAB && sh->sh_type != SHT_GROUP;
}

static int walk_headers(matcher *m, Elf *elf, size_t shstrndx, rp_err *err)
{
	size_t cap = 0;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn)) != NULL;) {
		GElf_Shdr sh;
		size_t shndx = elf_ndxscn(scn);
		const char *name;
		if (shndx >= m->out->nshdr || !gelf_getshdr(scn, &sh) || !placeable(&sh) ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		size_t k = SIZE_MAX;
		for (size_t j = 0; k == SIZE_MAX && j < m->ncur; j++)
			k = cursor_take(m, &m->cur[j], name);
		if (k != SIZE_MAX) {
			take(m, shndx, k);
			continue;
		}
		if (rp_grow((void **)&m->left, &cap, m->nleft + 1, sizeof(leftover), err))
			return err->code;
		m->left[m->nleft++] = (leftover){ shndx, name };
	}
	return 0;
}

int rp_mapi_match_object(rp_map *map, const size_t *idx, size_t from, size_t to, Elf *elf, size_t shstrndx,
			 rp_mapi_match *out, rp_err *err)
{
	memset(out, 0, sizeof(*out));
	size_t nshdr;
	if (elf_getshdrnum(elf, &nshdr) != 0)
		return 0;
	matcher m = { .map = map, .idx = idx, .from = from, .to = to, .out = out };
	size_t n = to - from;
	out->insec_of = malloc((nshdr ? nshdr : 1) * sizeof(size_t));
	out->shndx_of = malloc((n ? n : 1) * sizeof(size_t));
	m.done = calloc(n ? n : 1, 1);
	m.slots = malloc((n ? n : 1) * sizeof(size_t));
	int rc = !out->insec_of || !out->shndx_of || !m.done || !m.slots || make_cursors(&m) ? rp_err_nomem(err, "matching an object's sections") : 0;
	if (!rc) {
		out->nshdr = nshdr;
		for (size_t sh = 0; sh < nshdr; sh++)
			out->insec_of[sh] = SIZE_MAX;
		for (size_t k = 0; k < n; k++)
			out->shndx_of[k] = SIZE_MAX;
		rc = walk_headers(&m, elf, shstrndx, err);
	}
	if (!rc)
		rc = match_leftovers(&m, err);
	if (!rc)
		rc = unpin_duplicates(&m, err);
	for (size_t sh = 0; !rc && sh < out->nshdr; sh++)
		if (out->insec_of[sh] == AMBIGUOUS)
			out->insec_of[sh] = SIZE_MAX, out->ambiguous++;
	free(m.done);
	free(m.slots);
	free(m.left);
	if (rc)
		rp_mapi_match_release(out);
	return rc;
}

void rp_mapi_match_release(rp_mapi_match *m)
{
	free(m->insec_of);
	free(m->shndx_of);
	memset(m, 0, sizeof(*m));
}
