/* fuzz_swo.c: libFuzzer target for the SWO decoder (swo.h) and its importer: every framing
 * (auto, raw ITM, TPIU) on the whole input, the same input fed in chunks whose sizes the input's
 * first byte picks (the counts must match the one-piece decode, or the target aborts), and
 * rp_import_swo's judgement. Seeds in corpus/swo: framed and unframed captures. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/import.h"
#include "ramplace/swo.h"

static int count_pc(void *ctx, uint32_t pc, rp_err *err)
{
	(void)err;
	uint64_t *sum = ctx;
	*sum = *sum * 31 + pc;
	return 0;
}

static void decode(rp_swo_stats *st, uint64_t *sum, rp_swo_framing framing, const uint8_t *data, size_t size,
		   size_t chunk)
{
	rp_swo_opts o = { framing, 0 };
	rp_err err = RP_ERR_INIT;
	rp_swo *d = NULL;
	*sum = 0;
	if (rp_swo_new(&d, &o, count_pc, sum, &err))
		abort();
	for (size_t i = 0; i < size; i += chunk)
		rp_swo_feed(d, data + i, size - i < chunk ? size - i : chunk, &err);
	rp_swo_finish(d, &err);
	*st = *rp_swo_get_stats(d);
	rp_swo_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t chunk = size ? (size_t)data[0] % 17 + 1 : 1;
	for (int f = RP_SWO_FRAMING_AUTO; f <= RP_SWO_FRAMING_TPIU; f++) {
		rp_swo_stats whole, pieces;
		uint64_t s1, s2;
		decode(&whole, &s1, (rp_swo_framing)f, data, size, size ? size : 1);
		decode(&pieces, &s2, (rp_swo_framing)f, data, size, chunk);
		if (s1 != s2 || memcmp(&whole, &pieces, sizeof(whole)) != 0)
			abort();   /* chunking changed the result */
	}
	rp_samples s;
	rp_swo_stats st;
	rp_swo_opts o = RP_SWO_OPTS_INIT;
	rp_err err = RP_ERR_INIT;
	rp_samples_init(&s);
	rp_import_swo(&s, &st, &o, (const char *)data, size, "fuzz", &err);
	rp_samples_release(&s);
	return 0;
}
