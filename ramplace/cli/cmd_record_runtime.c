/* cmd_record_runtime.c: `ramplace record --runtime`: collects the histogram that ramplace's
 * target-side sampling runtime (ramplace/runtime/, docs/runtime.md) keeps in target RAM, by
 * memory reads through a gdbserver, and stores it in profile.db as a run with method "runtime"
 * (and, with --gmon, as a gmon.out file): the work is rp_runtime_record (runtime_record.h);
 * this file parses, owns the signals and prints.
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
#include <signal.h>
#include <stdio.h>

#include "cli.h"
#include "cli_stability.h"
#include "ramplace/image.h"
#include "ramplace/profiledb.h"
#include "ramplace/rsp.h"
#include "ramplace/runtime_record.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	if (!interrupted) /* the first signal names the stop */
		interrupted = sig;
}

static int record_runtime(const cli_record_opts *o, const rp_image *img, rp_err *err)
{
	rp_runtime_record_opts ro = { .host = o->host, .port = o->port, .rsp = o->rsp, .at = o->at,
				      .duration_s = o->duration_s, .reset = o->reset, .gmon_path = o->gmon_path,
				      .db_path = o->db_path, .interrupted = &interrupted };
	rp_runtime_record_result r;
	int rc = rp_runtime_record(img, &ro, &r, err);
	if (rc == 0 && !o->quiet)
		printf("read %llu samples (%u ticks, %u outside, %u lost) in %u-byte buckets at %u Hz from %s; stopped: %s; run %lld in %s\n",
		       (unsigned long long)r.samples, r.ticks, r.outside, r.saturated, r.bucket_bytes, r.rate_hz, r.source,
		       r.why, (long long)r.run_id, o->db_path);
	if (rc == 0 && !o->quiet)   /* is the profile good enough yet? */
		cli_stability_after_store(o->db_path, img);
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
	rp_runtime_record_opts check = { .at = o.at };
	if ((rc = rp_image_load(&img, o.elf_path, err)) < 0)
		return rc;
	if ((rc = rp_runtime_record_check(img, &check, err)) < 0 || (rc = rp_db_probe(o.db_path, err)) < 0) {
		rp_image_free(img);
		return rc;
	}
	cli_record_sigs sigs;
	interrupted = 0;
	cli_record_signals_set(&sigs, on_signal);
	rc = record_runtime(&o, img, err);
	cli_record_signals_restore(&sigs);
	rp_image_free(img);
	return rc;
}
