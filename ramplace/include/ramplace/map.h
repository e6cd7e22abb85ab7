/* map.h: reader for GNU ld link maps (-Wl,-Map=fw.map), the truth about which input section of
 * which object or archive member holds each function after linking, and about the memory
 * regions ("Memory Configuration"). Every line is hostile input: errors name file and line. */
#ifndef RAMPLACE_MAP_H
#define RAMPLACE_MAP_H

#include <stdint.h>
#include <stddef.h>
#include "ramplace/error.h"

typedef struct rp_map_region {
	char *name;          /* "FLASH", "RAM", "*default*" */
	uint64_t origin;
	uint64_t length;
	char attrs[16];      /* "xr", "xrw", ... */
} rp_map_region;

typedef struct rp_map_insec {
	char *name;          /* input section: ".text.foo", ".text", ".text.startup.main" */
	char *file;          /* as the map prints it: "build/foo.o", "/usr/lib/.../libc_nano.a(libc_a-memset.o)" */
	char *archive;       /* "/usr/lib/.../libc_nano.a" for archive members, else NULL */
	char *member;        /* "libc_a-memset.o" for archive members, else NULL */
	char *outsec;        /* output section it was placed in: ".text", ".ramtext" */
	uint64_t addr;
	uint64_t size;
	uint64_t align;      /* sh_addralign in its object (rp_map_read_alignments); 0 unknown */
	int name_unique;     /* no other input section in the map has this name */
	int temporary;       /* from a compiler temporary (/tmp/ccXXXXXX.o, LTO's .ltrans.o): its
				name changes with every build (a one-step compile-and-link) */
	int align_inferred;  /* align was inferred from the link's layout: the object was not readable */
	uint8_t exec;        /* SHF_EXECINSTR in its object (rp_map_read_alignments): 1 set, 2 clear,
				0 not read */
	size_t line;         /* line of the map holding its address and file, for messages */
	uint32_t bfd_id;     /* GNU ld's id of the section (BFD's counter over every input section
				in load order, map_ids.c), which orders the veneers of a stub block;
				0 unknown (rp_map_read_alignments) */
	uint32_t entry_sym;  /* in its object's symbol table, the index of the local function at
				its start (a call to it names its stub by it); 0 none */
} rp_map_insec;

/* A RISC-V jump of fixed reach from one input section into another: jal/j (R_RISCV_JAL, +-1
 * MiB), c.j/c.jal (R_RISCV_RVC_JUMP), a branch (R_RISCV_BRANCH, R_RISCV_RVC_BRANCH). Unlike a
 * `call` (auipc+jalr, which the linker relaxes or keeps), it cannot reach across the move from
 * flash to RAM, so both ends must stay on one side. */
typedef struct rp_map_bind {
	size_t from;           /* the input section holding the jump (index into insecs) */
	size_t to;             /* the one it jumps into, SIZE_MAX when only the symbol is known */
	char *to_name;         /* the target symbol when to is SIZE_MAX (defined in another object) */
} rp_map_bind;

/* A call or tail jump from an input section to a symbol named in rp_map_want_refs: a function
 * the image holds under several names at one address (pico-sdk's __wrap___aeabi_uidiv and
 * __wrap___aeabi_uidivmod). GNU ld makes one long-branch veneer per symbol a moved caller
 * names, not per address, so which name each section calls by counts. Arm objects only. */
typedef struct rp_map_ref {
	size_t from;           /* the input section holding the call (index into insecs) */
	char *name;            /* the symbol called, as the link resolved it (a --wrap's __wrap_X) */
} rp_map_ref;

/* An allocated output section as the map's script part shows it on one line ("NAME 0xADDR
 * 0xSIZE [load address 0xLMA]"): where a RAM section's load image lies among flash's. */
typedef struct rp_map_outsec {
	char *name;          /* in the map's strings */
	uint64_t addr, size;
	uint64_t lma;        /* addr when the map shows no load address */
	int empty_code_last; /* its last .text input section is empty (crtn.o's without
				--gc-sections): ld's stub group ends there, and the map keeps no id
				for it (rp_map_insec.bfd_id) */
} rp_map_outsec;

typedef struct rp_map {
	char *path;
	rp_map_region *regions;
	size_t nregions;
	rp_map_insec *insecs;  /* only those with size > 0 that were kept (not discarded), by address */
	size_t ninsecs;
	rp_map_bind *binds;    /* RISC-V objects' fixed-reach jumps between sections (rp_map_read_alignments) */
	size_t nbinds;
	rp_map_ref *refs;      /* calls to the names rp_map_want_refs gave, by from (rp_map_read_alignments) */
	size_t nrefs;
	void *ref_names;       /* owned: those names' index (names borrowed from the caller) */
	struct rp_strblock *strings; /* owned: the input sections' strings (util.h's string pool) */
	rp_map_outsec *outsecs; /* GNU ld maps only (lld's: none), in the map's order */
	size_t noutsecs;
	int from_lld;          /* written by ld.lld (map_lld.c): no memory regions, alignments given */
	char **inputs;         /* GNU ld maps: the files ld loaded, in load order: objects as LOADed
				  (and an archive nothing was pulled from), archive members
				  ("lib.a(m.o)") where their archive's scan pulled them; in the
				  map's strings (the array is owned) */
	size_t ninputs;
	int ids_read;          /* rp_map_read_ids ran */
} rp_map;

int rp_map_load(rp_map **out, const char *path, rp_err *err);
/* Parses a map held in memory; name is used in messages. */
int rp_map_parse(rp_map **out, const char *text, size_t len, const char *name, rp_err *err);
void rp_map_free(rp_map *map);

/* Fills each input section's align with its sh_addralign, read from the objects and archive
 * members the map names (paths as the map prints them, else relative to the map's directory),
 * each file read once. Where a file cannot be read (a one-step build's /tmp/ccXXXXXX.o is gone
 * after the link) the alignment is inferred from the link: a section that starts 2 bytes past
 * a multiple of 4 is 2-aligned; one that starts after a 2-byte gap is 4-aligned; otherwise the
 * alignment its object's other sections show, else default_align. Fails only on memory. */
int rp_map_read_alignments(rp_map *map, uint64_t default_align, rp_err *err);
/* (rp_map_read_alignments also collects, from RISC-V objects' relocations, the binds above,
 * and from Arm objects' the refs to the names given by rp_map_want_refs, called before it; the
 * names must outlive the map.) */
int rp_map_want_refs(rp_map *map, const char *const *names, size_t n, rp_err *err);
/* The refs of input section insec: *n of them from the returned one (NULL when none). */
const rp_map_ref *rp_map_refs_of(const rp_map *map, size_t insec, size_t *n);
/* Reads every loaded input's section headers, in ld's load order, for the sections' bfd_id and
 * entry_sym (the keys of GNU ld's stub order, which only the link model needs: place --trace);
 * once per map, later calls do nothing. Fails only on memory; an input it cannot read leaves
 * the ids unknown from there on. */
int rp_map_read_ids(rp_map *map, rp_err *err);

/* The kept input section whose [addr, addr+size) holds addr, or NULL. */
const rp_map_insec *rp_map_insec_at(const rp_map *map, uint64_t addr);
/* The first kept input section starting past addr, or NULL. */
const rp_map_insec *rp_map_insec_after(const rp_map *map, uint64_t addr);

/* The output section with this name, or NULL. */
const rp_map_outsec *rp_map_outsec_find(const rp_map *map, const char *name);

/* The region with this name, or the one containing addr when name is NULL; NULL if none. */
const rp_map_region *rp_map_region_find(const rp_map *map, const char *name, uint64_t addr);

/* The GNU ld input-section pattern that matches exactly this input section, e.g.
 * "*foo.o(.text.foo)" or "*libc_nano.a:libc_a-memset.o(.text)"; the caller frees it. A section
 * of a compiler temporary is matched by its name alone ("*(.text.foo)"), which survives the
 * next build, when no other section has that name; otherwise no pattern can (RP_EINPUT, the
 * message says which source to compile to an object of its own). */
int rp_map_insec_pattern(char **out, const rp_map_insec *sec, rp_err *err);

#endif
