/* fuzz_config.c: libFuzzer target for the ramplace.yaml reader: any bytes must parse into a
 * consistent config or fail with RP_EINPUT and a "fuzz.yaml:LINE:COLUMN: " message. Seeds:
 * tests/fuzz/corpus/config/. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rp_config *cfg = NULL;
	rp_err err = RP_ERR_INIT;
	if (rp_config_parse(&cfg, (const char *)data, size, "fuzz.yaml", &err)) {
		if ((err.code != RP_EINPUT && err.code != RP_ENOMEM) || strncmp(err.msg, "fuzz.yaml:", 10) != 0)
			abort();
		return 0;
	}
	if (!cfg->nregions)
		abort();
	for (size_t i = 0; i < cfg->nregions; i++) {
		const rp_region_cfg *r = &cfg->regions[i];
		if (!r->name || !r->outsec || (!r->budget && !r->budget_auto) || !r->align || (r->align & (r->align - 1)) ||
		    !(r->speed > 0 && r->speed <= 1))
			abort();
	}
	rp_config_free(cfg);
	return 0;
}
