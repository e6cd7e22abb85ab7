/* fuzz_flashmap.c: libFuzzer target for the names of several flash models (flashmap.h), as a
 * profile's "# model" line and place --flash-model SPEC@LO-HI hand them over: a name that
 * parses names itself back to the same text when it is in canonical form, reparses to the same
 * ranges whatever its spelling, and every address finds at most one range, the one holding it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/flashmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char text[512], name[1200], again[1200], why[200];
	if (size >= sizeof(text) || memchr(data, '\0', size))
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	rp_fm_map m, back;
	if (rp_fm_map_parse(&m, text, why, sizeof(why)) != 0)
		return 0;
	if (m.n < 1 || m.n > RP_FM_MAX_RANGES || rp_fm_map_name(&m, name, sizeof(name)) != 0)
		abort();
	if (rp_fm_map_parse(&back, name, why, sizeof(why)) != 0 || back.n != m.n ||
	    rp_fm_map_name(&back, again, sizeof(again)) != 0 || strcmp(name, again) != 0)
		abort();
	for (size_t i = 0; i < m.n; i++) {
		uint64_t probe[3] = { m.r[i].lo, m.r[i].hi ? m.r[i].hi - 1 : UINT64_MAX, m.r[i].hi };
		for (int k = 0; k < 3; k++) {
			int r = rp_fm_map_find(&m, probe[k]);
			if (r >= 0 && m.r[r].hi && (probe[k] < m.r[r].lo || probe[k] >= m.r[r].hi))
				abort();
			if (k < 2 && r != (int)i)
				abort();
		}
	}
	return 0;
}
