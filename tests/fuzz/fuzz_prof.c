/* fuzz_prof.c: libFuzzer target for "offset count" files (with and without an ELF to map the
 * offsets through), their detection, and profd file-name parsing. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rp_segment seg = { 0x20400000, 0x20400000, 0x1000, 0x100, 0x100, 5 };
	rp_image img = { 0 };
	img.segments = &seg;
	img.nsegments = 1;
	rp_samples s;
	rp_prof_header h;
	rp_err err = RP_ERR_INIT;
	rp_prof_detect((const char *)data, size);
	for (int with_elf = 0; with_elf < 2; with_elf++) {
		rp_samples_init(&s);
		rp_import_prof(&s, &h, with_elf ? &img : NULL, (const char *)data, size, "fuzz", &err);
		rp_samples_release(&s);
	}
	char *name = malloc(size + 1), image[128], id[16];
	if (name) {
		memcpy(name, data, size);
		name[size] = '\0';
		rp_prof_name_parse(name, image, sizeof(image), id, sizeof(id));
		free(name);
	}
	return 0;
}
