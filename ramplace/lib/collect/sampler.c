/* sampler.c: the sampling loops of `ramplace record` (see sampler.h).
 *
 * Halting: one sample is continue, wait a randomized interval (at least the minimum run
 * window, watching for the target stopping by itself), send the interrupt, wait for the stop
 * reply, read pc and lr/ra. The continue is never sent before the stop reply arrived: a
 * gdbserver that is still running has no answer for it. When another sample is due, the
 * register reads and the next continue go out together (rp_rsp_read_pc_continue), so the
 * target stays halted one round trip less. Intervals are random around the mean period because
 * periodic sampling aliases with periodic code; the minimum run window keeps --rate 0 from
 * starving the target (interrupt right after continue: the target barely runs at all).
 *
 * The rate: a halt costs the target the time from the interrupt to the answers to the reads
 * (the continue goes out with them, see sample_once), so every halt is timed and fed to the rate controller (rate_control.c), which sums halted time against time
 * run; with RP_SAMPLER_RATE_AUTO it chooses the mean period that keeps halted / run under
 * opts->max_slowdown and the pause that pays back a run over it; a forced rate is kept and only
 * measured. The DWT probe is skipped on QEMU, whose gdbstub halts on any packet: its wait for
 * late replies alone was 5 % of a one-second run.
 *
 * Halts that stopped on an exception or trap entry (a pending interrupt taken at the halt) are
 * dropped and counted by sample_filter.c.
 *
 * DWT (Cortex-M): the target runs throughout; one sample is a memory read of DWT_PCSR at a
 * randomized interval. Tried first with RP_SAMPLER_METHOD_AUTO on an M-profile target; any
 * sign that it does not work (reads 0, an error, or a gdbserver that halts the target to read
 * memory) falls back to halting, and the result says why.
 *
 * Owns nothing; the rsp and the samples are the caller's. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ramplace/rate_control.h"
#include "ramplace/sampler.h"
#include "sample_filter.h"

#define PROGRESS_NS 250000000
#define DWT_SETTLE_NS 2000000 /* the target runs this long before the first DWT read */

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

uint64_t rp_sampler_prng(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

int64_t rp_sampler_interval_ns(uint64_t *state, double rate_hz)
{
	if (rate_hz <= 0)
		return 0;
	double unit = (double)(rp_sampler_prng(state) >> 11) * (1.0 / 9007199254740992.0);
	return (int64_t)(1e9 / rate_hz * (0.5 + unit));
}

/* Appends " (kept N samples)" so the user knows the run was stored anyway. */
static int kept(rp_err *err, int code, uint64_t n)
{
	size_t len = strlen(err->msg);
	snprintf(err->msg + len, sizeof(err->msg) - len, " (kept %llu samples)", (unsigned long long)n);
	err->code = code;
	return code;
}

/* The message without its "host:port: " prefix, as the stored stop reason. */
static void reason_from_err(rp_sampler_result *res, const rp_rsp *rsp, const rp_err *err)
{
	const char *msg = err->msg, *name = rp_rsp_name(rsp);
	size_t nlen = strlen(name);
	if (strncmp(msg, name, nlen) == 0 && strncmp(msg + nlen, ": ", 2) == 0)
		msg += nlen + 2;
	size_t n = strnlen(msg, sizeof(res->reason) - 1);
	memcpy(res->reason, msg, n); /* cut, not an error: the full message is in err */
	res->reason[n] = '\0';
}

/* After a failed write: whether the gdbserver said the target exited (W/X) before it closed
 * the connection, as QEMU does when the program exits while we send the interrupt. */
static int exited_meanwhile(rp_rsp *rsp, rp_rsp_stop *stop)
{
	rp_err ignored = RP_ERR_INIT;
	return rp_rsp_wait_stop(rsp, 0, stop, &ignored) == 1 &&
	       (stop->kind == RP_RSP_EXITED || stop->kind == RP_RSP_KILLED);
}

/* Fills res for a target that exited (W) or was killed (X); returns 1. */
static int target_gone(rp_sampler_result *res, const rp_rsp_stop *stop)
{
	res->exit_code = stop->code;
	snprintf(res->reason, sizeof(res->reason), stop->kind == RP_RSP_EXITED ?
		 "target exited (status %d)" : "target killed (signal %d)", stop->code);
	return 1;
}

/* What the loop carries from one sample to the next. */
struct loop {
	uint64_t prng;
	int64_t start;
	int64_t end;          /* deadline from --duration, INT64_MAX without one */
	int64_t due;          /* when the last sample was due */
	int64_t min_run_ns;
	int running;          /* the last read already resumed the target */
	uint64_t base;        /* samples in the rp_samples before this run */
	int64_t resumed_at;   /* when the target was last resumed, 0 while halted */
	int64_t halted_at;    /* when the sampler last halted it, 0 when it did not (at connect) */
	rp_ratectl ctl;       /* the summed intrusion (see rp_sampler_result) and the automatic rate */
	rp_sfilter filter;    /* exception and trap entry drops */
};

/* The target runs from t (a continue went out); a halt of the sampler's ends there. A sample's
 * halt (sample != 0) also feeds the estimated cost of one halt; the halt that the DWT probe ends
 * with, which waits for late replies, counts in the whole only. */
static void mark_resumed(struct loop *lp, int64_t t, int sample)
{
	if (lp->halted_at && t > lp->halted_at)
		rp_ratectl_halted(&lp->ctl, t - lp->halted_at, sample);
	lp->halted_at = 0;
	lp->resumed_at = t;
}

/* The target stops running at t: an interrupt went out (halted != 0) or it exited. */
static void mark_stopped(struct loop *lp, int64_t t, int halted)
{
	if (lp->resumed_at && t > lp->resumed_at)
		rp_ratectl_ran(&lp->ctl, t - lp->resumed_at);
	lp->resumed_at = 0;
	lp->halted_at = halted ? t : 0;
}

/* The wait before the next interrupt. Samples are due at randomized intervals around the
 * mean period, counted from the previous due time (not from when the last sample ended), so
 * that the achieved rate is the requested one even though each sample costs time of its own;
 * a run that fell a whole period behind starts afresh instead of bursting to catch up. The wait
 * is at least the minimum run window and never past the deadline. */
static int64_t next_wait(struct loop *lp, const rp_sampler_opts *opts, int64_t now)
{
	double rate_hz = opts->rate_hz >= 0 ? opts->rate_hz : rp_ratectl_rate_hz(&lp->ctl);
	int64_t wait = 0;
	if (rate_hz > 0) {
		int64_t period = (int64_t)(1e9 / rate_hz);
		if (lp->due < now - period)
			lp->due = now;
		lp->due += rp_sampler_interval_ns(&lp->prng, rate_hz);
		wait = lp->due - now;
	}
	if (opts->rate_hz < 0 && lp->ctl.halts) {
		/* the whole run so far over the aim (a slow start, a gdbserver that got slower): no
		 * halt until the run has paid it back, but a host stall that made one halt last long
		 * (seen: 400 ms once on a loaded machine) is paid back over several waits, not by a
		 * silence of many seconds */
		int64_t owed = rp_ratectl_owed_ns(&lp->ctl);
		if (owed > wait) {
			wait = owed;
			lp->due = now + owed;
		}
	}
	if (wait < lp->min_run_ns)
		wait = lp->min_run_ns;
	if (wait > lp->end - now)
		wait = lp->end - now;
	return wait > 0 ? wait : 0;
}

/* Why the loop should stop before sample number n + 1, or -1 to go on. */
static int limit_reached(const rp_sampler_opts *opts, uint64_t n, int64_t end)
{
	if (opts->stop_flag && *opts->stop_flag)
		return RP_SAMPLER_INTERRUPTED;
	if (opts->max_samples && n >= opts->max_samples)
		return RP_SAMPLER_COUNT;
	if (now_ns() >= end)
		return RP_SAMPLER_DURATION;
	return -1;
}

static int add_sample(rp_samples *s, const rp_sampler_opts *opts, uint64_t pc, uint64_t ra, rp_err *err)
{
	int rc = rp_samples_add(s, pc, 1, err);
	if (rc == 0 && opts->callers && ra)
		rc = rp_samples_add_arc(s, ra & ~(uint64_t)1, pc, 1, err);
	return rc;
}

/* Lets the target run for wait, then interrupts it (at *t_int) and waits for the stop, or for
 * the stop that came by itself. */
static int interrupt_and_wait(rp_rsp *rsp, struct loop *lp, int64_t wait, rp_rsp_stop *stop, int64_t *t_int,
			      rp_err *err)
{
	int rc = wait > 0 ? rp_rsp_wait_stop(rsp, wait, stop, err) : 0;
	*t_int = now_ns();
	if (rc == 0) {
		mark_stopped(lp, *t_int, 1);
		rc = rp_rsp_interrupt(rsp, err);
		if (rc < 0 && exited_meanwhile(rsp, stop))
			rc = 1;
		else if (rc == 0)
			rc = rp_rsp_wait_stop(rsp, -1, stop, err);
	} else {
		mark_stopped(lp, now_ns(), 0); /* it stopped (exited) by itself */
	}
	return rc;
}

/* (Continues,) waits, interrupts and reads one sample, resuming the target in the same write
 * when another sample will follow. Returns 0 with a sample added (or dropped as an exception
 * entry), 1 when the target exited (res filled), or a negative code. */
static int sample_once(rp_rsp *rsp, rp_samples *s, const rp_sampler_opts *opts, struct loop *lp,
		       uint64_t n, rp_sampler_result *res, rp_err *err)
{
	rp_rsp_stop stop;
	int64_t wait = next_wait(lp, opts, now_ns());
	int rc = lp->running ? 0 : rp_rsp_continue(rsp, err);
	if (!lp->running)
		mark_resumed(lp, now_ns(), 0);
	lp->running = 0;
	if (rc < 0)
		return rc;
	int64_t t_int;
	if ((rc = interrupt_and_wait(rsp, lp, wait, &stop, &t_int, err)) < 0)
		return rc;
	if (stop.kind == RP_RSP_EXITED || stop.kind == RP_RSP_KILLED)
		return target_gone(res, &stop);
	if ((rc = rp_sfilter_refresh(&lp->filter, rsp, now_ns(), res, err)) < 0)
		return rc;
	uint64_t pc, ra;
	int more = limit_reached(opts, n + 1, lp->end) < 0;
	/* The halt ends when the replies to the reads arrived: pipelined, the continue went out
	 * with the reads, and the gdbserver takes it up after answering them. Ending it when the
	 * write went out, as before, assumed the latencies at both ends cancel out; they do not:
	 * the target resumes only after the reads are done and, on QEMU, after its vCPU thread
	 * woke, and on an idle host QEMU's vCPU then slept 7.5-8.9 % of the run where this
	 * counted 4 % (t_record_honest.sh). Counting to the replies errs the other way on a busy
	 * host (our own wait for a CPU counts: 333 % against 61 % true at --rate 0), which costs
	 * samples, not honesty. Without another sample the halt lasts until the detach
	 * (intrusion() counts it). */
	rc = more ? rp_rsp_read_pc_continue(rsp, &stop, &pc, &ra, err) : rp_rsp_read_pc(rsp, &stop, &pc, &ra, err);
	if (rc < 0)
		return rc;
	if (more)
		mark_resumed(lp, now_ns(), 1);
	lp->running = more;
	if (rp_sfilter_drops(&lp->filter, rsp, pc, ra)) {
		res->exc_entry++;
		return 0;
	}
	return add_sample(s, opts, pc, ra, err);
}

static void update_stats(rp_sampler_stats *st, int64_t start)
{
	st->elapsed_s = (double)(now_ns() - start) / 1e9;
	st->rate_hz = st->elapsed_s > 0 ? (double)st->samples / st->elapsed_s : 0.0;
}

/* The intrusion into res, once the run is over. */
static void intrusion(rp_sampler_result *res, struct loop *lp)
{
	int64_t t = now_ns();
	if (lp->halted_at && t > lp->halted_at)
		rp_ratectl_halted(&lp->ctl, t - lp->halted_at, 0);
	lp->halted_at = 0;
	mark_stopped(lp, t, 0);
	res->halted_s = (double)lp->ctl.halted_ns / 1e9;
	res->ran_s = (double)lp->ctl.ran_ns / 1e9;
	res->slowdown = rp_ratectl_slowdown(&lp->ctl);
}

/* Ends a run that stopped while the target is halted: lets it run on without the debugger. A
 * stop by a signal (its number in *opts->stop_flag) is named: "interrupted" for Ctrl-C,
 * "stopped by SIGTERM"... */
static int finish_halted(rp_rsp *rsp, const rp_sampler_opts *opts, rp_sampler_result *res, rp_err *err)
{
	static const char *const names[] = { "duration", "samples", "", "", "" };
	char buf[40];
	if (res->stop == RP_SAMPLER_INTERRUPTED)
		snprintf(res->reason, sizeof(res->reason), "%s",
			 rp_rsp_stopped_by((int)*opts->stop_flag, buf, sizeof(buf)));
	else
		snprintf(res->reason, sizeof(res->reason), "%s", names[res->stop]);
	int rc = rp_rsp_detach(rsp, err);
	if (rc < 0)
		return kept(err, rc, res->stats.samples);
	if (res->stop == RP_SAMPLER_INTERRUPTED) {
		rp_err_set(err, RP_EINTERRUPT, "%s: %s", rp_rsp_name(rsp), res->reason);
		return kept(err, RP_EINTERRUPT, res->stats.samples);
	}
	return 0;
}

/* Ends a run on a sample's outcome rc: 1 target exited, negative failure (RP_EINTERRUPT: a
 * signal cut a wait short, see RP_RSP_CANCEL_GRACE_MS). */
static int finish_outcome(rp_rsp *rsp, rp_sampler_result *res, struct loop *lp, int rc, rp_err *err)
{
	update_stats(&res->stats, lp->start);
	intrusion(res, lp);
	res->stop = rc > 0 ? RP_SAMPLER_EXITED : rc == RP_EINTERRUPT ? RP_SAMPLER_INTERRUPTED : RP_SAMPLER_FAILED;
	if (rc > 0)
		return 0;
	reason_from_err(res, rsp, err);
	return kept(err, rc, res->stats.samples);
}

static void maybe_progress(const rp_sampler_opts *opts, rp_sampler_result *res, struct loop *lp,
			   int64_t *next_progress)
{
	if (opts->progress && now_ns() >= *next_progress) {
		update_stats(&res->stats, lp->start);
		opts->progress(opts->progress_ctx, &res->stats);
		*next_progress += PROGRESS_NS;
	}
}

static int run_halting(rp_rsp *rsp, rp_samples *s, const rp_sampler_opts *opts, struct loop *lp,
		       rp_sampler_result *res, rp_err *err)
{
	int64_t next_progress = lp->start + PROGRESS_NS;
	res->method = "halt";
	for (;;) {
		int why = lp->running ? -1 : limit_reached(opts, res->stats.samples, lp->end);
		if (why >= 0) {
			res->stop = (rp_sampler_stop)why;
			update_stats(&res->stats, lp->start);
			intrusion(res, lp);
			return finish_halted(rsp, opts, res, err);
		}
		int rc = sample_once(rsp, s, opts, lp, res->stats.samples, res, err);
		res->stats.samples = s->total - lp->base;
		if (rc != 0)
			return finish_outcome(rsp, res, lp, rc, err);
		maybe_progress(opts, res, lp, &next_progress);
	}
}

/* ---------------------------------------------------------------- DWT */

/* Halts a running target and waits for the stop, discarding late replies. Returns 0 halted,
 * 1 exited (res filled), or a negative code. */
static int halt_running(rp_rsp *rsp, rp_sampler_result *res, rp_err *err)
{
	rp_rsp_stop stop;
	int rc = rp_rsp_interrupt(rsp, err);
	if (rc < 0)
		return exited_meanwhile(rsp, &stop) ? target_gone(res, &stop) : rc;
	if ((rc = rp_rsp_wait_stop_discarding(rsp, &stop, err)) < 0)
		return rc;
	return stop.kind == RP_RSP_STOPPED ? 0 : target_gone(res, &stop);
}

/* A stop reply while DWT sampling: the target exited (1, res filled), or it stopped by
 * itself (a breakpoint...), which ends the run as a failure with err set. */
static int dwt_stopped(rp_rsp *rsp, const rp_rsp_stop *stop, rp_sampler_result *res, rp_err *err)
{
	if (stop->kind != RP_RSP_STOPPED)
		return target_gone(res, stop);
	return rp_err_set(err, RP_EINPUT, "%s: the target stopped by itself (signal %d) while DWT sampling",
			  rp_rsp_name(rsp), stop->code);
}

/* Starts the target and reads DWT_PCSR once. Returns 0 when DWT sampling works (the first
 * sample added, target running), 2 when it does not (the target halted again,
 * res->method_note says why), 3 when it is known not to without trying (QEMU; still halted,
 * never resumed), 1 when the target exited, or a negative code. */
static int dwt_probe(rp_rsp *rsp, rp_samples *s, const rp_sampler_opts *opts, rp_sampler_result *res,
		     rp_err *err)
{
	rp_rsp_stop stop;
	uint32_t demcr = 0, pcsr = 0;
	if (rp_rsp_is_qemu(rsp)) { /* known: it stops the VM on any packet that arrives while it runs */
		snprintf(res->method_note, sizeof(res->method_note), "the gdbserver halts the target to read memory");
		return 3;
	}
	/* the DWT works only with DEMCR.TRCENA set; a debugger normally sets it, we may have to */
	int rc = rp_rsp_peek32(rsp, RP_SAMPLER_DEMCR, &demcr, &stop, err);
	if (rc < 0)
		return rc;
	if (rc != 0) {  /* not even readable while halted */
		snprintf(res->method_note, sizeof(res->method_note), "the gdbserver does not read DEMCR");
		return 2;
	}
	if (!(demcr & RP_SAMPLER_DEMCR_TRCENA)) {
		rp_err ignored = RP_ERR_INIT; /* if it fails, PCSR reads 0 below and says so */
		(void)rp_rsp_poke32(rsp, RP_SAMPLER_DEMCR, demcr | RP_SAMPLER_DEMCR_TRCENA, &ignored);
	}
	if ((rc = rp_rsp_continue(rsp, err)) < 0)
		return rc;
	if ((rc = rp_rsp_wait_stop(rsp, DWT_SETTLE_NS, &stop, err)) != 0)
		return rc < 0 ? rc : dwt_stopped(rsp, &stop, res, err);
	rc = rp_rsp_peek32(rsp, RP_SAMPLER_DWT_PCSR, &pcsr, &stop, err);
	if (rc < 0)
		return rc;
	if (rc == 1 && stop.kind != RP_RSP_STOPPED)
		return target_gone(res, &stop);
	if (rc == 0 && pcsr != 0 && pcsr != 0xffffffffu)
		return add_sample(s, opts, pcsr & ~1u, 0, err);
	if (rc == 1)
		snprintf(res->method_note, sizeof(res->method_note),
			 "the gdbserver halts the target to read memory");
	else if (rc == 2)
		snprintf(res->method_note, sizeof(res->method_note), "DWT_PCSR is not readable");
	else if (rc == 0)
		snprintf(res->method_note, sizeof(res->method_note), "DWT_PCSR reads 0x%08x", pcsr);
	else
		snprintf(res->method_note, sizeof(res->method_note), "no answer to a memory read while running");
	if (rc == 1)
		return 2; /* already halted */
	rc = halt_running(rsp, res, err);
	return rc == 0 ? 2 : rc;
}

/* Ends a DWT run for a limit: halts the target so that the detach is the usual one. */
static int finish_running(rp_rsp *rsp, const rp_sampler_opts *opts, rp_sampler_result *res, struct loop *lp,
			  int why, rp_err *err)
{
	int rc = halt_running(rsp, res, err);
	if (rc != 0)
		return finish_outcome(rsp, res, lp, rc, err);
	res->stop = (rp_sampler_stop)why;
	update_stats(&res->stats, lp->start);
	intrusion(res, lp);
	return finish_halted(rsp, opts, res, err);
}

static int dwt_sample(rp_rsp *rsp, rp_samples *s, const rp_sampler_opts *opts, struct loop *lp,
		      rp_sampler_result *res, rp_err *err)
{
	rp_rsp_stop stop;
	/* the DWT never halts the target: no intrusion to bound, the automatic rate is the fastest */
	rp_sampler_opts fast = *opts;
	if (fast.rate_hz < 0)
		fast.rate_hz = 0;
	int64_t wait = next_wait(lp, &fast, now_ns());
	int rc = wait > 0 ? rp_rsp_wait_stop(rsp, wait, &stop, err) : 0;
	if (rc != 0)
		return rc < 0 ? rc : dwt_stopped(rsp, &stop, res, err);
	uint32_t pcsr;
	rc = rp_rsp_peek32(rsp, RP_SAMPLER_DWT_PCSR, &pcsr, &stop, err);
	if (rc == 1)
		return dwt_stopped(rsp, &stop, res, err);
	if (rc == 2)
		return rp_err_set(err, RP_EINPUT, "%s: DWT_PCSR stopped being readable", rp_rsp_name(rsp));
	if (rc == 3)
		return err->code; /* the timeout message is set */
	if (rc < 0)
		return rc;
	if (pcsr == 0xffffffffu) {
		res->dwt_idle++;
		return 0;
	}
	return add_sample(s, opts, pcsr & ~1u, 0, err);
}

static int run_dwt(rp_rsp *rsp, rp_samples *s, const rp_sampler_opts *opts, struct loop *lp,
		   rp_sampler_result *res, rp_err *err)
{
	int64_t next_progress = lp->start + PROGRESS_NS;
	res->method = "dwt";
	res->stats.samples = s->total - lp->base;
	for (;;) {
		int why = limit_reached(opts, res->stats.samples, lp->end);
		if (why >= 0)
			return finish_running(rsp, opts, res, lp, why, err);
		int rc = dwt_sample(rsp, s, opts, lp, res, err);
		res->stats.samples = s->total - lp->base;
		if (rc != 0)
			return finish_outcome(rsp, res, lp, rc, err);
		maybe_progress(opts, res, lp, &next_progress);
	}
}

int rp_sampler_run(rp_rsp *rsp, rp_samples *s, const rp_sampler_opts *opts, rp_sampler_result *res,
		   rp_err *err)
{
	struct loop lp;
	memset(&lp, 0, sizeof(lp));
	lp.prng = opts->seed;
	lp.start = now_ns();
	lp.end = INT64_MAX;
	lp.min_run_ns = (int64_t)(opts->min_run_us * 1e3);
	lp.base = s->total;
	lp.due = lp.start;
	if (opts->duration_s > 0)
		lp.end = lp.start + (int64_t)(opts->duration_s * 1e9);
	rp_ratectl_init(&lp.ctl, opts->max_slowdown);
	memset(res, 0, sizeof(*res));
	res->method = "halt";
	if (opts->method == RP_SAMPLER_METHOD_AUTO && rp_rsp_is_m_profile(rsp)) {
		mark_resumed(&lp, now_ns(), 0); /* the probe lets it run and reads while it runs */
		int rc = dwt_probe(rsp, s, opts, res, err);
		if (rc == 0)
			return run_dwt(rsp, s, opts, &lp, res, err);
		if (rc == 3)
			lp.resumed_at = 0;
		else if (rc != 2)
			return finish_outcome(rsp, res, &lp, rc, err);
		else /* it ran until the read that halted it, about the settling time, halted since */
			mark_stopped(&lp, lp.resumed_at + DWT_SETTLE_NS, 1);
	}
	int rc = rp_sfilter_start(&lp.filter, rsp, now_ns(), res, err);
	if (rc < 0)
		return finish_outcome(rsp, res, &lp, rc, err);
	return run_halting(rsp, s, opts, &lp, res, err);
}
