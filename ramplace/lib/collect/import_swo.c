/* import_swo.c: `ramplace import --format swo`: a raw SWO capture file (swo.h) into an
 * rp_samples histogram, each DWT PC sample one sample at its PC. The capture is hostile: a
 * file that yields no PC sample, or of which most bytes had to be skipped resynchronising, is
 * refused with one line naming the file and the byte offset of its first error; a capture that
 * merely ends inside a packet, or lost packets (overflow), is accepted and the counts are
 * returned for the run's notes. Owns nothing beyond the call. */
#include "ramplace/import.h"
#include "ramplace/swo.h"

static int add_pc(void *ctx, uint32_t pc, rp_err *err)
{
	return rp_samples_add(ctx, pc, 1, err);
}

/* Why a decoded capture is not a profile, or 0. */
static int judge(const rp_swo_stats *st, size_t len, const char *name, rp_err *err)
{
	uint64_t at = st->errors ? st->first_error : len;
	if (st->skipped > st->bytes / 2)
		return rp_err_set(err, RP_EINPUT,
				  "%s: byte %llu: not an SWO capture: %llu of %llu bytes skipped resynchronising after %llu errors",
				  name, (unsigned long long)at, (unsigned long long)st->skipped,
				  (unsigned long long)st->bytes, (unsigned long long)st->errors);
	if (st->samples == 0)
		return rp_err_set(err, RP_EINPUT,
				  "%s: byte %llu: no DWT PC sample packets in %llu bytes (%s; %llu sleeping, %llu overflows, %llu errors); "
				  "is PC sampling enabled (DWT_CTRL.PCSAMPLENA, ITM_TCR.DWTENA)?",
				  name, (unsigned long long)at, (unsigned long long)st->bytes,
				  st->framed ? "TPIU frames" : "raw ITM", (unsigned long long)st->sleeping,
				  (unsigned long long)st->overflows, (unsigned long long)st->errors);
	return 0;
}

int rp_import_swo(rp_samples *s, rp_swo_stats *stats, const rp_swo_opts *opts, const char *data, size_t len,
		  const char *name, rp_err *err)
{
	rp_swo *d = NULL;
	rp_samples scratch;
	int rc = rp_swo_new(&d, opts, add_pc, &scratch, err);
	if (rc)
		return rc;
	rp_samples_init(&scratch);
	rc = rp_swo_feed(d, data, len, err);
	if (!rc)
		rc = rp_swo_finish(d, err);
	*stats = *rp_swo_get_stats(d);
	if (!rc)
		rc = judge(stats, len, name, err);
	if (!rc)
		rc = rp_samples_merge(s, &scratch, name, err);
	rp_samples_release(&scratch);
	rp_swo_free(d);
	return rc;
}
