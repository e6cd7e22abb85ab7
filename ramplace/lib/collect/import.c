/* import.c: rp_import_file, the one entry point for every import format (see import.h): detects
 * the format, runs its reader against the image (byte order, address size, functions) and
 * describes the run in rp_import_meta. Owns nothing beyond the call. */
#include <stdio.h>
#include <string.h>

#include "ramplace/gmon.h"
#include "ramplace/import.h"

static int import_gmon(rp_samples *s, rp_import_meta *meta, int openocd, const rp_image *img,
		       const char *data, size_t len, const char *name, rp_err *err)
{
	rp_gmon g;
	rp_gmon_opts o = { img->elfclass == 64 ? 8 : 4, img->big_endian, openocd };
	rp_samples scratch;
	int rc = rp_gmon_parse(&g, data, len, &o, name, err);
	if (rc)
		return rc;
	rp_samples_init(&scratch);
	rc = rp_gmon_to_samples(&scratch, &g, img, name, err);
	if (!rc && g.nhists) {
		meta->rate_hz = g.hists[0].rate;
		snprintf(meta->dimension, sizeof(meta->dimension), "%s", g.hists[0].dimen);
		snprintf(meta->method, sizeof(meta->method), "histogram");
	}
	meta->saturated = g.saturated;
	meta->nbb = g.nbb;
	rp_gmon_release(&g);
	if (!rc) {
		rp_samples_release(s);
		*s = scratch;   /* s was empty: the caller merges runs */
	} else {
		rp_samples_release(&scratch);
	}
	return rc;
}

/* Both QEMU formats count executed instructions: an exact profile, no sampling rate. */
static int import_qemu(rp_samples *s, rp_import_meta *meta, rp_import_format fmt, const char *data,
		       size_t len, const char *name, rp_err *err)
{
	rp_samples scratch;
	rp_samples_init(&scratch);
	int rc = fmt == RP_IMPORT_QEMU ? rp_import_qemu_plugin(&scratch, data, len, name, err)
				       : rp_import_qemu_log(&scratch, &meta->blocks_without_insns, data, len, name, err);
	if (!rc && scratch.total == 0)
		rc = rp_err_set(err, RP_EINPUT, "%s: byte %zu: no executed instructions", name, len);
	if (!rc)
		rc = rp_samples_merge(s, &scratch, name, err);
	rp_samples_release(&scratch);
	if (!rc)
		snprintf(meta->method, sizeof(meta->method), "exact");
	return rc;
}

int rp_import_file(rp_samples *s, rp_import_meta *meta, rp_import_format fmt, const rp_image *img,
		   const char *data, size_t len, const char *name, rp_err *err)
{
	memset(meta, 0, sizeof(*meta));
	if (fmt == RP_IMPORT_AUTO)
		fmt = rp_import_detect(data, len);
	if (fmt == RP_IMPORT_GMON || fmt == RP_IMPORT_OPENOCD) {
		if (s->total || s->narcs)
			return rp_err_set(err, RP_EUSAGE, "%s: a gmon.out is imported into an empty histogram", name);
		return import_gmon(s, meta, fmt == RP_IMPORT_OPENOCD, img, data, len, name, err);
	}
	if (fmt == RP_IMPORT_PROF) {
		rp_prof_header h;
		int rc = rp_import_prof(s, &h, img, data, len, name, err);
		if (!rc)
			snprintf(meta->method, sizeof(meta->method), "sampled");
		return rc;
	}
	if (fmt == RP_IMPORT_QEMU || fmt == RP_IMPORT_QEMU_LOG)
		return import_qemu(s, meta, fmt, data, len, name, err);
	return rp_import_parse(s, fmt, data, len, name, err);
}
