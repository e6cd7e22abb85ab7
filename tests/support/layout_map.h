/* layout_map.h: the small link map the layout tests and the trace fuzzer price on (test_layout.c
 * through layout_fixture.h, fuzz_layout_trace.c): .ramtext's load image at 0x100, then .text:
 * a, b, c (0x20 each, 4-aligned), then .rodata. */
#ifndef RAMPLACE_TEST_LAYOUT_MAP_H
#define RAMPLACE_TEST_LAYOUT_MAP_H

static const char map_text[] =
	"Memory Configuration\n\nName Origin Length Attributes\n"
	"FLASH 0x00000000 0x00400000 xr\nRAM 0x20000000 0x00010000 xrw\n\n"
	"Linker script and memory map\n\n"
	".ramtext 0x20000000 0x0 load address 0x00000100\n"
	".text 0x00000100 0x60\n"
	" .text.a 0x00000100 0x20 a.o\n"
	" .text.b 0x00000120 0x20 b.o\n"
	" .text.c 0x00000140 0x20 c.o\n"
	".rodata 0x00000160 0x10\n"
	" .rodata.t 0x00000160 0x10 a.o\n";

#endif
