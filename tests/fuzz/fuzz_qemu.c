/* fuzz_qemu.c: libFuzzer target for the QEMU readers: libramplace-qemu.so output (versions 1
 * to 5, with its flash-model costs, evictions and handler entries) and -d exec,nochain,in_asm logs, and format
 * detection; each also weighed against a small synthetic Thumb image (instruction bytes compared,
 * instruction starts decoded). */
#include <elf.h>
#include <stddef.h>
#include <stdint.h>

#include "ramplace/import.h"

/* add.w r0, r0, r0, lsl #1; adds r0, #1; bx lr; then bl and nops, repeated */
static const uint8_t code[] = { 0x00, 0xeb, 0x40, 0x00, 0x01, 0x30, 0x70, 0x47, 0xff, 0xf7, 0xc0, 0xff,
				0x00, 0xbf, 0x00, 0xbf, 0x00, 0xeb, 0x40, 0x00, 0x01, 0x30, 0x70, 0x47 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rp_section sec = { .name = ".text", .vma = 0x1000, .lma = 0x1000, .size = sizeof(code), .align = 4,
			   .file_offset = 0, .is_exec = 1, .is_alloc = 1 };
	rp_func funcs[] = { { .name = "a", .addr = 0x1000, .size = 8, .section = 0, .is_thumb = 1 },
			    { .name = "b", .addr = 0x1008, .size = 0, .section = 0, .is_thumb = 1 } };
	rp_image img = { 0 };
	img.path = "fuzz.elf";
	img.machine = EM_ARM;
	img.elfclass = 32;
	img.funcs = funcs;
	img.nfuncs = 2;
	img.sections = &sec;
	img.nsections = 1;
	img.bytes = (unsigned char *)code;
	img.nbytes = sizeof(code);
	rp_samples s;
	rp_err err = RP_ERR_INIT;
	size_t nostart = 0;
	int version;
	char details[640];
	rp_import_detect((const char *)data, size);
	for (int with_img = 0; with_img < 2; with_img++) {
		rp_import_check c;
		rp_import_check_init(&c);
		rp_samples_init(&s);
		rp_import_qemu_plugin(&s, &version, &c, with_img ? &img : NULL, (const char *)data, size, "fuzz", &err);
		rp_samples_release(&s);
		rp_costs costs;   /* version 3: the flash model's stall cycles and data reads */
		rp_costs_init(&costs);
		rp_import_qemu_costs(&costs, (const char *)data, size, "fuzz", &err);
		rp_costs_release(&costs);
		rp_samples_init(&s);
		rp_import_qemu_log(&s, &nostart, &c, with_img ? &img : NULL, (const char *)data, size, "fuzz", &err);
		rp_samples_release(&s);
		rp_import_check_details(details, sizeof(details), &c, &img);
	}
	return 0;
}
