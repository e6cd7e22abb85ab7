/* fuzz_qemu.c: libFuzzer target for the QEMU readers: libramplace-qemu.so output and
 * -d exec,nochain,in_asm logs, and format detection. */
#include <stddef.h>
#include <stdint.h>

#include "ramplace/import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rp_samples s;
	rp_err err = RP_ERR_INIT;
	size_t nostart = 0;
	rp_import_detect((const char *)data, size);
	rp_samples_init(&s);
	rp_import_qemu_plugin(&s, (const char *)data, size, "fuzz", &err);
	rp_samples_release(&s);
	rp_samples_init(&s);
	rp_import_qemu_log(&s, &nostart, (const char *)data, size, "fuzz", &err);
	rp_samples_release(&s);
	return 0;
}
