/* fuzz_gmon_text.c: libFuzzer target for the runtime's text dump in a console log
 * (import_gmon_text.c): block finding, hex decoding, the byte count and CRC-32 checks, then the
 * gmon.out reader on what was decoded. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "ramplace/gmon.h"
#include "ramplace/import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *bytes = NULL;
	size_t nbytes = 0, nblocks = 0, at = 0;
	rp_err err = RP_ERR_INIT;
	rp_gmon_text_detect((const char *)data, size);
	if (rp_gmon_text_decode(&bytes, &nbytes, &nblocks, &at, (const char *)data, size, "fuzz", &err) == 0) {
		rp_gmon g;
		rp_gmon_opts o = { 4, 0, 0 };
		if (rp_gmon_parse(&g, bytes, nbytes, &o, "fuzz", &err) == 0)
			rp_gmon_release(&g);
	}
	free(bytes);
	return 0;
}
