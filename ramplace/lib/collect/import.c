/* import.c: rp_import_file, the one entry point for every import format (see import.h): detects
 * the format, runs its reader against the image (byte order, address size, functions), weighs
 * the samples against the image (import_check.c) and describes the run in rp_import_meta. Each
 * reader fills a scratch histogram that joins the caller's only on success. Owns nothing beyond
 * the call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/gmon.h"
#include "ramplace/import.h"

/* A histogram that covers none of the ELF's code was taken on another program: said apart
 * from the samples, since it may hold few. */
static void check_hist_range(rp_import_check *c, const rp_gmon *g, const rp_image *img)
{
	for (size_t h = 0; h < g->nhists; h++)
		for (size_t i = 0; i < img->nsections; i++) {
			const rp_section *sec = &img->sections[i];
			if (sec->is_exec && sec->size && g->hists[h].lowpc < sec->vma + sec->size &&
			    sec->vma < g->hists[h].highpc)
				return;
		}
	if (g->nhists) {
		c->hist_apart = 1;
		c->hist_lo = g->hists[0].lowpc;
		c->hist_hi = g->hists[0].highpc;
	}
}

/* gprof's arcs name a call site and a point in the callee: both inside functions. Weighed only
 * when there is no histogram time to weigh. */
static int check_arcs(rp_import_check *c, const rp_gmon *g, const rp_image *img, rp_err *err)
{
	rp_samples ends;
	int rc = 0;
	rp_samples_init(&ends);
	for (size_t i = 0; !rc && i < g->narcs; i++)
		if (rp_samples_add(&ends, g->arcs[i].from_pc, g->arcs[i].count, err) ||
		    rp_samples_add(&ends, g->arcs[i].self_pc, g->arcs[i].count, err))
			rc = err->code;
	if (!rc)
		rc = rp_import_check_pcs(c, img, &ends, RP_CHECK_IN_CODE, err);
	rp_samples_release(&ends);
	return rc;
}

static int import_gmon(rp_samples *s, rp_import_meta *meta, int openocd, const rp_image *img,
		       const char *data, size_t len, const char *name, rp_err *err)
{
	rp_gmon g;
	rp_gmon_opts o = { .addr_bytes = img->elfclass == 64 ? 8 : 4, .big_endian = img->big_endian,
			   .bins_little_endian = openocd };
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
	/* bins are credited by overlap, not at sampled PCs: only "inside the code" is asked */
	if (!rc) {
		check_hist_range(&meta->check, &g, img);
		meta->check.scale = scratch.scale;
		rc = scratch.total ? rp_import_check_pcs(&meta->check, img, &scratch, RP_CHECK_IN_CODE, err)
				   : check_arcs(&meta->check, &g, img, err);
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
static int import_qemu(rp_samples *scratch, rp_import_meta *meta, rp_import_format fmt, const rp_image *img,
		       const char *data, size_t len, const char *name, rp_err *err)
{
	int rc = fmt == RP_IMPORT_QEMU
			 ? rp_import_qemu_plugin(scratch, &meta->plugin_version, &meta->check, img, data, len, name, err)
			 : rp_import_qemu_log(scratch, &meta->blocks_without_insns, &meta->check, img, data, len, name, err);
	if (!rc && scratch->total == 0)
		rc = rp_err_set(err, RP_EINPUT, "%s: byte %zu: no executed instructions", name, len);
	if (!rc)
		snprintf(meta->method, sizeof(meta->method), "exact");
	return rc;
}

int rp_import_file(rp_samples *s, rp_import_meta *meta, rp_import_format fmt, const rp_image *img,
		   const char *data, size_t len, const char *name, rp_err *err)
{
	rp_samples scratch;
	int rc;
	memset(meta, 0, sizeof(*meta));
	rp_import_check_init(&meta->check);
	if (fmt == RP_IMPORT_AUTO)
		fmt = rp_import_detect(data, len);
	if (fmt == RP_IMPORT_GMON || fmt == RP_IMPORT_OPENOCD || fmt == RP_IMPORT_GMON_TEXT) {
		if (s->total || s->narcs)
			return rp_err_set(err, RP_EUSAGE, "%s: a gmon.out is imported into an empty histogram", name);
		if (fmt != RP_IMPORT_GMON_TEXT)
			return import_gmon(s, meta, fmt == RP_IMPORT_OPENOCD, img, data, len, name, err);
		unsigned char *bytes;
		size_t nbytes, at;
		char where[1100];
		rc = rp_gmon_text_decode(&bytes, &nbytes, &meta->text_blocks, &at, data, len, name, err);
		/* what the gmon.out reader finds wrong is at an offset of the decoded bytes: say which */
		snprintf(where, sizeof(where), "%s: the dump at byte %zu, decoded", name, at);
		if (!rc)
			rc = import_gmon(s, meta, 0, img, (const char *)bytes, nbytes, where, err);
		free(bytes);
		return rc;
	}
	rp_samples_init(&scratch);
	if (fmt == RP_IMPORT_PROF) {
		rp_prof_header h;
		rc = rp_import_prof(&scratch, &h, img, data, len, name, err);
		if (!rc)
			snprintf(meta->method, sizeof(meta->method), "sampled");
	} else if (fmt == RP_IMPORT_QEMU || fmt == RP_IMPORT_QEMU_LOG) {
		rc = import_qemu(&scratch, meta, fmt, img, data, len, name, err);
	} else if (fmt == RP_IMPORT_SWO) {
		rp_swo_opts o = RP_SWO_OPTS_INIT;
		rc = rp_import_swo(&scratch, &meta->swo, &o, data, len, name, err);
		if (!rc)
			snprintf(meta->method, sizeof(meta->method), "swo");
	} else {
		rc = rp_import_parse(&scratch, fmt, data, len, name, err);
	}
	/* PCs and "offset count" samples are exact program counters: on instruction starts */
	if (!rc && fmt != RP_IMPORT_QEMU && fmt != RP_IMPORT_QEMU_LOG)
		rc = rp_import_check_pcs(&meta->check, img, &scratch, RP_CHECK_INSN_START, err);
	if (!rc)
		rc = rp_samples_merge(s, &scratch, name, err);
	rp_samples_release(&scratch);
	return rc;
}
