/* gdb_record.c: PC sampling through a gdbserver recorded into a run (gdb_record.h). Owns the
 * connection and the samples for the call. Whatever ends the sampling, the samples gathered so
 * far are stored in one transaction, and only then is an error returned. Workload: one run of
 * up to millions of samples per call. */
#include <stdio.h>
#include <string.h>

#include "ramplace/gdb_record.h"
#include "ramplace/profiledb.h"

/* The run's notes (stored as its stop reason): why it stopped, the slowdown it caused and
 * whether it covered the target's whole run. */
static void run_notes(char *buf, size_t cap, const rp_gdb_record_opts *o, const rp_sampler_result *res)
{
	size_t n = (size_t)snprintf(buf, cap, "%s; slowdown %.1f %% (bound %.1f %%), target ran %.2f s, halted %.2f s; %s",
				    res->reason, 100 * res->slowdown, 100 * o->sampler.max_slowdown, res->ran_s,
				    res->halted_s, res->stop == RP_SAMPLER_EXITED ? "covered the whole run" :
				    "did not cover the whole run");
	if (res->exc_entry && n < cap)
		snprintf(buf + n, cap - n, "; %llu halts on exception entries dropped",
			 (unsigned long long)res->exc_entry);
}

/* Opens (or creates) the database only now that there is a run for it. */
static int store(const rp_gdb_record_opts *o, const rp_image *img, const rp_samples *samples, rp_gdb_record_result *out,
		 rp_err *err)
{
	const rp_sampler_result *res = &out->res;
	char source[320], notes[400];
	snprintf(source, sizeof(source), "gdbserver %s", out->server);
	rp_run_info info = RP_RUN_INFO_INIT;
	info.source = source;
	info.tool = "record";
	info.method = res->method;
	info.rate_hz = res->stats.rate_hz;
	info.duration_s = res->stats.elapsed_s;
	run_notes(notes, sizeof(notes), o, res);
	info.stop_reason = notes;
	/* the same facts as data (runs.covered, runs.slowdown) for the readers of profile.db */
	info.covered = res->stop == RP_SAMPLER_EXITED ? 1 : 0;
	info.slowdown = strcmp(res->method, "dwt") == 0 ? 0.0 : res->slowdown;
	rp_db *db = NULL;
	int rc = rp_db_open(&db, o->db_path, err);
	if (rc == 0)
		rc = rp_db_store_run(db, img, &info, samples, &out->run_id, err);
	rp_db_close(db);
	return rc;
}

int rp_gdb_record(const rp_image *img, const rp_gdb_record_opts *o, rp_gdb_record_result *out, rp_err *err)
{
	memset(out, 0, sizeof(*out));
	rp_rsp *rsp = NULL;
	rp_rsp_opts ro = o->rsp;
	ro.elf_machine = img->machine;
	ro.elfclass = img->elfclass;
	ro.big_endian = img->big_endian;
	ro.want_ra = o->sampler.callers;
	int rc = rp_rsp_connect(&rsp, o->host, o->port, &ro, err);
	if (rc < 0)
		return rc;
	snprintf(out->server, sizeof(out->server), "%s", rp_rsp_name(rsp));
	out->is_qemu = rp_rsp_is_qemu(rsp);
	rp_samples samples;
	rp_samples_init(&samples);
	rp_err serr = RP_ERR_INIT;
	int src = rp_sampler_run(rsp, &samples, &o->sampler, &out->res, &serr);
	rp_rsp_close(rsp);
	if (out->res.stats.samples > 0)
		rc = store(o, img, &samples, out, err);
	rp_samples_release(&samples);
	out->sampled = rc == 0;
	out->sampling_failed = src < 0;
	if (rc == 0 && src < 0) {
		*err = serr;
		rc = src;
	}
	return rc;
}
