/* fuzz_import.c: libFuzzer target for the pclog and pclist importers and format detection. */
#include <stddef.h>
#include <stdint.h>

#include "ramplace/import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rp_samples s;
	rp_err err = RP_ERR_INIT;
	rp_samples_init(&s);
	rp_import_detect((const char *)data, size);
	rp_import_parse(&s, RP_IMPORT_PCLOG, (const char *)data, size, "fuzz", &err);
	rp_import_parse(&s, RP_IMPORT_PCLIST, (const char *)data, size, "fuzz", &err);
	rp_samples_release(&s);
	return 0;
}
