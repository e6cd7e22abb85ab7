/* test_map.c: the GNU ld map reader on a real map (tests/data/maptest, made by its build.sh
 * with arm-none-eabi-gcc 12.2 / GNU ld 2.40) and on hand-written excerpts: wrapped long names,
 * archive members, discarded sections, debug sections, CRLF, and hostile lines with the exact
 * messages. Also the exact ld patterns made from input sections. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ramplace/map.h"

static rp_map *parse_ok(const char *text)
{
	rp_map *map = NULL;
	rp_err err = RP_ERR_INIT;
	int rc = rp_map_parse(&map, text, strlen(text), "fw.map", &err);
	if (rc)
		fail_msg("unexpected error: %s", err.msg);
	return map;
}

static void expect_error(const char *text, const char *message)
{
	rp_map *map = NULL;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_map_parse(&map, text, strlen(text), "fw.map", &err), RP_EINPUT);
	assert_null(map);
	assert_string_equal(err.msg, message);
}

static const rp_map_insec *find(const rp_map *map, const char *name, const char *file_end)
{
	for (size_t i = 0; i < map->ninsecs; i++) {
		const rp_map_insec *s = &map->insecs[i];
		size_t n = strlen(s->file), k = strlen(file_end);
		if (strcmp(s->name, name) == 0 && n >= k && strcmp(s->file + n - k, file_end) == 0)
			return s;
	}
	return NULL;
}

static char *pattern_of(const rp_map_insec *sec)
{
	char *p = NULL;
	rp_err err = RP_ERR_INIT;
	if (rp_map_insec_pattern(&p, sec, &err))
		fail_msg("no pattern: %s", err.msg);
	return p;
}

static void test_real_map(void **state)
{
	(void)state;
	rp_map *map = NULL;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_map_load(&map, TEST_DATA_DIR "/maptest/maptest.map", &err), 0);

	assert_int_equal(map->nregions, 3);
	assert_string_equal(map->regions[0].name, "FLASH");
	assert_int_equal(map->regions[0].origin, 0);
	assert_int_equal(map->regions[0].length, 0x40000);
	assert_string_equal(map->regions[0].attrs, "xr");
	assert_string_equal(map->regions[1].name, "RAM");
	assert_int_equal(map->regions[1].origin, 0x20000000);
	assert_string_equal(map->regions[1].attrs, "xrw");
	assert_string_equal(map->regions[2].name, "*default*");
	assert_string_equal(map->regions[2].attrs, "");

	/* wrapped long name, moved into .ramtext by fragment.ld */
	const rp_map_insec *crc = find(map, ".text.crc32_bitwise_reference_implementation", "obj/crc.o");
	assert_non_null(crc);
	assert_string_equal(crc->outsec, ".ramtext");
	assert_int_equal(crc->addr, 0x20000000);
	assert_int_equal(crc->size, 0x3c);
	assert_null(crc->archive);

	/* the two static step(): one moved, its twin not */
	const rp_map_insec *step_a = find(map, ".text.step", "obj/filt_a.o");
	const rp_map_insec *step_b = find(map, ".text.step", "obj/filt_b.o");
	assert_non_null(step_a);
	assert_non_null(step_b);
	assert_string_equal(step_a->outsec, ".ramtext");
	assert_string_equal(step_b->outsec, ".text");

	const rp_map_insec *main_sec = find(map, ".text.startup.main", "obj/main.o");
	assert_non_null(main_sec);
	assert_string_equal(main_sec->outsec, ".ramtext");

	/* archive members */
	const rp_map_insec *memcpy_sec = find(map, ".text", "libc.a(lib_a-memcpy.o)");
	assert_non_null(memcpy_sec);
	assert_string_equal(memcpy_sec->outsec, ".ramtext");
	assert_string_equal(memcpy_sec->member, "lib_a-memcpy.o");
	assert_non_null(strstr(memcpy_sec->archive, "/libc.a"));
	assert_int_equal(strlen(strstr(memcpy_sec->archive, "/libc.a")), strlen("/libc.a"));
	const rp_map_insec *memset_sec = find(map, ".text", "libc.a(lib_a-memset.o)");
	assert_non_null(memset_sec);
	assert_string_equal(memset_sec->outsec, ".text");

	/* kept: size > 0, allocated, sorted; no debug sections, nothing discarded */
	for (size_t i = 0; i < map->ninsecs; i++) {
		const rp_map_insec *s = &map->insecs[i];
		assert_true(s->size > 0);
		assert_true(strncmp(s->outsec, ".debug", 6) != 0);
		assert_true(strcmp(s->outsec, ".comment") != 0 && strcmp(s->outsec, ".ARM.attributes") != 0);
		if (i)
			assert_true(map->insecs[i - 1].addr <= s->addr);
	}
	/* lib_a-reent.o's .text was garbage-collected: listed only under "Discarded input sections" */
	assert_null(find(map, ".text", "libc.a(lib_a-reent.o)"));

	assert_ptr_equal(rp_map_insec_at(map, 0x20000000 + 0x3b), crc);
	assert_ptr_equal(rp_map_insec_at(map, step_b->addr + 4), step_b);
	assert_null(rp_map_insec_at(map, 0x10000000));
	assert_string_equal(rp_map_region_find(map, NULL, 0x20000100)->name, "RAM");
	assert_string_equal(rp_map_region_find(map, "FLASH", 0)->name, "FLASH");
	assert_null(rp_map_region_find(map, NULL, 0x30000000)); /* *default* does not count */

	char *p = pattern_of(crc);
	assert_string_equal(p, "*/crc.o(.text.crc32_bitwise_reference_implementation)");
	free(p);
	p = pattern_of(step_a);
	assert_string_equal(p, "*/filt_a.o(.text.step)");
	free(p);
	p = pattern_of(memcpy_sec);
	assert_string_equal(p, "*/libc.a:lib_a-memcpy.o(.text)");
	free(p);
	rp_map_free(map);
}

/* An excerpt in the shape GNU ld prints, with the quirks in one place. */
static const char excerpt[] =
	"Archive member included to satisfy reference by file (symbol)\n"
	"\n"
	"/opt/lib/libc_nano.a(libc_a-memset.o)\n"
	"                              build/interp.o (memset)\n"
	"\n"
	"Discarded input sections\n"
	"\n"
	" .text          0x00000000       0x10 build/unused.o\n"
	" .text.a_very_long_discarded_section\n"
	"                0x00000000       0x20 build/unused.o\n"
	"\n"
	"Memory Configuration\n"
	"\n"
	"Name             Origin             Length             Attributes\n"
	"FLASH            0x08000000         0x00080000         xr\n"
	"RAM              0x20000000         0x00020000         xrw\n"
	"*default*        0x00000000         0xffffffff\n"
	"\n"
	"Linker script and memory map\n"
	"\n"
	"LOAD build/interp.o\n"
	"START GROUP\n"
	"LOAD /opt/lib/libc_nano.a\n"
	"END GROUP\n"
	"\n"
	".ramtext        0x20000000       0x48 load address 0x08001000\n"
	"                0x20000000                        __ramtext_start = .\n"
	" *interp.o(.text.op_add)\n"
	" .text.op_add   0x20000000       0x18 build/interp.o\n"
	"                0x20000000                op_add\n"
	" *libc_nano.a:libc_a-memset.o(.text)\n"
	" .text          0x20000018       0x30 /opt/lib/libc_nano.a(libc_a-memset.o)\n"
	"                0x20000018                memset\n"
	"\n"
	".ARM.exidx\n"
	" *(.ARM.exidx*)\n"
	"\n"
	".text           0x08000000      0x100\n"
	" *(.text .text.*)\n"
	" .text          0x08000000        0x0 build/interp.o\n"
	" .text.interpreter_dispatch_loop\n"
	"                0x08000000       0x80 build/interp.o\n"
	"                0x08000000                interpreter_dispatch_loop\n"
	" *fill*         0x08000080        0x4 \n"
	" .text.startup.main\n"
	"                0x08000084       0x40 build/main.o\n"
	" .text.__stub   0x080000c4       0x10 linker stubs\n"
	"\n"
	".note.gnu.build-id\n"
	"                0x08000100       0x24\n"
	" .note.gnu.build-id\n"
	"                0x08000100       0x24 linker stubs\n"
	"OUTPUT(fw.elf elf32-littlearm)\n"
	"LOAD linker stubs\n"
	"\n"
	".debug_info     0x00000000      0x200\n"
	" .debug_info    0x00000000      0x200 build/interp.o\n"
	".comment        0x00000000       0x26\n"
	" .comment       0x00000000       0x26 build/interp.o\n";

static void test_excerpt(void **state)
{
	(void)state;
	rp_map *map = parse_ok(excerpt);
	assert_int_equal(map->nregions, 3);
	assert_int_equal(map->regions[0].origin, 0x08000000);
	assert_int_equal(map->ninsecs, 6);
	/* by address: flash first */
	assert_string_equal(map->insecs[0].name, ".text.interpreter_dispatch_loop");
	assert_string_equal(map->insecs[0].file, "build/interp.o");
	assert_string_equal(map->insecs[0].outsec, ".text");
	assert_int_equal(map->insecs[0].size, 0x80);
	assert_string_equal(map->insecs[1].name, ".text.startup.main");
	assert_int_equal(map->insecs[1].addr, 0x08000084);
	assert_string_equal(map->insecs[2].file, "linker stubs");
	assert_string_equal(map->insecs[3].name, ".note.gnu.build-id");
	assert_string_equal(map->insecs[3].outsec, ".note.gnu.build-id");
	assert_string_equal(map->insecs[4].name, ".text.op_add");
	assert_string_equal(map->insecs[4].outsec, ".ramtext");
	assert_string_equal(map->insecs[5].archive, "/opt/lib/libc_nano.a");
	assert_string_equal(map->insecs[5].member, "libc_a-memset.o");

	char *p = pattern_of(&map->insecs[4]);
	assert_string_equal(p, "*/interp.o(.text.op_add)");
	free(p);
	p = pattern_of(&map->insecs[5]);
	assert_string_equal(p, "*/libc_nano.a:libc_a-memset.o(.text)");
	free(p);
	p = pattern_of(&map->insecs[1]);
	assert_string_equal(p, "*/main.o(.text.startup.main)");
	free(p);

	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_map_insec_pattern(&p, &map->insecs[2], &err), RP_EINPUT);
	assert_null(p);
	assert_string_equal(err.msg, "section '.text.__stub' is made by the linker ('linker stubs'): no pattern moves it");
	rp_map_free(map);
}

static void test_crlf(void **state)
{
	(void)state;
	const char text[] = "Memory Configuration\r\n\r\nName Origin Length Attributes\r\n"
			    "RAM 0x20000000 0x1000 xrw\r\n\r\nLinker script and memory map\r\n\r\n"
			    ".text 0x0 0x10\r\n .text.f\r\n 0x4 0x8 a.o\r\n";
	rp_map *map = parse_ok(text);
	assert_int_equal(map->nregions, 1);
	assert_string_equal(map->regions[0].attrs, "xrw");
	assert_int_equal(map->ninsecs, 1);
	assert_string_equal(map->insecs[0].name, ".text.f");
	assert_string_equal(map->insecs[0].file, "a.o");
	rp_map_free(map);
}

static void test_patterns(void **state)
{
	(void)state;
	rp_map_insec plain = { .name = (char *)".text.f", .file = (char *)"f.o" };
	rp_map_insec arch = { .name = (char *)".text", .file = (char *)"libm.a(s_sin.o)",
			      .archive = (char *)"libm.a", .member = (char *)"s_sin.o" };
	rp_map_insec spacey = { .name = (char *)".text.f", .file = (char *)"my dir/a b.o" };
	rp_map_insec wild = { .name = (char *)".text.f*", .file = (char *)"x/f.o" };
	char *p = NULL;
	rp_err err = RP_ERR_INIT;
	/* no directory: ":" keeps it to objects outside archives and stops ld opening a file */
	p = pattern_of(&plain);
	assert_string_equal(p, ":f.o(.text.f)");
	free(p);
	p = pattern_of(&arch);
	assert_string_equal(p, "libm.a:s_sin.o(.text)");
	free(p);
	assert_int_equal(rp_map_insec_pattern(&p, &spacey, &err), RP_EINPUT);
	assert_string_equal(err.msg, "section '.text.f' of 'my dir/a b.o': no exact ld pattern for object 'a b.o' (character ' ')");
	assert_int_equal(rp_map_insec_pattern(&p, &wild, &err), RP_EINPUT);
	assert_string_equal(err.msg, "section '.text.f*' of 'x/f.o': no exact ld pattern for section '.text.f*' (character '*')");
}

static void test_hostile(void **state)
{
	(void)state;
	expect_error("Linker script and memory map\n\n.text 0x0 0x10\n .text.f 0xZZ 0x8 a.o\n",
		     "fw.map:4: bad address '0xZZ'");
	expect_error("Linker script and memory map\n\n.text 0x0 0x10\n .text.f 0x0 0x8q a.o\n",
		     "fw.map:4: bad size '0x8q'");
	expect_error("Linker script and memory map\n\n.text 0x0 0x10\n .text.f\n   0x0 0x 1.o\n",
		     "fw.map:5: bad size '0x'");
	expect_error("Linker script and memory map\n.text 0x10000000000000000 0x10\n",
		     "fw.map:2: bad address '0x10000000000000000'");
	expect_error("Linker script and memory map\n.text 0x0 0x10\n .t 0xffffffffffffffff 0x2 a.o\n",
		     "fw.map:3: section '.t' at 0xffffffffffffffff of size 0x2 wraps around");
	expect_error("Linker script and memory map\n.text junk 0x10\n", "fw.map:2: bad address 'junk'");
	expect_error("Memory Configuration\nRAM 0x0\n",
		     "fw.map:2: memory region line needs NAME ORIGIN LENGTH [ATTRIBUTES]");
	expect_error("Memory Configuration\nRAM 0x0 0xG0 rw\n", "fw.map:2: bad length '0xG0'");
	expect_error("Memory Configuration\nRAM 0x0 0x10 rwxrwxrwxrwxrwxrw\n",
		     "fw.map:2: memory region attributes 'rwxrwxrwxrwxrwxrw' are too long");
	expect_error("hello\n", "fw.map: not a GNU ld map (no 'Linker script and memory map' part)");
	expect_error("", "fw.map: not a GNU ld map (no 'Linker script and memory map' part)");
	const char nul[] = "Linker script and memory map\n.text 0x0 0x10\n .t 0x0 0x2 a\0b.o\n";
	rp_map *map = NULL;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_map_parse(&map, nul, sizeof(nul) - 1, "fw.map", &err), RP_EINPUT);
	assert_string_equal(err.msg, "fw.map:3: NUL byte in the map");

	/* prose and rules that are not sections are skipped, not errors */
	map = parse_ok("Linker script and memory map\nAddress of section .text set to 0x8000\n"
		       ".text 0x8000 0x10\n KEEP (*(.isr_vector))\n *(EXCLUDE_FILE(*crtend.o) .ctors)\n"
		       " .text 0x8000 0x10 a.o\nCross Reference Table\n\nSymbol File\n .text 0x1 0x1 b.o\n");
	assert_int_equal(map->ninsecs, 1);
	assert_string_equal(map->insecs[0].file, "a.o");
	rp_map_free(map);

	/* a truncated map (no final newline, dangling wrapped name) parses */
	map = parse_ok("Linker script and memory map\n.text 0x0 0x10\n .text.very_long_name_here");
	assert_int_equal(map->ninsecs, 0);
	rp_map_free(map);
}

/* ld.lld's map (map_lld.c): columns by the header, alignments given, archive members,
 * "<internal>" read as linker stubs, non-allocated sections and symbols skipped, assignments
 * at both levels ignored; hostile rows refused with file and line. */
static const char lld_map[] =
	"     VMA      LMA     Size Align Out     In      Symbol\n"
	"       0        0        8     4 .isr_vector\n"
	"       0        0        8     4         start.o:(.isr_vector)\n"
	"       0        0        8     1                 vectors\n"
	"20000000 20000000        0     4 .ramtext\n"
	"20000000 20000000        0     1         __ramtext_start = .\n"
	"20000000 20000000        0     1 __ramtext_load = LOADADDR ( .ramtext )\n"
	"      20       20       70     4 .text\n"
	"      20       20       14     2         fw.o:(.text.hot)\n"
	"      21       21       14     1                 hot\n"
	"      34       34       40     4         /usr/lib/libg.a(lib_a-memcpy.o):(.text)\n"
	"      74       74        c     4         <internal>:(.text.thunk)\n"
	"      80       80        0     2         fw.o:(.text.empty)\n"
	"       0        0       2a     1 .comment\n"
	"       0        0       2a     1         <internal>:(.comment)\n";

static void test_lld(void **state)
{
	(void)state;
	rp_map *map = parse_ok(lld_map);
	assert_true(map->from_lld);
	assert_int_equal(map->nregions, 0);
	assert_int_equal(map->ninsecs, 4);   /* no empty section, nothing of .comment */
	const rp_map_insec *hot = find(map, ".text.hot", "fw.o");
	assert_non_null(hot);
	assert_int_equal(hot->addr, 0x20);
	assert_int_equal(hot->size, 0x14);
	assert_int_equal(hot->align, 2);
	assert_string_equal(hot->outsec, ".text");
	const rp_map_insec *mc = find(map, ".text", "libg.a(lib_a-memcpy.o)");
	assert_non_null(mc);
	assert_string_equal(mc->archive, "/usr/lib/libg.a");
	assert_string_equal(mc->member, "lib_a-memcpy.o");
	char *p = pattern_of(mc);
	assert_string_equal(p, "*/libg.a:lib_a-memcpy.o(.text)");
	free(p);
	const rp_map_insec *thunk = find(map, ".text.thunk", "linker stubs");
	assert_non_null(thunk);
	rp_map_free(map);
	/* the older header, without LMA */
	map = parse_ok("Address Size Align Out In Symbol\n"
		       "      20       70     4 .text\n"
		       "      20       14     2         fw.o:(.text.hot)\n");
	assert_int_equal(map->ninsecs, 0);   /* columns do not line up with the header: nothing read */
	rp_map_free(map);
	map = parse_ok("Address Size Align Out     In      Symbol\n"
		       "     20   70     4 .text\n"
		       "     20   14     2         fw.o:(.text.hot)\n");
	assert_int_equal(map->ninsecs, 1);
	rp_map_free(map);
	expect_error("             VMA              LMA     Size Align Out     In      Symbol\n              2g               20       70     4 .text\n",
		     "fw.map:2: bad address '2g'");
	expect_error("             VMA              LMA     Size Align Out     In      Symbol\n"
		     "               0                0       70     4 .text\n"
		     "ffffffffffffffff ffffffffffffffff        2     2         fw.o:(.text.x)\n",
		     "fw.map:3: bad section (it wraps around the address space) 'fw.o:(.text.x)'");
}

/* The load order (map->inputs, which numbers the sections: map_ids.c): objects and archives as
 * LOADed (each LOAD of an archive opens it anew); each archive member where the search that
 * pulled it ran: its archive's LOAD once the file that needed it is loaded, or a group's next
 * pass. Here libgcc's __udivsi3 was pulled at libgcc's LOAD, after libc's memcpy that needed
 * it, and memset by late.o at libc's second LOAD; "LOAD linker stubs" adds nothing. */
static void test_load_order(void **state)
{
	(void)state;
	static const char text[] =
		"Archive member included to satisfy reference by file (symbol)\n\n"
		"/l/libc.a(memcpy.o)           main.o (memcpy)\n"
		"/l/libc.a(a-very-long-member-name-that-wraps.o)\n"
		"                              main.o (strlen)\n"
		"/l/libgcc.a(_udivsi3.o)       /l/libc.a(memcpy.o) (__udivsi3)\n"
		"/l/libc.a(memset.o)           late.o (memset)\n\n"
		"Memory Configuration\n\nName Origin Length Attributes\n*default* 0x0 0xffffffff\n\n"
		"Linker script and memory map\n\n"
		"LOAD crt0.o\nLOAD main.o\nSTART GROUP\nLOAD /l/libc.a\nLOAD /l/libgcc.a\nEND GROUP\n"
		"LOAD late.o\nLOAD /l/libc.a\nLOAD /l/libnosys.a\n"
		".text 0x00000000 0x4\n *(.text)\n .text 0x00000000 0x4 main.o\nLOAD linker stubs\n";
	rp_map *map = NULL;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_map_parse(&map, text, sizeof(text) - 1, "o.map", &err), 0);
	static const char *const want[] = {
		"crt0.o", "main.o", "/l/libc.a", "/l/libc.a(memcpy.o)", "/l/libc.a(a-very-long-member-name-that-wraps.o)",
		"/l/libgcc.a", "/l/libgcc.a(_udivsi3.o)", "late.o", "/l/libc.a", "/l/libc.a(memset.o)", "/l/libnosys.a",
	};
	assert_int_equal(map->ninputs, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < map->ninputs; i++)
		assert_string_equal(map->inputs[i], want[i]);
	rp_map_free(map);
	/* a member an archive later in the group needed (libgcc's soft float, for libc's printf)
	 * comes in the group's second pass: after the whole first one, libm's LOAD included */
	static const char rescan[] =
		"Archive member included to satisfy reference by file (symbol)\n\n"
		"/l/libc.a(printf.o)           main.o (printf)\n"
		"/l/libgcc.a(_divdf3.o)        /l/libc.a(printf.o) (__aeabi_ddiv)\n\n"
		"Memory Configuration\n\nName Origin Length Attributes\n*default* 0x0 0xffffffff\n\n"
		"Linker script and memory map\n\n"
		"LOAD main.o\nSTART GROUP\nLOAD /l/libgcc.a\nLOAD /l/libc.a\nLOAD /l/libm.a\nEND GROUP\n"
		".text 0x00000000 0x4\n *(.text)\n .text 0x00000000 0x4 main.o\n";
	assert_int_equal(rp_map_parse(&map, rescan, sizeof(rescan) - 1, "r.map", &err), 0);
	static const char *const want_rescan[] = {
		"main.o", "/l/libgcc.a", "/l/libc.a", "/l/libc.a(printf.o)", "/l/libm.a", "/l/libgcc.a(_divdf3.o)",
	};
	assert_int_equal(map->ninputs, sizeof(want_rescan) / sizeof(want_rescan[0]));
	for (size_t i = 0; i < map->ninputs; i++)
		assert_string_equal(map->inputs[i], want_rescan[i]);
	rp_map_free(map);
	/* an object in a group adds undefined symbols too: its needs are met in the group's second
	 * pass, not at libc's LOAD after the group; LTO's output objects leave the order unknown */
	static const char object_in_group[] =
		"Archive member included to satisfy reference by file (symbol)\n\n"
		"/l/libc.a(memcpy.o)           foo.o (memcpy)\n\n"
		"Memory Configuration\n\nName Origin Length Attributes\n*default* 0x0 0xffffffff\n\n"
		"Linker script and memory map\n\n"
		"LOAD main.o\nSTART GROUP\nLOAD /l/libc.a\nLOAD foo.o\nEND GROUP\nLOAD /l/libc.a\n"
		".text 0x00000000 0x4\n *(.text)\n .text 0x00000000 0x4 main.o\n";
	assert_int_equal(rp_map_parse(&map, object_in_group, sizeof(object_in_group) - 1, "g.map", &err), 0);
	static const char *const want_object[] = { "main.o", "/l/libc.a", "foo.o", "/l/libc.a(memcpy.o)", "/l/libc.a" };
	assert_int_equal(map->ninputs, sizeof(want_object) / sizeof(want_object[0]));
	for (size_t i = 0; i < map->ninputs; i++)
		assert_string_equal(map->inputs[i], want_object[i]);
	rp_map_free(map);
	static const char lto[] = "Memory Configuration\n\nName Origin Length Attributes\n*default* 0x0 0xffffffff\n\n"
				  "Linker script and memory map\n\nLOAD main.o\nLOAD /tmp/ccA.ltrans0.ltrans.o\n"
				  ".text 0x00000000 0x4\n *(.text)\n .text 0x00000000 0x4 main.o\n";
	assert_int_equal(rp_map_parse(&map, lto, sizeof(lto) - 1, "lto.map", &err), 0);
	assert_int_equal(map->ninputs, 0);
	rp_map_free(map);
}

static void test_missing_file(void **state)
{
	(void)state;
	rp_map *map = NULL;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_map_load(&map, "/nonexistent/fw.map", &err), RP_EINPUT);
	assert_null(map);
	assert_non_null(strstr(err.msg, "/nonexistent/fw.map"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_map), cmocka_unit_test(test_excerpt), cmocka_unit_test(test_crlf),
		cmocka_unit_test(test_patterns), cmocka_unit_test(test_hostile), cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_lld), cmocka_unit_test(test_load_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
