/* swo_record.c: DWT PC sampling over SWO recorded into a run (swo_record.h). Owns, for the
 * call, the gdbserver connection, the stream's socket, the decoder and the samples. The stream
 * is connected before the target is let run, so nothing it sends is lost. Workload: one stream
 * of up to millions of samples per call, every wait bounded by the options. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ramplace/profiledb.h"
#include "ramplace/swo_record.h"

static int add_pc(void *ctx, uint32_t pc, rp_err *err)
{
	return rp_samples_add(ctx, pc, 1, err);
}

/* The gdbserver part: connect, configure unless told not to. *rsp stays open for the continue. */
static int prepare_target(const rp_swo_record_opts *o, const rp_image *img, rp_rsp **rsp, char *note, size_t notecap,
			  rp_err *err)
{
	uint32_t interval = o->cfg.interval;
	rp_rsp_opts ro = o->rsp;
	ro.elf_machine = img->machine;
	ro.elfclass = img->elfclass;
	ro.big_endian = img->big_endian;
	ro.want_ra = 0;
	ro.cancel = o->interrupted;
	int rc = rp_rsp_connect(rsp, o->host, o->port, &ro, err);
	if (rc < 0 || o->no_config)
		return rc < 0 ? rc : 0;
	rc = rp_swo_configure(*rsp, &o->cfg, &interval, note, notecap, err);
	if (rc == 0)
		snprintf(note, notecap, "configured PC sampling every %u cycles", (unsigned)interval);
	return rc < 0 ? rc : 0;
}

static void describe(rp_swo_record_result *out)
{
	const rp_swo_stats *st = &out->stats;
	snprintf(out->reason, sizeof(out->reason), "%s; SWO: %llu sleeping samples, %llu overflows (packets lost), "
		 "%llu framing errors, %llu bytes skipped resynchronising, %s%s%s", out->live.reason,
		 (unsigned long long)st->sleeping, (unsigned long long)st->overflows, (unsigned long long)st->errors,
		 (unsigned long long)st->skipped, st->framed ? "TPIU frames" : "raw ITM", out->note[0] ? "; " : "", out->note);
}

static int store(const rp_swo_record_opts *o, const rp_image *img, const rp_samples *s, rp_swo_record_result *out,
		 rp_err *err)
{
	char source[300];
	rp_run_info info = RP_RUN_INFO_INIT;
	rp_db *db = NULL;
	snprintf(source, sizeof(source), "swo %s:%d", o->swo_host, o->swo_port);
	info.source = source;
	info.tool = "record";
	info.method = "swo";
	info.duration_s = out->live.elapsed_s;
	info.rate_hz = out->live.elapsed_s > 0 ? (double)out->stats.samples / out->live.elapsed_s : 0;
	info.stop_reason = out->reason;
	/* DWT PC sampling never halts the target: no slowdown. Whether the run went on to the
	 * target's exit is not known (the stream ending says nothing of it): covered stays unknown. */
	info.slowdown = 0.0;
	int rc = rp_db_open(&db, o->db_path, err);
	if (!rc)
		rc = rp_db_store_run(db, img, &info, s, &out->run_id, err);
	rp_db_close(db);
	return rc;
}

/* Reads the stream into the decoder, then stores what came (also after a read error). */
static int read_and_store(const rp_swo_record_opts *o, const rp_image *img, int fd, rp_swo *dec, const rp_samples *s,
			  rp_swo_record_result *out, rp_err *err)
{
	rp_swo_live_opts live = o->live;
	live.stop_flag = o->interrupted;
	int rc = rp_swo_live_read(fd, dec, &live, &out->live, err);
	int sig = o->interrupted ? (int)*o->interrupted : 0;
	if (sig) {
		char buf[64];
		snprintf(out->live.reason, sizeof(out->live.reason), "%s", rp_rsp_stopped_by(sig, buf, sizeof(buf)));
	}
	out->stats = *rp_swo_get_stats(dec);
	describe(out);
	rp_err store_err = RP_ERR_INIT;
	int src = out->stats.samples ? store(o, img, s, out, &store_err) : 0;
	out->read = !src;
	if (!rc && src)
		*err = store_err;
	else if (rc && src) {   /* both: the read's error, and that its samples were not kept */
		size_t n = strlen(err->msg);
		snprintf(err->msg + n, sizeof(err->msg) - n, "; and its %llu samples were not stored: %s",
			 (unsigned long long)out->stats.samples, store_err.msg);
	}
	rc = rc ? rc : src;
	if (!rc && !sig && !out->stats.samples)
		rc = rp_err_set(err, RP_EINPUT, "SWO %s:%d: no DWT PC samples in %llu bytes (%s)%s%s", o->swo_host,
				o->swo_port, (unsigned long long)out->stats.bytes, out->live.reason, out->note[0] ? "; " : "",
				out->note);
	return rc;
}

int rp_swo_record(const rp_image *img, const rp_swo_record_opts *o, rp_swo_record_result *out, rp_err *err)
{
	memset(out, 0, sizeof(*out));
	rp_rsp *rsp = NULL;
	rp_swo *dec = NULL;
	rp_samples s;
	rp_swo_opts so = { .framing = o->framing, .stream_id = 0 };
	int fd = -1, rc = 0;
	rp_samples_init(&s);
	if (o->port)
		rc = prepare_target(o, img, &rsp, out->note, sizeof(out->note), err);
	if (!rc)
		rc = rp_swo_live_connect(&fd, o->swo_host, o->swo_port, o->rsp.connect_timeout_ms, err);
	if (!rc && rsp)
		rc = rp_rsp_continue(rsp, err);   /* the stream is connected: nothing it sends is lost */
	if (!rc)
		rc = rp_swo_new(&dec, &so, add_pc, &s, err);
	if (!rc)
		rc = read_and_store(o, img, fd, dec, &s, out, err);
	rp_swo_free(dec);
	rp_samples_release(&s);
	if (fd >= 0)
		close(fd);
	rp_rsp_close(rsp);
	return rc;
}
