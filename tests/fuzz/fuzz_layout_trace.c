/* fuzz_layout_trace.c: libFuzzer target for the plugin's access trace as place --trace reads it
 * (layout_trace.c): line parsing, the input sections of a small fixed map, the runs; and when
 * it parses, one layout arranged and priced over it (layout_price.c). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/layout.h"
#include "ramplace/map.h"

#include "../support/layout_map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static rp_map *map;
	rp_err err = RP_ERR_INIT;
	if (!map && rp_map_parse(&map, map_text, sizeof(map_text) - 1, "fuzz.map", &err))
		abort();
	rp_layout_trace *t = NULL;
	if (rp_layout_trace_parse(&t, map, NULL, (const char *)data, size, "fuzz", &err))
		return 0;
	rp_image img;
	memset(&img, 0, sizeof(img));
	img.veneer_size = 8;
	img.veneer_block_align = 8;
	rp_layout_link *link = NULL;
	if (rp_layout_link_new(&link, &img, map, t, ".ramtext", &err) == 0) {
		unsigned char in_ram[4] = { 0, 1, 0, 0 };
		size_t order[2] = { 2, 0 };
		rp_layout_plan lp = { in_ram, order, 2, 16, 64, 16, NULL, 0 };
		rp_layout_addrs a;
		rp_fm_cfg cfg;
		char why[100];
		if (rp_fm_parse(&cfg, "cache:size=256,ways=2,line=16,penalty=10", why, sizeof(why)) == 0 &&
		    rp_layout_arrange(t, link, &lp, &a, &err) == 0) {
			rp_layout_cost c;
			rp_layout_price(t, link, &lp, &a, &cfg, &c, &err);
			rp_layout_addrs_release(&a);
		}
		rp_layout_link_free(link);
	}
	rp_layout_trace_free(t);
	return 0;
}
