/* cmd_record.c: `ramplace record`: samples a running target's pc through a gdbserver and stores
 * the run in profile.db (the work: rp_gdb_record, gdb_record.h; this file parses, owns the
 * signals and prints). Its options, and those of --runtime (cmd_record_runtime.c), are read
 * by record_opts.c.
 *
 * Bad input fails before anything is touched remotely: options, then the ELF is loaded and the
 * database checked before connecting. The database is created or changed only when there is a
 * run to store, so a connection that never comes leaves no empty profile.db behind (a missing
 * one is not created, an existing one is untouched). Whatever ends the sampling, the samples
 * gathered so far are stored in one transaction, and only then is an error returned. Owns the
 * SIGINT, SIGTERM and SIGHUP handlers for the duration of the command: all three mean "stop and
 * keep the samples" (SIGTERM is what timeout(1), make and CI runners send), so each only sets a
 * flag to its number, which the sampler polls and names; the exit status is 130 for all three.
 * After the summary line it says what the run did to the target (the slowdown its halts caused,
 * whether it covered the target's whole run, the halts dropped on exception entries), stores the
 * same in the run's notes (and the slowdown and coverage as data, runs.slowdown and runs.covered),
 * and warns on a run that --duration cut short, on a forced --rate over
 * --max-slowdown and on QEMU, whose halting samples are biased (the exact path is named). */
#include <signal.h>
#include <stdio.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_stability.h"
#include "ramplace/gdb_record.h"
#include "ramplace/image.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	if (!interrupted) /* the first signal names the stop */
		interrupted = sig;
}

static void show_progress(void *ctx, const rp_sampler_stats *st)
{
	(void)ctx;
	fprintf(stderr, "\rrecording: %llu samples, %.0f samples/s, %.1f s   ",
		(unsigned long long)st->samples, st->rate_hz, st->elapsed_s);
	fflush(stderr);
}

/* What the run did to the target and how much of it it saw: printed after the summary line,
 * with warnings on standard error where the profile may mislead, unless the run failed (then
 * the one error line says what happened, and the kept samples are stored all the same). */
static void report_intrusion(const cli_record_opts *o, const rp_gdb_record_result *r, int failed)
{
	const rp_sampler_result *res = &r->res;
	double bound = 100 * o->sampler.max_slowdown, slow = 100 * res->slowdown;
	if (strcmp(res->method, "dwt") == 0)
		printf("slowdown: none, the target was never halted (DWT); it ran %.2f s\n", res->ran_s);
	else
		printf("slowdown: %.1f %% (bound %.1f %%%s): the target ran %.2f s and was halted %.2f s\n", slow,
		       bound, o->sampler.rate_hz < 0 ? ", rate chosen to keep under it" : "", res->ran_s, res->halted_s);
	if (res->stop == RP_SAMPLER_EXITED)
		printf("covered: the whole run, to the target's exit\n");
	else
		printf("covered: %.2f s of the target's run, which went on (stopped: %s)\n", res->ran_s, res->reason);
	if (res->exc_entry)
		printf("dropped %llu halts that stopped on an exception handler's entry (a pending interrupt "
		       "taken at the halt, not code that ran)\n", (unsigned long long)res->exc_entry);
	fflush(stdout);
	if (failed)
		return;
	/* --samples is a limit the user chose on purpose; --duration is how most runs end */
	if (res->stop == RP_SAMPLER_DURATION && res->stats.samples > 0)
		fprintf(stderr, "ramplace: warning: the run was not covered: the target was still running when "
			"--duration ended it, after %.2f s of its own time; later phases of the program have no "
			"samples (a longer --duration, or a run to the target's exit, covers them)\n", res->ran_s);
	if (o->sampler.rate_hz >= 0 && strcmp(res->method, "dwt") != 0 && slow > bound)
		fprintf(stderr, "ramplace: warning: --rate %g slowed the target by %.1f %%, over --max-slowdown %.1f %%: "
			"time-dependent code (timers, interrupts, polling loops) ran at another pace than alone; "
			"leave --rate out to keep under the bound\n", o->sampler.rate_hz, slow, bound);
	if (r->is_qemu)
		cli_note("ramplace: warning: %s is QEMU: its gdbstub halts only between translation blocks and "
			"in host time, so halting samples are biased; exact counts come from the QEMU plugin: run "
			"qemu-system-... -icount shift=5,sleep=off -plugin libramplace-qemu.so,out=counts.txt, then "
			"ramplace import --format qemu %s %s counts.txt", r->server, o->db_path, o->elf_path);
}

/* Connects, samples, and stores whatever was gathered (rp_gdb_record), then says what it did;
 * the sampling error, if any, comes after the run is safely stored. */
static int record(cli_record_opts *o, const rp_image *img, rp_err *err)
{
	int progress = !o->quiet && isatty(STDERR_FILENO);
	if (progress)
		o->sampler.progress = show_progress;
	rp_gdb_record_opts go = { .host = o->host, .port = o->port, .rsp = o->rsp, .sampler = o->sampler,
				  .db_path = o->db_path };
	rp_gdb_record_result r;
	int rc = rp_gdb_record(img, &go, &r, err);
	if (progress && r.server[0])   /* connected: the sampler ran and drew its progress line */
		fputc('\n', stderr);
	if (!r.sampled)
		return rc;
	const rp_sampler_result *res = &r.res;
	printf("recorded %llu samples in %.2f s (%.0f samples/s, %s) from %s; stopped: %s",
	       (unsigned long long)res->stats.samples, res->stats.elapsed_s, res->stats.rate_hz, res->method, r.server,
	       res->reason);
	if (res->stats.samples > 0)
		printf("; run %lld in %s\n", (long long)r.run_id, o->db_path);
	else
		printf("; nothing stored\n");
	if (res->method_note[0])
		printf("no DWT sampling: %s; halted the target instead\n", res->method_note);
	report_intrusion(o, &r, r.sampling_failed);
	if (res->stats.samples > 0 && !o->quiet)   /* is the profile good enough yet? */
		cli_stability_after_store(o->db_path, img);
	return rc;
}

int cmd_record(int argc, char **argv, rp_err *err)
{
	cli_record_opts o;
	/* --runtime is another collection method with its own options (cmd_record_runtime.c) */
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--runtime") == 0)
			return cmd_record_runtime(argc, argv, err);
		else if (strcmp(argv[i], "--swo") == 0 || strncmp(argv[i], "--swo=", 6) == 0)
			return cmd_record_swo(argc, argv, err);   /* SWO PC sampling: cmd_record_swo.c */
	cli_record_opts_init(&o, 0);
	int rc = cli_record_opts_parse(&o, argc, argv, err);
	if (rc != 0)
		return rc > 0 ? 0 : rc;
	o.sampler.duration_s = o.duration_s;

	rp_image *img = NULL;
	if ((rc = cli_record_open(&img, o.elf_path, o.db_path, err)) < 0)
		return rc;

	cli_record_sigs sigs;
	interrupted = 0;
	cli_record_signals_set(&sigs, on_signal);
	o.rsp.cancel = &interrupted;
	o.sampler.stop_flag = &interrupted;
#ifdef __linux__
	/* waits of tens of microseconds: the default 50 us timer slack would double them */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
#endif

	rc = record(&o, img, err);

	cli_record_signals_restore(&sigs);
	rp_image_free(img);
	return rc;
}
