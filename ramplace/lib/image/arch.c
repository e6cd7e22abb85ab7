/* arch.c: what the image's architecture means for a placement (image_arch.h): the ARM build
 * attributes (.ARM.attributes) and from them the long-branch veneer GNU ld writes for a call
 * between flash and RAM. The veneer's shape is the architecture's: ld writes
 *   ARMv7-M, v7E-M, v8-M.main, v8.1-M.main:  ldr.w pc, [pc, #-0]; .word target        8 bytes
 *   ARMv6-M, v6S-M (Cortex-M0/M0+, RP2040), v8-M.base (Cortex-M23), any Thumb-1-only core:
 *       push {r0}; ldr r0, [pc, #8]; mov ip, r0; pop {r0}; bx ip; nop; .word target      16 bytes
 * (checked with GNU ld 2.40 on each -mcpu; elf32-arm.c's arm_stub_long_branch_thumb_only).
 * When the linker has already written veneers (a relinked ELF: __NAME_veneer symbols with a
 * size), their size wins over the table.
 *
 * Reads only the loaded image (its sections, functions and bytes), never calls back into
 * image.c: the attributes are hostile input, so every length is checked and a malformed
 * section is ignored (the table's defaults stand). Also the check that the header's machine
 * agrees with the rest of the file (rp_image_arch_check). */
#include <elf.h>
#include <stdio.h>
#include <string.h>

#include "image_arch.h"

#define TAG_FILE 1
#define TAG_CPU_ARCH 6
#define TAG_CPU_ARCH_PROFILE 7
#define TAG_THUMB_ISA_USE 9

typedef struct cursor {
	const unsigned char *p, *end;
	int big_endian;
} cursor;

static int get_uleb(cursor *c, uint64_t *v)
{
	*v = 0;
	for (unsigned shift = 0; c->p < c->end; shift += 7) {
		unsigned char b = *c->p++;
		if (shift < 64)
			*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
	}
	return -1;
}

static int skip_string(cursor *c)
{
	const unsigned char *nul = memchr(c->p, 0, (size_t)(c->end - c->p));
	if (!nul)
		return -1;
	c->p = nul + 1;
	return 0;
}

static int get_u32(cursor *c, uint32_t *v)
{
	if (c->end - c->p < 4)
		return -1;
	const unsigned char *p = c->p;
	*v = c->big_endian ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
			   : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
	c->p += 4;
	return 0;
}

/* One Tag_File attribute list: numbers are ULEB128; Tag_CPU_raw_name (4), Tag_CPU_name (5),
 * Tag_also_compatible_with (65), Tag_conformance (67) and odd tags above 32 are strings;
 * Tag_compatibility (32) is a number and a string. */
static void read_file_attrs(rp_image *img, cursor c, int *thumb_isa)
{
	while (c.p < c.end) {
		uint64_t tag, v = 0;
		if (get_uleb(&c, &tag))
			return;
		int string = tag == 4 || tag == 5 || tag == 65 || tag == 67 || (tag > 32 && (tag & 1));
		if (tag == 32 && (get_uleb(&c, &v) || skip_string(&c)))
			return;
		if (tag != 32 && (string ? skip_string(&c) : get_uleb(&c, &v)))
			return;
		if (tag == TAG_CPU_ARCH && v < 256)
			img->arm_arch = (int)v;
		else if (tag == TAG_CPU_ARCH_PROFILE && v < 256)
			img->arm_profile = (int)v;
		else if (tag == TAG_THUMB_ISA_USE && v < 256)
			*thumb_isa = (int)v;
	}
}

/* The "aeabi" subsection of .ARM.attributes: 'A', then per vendor a length (itself included),
 * the vendor's name and tagged sub-subsections of the same form. */
static void read_attributes(rp_image *img, const rp_section *s, int *thumb_isa)
{
	if (s->file_offset > img->nbytes || s->size > img->nbytes - s->file_offset || s->size < 1)
		return;
	const unsigned char *base = img->bytes + s->file_offset;
	cursor c = { base + 1, base + s->size, img->big_endian };
	if (base[0] != 'A')
		return;
	while (c.end - c.p >= 4) {
		const unsigned char *start = c.p;
		uint32_t len = 0;
		get_u32(&c, &len);
		if (len < 4 || len > (size_t)(c.end - start))
			return;
		cursor vendor = { c.p, start + len, c.big_endian };
		c.p = start + len;
		const unsigned char *name = vendor.p;
		if (skip_string(&vendor) || strcmp((const char *)name, "aeabi") != 0)
			continue;
		while (vendor.end - vendor.p >= 5) {
			const unsigned char *sub = vendor.p;
			uint64_t tag;
			uint32_t sublen;
			if (get_uleb(&vendor, &tag) || get_u32(&vendor, &sublen) || sublen < 5 ||
			    sublen > (size_t)(vendor.end - sub))
				return;
			if (tag == TAG_FILE)
				read_file_attrs(img, (cursor){ vendor.p, sub + sublen, c.big_endian }, thumb_isa);
			vendor.p = sub + sublen;
		}
	}
}

int rp_image_is_veneer_name(const char *name)
{
	if (name[0] != '_' || name[1] != '_')   /* before strlen: asked of every function */
		return 0;
	size_t n = strlen(name);
	if (n <= 9)
		return 0;
	return strcmp(name + n - 7, "_veneer") == 0 || strstr(name, "LongThunk_") != NULL;
}

/* ld.lld writes "Linker: LLD <version>" into .comment (Debian's: "Linker: Debian LLD 14.0.6");
 * GNU ld writes nothing there. */
static int linked_by_lld(const rp_image *img)
{
	for (size_t i = 0; i < img->nsections; i++) {
		const rp_section *s = &img->sections[i];
		if (!s->name || strcmp(s->name, ".comment") != 0 || s->file_offset > img->nbytes ||
		    s->size > img->nbytes - s->file_offset)
			continue;
		const char *p = (const char *)img->bytes + s->file_offset, *end = p + s->size;
		while (p < end) {   /* NUL-separated strings; the last may be unterminated */
			const char *nul = memchr(p, '\0', (size_t)(end - p)), *stop = nul ? nul : end;
			if ((size_t)(stop - p) > 8 && memcmp(p, "Linker: ", 8) == 0 &&
			    memmem(p + 8, (size_t)(stop - p - 8), "LLD", 3))
				return 1;
			if (!nul)
				break;
			p = nul + 1;
		}
	}
	return 0;
}

void rp_image_use_linker(rp_image *img, int lld)
{
	img->linker_lld = lld;
	if (img->machine != EM_ARM || img->veneer_linked)
		return;
	int thumb1 = img->veneer_cycles == 10;
	/* lld: movw/movt/bx ip (10 bytes) or, Thumb-1, push/ldr/str/pop + literal (12), each
	 * followed by up to 2 bytes to the next section's alignment; GNU ld: arch.c's table above */
	img->veneer_size = lld ? 12 : thumb1 ? 16 : 8;
	img->veneer_block_align = lld ? 1 : 8;
}

void rp_image_arch_init(rp_image *img)
{
	img->arm_arch = -1;
	img->arm_profile = 0;
	img->veneer_size = 0;
	img->veneer_cycles = 0;
	img->veneer_linked = 0;
	img->linker_lld = 0;
	img->veneer_block_align = 1;
	if (img->machine != EM_ARM)
		return;
	int thumb_isa = -1;
	for (size_t i = 0; i < img->nsections; i++)
		if (img->sections[i].name && strcmp(img->sections[i].name, ".ARM.attributes") == 0)
			read_attributes(img, &img->sections[i], &thumb_isa);
	/* 11 v6-M, 12 v6S-M, 16 v8-M.base; Tag_THUMB_ISA_use 1 is "Thumb-1 only" on an older core */
	int thumb1 = img->arm_arch == 11 || img->arm_arch == 12 || img->arm_arch == 16 ||
		     (thumb_isa == 1 && img->arm_profile == 'M');
	img->veneer_size = thumb1 ? 16 : 8;
	/* push 2 + ldr 2 + mov 1 + pop 2 + bx 3 on Cortex-M0; ldr.w pc: a load and a refill, about 4 */
	img->veneer_cycles = thumb1 ? 10 : 4;
	uint64_t linked = 0;
	for (size_t i = 0; i < img->nfuncs; i++)
		if (img->funcs[i].size > linked && img->funcs[i].size <= 64 && rp_image_is_veneer_name(img->funcs[i].name) &&
		    strstr(img->funcs[i].name, "LongThunk_") == NULL)
			linked = img->funcs[i].size;
	img->veneer_block_align = 8;   /* GNU ld's stub section: measured on v7-M and v6-M links */
	if (linked) {
		img->veneer_size = linked;
		img->veneer_linked = 1;
	}
	if (linked_by_lld(img))
		rp_image_use_linker(img, 1);
}

static int has_section(const rp_image *img, const char *name)
{
	for (size_t i = 0; i < img->nsections; i++)
		if (img->sections[i].name && strcmp(img->sections[i].name, name) == 0)
			return 1;
	return 0;
}

/* Names for messages (image.c's rp_image_arch is above this file: no call back into it). */
static const char *machine_name(int machine)
{
	switch (machine) {
	case EM_ARM: return "ARM";
	case EM_AARCH64: return "AArch64";
	case EM_RISCV: return "RISC-V";
	case EM_X86_64: return "x86-64";
	case EM_386: return "i386";
	default: return "another machine";
	}
}

/* e_machine is one halfword: patched (or garbled), the file would be decoded as another
 * architecture and every function would look call-free. What else the toolchains write must
 * agree with it: each of ARM and RISC-V has its own attributes section; RISC-V defines only
 * e_flags bits 0-4 (RVC, float ABI, RVE, TSO) while ARM's EABI version sits in bits 24-31;
 * ARM is ELFCLASS32 and AArch64 ELFCLASS64. */
int rp_image_arch_check(const rp_image *img, uint32_t e_flags, rp_err *err)
{
	const char *but = NULL;
	char why[96];
	if (img->machine != EM_ARM && has_section(img, ".ARM.attributes")) {
		but = "it has ARM's .ARM.attributes section";
	} else if (img->machine != EM_RISCV && has_section(img, ".riscv.attributes")) {
		but = "it has RISC-V's .riscv.attributes section";
	} else if (img->machine == EM_RISCV && (e_flags & ~(uint32_t)0x1f)) {
		snprintf(why, sizeof(why), "its flags 0x%x set bits RISC-V does not define", (unsigned)e_flags);
		but = why;
	} else if (img->machine == EM_ARM && (e_flags >> 24) > 5) {
		snprintf(why, sizeof(why), "its flags 0x%x name ARM EABI version %u (known: 0 to 5)", (unsigned)e_flags,
			 (unsigned)(e_flags >> 24));
		but = why;
	} else if (img->machine == EM_ARM && img->elfclass != 32) {
		but = "it is a 64-bit ELF (ARM's are 32-bit)";
	} else if (img->machine == EM_AARCH64 && img->elfclass != 64) {
		but = "it is a 32-bit ELF (AArch64's are 64-bit)";
	}
	if (!but)
		return 0;
	return rp_err_set(err, RP_EINPUT, "%s: the ELF header says %s (e_machine %d), but %s: a patched or corrupt "
			  "header, or a file for another architecture", img->path, machine_name(img->machine), img->machine, but);
}
