/* runtime_record.c: reading the target-side sampling runtime's histogram through a gdbserver
 * and storing it as a run (runtime_record.h). Owns the connection for the call, the histogram
 * read and its gmon.out bytes. The histogram goes through the same gmon.out importer as a file
 * the runtime dumped over semihosting, so both paths give the same run. Workload: one read of
 * a histogram of up to a few MiB per call, after a wait bounded by the options. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/import.h"
#include "ramplace/profiledb.h"
#include "ramplace/runtime.h"
#include "ramplace/runtime_record.h"
#include "ramplace/util.h"

/* Where the runtime lives in the image: its descriptor, and the breakpoint (address and kind,
 * the instruction size) at o->at. */
typedef struct runtime_site {
	uint64_t desc_addr;
	uint64_t bp_addr;
	int bp_kind;
} runtime_site;

static int breakpoint_site(const rp_image *img, const char *name, runtime_site *site, rp_err *err)
{
	const rp_func *f = rp_image_func_by_name(img, name, NULL);
	unsigned char insn[2];
	if (!f)
		return rp_err_set(err, RP_EINPUT, "%s: no function '%s' to stop on (is the runtime linked in? --now reads at once)",
				  img->path, name);
	site->bp_addr = f->addr;
	site->bp_kind = 4;
	if (img->machine == EM_ARM)
		site->bp_kind = f->is_thumb ? 2 : 4;
	else if (rp_image_read(img, f->addr, insn, 2, err) == 0 && (insn[0] & 3) != 3)
		site->bp_kind = 2; /* RISC-V: a compressed first instruction */
	return 0;
}

/* The descriptor's address, after checking that the ELF can hold the runtime at all. */
static int find_descriptor(const rp_image *img, runtime_site *site, rp_err *err)
{
	uint64_t size;
	if (img->elfclass != 32 || (img->machine != EM_ARM && img->machine != EM_RISCV))
		return rp_err_set(err, RP_EINPUT, "%s: the sampling runtime supports 32-bit ARM and RISC-V, not %s",
				  img->path, rp_image_arch(img));
	int rc = rp_image_data_symbol(img, RP_RUNTIME_SYMBOL, &site->desc_addr, &size, err);
	if (rc == 0 && size && size < RP_RUNTIME_DESC_SIZE)
		rc = rp_err_set(err, RP_EINPUT, "%s: '" RP_RUNTIME_SYMBOL "' has %llu bytes, not the %d of the runtime's descriptor",
				img->path, (unsigned long long)size, RP_RUNTIME_DESC_SIZE);
	return rc;
}

static int locate(const rp_image *img, const rp_runtime_record_opts *o, runtime_site *site, rp_err *err)
{
	int rc = find_descriptor(img, site, err);
	return rc || !o->at ? rc : breakpoint_site(img, o->at, site, err);
}

int rp_runtime_record_check(const rp_image *img, const rp_runtime_record_opts *o, rp_err *err)
{
	runtime_site site;
	return locate(img, o, &site, err);
}

/* Runs the target until it stops (the breakpoint, or anything else), --duration passes or the
 * caller's flag is set; in the last two cases halts it. *why says which. */
static int run_to_breakpoint(rp_rsp *rsp, const rp_runtime_record_opts *o, const char **why, rp_err *err)
{
	rp_rsp_stop stop;
	double deadline = o->duration_s > 0 ? rp_seconds() + o->duration_s : 0;
	int rc = rp_rsp_continue(rsp, err);
	while (rc == 0) {
		rc = rp_rsp_wait_stop(rsp, 200000000, &stop, err);
		if (rc == 1)
			break;
		if (rc < 0)
			return rc;
		int sig = o->interrupted ? (int)*o->interrupted : 0;
		if (sig || (deadline && rp_seconds() >= deadline)) {
			*why = sig ? rp_rsp_stopped_by(sig, NULL, 0) : "duration";
			if ((rc = rp_rsp_interrupt(rsp, err)) < 0 || (rc = rp_rsp_wait_stop(rsp, -1, &stop, err)) < 0)
				return rc;
			break;
		}
	}
	if (rc < 0)
		return rc;
	if (stop.kind == RP_RSP_EXITED || stop.kind == RP_RSP_KILLED)
		return rp_err_set(err, RP_EINPUT, "%s: the target %s before reaching %s; its histogram is gone "
				  "(dump it over semihosting, or use --duration)", rp_rsp_name(rsp),
				  stop.kind == RP_RSP_EXITED ? "exited" : "was killed", o->at);
	if (!*why)
		*why = o->at;
	return 0;
}

/* Connects, reads the histogram (after the breakpoint unless reading at once), optionally
 * resets it and lets the target go. */
static int collect(const rp_image *img, const rp_runtime_record_opts *o, const runtime_site *site,
		   rp_runtime_profile *prof, rp_runtime_record_result *out, rp_err *err)
{
	rp_rsp *rsp = NULL;
	int bptype = -1;
	rp_rsp_opts ro = o->rsp;
	ro.elf_machine = img->machine;
	ro.elfclass = img->elfclass;
	ro.big_endian = img->big_endian;
	ro.cancel = o->interrupted;
	int rc = rp_rsp_connect(&rsp, o->host, o->port, &ro, err);
	if (rc < 0)
		return rc;
	snprintf(out->source, sizeof(out->source), "gdbserver %s", rp_rsp_name(rsp));
	out->why = o->at ? NULL : "now";
	if (o->at && (rc = rp_rsp_insert_breakpoint(rsp, site->bp_addr, site->bp_kind, &bptype, err)) == 0)
		rc = run_to_breakpoint(rsp, o, &out->why, err);
	if (rc == 0)
		rc = rp_runtime_fetch(prof, rsp, site->desc_addr, img->big_endian, err);
	if (rc == 0 && o->reset)
		rc = rp_runtime_reset(rsp, prof, site->desc_addr, err);
	if (rc == 0 && bptype >= 0)
		rc = rp_rsp_remove_breakpoint(rsp, bptype, site->bp_addr, site->bp_kind, err);
	if (rc == 0)
		rc = rp_rsp_detach(rsp, err);
	rp_rsp_close(rsp);
	return rc;
}

/* Imports the gmon.out image exactly as `ramplace import --format gmon` would a dumped file,
 * and stores it as one run with method "runtime", opening (or creating) the database only now
 * that there is a run for it. */
static int store(const rp_image *img, const rp_runtime_record_opts *o, const rp_runtime_profile *prof,
		 const unsigned char *g, size_t glen, rp_runtime_record_result *out, rp_err *err)
{
	rp_samples s;
	rp_import_meta meta;
	rp_samples_init(&s);
	int rc = rp_import_file(&s, &meta, RP_IMPORT_GMON, img, (const char *)g, glen, out->source, err);
	if (rc == 0) {
		char reason[128];
		snprintf(reason, sizeof(reason), "%s (%u ticks, %u outside the range, %u lost to full bins)",
			 out->why, prof->desc.ticks, prof->desc.outside, prof->desc.saturated);
		rp_run_info info = RP_RUN_INFO_INIT;
		info.source = out->source;
		info.tool = "record";
		info.method = "runtime";
		info.rate_hz = prof->desc.rate_hz;
		info.duration_s = prof->desc.rate_hz ? (double)prof->desc.ticks / prof->desc.rate_hz : 0;
		info.stop_reason = reason;
		rp_db *db = NULL;
		rc = rp_db_open(&db, o->db_path, err);
		if (rc == 0)
			rc = rp_db_store_run(db, img, &info, &s, &out->run_id, err);
		rp_db_close(db);
	}
	rp_samples_release(&s);
	return rc;
}

int rp_runtime_record(const rp_image *img, const rp_runtime_record_opts *o, rp_runtime_record_result *out,
		      rp_err *err)
{
	memset(out, 0, sizeof(*out));
	runtime_site site;
	rp_runtime_profile prof;
	unsigned char *g = NULL;
	size_t glen = 0;
	rp_runtime_profile_init(&prof);
	int rc = locate(img, o, &site, err);
	if (rc == 0)
		rc = collect(img, o, &site, &prof, out, err);
	if (rc == 0 && prof.samples == 0)
		rc = rp_err_set(err, RP_EINPUT, "%s: the histogram is empty (%u ticks, %u outside [0x%08x, 0x%08x)); nothing stored",
				out->source, prof.desc.ticks, prof.desc.outside, prof.desc.low_pc, prof.desc.high_pc);
	if (rc == 0)
		rc = rp_runtime_gmon(&g, &glen, &prof, img->big_endian, err);
	if (rc == 0 && o->gmon_path)
		rc = rp_write_whole(o->gmon_path, g, glen, err);
	if (rc == 0)
		rc = store(img, o, &prof, g, glen, out, err);
	if (rc == 0) {
		out->samples = prof.samples;
		out->ticks = prof.desc.ticks;
		out->outside = prof.desc.outside;
		out->saturated = prof.desc.saturated;
		out->bucket_bytes = 1u << prof.desc.shift;
		out->rate_hz = prof.desc.rate_hz;
	}
	free(g);
	rp_runtime_profile_release(&prof);
	return rc;
}
