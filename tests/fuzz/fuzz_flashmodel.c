/* fuzz_flashmodel.c: libFuzzer target for the flash models (flashmodel.h): the first line is a
 * model's spelling (as --flash-model, cost.model and the plugin's model= take it), the rest an
 * access stream, 5 bytes per access (4 of address, 1 of size, fetch/read, a window starting
 * before it, warm-up or not), replayed twice with a reset between: the same stall cycles and
 * cold tally (rp_fm_window) both times, never more than the model's largest cost per touched
 * unit, and a cold tally within the stall fed since the first window (counted: while not warm). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/flashmodel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char spec[128], why[200];
	const uint8_t *nl = memchr(data, '\n', size < sizeof(spec) ? size : sizeof(spec));
	if (!nl)
		return 0;
	size_t n = (size_t)(nl - data);
	memcpy(spec, data, n);
	spec[n] = '\0';
	rp_fm_cfg cfg;
	if (rp_fm_parse(&cfg, spec, why, sizeof(why)) != 0)
		return 0;
	rp_fm *m = rp_fm_new(&cfg);
	if (!m)
		return 0;
	const uint8_t *p = nl + 1, *end = data + size;
	uint64_t total[2] = { 0, 0 }, cold[2][2];
	unsigned worst = cfg.kind == RP_FM_CACHE ? cfg.penalty : cfg.ws;
	for (int pass = 0; pass < 2; pass++) {
		uint64_t windowed = 0, windowed_counted = 0;
		int in_window = 0;
		for (const uint8_t *q = p; q + 5 <= end; q += 5) {
			uint64_t addr = (uint64_t)q[0] | (uint64_t)q[1] << 8 | (uint64_t)q[2] << 16 | (uint64_t)q[3] << 24;
			unsigned sz = (q[4] & 15) + 1;
			if (q[4] & 32) {
				rp_fm_window(m);
				in_window = 1;
			}
			rp_fm_set_warm(m, (q[4] & 64) != 0);
			uint64_t s = rp_fm_access(m, addr, sz, q[4] & 16 ? RP_FM_READ : RP_FM_FETCH);
			if (in_window) {
				windowed += s;
				windowed_counted += q[4] & 64 ? 0 : s;
			}
			if (s > (uint64_t)worst * (sz + 1))   /* an access touches at most sz + 1 units */
				abort();
			/* misses on evicted lines are some of this access's misses */
			const rp_fm_evict *ev;
			size_t ne = rp_fm_last_evictions(m, &ev);
			uint64_t evs = 0;
			for (size_t k = 0; k < ne; k++)
				evs += ev[k].stall;
			if (ne > sz + 1 || evs > s)
				abort();
			total[pass] += s;
		}
		rp_fm_cold(m, &cold[pass][0], &cold[pass][1]);
		if (cold[pass][1] > windowed || cold[pass][0] > windowed_counted || cold[pass][0] > cold[pass][1])
			abort();
		rp_fm_reset(m);
	}
	if (total[0] != total[1] || cold[0][0] != cold[1][0] || cold[0][1] != cold[1][1])
		abort();
	rp_fm_free(m);
	return 0;
}
