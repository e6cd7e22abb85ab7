/* image.h: the firmware image model, read from an ELF with libelf.
 *
 * Holds functions (name, address, size, containing section, and for local symbols the defining
 * source file from STT_FILE), allocated sections with VMA and LMA, loadable segments, the entry
 * point and the GNU build-id (or a SHA-1-like content hash when the ELF has none). ARM and
 * RISC-V, 32/64-bit, either byte order. Thumb addresses are stored with bit 0 cleared. */
#ifndef RAMPLACE_IMAGE_H
#define RAMPLACE_IMAGE_H

#include <stdint.h>
#include <stddef.h>
#include "ramplace/error.h"

typedef struct rp_func {
	char *name;
	char *file;        /* defining file for local (static) symbols, NULL for globals */
	uint64_t addr;     /* bit 0 cleared for Thumb */
	uint64_t size;
	size_t section;    /* index into rp_image.sections, or SIZE_MAX */
	int is_local;
	int is_thumb;
	int untyped;       /* a global STT_NOTYPE symbol in code outside every typed function: an
			      assembly entry without .type (picolibc's RISC-V sys_semihost); calls
			      to it cost veneers and relaxation like any other */
} rp_func;

typedef struct rp_section {
	char *name;
	uint64_t vma;
	uint64_t lma;      /* from the PT_LOAD segment holding it; equals vma when not relocated */
	uint64_t size;
	uint64_t align;
	uint64_t file_offset;
	int is_exec;
	int is_alloc;
	int is_nobits;
} rp_section;

typedef struct rp_segment {
	uint64_t vaddr, paddr, offset, filesz, memsz;
	uint32_t flags;    /* PF_X | PF_W | PF_R */
} rp_segment;

typedef struct rp_image {
	char *path;
	int machine;       /* EM_ARM, EM_RISCV, ... */
	int elfclass;      /* 32 or 64 */
	int big_endian;
	int code_big_endian; /* instructions; ARM BE8 images keep code little-endian */
	uint64_t entry;
	char build_id[129];     /* lowercase hex */
	int build_id_is_hash;   /* 1 when no NT_GNU_BUILD_ID note: hash of the loadable contents */
	rp_func *funcs;         /* sorted by address, then name */
	size_t nfuncs;
	struct rp_name_index *by_name; /* owned: funcs by (name, file), for rp_image_func_by_name
				   (util.h); built by the loaders (NULL: an image put together by
				   hand is scanned) */
	struct rp_elfsyms *syms_cache; /* every symbol, read on first use (rp_image_syms, elfsyms.h) */
	rp_section *sections;
	size_t nsections;
	rp_segment *segments;
	size_t nsegments;
	struct rp_strblock *strings; /* the functions' and sections' names and files (a string pool) */
	unsigned char *bytes;   /* the whole file, for reading code */
	size_t nbytes;
	/* ARM build attributes (.ARM.attributes, "aeabi"): Tag_CPU_arch (10 v7, 11 v6-M, 12 v6S-M,
	 * 13 v7E-M, 16 v8-M.base, 17 v8-M.main, 21 v8.1-M.main), -1 when absent; and
	 * Tag_CPU_arch_profile ('M', 'A', 'R', 'S'), 0 when absent. */
	int arm_arch;
	int arm_profile;
	/* GNU ld's long-branch veneer for a call between flash and RAM on this architecture: bytes
	 * and approximate cycles when executed (0 when calls need none, as on RISC-V). 16 bytes on
	 * ARMv6-M and v8-M.base (push/ldr/mov/pop/bx + literal), else 8 (ldr.w pc + literal);
	 * veneer_linked: 1 when the size was read from __*_veneer symbols the linker already wrote. */
	uint64_t veneer_size;
	unsigned veneer_cycles;
	int veneer_linked;
	/* The linker: ld.lld when .comment says "Linker: LLD" (rp_image_use_linker overrides it). Its
	 * range-extension thunks (__Thumbv7ABSLongThunk_NAME, 10 bytes; __ThumbV6MABSLongThunk_NAME)
	 * sit between the input sections, each reserved at 12 bytes with its padding; GNU ld's
	 * veneers sit together after them, the block aligned to veneer_block_align (8). */
	int linker_lld;
	uint64_t veneer_block_align;
	/* RISC-V: the code may hold compressed instructions (e_flags EF_RISCV_RVC), so linker
	 * relaxation may shrink a call to c.jal/c.j */
	int riscv_rvc;
} rp_image;

/* Sets the linker the placement is for (1: ld.lld, 0: GNU ld) and the veneer shape with it. */
void rp_image_use_linker(rp_image *img, int lld);

/* Loads path. Fails with "<path>: <why>" for a missing file, a non-ELF, a corrupt ELF or one
 * without function symbols. */
int rp_image_load(rp_image **out, const char *path, rp_err *err);

/* Same from memory (fuzzing, tests); `name` is used in messages. The buffer is copied. */
int rp_image_load_mem(rp_image **out, const void *buf, size_t len, const char *name, rp_err *err);

void rp_image_free(rp_image *img);

/* Human name of the architecture ("arm", "riscv32", ...). */
const char *rp_image_arch(const rp_image *img);

/* The function whose [addr, addr+size) holds pc (Thumb bit ignored), or NULL. A zero-size
 * function symbol covers up to the next function or the end of its section. */
const rp_func *rp_image_func_at(const rp_image *img, uint64_t pc);

/* The last function starting at or below pc (Thumb bit ignored), whether it covers pc or not;
 * NULL when none starts there or below. */
const rp_func *rp_image_func_below(const rp_image *img, uint64_t pc);

/* The bytes f covers: its size, or for a zero-size symbol (assembly without .size, such as
 * libgcc's __aeabi_uldivmod) up to the next function or the end of its section. */
uint64_t rp_image_func_extent(const rp_image *img, const rp_func *f);
/* Whether name is a linker-made long-branch stub: GNU ld's "__NAME_veneer", ld.lld's
 * "__Thumbv7ABSLongThunk_NAME" (and its ARM, PI and v6-M forms). Such code follows the calls
 * it serves; no fragment pattern moves it. */
int rp_image_is_veneer_name(const char *name);

/* A function by name; file disambiguates statics (NULL: prefer the global, then any local). */
const rp_func *rp_image_func_by_name(const rp_image *img, const char *name, const char *file);

/* The section with this name, or NULL. */
const rp_section *rp_image_section(const rp_image *img, const char *name);

/* Copies len bytes at virtual address vma (from the file contents of a PROGBITS section).
 * Returns 0, or RP_EINPUT when the range is not backed by file contents. */
int rp_image_read(const rp_image *img, uint64_t vma, void *buf, size_t len, rp_err *err);

/* The len bytes at vma as they are in the loaded file, without a copy (valid while img lives),
 * or NULL where rp_image_read would fail. */
const uint8_t *rp_image_bytes_at(const rp_image *img, uint64_t vma, size_t len);

/* The 32-bit data word at p in the image's byte order (literal pools, vector and copy tables). */
uint64_t rp_image_word32(const rp_image *img, const unsigned char *p);

/* Maps a byte offset in the ELF file to the virtual address it is loaded at (through the
 * program headers). Returns 0 and sets *vaddr, or RP_EINPUT when no segment covers it. */
int rp_image_offset_to_addr(const rp_image *img, uint64_t offset, uint64_t *vaddr, rp_err *err);

/* The address and size of the data object (STT_OBJECT or STT_NOTYPE, defined) called name, a
 * global preferred over a local. Returns 0, or RP_EINPUT "<path>: no data symbol 'name'...". */
int rp_image_data_symbol(const rp_image *img, const char *name, uint64_t *addr, uint64_t *size,
			 rp_err *err);

#endif
