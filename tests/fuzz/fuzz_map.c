/* fuzz_map.c: libFuzzer target for the GNU ld map reader: any bytes must either parse into a
 * map whose sections are sorted and non-empty, or fail with RP_EINPUT; patterns of whatever
 * parsed must be made or refused without crashing. Seeds: tests/fuzz/corpus/map/. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "ramplace/map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rp_map *map = NULL;
	rp_err err = RP_ERR_INIT;
	if (rp_map_parse(&map, (const char *)data, size, "fuzz.map", &err)) {
		if (err.code != RP_EINPUT && err.code != RP_ENOMEM)
			abort();
		return 0;
	}
	for (size_t i = 0; i < map->ninsecs; i++) {
		const rp_map_insec *s = &map->insecs[i];
		if (s->size == 0 || (i && map->insecs[i - 1].addr > s->addr))
			abort();
		if (rp_map_insec_at(map, s->addr) == NULL)
			abort();
		char *pattern = NULL;
		if (rp_map_insec_pattern(&pattern, s, &err) == 0)
			free(pattern);
	}
	rp_map_region_find(map, NULL, 0x20000000);
	rp_map_free(map);
	return 0;
}
