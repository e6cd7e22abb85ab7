/* test_map_match.c: each input section of a link map gets the alignment and code flag of its own
 * section header in its object (rp_map_read_alignments through map_match.c), however the link
 * ordered them: in the object's order with output sections interleaved, a section a rule placed
 * first, sections the link discarded, two sections of one name, an object feeding more output
 * sections than the matcher has cursors, and an object whose headers come in reverse. The
 * objects are written here with libelf (ELF32 relocatables, only section headers). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <cmocka.h>

#include "ramplace/map.h"

typedef struct hdr {
	const char *name;
	unsigned align;
	int exec;
} hdr;

/* An object at path holding a section per h[i], in that order. */
static void write_object(const char *path, const hdr *h, size_t n)
{
	elf_version(EV_CURRENT);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	Elf *elf = elf_begin(fd, ELF_C_WRITE, NULL);
	assert_non_null(elf);
	Elf32_Ehdr *eh = elf32_newehdr(elf);
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_machine = EM_ARM;
	eh->e_type = ET_REL;
	eh->e_version = EV_CURRENT;
	/* the section names: "" then each name, then ".shstrtab" */
	size_t len = 1 + strlen(".shstrtab") + 1;
	for (size_t i = 0; i < n; i++)
		len += strlen(h[i].name) + 1;
	char *names = calloc(1, len);
	size_t at = 1;
	static unsigned char bytes[64];
	for (size_t i = 0; i < n; i++) {
		Elf_Scn *scn = elf_newscn(elf);
		Elf_Data *d = elf_newdata(scn);
		d->d_buf = bytes;
		d->d_size = 4;
		d->d_align = h[i].align;
		d->d_type = ELF_T_BYTE;
		Elf32_Shdr *sh = elf32_getshdr(scn);
		sh->sh_name = (Elf32_Word)at;
		sh->sh_type = SHT_PROGBITS;
		sh->sh_flags = SHF_ALLOC | (h[i].exec ? SHF_EXECINSTR : 0);
		sh->sh_addralign = h[i].align;
		strcpy(names + at, h[i].name);
		at += strlen(h[i].name) + 1;
	}
	Elf_Scn *str = elf_newscn(elf);
	Elf_Data *d = elf_newdata(str);
	strcpy(names + at, ".shstrtab");
	d->d_buf = names;
	d->d_size = len;
	d->d_align = 1;
	d->d_type = ELF_T_BYTE;
	Elf32_Shdr *sh = elf32_getshdr(str);
	sh->sh_name = (Elf32_Word)at;
	sh->sh_type = SHT_STRTAB;
	eh->e_shstrndx = (Elf32_Half)elf_ndxscn(str);
	assert_true(elf_update(elf, ELF_C_WRITE) >= 0);
	elf_end(elf);
	close(fd);
	free(names);
}

typedef struct placed {
	const char *outsec;
	const char *name;
} placed;

/* A map whose object obj.o has the input sections p[], in that order of address; read with its
 * alignments (the default 1 for what no header tells). */
static rp_map *map_of(const char *dir, const placed *p, size_t n)
{
	char *text = calloc(1, 256 + n * 160);
	strcpy(text, "Memory Configuration\n\nName Origin Length Attributes\n*default* 0x0 0xffffffff\n\n"
		     "Linker script and memory map\n\nLOAD obj.o\n");
	uint64_t addr = 0x1000;
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || strcmp(p[i].outsec, p[i - 1].outsec) != 0)
			sprintf(text + strlen(text), "\n%s 0x%08llx 0x100\n", p[i].outsec, (unsigned long long)addr);
		sprintf(text + strlen(text), " %s\n                0x%08llx        0x4 obj.o\n", p[i].name, (unsigned long long)addr);
		addr += 0x10;
	}
	char path[512];
	snprintf(path, sizeof(path), "%s/fw.map", dir);
	rp_map *map = NULL;
	rp_err err = RP_ERR_INIT;
	if (rp_map_parse(&map, text, strlen(text), path, &err) || rp_map_read_alignments(map, 1, &err))
		fail_msg("%s", err.msg);
	free(text);
	return map;
}

static const rp_map_insec *nth_named(const rp_map *map, const char *name, int nth)
{
	for (size_t i = 0; i < map->ninsecs; i++)
		if (strcmp(map->insecs[i].name, name) == 0 && nth-- == 0)
			return &map->insecs[i];
	fail_msg("no section %s", name);
	return NULL;
}

static void expect(const rp_map *map, const char *name, int nth, unsigned align, int exec)
{
	const rp_map_insec *s = nth_named(map, name, nth);
	if (s->align != align || s->exec != (exec ? 1 : 2) || s->align_inferred)
		fail_msg("%s #%d: align %llu exec %d inferred %d, want align %u exec %d", name, nth,
			 (unsigned long long)s->align, s->exec, s->align_inferred, align, exec ? 1 : 2);
}

static char dir[64];

static int make_dir(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/ramplace-match-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof(path), "%s/obj.o", dir);
	unlink(path);
	return rmdir(dir);
}

static void object(const hdr *h, size_t n)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/obj.o", dir);
	write_object(path, h, n);
}

/* -ffunction-sections -fdata-sections: text and read-only data interleaved in the object, each
 * output section in the object's order; one section discarded by --gc-sections; main's
 * .text.startup placed first by the default script's rule. */
static void test_interleaved_and_out_of_order(void **state)
{
	(void)state;
	static const hdr h[] = {
		{ ".text.a", 2, 1 }, { ".rodata.a", 4, 0 }, { ".text.gone", 8, 1 }, { ".text.b", 8, 1 },
		{ ".rodata.b", 1, 0 }, { ".text.c", 2, 1 }, { ".text.startup.main", 4, 1 }, { ".data.x", 8, 0 },
	};
	object(h, sizeof(h) / sizeof(h[0]));
	static const placed p[] = {
		{ ".text", ".text.startup.main" }, { ".text", ".text.a" }, { ".text", ".text.b" }, { ".text", ".text.c" },
		{ ".rodata", ".rodata.a" }, { ".rodata", ".rodata.b" }, { ".data", ".data.x" },
	};
	rp_map *map = map_of(dir, p, sizeof(p) / sizeof(p[0]));
	expect(map, ".text.startup.main", 0, 4, 1);
	expect(map, ".text.a", 0, 2, 1);
	expect(map, ".text.b", 0, 8, 1);
	expect(map, ".text.c", 0, 2, 1);
	expect(map, ".rodata.a", 0, 4, 0);
	expect(map, ".rodata.b", 0, 1, 0);
	expect(map, ".data.x", 0, 8, 0);
	rp_map_free(map);
}

/* Two sections of one name (COMDAT groups, section attributes): each its own header, by order. */
static void test_two_of_one_name(void **state)
{
	(void)state;
	static const hdr h[] = { { ".text.dup", 2, 1 }, { ".text.mid", 4, 1 }, { ".text.dup", 8, 1 } };
	object(h, 3);
	static const placed p[] = { { ".text", ".text.dup" }, { ".text", ".text.mid" }, { ".text", ".text.dup" } };
	rp_map *map = map_of(dir, p, 3);
	expect(map, ".text.dup", 0, 2, 1);
	expect(map, ".text.mid", 0, 4, 1);
	expect(map, ".text.dup", 1, 8, 1);
	rp_map_free(map);
}

/* Ten output sections (more than the walk's cursors) and a reversed order: every section is
 * found by its name all the same. */
static void test_many_outputs_and_reversed(void **state)
{
	(void)state;
	hdr h[10];
	placed p[10];
	char names[10][32], outs[10][32];   /* room for any int: -Wformat-truncation at every -O */
	for (int i = 0; i < 10; i++) {
		snprintf(names[i], sizeof(names[i]), ".text.f%d", i);
		snprintf(outs[i], sizeof(outs[i]), ".out%d", i);
		h[i] = (hdr){ names[i], 1u << (i % 4), i % 2 };
		p[i] = (placed){ outs[i], names[9 - i] };
	}
	object(h, 10);
	rp_map *map = map_of(dir, p, 10);
	for (int i = 0; i < 10; i++)
		expect(map, names[i], 0, 1u << (i % 4), i % 2);
	rp_map_free(map);
	/* one output section, the headers in reverse of the link's order */
	for (int i = 0; i < 10; i++)
		p[i] = (placed){ ".text", names[9 - i] };
	map = map_of(dir, p, 10);
	for (int i = 0; i < 10; i++)
		expect(map, names[i], 0, 1u << (i % 4), i % 2);
	rp_map_free(map);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interleaved_and_out_of_order),
		cmocka_unit_test(test_two_of_one_name),
		cmocka_unit_test(test_many_outputs_and_reversed),
	};
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
