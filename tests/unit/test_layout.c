/* test_layout.c: the layout pricing (layout.h) on a small map worked out by hand: the trace's
 * runs and their call entries, the link model's addresses when a section moves to RAM or is
 * ordered first, pricing from runs equal to pricing access by access for caches, the run API
 * of flashmodel.h against single accesses, a script's orphan output sections (each its own
 * veneer block, dropped when emptied), a veneer per function called, GNU ld's order of a stub
 * block, merged strings and the load image's order, the search keeping a move only when it pays, each function's share of the
 * stall (its own misses and those it causes), and the
 * reader's refusals (file and line). */
#include <elf.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <unistd.h>

#include "ramplace/layout.h"
#include "layout/layout_link.h"
#include "ramplace/map.h"

#include "../support/layout_fixture.h"


/* a's loop calls b (entered at its first byte), returns, reads .rodata. */
static const char loop_trace[] =
	"F 100 2\nF 102 2\nF 104 4\n"   /* a: one run of three */
	"F 120 2\nF 122 2\n"            /* b entered from a: a call */
	"F 108 2\n"                     /* back in a mid-way: a return, no entry */
	"R 160 4\nR 164 4\n"            /* .rodata: one read run */
	"F 10a 2\n";

static void test_runs(void **state)
{
	fixture *f = *state;
	rp_layout_trace *t = parse(f, loop_trace);
	assert_int_equal(t->accesses, 9);
	assert_int_equal(t->nruns, 5);
	assert_int_equal(t->runs[0].n, 3);
	assert_int_equal(t->runs[0].len, 8);
	assert_int_equal(t->runs[1].piece, 1);
	assert_int_equal(t->runs[1].from, 0);               /* the call */
	assert_int_equal(t->runs[2].from, UINT32_MAX);      /* the return */
	assert_int_equal(t->runs[3].op, RP_FM_READ);
	assert_int_equal(t->runs[3].n, 2);
	assert_int_equal(t->piece_fetches[0], 5);
	assert_int_equal(t->piece_reads[3], 2);
	rp_layout_trace_free(t);
}

static void test_arrange(void **state)
{
	fixture *f = *state;
	rp_layout_trace *t = parse(f, loop_trace);
	rp_layout_link *link = NULL;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_layout_link_new(&link, &f->img, f->map, t, ".ramtext", &err), 0);
	assert_string_equal(link->text_outsec, ".text");
	assert_int_equal(link->ram_lma_known, 1);
	assert_int_equal(link->ram_lma, 0x100);
	link->all_direct = 1;   /* no call graph in a hand-made image */
	/* b to RAM: its 0x20 bytes load at 0x100, .text moves up by them and a's veneer block
	 * (one veneer, 8-aligned) follows c; .rodata follows */
	unsigned char in_ram[4] = { 0, 1, 0, 0 };
	rp_layout_plan lp = { in_ram, NULL, 0, 0, 0, 0, NULL, 0 };
	rp_layout_addrs a;
	assert_int_equal(rp_layout_arrange(t, link, &lp, &a, &err), 0);
	assert_int_equal(a.load_addr, 0x100);
	assert_int_equal(a.load_size, 0x20);
	assert_int_equal(a.addr[0], 0x120);
	assert_int_equal(a.addr[2], 0x140);
	assert_int_equal(a.nveneers, 1);
	assert_int_equal(a.veneer_base, 0x160);
	assert_int_equal(a.addr[3], 0x168);
	rp_layout_addrs_release(&a);
	/* the same with .rodata kept at its offset in a 16-byte line: 8 bytes of pad before a and c
	 * (the veneer block's alignment is the finest step), .rodata 0x10 on, not 8 */
	lp.tail_line = 16;
	assert_int_equal(rp_layout_arrange(t, link, &lp, &a, &err), 0);
	assert_int_equal(a.tail_pad, 8);
	assert_int_equal(a.addr[0], 0x128);
	assert_int_equal(a.veneer_base, 0x168);
	assert_int_equal(a.addr[3], 0x170);
	rp_layout_addrs_release(&a);
	/* c ordered first, the text aligned to 64: c at 0x100, then a and b */
	size_t order[1] = { 2 };
	rp_layout_plan lp2 = { NULL, order, 1, 0, 64, 0, NULL, 0 };
	assert_int_equal(rp_layout_arrange(t, link, &lp2, &a, &err), 0);
	assert_int_equal(a.addr[2], 0x100);
	assert_int_equal(a.addr[0], 0x120);
	assert_int_equal(a.addr[1], 0x140);
	assert_int_equal(a.addr[3], 0x160);
	rp_layout_addrs_release(&a);
	/* b 64-aligned, the largest in .text: once it moves, .text is aligned by what stays in it
	 * (ld aligns an output section to its input sections' largest), so a follows the load
	 * image at 0x120, not at 0x140 */
	f->map->insecs[1].align = 64;
	rp_layout_plan lp3 = { in_ram, NULL, 0, 0, 0, 0, NULL, 0 };
	assert_int_equal(rp_layout_arrange(t, link, &lp3, &a, &err), 0);
	assert_int_equal(a.load_size, 0x20);
	assert_int_equal(a.addr[0], 0x120);
	rp_layout_addrs_release(&a);
	f->map->insecs[1].align = 0;
	rp_layout_link_free(link);
	rp_layout_trace_free(t);
}

/* A script that leaves .text.* orphans (the FreeRTOS demo's): every function is an output
 * section of its own. GNU ld drops one whose only section moved to RAM, and appends the veneers
 * of an output section's calls into RAM to that section (8-aligned, which aligns the section):
 * a calls c, c calls b; b moves. */
static const char orphan_map[] =
	"Memory Configuration\n\nName Origin Length Attributes\n"
	"FLASH 0x00000000 0x00400000 xr\nRAM 0x20000000 0x00010000 xrw\n\n"
	"Linker script and memory map\n\n"
	".ramtext 0x20000000 0x0 load address 0x00000100\n"
	".text 0x00000100 0x20\n"
	" .text.a 0x00000100 0x20 a.o\n"
	".text.b 0x00000120 0x20\n"
	" .text.b 0x00000120 0x20 b.o\n"
	".text.c 0x00000140 0x1c\n"
	" .text.c 0x00000140 0x1c c.o\n"
	".fast 0x0000015c 0x44\n"          /* a word of its own (a LONG), then x and y */
	" .text.x 0x00000160 0x20 x.o\n"
	" .text.y 0x00000180 0x20 y.o\n"
	".rodata 0x000001a0 0x4\n"
	" .rodata.t 0x000001a0 0x4 a.o\n";

/* The link's callee at off in section piece. */
static struct rp_layout_callee *callee_of(const rp_layout_link *link, uint32_t piece, uint32_t off)
{
	for (size_t k = 0; k < link->ncallees; k++)
		if (link->callees[k].at == ((uint64_t)piece << 32 | off))
			return &link->callees[k];
	fail_msg("no callee at section %u + 0x%x", piece, off);
	return NULL;
}

/* The orphan map and its trace: a runs, calls c, which calls b and x; a reaches y. */
static rp_layout_trace *orphan_trace(rp_map **map)
{
	rp_err err = RP_ERR_INIT;
	rp_layout_trace *t = NULL;
	const char trace[] = "F 100 2\nF 140 2\nF 142 2\nF 120 2\nF 144 2\nF 160 2\nF 104 2\nF 182 2\nR 1a0 4\n";
	assert_int_equal(rp_map_parse(map, orphan_map, sizeof(orphan_map) - 1, "o.map", &err), 0);
	assert_int_equal(rp_layout_trace_parse(&t, *map, NULL, trace, strlen(trace), "o.trace", &err), 0);
	return t;
}

static void test_orphan_sections(void **state)
{
	fixture *f = *state;
	rp_map *map = NULL;
	rp_err err = RP_ERR_INIT;
	rp_layout_trace *t = orphan_trace(&map);
	rp_layout_link *link = NULL;
	assert_int_equal(rp_layout_link_new(&link, &f->img, map, t, ".ramtext", &err), 0);
	link->all_direct = 1;
	assert_int_equal(link->group[0], 0);
	assert_int_equal(link->group[1], 1);   /* each orphan its own group */
	unsigned char in_ram[6] = { 0, 1, 0, 0, 0, 0 };
	rp_layout_plan lp = { in_ram, NULL, 0, 0, 0, 0, NULL, 0 };
	rp_layout_addrs a;
	assert_int_equal(rp_layout_arrange(t, link, &lp, &a, &err), 0);
	assert_int_equal(a.load_addr, 0x100);
	assert_int_equal(a.load_size, 0x20);
	assert_int_equal(a.addr[0], 0x120);          /* .text after the load image */
	assert_int_equal(a.addr[2], 0x140);          /* .text.b gone: c follows .text, 8-aligned */
	assert_int_equal(a.nveneers, 1);             /* c's call to b: a veneer after c */
	assert_int_equal(a.veneer_key[0], (uint64_t)2 << 32 | (size_t)(callee_of(link, 1, 0) - link->callees));
	assert_int_equal(a.veneer_addr[0], 0x160);   /* c ends at 0x15c; the stub block is 8-aligned */
	assert_int_equal(a.addr[3], 0x16c);          /* .fast as it was, its word first */
	assert_int_equal(a.addr[4], 0x18c);
	assert_int_equal(a.addr[5], 0x1ac);
	rp_layout_addrs_release(&a);
	/* x (called from c) moves too: c's block has two veneers, .fast closes up behind its word */
	in_ram[3] = 1;
	assert_int_equal(rp_layout_arrange(t, link, &lp, &a, &err), 0);
	assert_int_equal(a.load_size, 0x40);
	assert_int_equal(a.addr[0], 0x140);
	assert_int_equal(a.addr[2], 0x160);
	assert_int_equal(a.nveneers, 2);
	assert_int_equal(a.veneer_addr[1], 0x188);
	assert_int_equal(a.addr[4], 0x194);
	assert_int_equal(a.addr[5], 0x1b4);
	rp_layout_addrs_release(&a);
	rp_layout_link_free(link);
	rp_layout_trace_free(t);
	rp_map_free(map);
}

/* GNU ld lays a stub block's veneers in the order of its stub table's buckets, each key led by
 * the id of the group's last code section (map_ids.c), not in the callees' order: with c's id
 * 0x21, "00000021_x+0_22" hashes to bucket 307 and "00000021_b+0_22" to 2,774, so x's veneer
 * comes first; with 0x20 (1,810 and 1,588) b's. Where a key is unknown, the callees' order. */
static void test_stub_order(void **state)
{
	fixture *f = *state;
	rp_map *map = NULL;
	rp_err err = RP_ERR_INIT;
	rp_layout_trace *t = orphan_trace(&map);
	f->img.machine = EM_ARM;
	rp_layout_link *link = NULL;
	assert_int_equal(rp_layout_link_new(&link, &f->img, map, t, ".ramtext", &err), 0);
	link->all_direct = 1;
	assert_int_equal(link->ncallees, 3);   /* the trace's entries: b, c and x */
	assert_non_null(callee_of(link, 1, 0)->stub_key = strdup("b+0_22"));
	assert_non_null(callee_of(link, 3, 0)->stub_key = strdup("x+0_22"));
	unsigned char in_ram[6] = { 0, 1, 0, 1, 0, 0 };   /* c calls b and x, both moved */
	rp_layout_plan lp = { in_ram, NULL, 0, 0, 0, 0, NULL, 0 };
	static const struct { uint32_t id; uint64_t b, x; } cases[] = {
		{ 0x21, 0x188, 0x180 }, { 0x20, 0x180, 0x188 }, { 0, 0x180, 0x188 },   /* 0: unknown */
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		map->insecs[2].bfd_id = cases[k].id;
		rp_layout_addrs a;
		assert_int_equal(rp_layout_arrange(t, link, &lp, &a, &err), 0);
		assert_int_equal(a.nveneers, 2);
		assert_int_equal(a.veneer_key[0], (uint64_t)2 << 32 | (size_t)(callee_of(link, 1, 0) - link->callees));
		assert_int_equal(a.veneer_addr[0], cases[k].b);
		assert_int_equal(a.veneer_addr[1], cases[k].x);
		rp_layout_addrs_release(&a);
	}
	rp_layout_link_free(link);
	rp_layout_trace_free(t);
	rp_map_free(map);
}

/* ld writes a veneer per function called, not per section: libc's fflush.o has _fflush_r and
 * __sflush_r in one .text. In the orphan map b's section holds b1 and b2, both called from c:
 * moved, c's block has two veneers (.fast 8 bytes further); c moved, calling both in flash,
 * the load image carries two RAM-side ones. */
static void test_veneer_per_function(void **state)
{
	fixture *f = *state;
	rp_func funcs[] = {
		{ "a", NULL, 0x100, 0x20, SIZE_MAX, 0, 1, 0 }, { "b1", NULL, 0x120, 0x10, SIZE_MAX, 0, 1, 0 },
		{ "b2", NULL, 0x130, 0x10, SIZE_MAX, 0, 1, 0 }, { "c", NULL, 0x140, 0x1c, SIZE_MAX, 0, 1, 0 },
		{ "x", NULL, 0x160, 0x20, SIZE_MAX, 0, 1, 0 }, { "y", NULL, 0x180, 0x20, SIZE_MAX, 0, 1, 0 },
	};
	f->img.funcs = funcs;
	f->img.nfuncs = sizeof(funcs) / sizeof(funcs[0]);
	rp_map *map = NULL;
	rp_err err = RP_ERR_INIT;
	rp_layout_trace *t = NULL;
	const char trace[] = "F 100 2\nF 140 2\nF 120 2\nF 142 2\nF 130 2\nF 144 2\nF 104 2\n";
	assert_int_equal(rp_map_parse(&map, orphan_map, sizeof(orphan_map) - 1, "o.map", &err), 0);
	assert_int_equal(rp_layout_trace_parse(&t, map, &f->img, trace, strlen(trace), "o.trace", &err), 0);
	rp_layout_link *link = NULL;
	assert_int_equal(rp_layout_link_new(&link, &f->img, map, t, ".ramtext", &err), 0);
	link->all_direct = 1;
	unsigned char in_ram[6] = { 0, 1, 0, 0, 0, 0 };
	rp_layout_plan lp = { in_ram, NULL, 0, 0, 0, 0, NULL, 0 };
	rp_layout_addrs a;
	assert_int_equal(rp_layout_arrange(t, link, &lp, &a, &err), 0);
	assert_int_equal(a.nveneers, 2);
	assert_int_equal(a.veneer_key[0], (uint64_t)2 << 32 | (size_t)(callee_of(link, 1, 0) - link->callees));
	assert_int_equal(a.veneer_key[1], (uint64_t)2 << 32 | (size_t)(callee_of(link, 1, 0x10) - link->callees));
	assert_int_equal(a.veneer_addr[0], 0x160);
	assert_int_equal(a.veneer_addr[1], 0x168);
	assert_int_equal(a.addr[3], 0x174);          /* .fast's word, then x: 8 bytes on from one veneer */
	/* the calls run their own veneers: with 8-byte lines, b1's and b2's each miss once */
	rp_fm_cfg cfg;
	char why[200];
	assert_int_equal(rp_fm_parse(&cfg, "cache:size=1024,ways=4,line=8,penalty=10", why, sizeof(why)), 0);
	rp_layout_cost cost;
	assert_int_equal(rp_layout_price(t, link, &lp, &a, &cfg, &cost, &err), 0);
	assert_int_equal(cost.misses, 4 + 2 + 2);   /* the copy's 4 lines, a and c, the two veneers */
	assert_int_equal(cost.extra_insns, 8 * 4 + 2);   /* 8 words copied, two veneers run */
	rp_layout_addrs_release(&a);
	in_ram[1] = 0;
	in_ram[2] = 1;
	assert_int_equal(rp_layout_arrange(t, link, &lp, &a, &err), 0);
	assert_int_equal(a.nveneers, 1);                /* a's call to c */
	assert_int_equal(a.nstubs, 3);
	assert_int_equal(a.load_size, 0x20 + 2 * 8);   /* c, 8-aligned, then a veneer each */
	rp_layout_addrs_release(&a);
	rp_layout_link_free(link);
	rp_layout_trace_free(t);
	rp_map_free(map);
	f->img.funcs = NULL;
	f->img.nfuncs = 0;
}

/* Merged strings: ld's map gives a .rodata.*.str1.1 section whose strings another one holds the
 * address of that copy (the FreeRTOS demo's .text has 237 bytes of such overlaps). Laid one
 * after the other they would push everything after them; they keep their overlap. And the load
 * image is laid as the fragment lists its sections, the largest alignment first (a 2-aligned
 * one first would pad the 4-aligned one after it). */
static const char merged_map[] =
	"Memory Configuration\n\nName Origin Length Attributes\n"
	"FLASH 0x00000000 0x00400000 xr\nRAM 0x20000000 0x00010000 xrw\n\n"
	"Linker script and memory map\n\n"
	".ramtext 0x20000000 0x0 load address 0x00000100\n"
	".text 0x00000100 0x74\n"
	" .text.a 0x00000100 0x12 a.o\n"
	" .text.b 0x00000114 0x20 b.o\n"
	" .text.c 0x00000134 0x12 c.o\n"
	" .rodata.x.str1.1 0x00000148 0x18 a.o\n"
	" .rodata.y.str1.1 0x00000148 0x19 b.o\n"
	" .rodata.z 0x00000164 0x10 c.o\n";

static void test_merged_strings(void **state)
{
	fixture *f = *state;
	rp_map *map = NULL;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_map_parse(&map, merged_map, sizeof(merged_map) - 1, "m.map", &err), 0);
	map->insecs[0].align = map->insecs[2].align = 2;   /* Thumb functions' sections */
	map->insecs[3].align = map->insecs[4].align = 1;
	const char trace[] = "F 100 2\nF 114 2\nF 134 2\nR 148 4\nR 164 4\n";
	rp_layout_trace *t = NULL;
	assert_int_equal(rp_layout_trace_parse(&t, map, NULL, trace, strlen(trace), "m.trace", &err), 0);
	rp_layout_link *link = NULL;
	assert_int_equal(rp_layout_link_new(&link, &f->img, map, t, ".ramtext", &err), 0);
	link->all_direct = 1;
	unsigned char in_ram[6] = { 1, 1, 1, 0, 0, 0 };   /* a, c (0x12, 2-aligned), b (0x20, 4-aligned) */
	rp_layout_plan lp = { in_ram, NULL, 0, 0, 0, 0, NULL, 0 };
	rp_layout_addrs a;
	assert_int_equal(rp_layout_arrange(t, link, &lp, &a, &err), 0);
	assert_int_equal(a.load_size, 0x44);         /* b, a, c: 0x20 + 0x12 + 0x12 (a, b, c: 0x48) */
	assert_int_equal(a.addr[3], 0x144);          /* the strings follow the load image */
	assert_int_equal(a.addr[4], 0x144);          /* still one copy */
	assert_int_equal(a.addr[5], 0x160);          /* after the longer, at its alignment */
	rp_layout_addrs_release(&a);
	/* b alone moves, called from a (and calling c): GNU ld puts .text's stub block after its
	 * last code section (c), ahead of the strings the script also put in .text (the FreeRTOS
	 * demo's *(.rodata*)): laid at its end, the model had the demo's strings and everything
	 * after .text 4 to 8 bytes off (237 accessed sections in one relink) */
	memset(in_ram, 0, sizeof(in_ram));
	in_ram[1] = 1;
	assert_int_equal(rp_layout_arrange(t, link, &lp, &a, &err), 0);
	assert_int_equal(a.load_size, 0x28);         /* b and its RAM-side veneer to c */
	assert_int_equal(a.addr[0], 0x128);
	assert_int_equal(a.addr[2], 0x13a);
	assert_int_equal(a.nveneers, 1);
	assert_int_equal(a.veneer_addr[0], 0x150);   /* c ends at 0x14c; the block is 8-aligned */
	assert_int_equal(a.addr[3], 0x158);          /* the strings after the stubs */
	assert_int_equal(a.addr[4], 0x158);
	assert_int_equal(a.addr[5], 0x174);
	rp_layout_addrs_release(&a);
	/* the same with a and c ordered and a pad keeping what follows .text at its offset in a
	 * 32-byte line: no code is left behind the ordered sections, so ld puts the stubs right
	 * after c, before the fragment's `. += pad` (0x150, not 0x160 after it) */
	const size_t order[] = { 0, 2 };
	rp_layout_plan ordered = { in_ram, order, 2, 0, 0, 32, NULL, 0 };
	assert_int_equal(rp_layout_arrange(t, link, &ordered, &a, &err), 0);
	assert_int_equal(a.addr[2], 0x13a);
	assert_int_equal(a.veneer_addr[0], 0x150);
	assert_int_equal(a.tail_pad, 16);
	assert_int_equal(a.addr[3], 0x168);          /* stubs, pad, strings */
	assert_int_equal(a.addr[5], 0x184);
	rp_layout_addrs_release(&a);
	/* a alone (0x12 bytes) moves, calling b in flash: the RAM side's stub block is 8-aligned
	 * like the flash side's, 0x18 + 8 (not 0x12 + 8, rounded to 0x1c) */
	memset(in_ram, 0, sizeof(in_ram));
	in_ram[0] = 1;
	assert_int_equal(rp_layout_arrange(t, link, &lp, &a, &err), 0);
	assert_int_equal(a.load_size, 0x20);
	rp_layout_addrs_release(&a);
	rp_layout_link_free(link);
	rp_layout_trace_free(t);
	rp_map_free(map);
}

/* Runs priced through the run API cost what the single accesses cost: on a cache, and with
 * the fetches' starts on ws and art too (prefetch=1 counts the fetches served since a read). */
static void test_runs_exact(void **state)
{
	(void)state;
	const char *specs[] = { "cache:size=256,ways=2,line=16,penalty=10", "cache:rp2040",
				"cache:size=128,ways=1,line=8,penalty=7", "ws:5", "art:ws=5,line=16,lines=8",
				"art:ws=3,line=8,lines=2,prefetch=1" };
	for (size_t s = 0; s < sizeof(specs) / sizeof(specs[0]); s++) {
		rp_fm_cfg cfg;
		char why[200];
		assert_int_equal(rp_fm_parse(&cfg, specs[s], why, sizeof(why)), 0);
		rp_fm *one = rp_fm_new(&cfg), *runs = rp_fm_new(&cfg);
		uint64_t a = 0, b = 0, seed = 12345 + s;
		for (int k = 0; k < 2000; k++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			uint64_t start = (seed >> 33) % 2048 & ~1ull, n = 1 + (seed >> 20) % 12, len = 0, starts = 0;
			for (uint64_t i = 0; i < n; i++) {
				unsigned size = (seed >> (i % 30)) & 1 ? 4 : 2;
				a += rp_fm_access(one, start + len, size, RP_FM_FETCH);
				starts |= 1ull << (len / 2);
				len += size;
			}
			/* the starts half the time: with them or without, a cache costs the same */
			int exact_only = strncmp(specs[s], "cache", 5) != 0;
			b += rp_fm_access_run(runs, start, len, n, k % 2 || exact_only ? starts : 0, RP_FM_FETCH);
			if (k % 7 == 0) {
				a += rp_fm_access(one, 4096 + (seed >> 40) % 256, 4, RP_FM_READ);
				b += rp_fm_access_run(runs, 4096 + (seed >> 40) % 256, 4, 1, 0, RP_FM_READ);
			}
		}
		assert_int_equal(a, b);
		rp_fm_stats sa, sb;
		rp_fm_get_stats(one, &sa);
		rp_fm_get_stats(runs, &sb);
		assert_int_equal(sa.misses, sb.misses);
		assert_int_equal(sa.fetches, sb.fetches);
		rp_fm_free(one);
		rp_fm_free(runs);
	}
}

/* A function called 200 times from a loop that fits the cache: moving it costs a veneer per
 * call and its copy, and saves nothing, so the search keeps it in flash. */
static void test_search_keeps_what_does_not_pay(void **state)
{
	fixture *f = *state;
	char *text = malloc(200 * 40 + 1), *p = text;
	for (int i = 0; i < 200; i++)
		p += sprintf(p, "F 100 4\nF 104 4\nF 140 2\nF 142 2\nF 108 2\n");
	rp_layout_trace *t = parse(f, text);
	free(text);
	rp_layout_link *link = NULL;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_layout_link_new(&link, &f->img, f->map, t, ".ramtext", &err), 0);
	link->all_direct = 1;
	size_t secs[1] = { 2 }, first[2] = { 0, 1 };
	rp_layout_units units = { secs, first, 1, 0, 0 };
	rp_fm_cfg cfg;
	char why[200];
	assert_int_equal(rp_fm_parse(&cfg, "cache:size=256,ways=2,line=16,penalty=10", why, sizeof(why)), 0);
	rp_layout_choice c;
	assert_int_equal(rp_layout_search(t, link, &units, &cfg, 0, &c, &err), 0);
	assert_int_equal(c.nunits_kept, 0);
	assert_true(c.as_placed.cycles > c.flash_only.cycles);
	assert_int_equal(c.chosen.cycles, c.flash_only.cycles);
	rp_layout_choice_release(&c);
	rp_layout_link_free(link);
	rp_layout_trace_free(t);
}

/* a and b share both sets of a direct-mapped cache of two lines and take turns: each miss after
 * the first two is on a line the other evicted. rp_layout_attribute credits a function with its
 * own misses and with those it caused (what moving it saves): 100 + 99 of each's, 10 cycles a
 * miss; c, never run, nothing. With b in RAM (calls without veneers), a misses once. */
static void test_attribute(void **state)
{
	fixture *f = *state;
	char *text = malloc(100 * 20 + 1), *p = text;
	for (int i = 0; i < 100; i++)
		p += sprintf(p, "F 100 2\nF 120 2\n");
	rp_layout_trace *t = parse(f, text);
	free(text);
	rp_func funcs[3] = { { "a", NULL, 0x100, 0x20, SIZE_MAX, 0, 0, 0 }, { "b", NULL, 0x120, 0x20, SIZE_MAX, 0, 0, 0 },
			     { "c", NULL, 0x140, 0x20, SIZE_MAX, 0, 0, 0 } };
	rp_image img = f->img;
	img.funcs = funcs;
	img.nfuncs = 3;
	img.veneer_size = 0;   /* no veneer block to share the sets once b moves */
	rp_layout_link *link = NULL;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_layout_link_new(&link, &img, f->map, t, ".ramtext", &err), 0);
	rp_fm_cfg cfg;
	char why[200];
	assert_int_equal(rp_fm_parse(&cfg, "cache:size=32,ways=1,line=16,penalty=10", why, sizeof(why)), 0);
	double per_func[3];
	unsigned char in_ram[4] = { 0, 0, 0, 0 };
	for (int moved = 0; moved < 2; moved++) {
		in_ram[1] = (unsigned char)moved;
		rp_layout_plan lp = { in_ram, NULL, 0, 0, 0, 0, NULL, 0 };
		rp_layout_addrs a;
		assert_int_equal(rp_layout_arrange(t, link, &lp, &a, &err), 0);
		assert_int_equal(rp_layout_attribute(t, link, &lp, &a, &cfg, &img, per_func, &err), 0);
		rp_layout_cost cost;
		assert_int_equal(rp_layout_price(t, link, &lp, &a, &cfg, &cost, &err), 0);
		if (!moved) {
			assert_true(per_func[0] == 1990.0 && per_func[1] == 1990.0);
			assert_int_equal(cost.stall, 2000);   /* each miss once: own, and as a cause */
		} else {
			assert_true(per_func[0] == 10.0 && per_func[1] == 0.0);
		}
		assert_true(per_func[2] == 0.0);
		rp_layout_addrs_release(&a);
	}
	rp_layout_link_free(link);
	rp_layout_trace_free(t);
}

static void test_refusals(void **state)
{
	fixture *f = *state;
	bad(f, "F 100 2\nF 102 2\nX 104 2\n", "t.trace:3:");
	bad(f, "F 100 0\n", "t.trace:1:");
	bad(f, "F 100 17\n", "t.trace:1:");
	bad(f, "F 1g0 2\n", "t.trace:1:");
	bad(f, "F 100000000 2\n", "t.trace:1:");        /* above 4 GiB */
	bad(f, "F 100 2 extra\n", "t.trace:1:");
	bad(f, "\n", "t.trace:1:");
	bad(f, "", "no access");
	bad(f, "F 100 2\n# a note\n", "t.trace:2:");                 /* no comment the plugin does not write */
	bad(f, "# window at 0\nF 100 2\nF 102 2\n", "cut short");    /* sampled, without its total */
	bad(f, "# window at 0\nF 100 2\nF 102 2\n# accesses 1\n", "cut short");
}

/* A trace whose fetches fall in no section of the map is another build's. */
static void test_other_build(void **state)
{
	fixture *f = *state;
	rp_layout_trace *t = parse(f, "F 10 2\nF 12 2\nR 20 4\n");
	assert_int_equal(t->outside, 3);
	rp_layout_link *link = NULL;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_layout_link_new(&link, &f->img, f->map, t, ".ramtext", &err), RP_EINPUT);
	assert_non_null(strstr(err.msg, "another build"));
	rp_layout_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_arrange, setup, teardown),
		cmocka_unit_test_setup_teardown(test_orphan_sections, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stub_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_veneer_per_function, setup, teardown),
		cmocka_unit_test_setup_teardown(test_merged_strings, setup, teardown),
		cmocka_unit_test(test_runs_exact),
		cmocka_unit_test_setup_teardown(test_search_keeps_what_does_not_pay, setup, teardown),
		cmocka_unit_test_setup_teardown(test_attribute, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_build, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
