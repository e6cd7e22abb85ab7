/* cmd_record_runtime.c: `ramplace record --runtime`: collects the histogram that ramplace's
 * target-side sampling runtime (ramplace/runtime/, docs/runtime.md) keeps in target RAM, by
 * memory reads through a gdbserver, and stores it in profile.db as a run with method "runtime"
 * (and, with --gmon, as a gmon.out file).
 *
 * By default it stops the target on a breakpoint at ramplace_profile_ready (which the firmware
 * calls when its profile is complete), reads, removes the breakpoint and detaches, so the
 * firmware runs on. Options, the ELF (symbols ramplace_profile and the breakpoint function) and
 * the database are checked before connecting; the database is created or changed only when
 * there is a histogram to store. The histogram goes through the same gmon.out
 * importer as a file dumped over semihosting, so both paths give the same run. Its options are
 * read by record_opts.c, with those of sampling. Owns the SIGINT, SIGTERM and SIGHUP handlers
 * for the duration of the command: each means "read the histogram now, store it and stop" and
 * only sets a flag (to its number) that the waits poll; the exit status is 130 for all three. */
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cli_stability.h"
#include "ramplace/image.h"
#include "ramplace/import.h"
#include "ramplace/profiledb.h"
#include "ramplace/rsp.h"
#include "ramplace/runtime.h"
#include "ramplace/util.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	if (!interrupted) /* the first signal names the stop */
		interrupted = sig;
}

/* What the ELF says about the runtime: where its descriptor is and where to stop. */
typedef struct runtime_site {
	const rp_image *img;
	uint64_t desc_addr;
	uint64_t bp_addr;       /* where o->at is, and its breakpoint kind (instruction size) */
	int bp_kind;
} runtime_site;

/* Where the breakpoint goes, and its kind (instruction size). */
static int breakpoint_site(const rp_image *img, const char *name, uint64_t *addr, int *kind, rp_err *err)
{
	const rp_func *f = rp_image_func_by_name(img, name, NULL);
	unsigned char insn[2];
	if (!f)
		return rp_err_set(err, RP_EINPUT, "%s: no function '%s' to stop on (is the runtime linked in? --now reads at once)",
				  img->path, name);
	*addr = f->addr;
	*kind = 4;
	if (img->machine == EM_ARM)
		*kind = f->is_thumb ? 2 : 4;
	else if (rp_image_read(img, f->addr, insn, 2, err) == 0 && (insn[0] & 3) != 3)
		*kind = 2; /* RISC-V: a compressed first instruction */
	return 0;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Runs the target until it stops (the breakpoint, or anything else), --duration passes or
 * Ctrl-C; in the last two cases halts it. *why says which. */
static int run_to_breakpoint(rp_rsp *rsp, const cli_record_opts *o, const char **why, rp_err *err)
{
	rp_rsp_stop stop;
	double deadline = o->duration_s > 0 ? now_s() + o->duration_s : 0;
	int rc = rp_rsp_continue(rsp, err);
	while (rc == 0) {
		rc = rp_rsp_wait_stop(rsp, 200000000, &stop, err);
		if (rc == 1)
			break;
		if (rc < 0)
			return rc;
		if (interrupted || (deadline && now_s() >= deadline)) {
			*why = interrupted ? rp_rsp_stopped_by((int)interrupted, NULL, 0) : "duration";
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

/* Connects, reads the histogram (after the breakpoint unless --now), optionally resets it and
 * lets the target go. */
static int collect(const cli_record_opts *o, const runtime_site *site, rp_runtime_profile *prof,
		   const char **why, char *source, size_t source_cap, rp_err *err)
{
	rp_rsp *rsp = NULL;
	int bptype = -1;
	int rc = rp_rsp_connect(&rsp, o->host, o->port, &o->rsp, err);
	if (rc < 0)
		return rc;
	snprintf(source, source_cap, "gdbserver %s", rp_rsp_name(rsp));
	*why = o->at ? NULL : "now";
	if (o->at && (rc = rp_rsp_insert_breakpoint(rsp, site->bp_addr, site->bp_kind, &bptype, err)) == 0)
		rc = run_to_breakpoint(rsp, o, why, err);
	if (rc == 0)
		rc = rp_runtime_fetch(prof, rsp, site->desc_addr, site->img->big_endian, err);
	if (rc == 0 && o->reset)
		rc = rp_runtime_reset(rsp, prof, site->desc_addr, err);
	if (rc == 0 && bptype >= 0)
		rc = rp_rsp_remove_breakpoint(rsp, bptype, site->bp_addr, site->bp_kind, err);
	if (rc == 0)
		rc = rp_rsp_detach(rsp, err);
	rp_rsp_close(rsp);
	return rc;
}

static int write_gmon(const char *path, const unsigned char *g, size_t len, rp_err *err)
{
	rp_afile af;
	int rc = rp_afile_open(&af, path, err);
	if (rc < 0)
		return rc;
	if (fwrite(g, 1, len, af.fp) != len) {
		rp_afile_abort(&af);
		return rp_err_set(err, RP_EIO, "%s: write failed: %s", path, strerror(errno));
	}
	return rp_afile_commit(&af, err);
}

/* Imports the gmon.out image exactly as `ramplace import --format gmon` would a dumped file,
 * and stores it as one run with method "runtime", opening (or creating) the database only now
 * that there is a run for it. */
static int store(const char *db_path, const rp_image *img, const rp_runtime_profile *prof, const unsigned char *g,
		 size_t glen, const char *source, const char *why, int64_t *run_id, rp_err *err)
{
	rp_samples s;
	rp_import_meta meta;
	rp_samples_init(&s);
	int rc = rp_import_file(&s, &meta, RP_IMPORT_GMON, img, (const char *)g, glen, source, err);
	if (rc == 0) {
		char reason[128];
		snprintf(reason, sizeof(reason), "%s (%u ticks, %u outside the range, %u lost to full bins)",
			 why, prof->desc.ticks, prof->desc.outside, prof->desc.saturated);
		rp_run_info info = RP_RUN_INFO_INIT;
		info.source = source;
		info.tool = "record";
		info.method = "runtime";
		info.rate_hz = prof->desc.rate_hz;
		info.duration_s = prof->desc.rate_hz ? (double)prof->desc.ticks / prof->desc.rate_hz : 0;
		info.stop_reason = reason;
		rp_db *db = NULL;
		rc = rp_db_open(&db, db_path, err);
		if (rc == 0)
			rc = rp_db_store_run(db, img, &info, &s, run_id, err);
		rp_db_close(db);
	}
	rp_samples_release(&s);
	return rc;
}

/* The descriptor's address, after checking that the ELF can hold the runtime at all. */
static int find_descriptor(const rp_image *img, uint64_t *desc_addr, rp_err *err)
{
	uint64_t size;
	if (img->elfclass != 32 || (img->machine != EM_ARM && img->machine != EM_RISCV))
		return rp_err_set(err, RP_EINPUT, "%s: the sampling runtime supports 32-bit ARM and RISC-V, not %s",
				  img->path, rp_image_arch(img));
	int rc = rp_image_data_symbol(img, RP_RUNTIME_SYMBOL, desc_addr, &size, err);
	if (rc == 0 && size && size < RP_RUNTIME_DESC_SIZE)
		rc = rp_err_set(err, RP_EINPUT, "%s: '" RP_RUNTIME_SYMBOL "' has %llu bytes, not the %d of the runtime's descriptor",
				img->path, (unsigned long long)size, RP_RUNTIME_DESC_SIZE);
	return rc;
}

static int record_runtime(const cli_record_opts *o, const runtime_site *site, rp_err *err)
{
	const rp_image *img = site->img;
	rp_runtime_profile prof;
	unsigned char *g = NULL;
	size_t glen = 0;
	const char *why = NULL;
	char source[320];
	int64_t run_id = 0;
	rp_runtime_profile_init(&prof);
	int rc = collect(o, site, &prof, &why, source, sizeof(source), err);
	if (rc == 0 && prof.samples == 0)
		rc = rp_err_set(err, RP_EINPUT, "%s: the histogram is empty (%u ticks, %u outside [0x%08x, 0x%08x)); nothing stored",
				source, prof.desc.ticks, prof.desc.outside, prof.desc.low_pc, prof.desc.high_pc);
	if (rc == 0)
		rc = rp_runtime_gmon(&g, &glen, &prof, img->big_endian, err);
	if (rc == 0 && o->gmon_path)
		rc = write_gmon(o->gmon_path, g, glen, err);
	if (rc == 0)
		rc = store(o->db_path, img, &prof, g, glen, source, why, &run_id, err);
	if (rc == 0 && !o->quiet)
		printf("read %llu samples (%u ticks, %u outside, %u lost) in %u-byte buckets at %u Hz from %s; stopped: %s; run %lld in %s\n",
		       (unsigned long long)prof.samples, prof.desc.ticks, prof.desc.outside, prof.desc.saturated,
		       1u << prof.desc.shift, prof.desc.rate_hz, source, why, (long long)run_id, o->db_path);
	if (rc == 0 && !o->quiet)   /* is the profile good enough yet? */
		cli_stability_after_store(o->db_path, img);
	free(g);
	rp_runtime_profile_release(&prof);
	if (rc == 0 && interrupted) {
		char buf[40];
		rc = rp_err_set(err, RP_EINTERRUPT, "%s:%d: %s; the histogram read so far is stored", o->host,
				o->port, rp_rsp_stopped_by((int)interrupted, buf, sizeof(buf)));
	}
	return rc;
}

int cmd_record_runtime(int argc, char **argv, rp_err *err)
{
	cli_record_opts o;
	cli_record_opts_init(&o, 1);
	o.rsp.want_ra = 0;
	int rc = cli_record_opts_parse(&o, argc, argv, err);
	if (rc != 0)
		return rc > 0 ? 0 : rc;
	rp_image *img = NULL;
	runtime_site site = { 0 };
	if ((rc = rp_image_load(&img, o.elf_path, err)) < 0)
		return rc;
	site.img = img;
	if ((rc = find_descriptor(img, &site.desc_addr, err)) < 0 ||
	    (o.at && (rc = breakpoint_site(img, o.at, &site.bp_addr, &site.bp_kind, err)) < 0) ||
	    (rc = rp_db_probe(o.db_path, err)) < 0) {
		rp_image_free(img);
		return rc;
	}
	o.rsp.elf_machine = img->machine;
	o.rsp.elfclass = img->elfclass;
	o.rsp.big_endian = img->big_endian;

	cli_record_sigs sigs;
	interrupted = 0;
	cli_record_signals_set(&sigs, on_signal);
	o.rsp.cancel = &interrupted;

	rc = record_runtime(&o, &site, err);

	cli_record_signals_restore(&sigs);
	rp_image_free(img);
	return rc;
}
