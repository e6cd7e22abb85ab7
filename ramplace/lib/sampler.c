/* sampler.c: the halting sampling loop of `ramplace record` (see sampler.h).
 *
 * One sample is: continue, wait a randomized interval (watching for the target stopping by
 * itself), send the interrupt, wait for the stop reply, read pc and lr/ra. The continue is
 * never sent before the stop reply arrived: a gdbserver that is still running has no answer for
 * it. Intervals are random around the mean period because periodic sampling aliases with
 * periodic code. Owns nothing; the rsp and the samples are the caller's. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ramplace/sampler.h"

#define PROGRESS_NS 250000000

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

/* What the loop carries from one sample to the next. */
struct loop {
	uint64_t prng;
	int64_t end;          /* deadline from --duration, INT64_MAX without one */
	int64_t overhead_ns;  /* running mean of a sample's cost beyond the wait */
};

/* The wait before the next interrupt: the randomized interval less the time a sample costs
 * anyway, so that the achieved rate matches the requested one; never past the deadline. */
static int64_t next_wait(struct loop *lp, double rate_hz, int64_t now)
{
	int64_t wait = rp_sampler_interval_ns(&lp->prng, rate_hz) - lp->overhead_ns;
	if (wait > lp->end - now)
		wait = lp->end - now;
	return wait > 0 ? wait : 0;
}

/* Continues, waits, interrupts and reads one sample. Returns 0 with a sample added, 1 when the
 * target exited (res filled), or a negative code. */
static int sample_once(rp_rsp *rsp, rp_samples *s, const rp_sampler_opts *opts, struct loop *lp,
		       rp_sampler_result *res, rp_err *err)
{
	rp_rsp_stop stop;
	int64_t t0 = now_ns(), wait = next_wait(lp, opts->rate_hz, t0);
	int rc = rp_rsp_continue(rsp, err);
	if (rc < 0)
		return rc;
	rc = wait > 0 ? rp_rsp_wait_stop(rsp, wait, &stop, err) : 0;
	int64_t t1 = now_ns();
	if (rc == 0) {
		rc = rp_rsp_interrupt(rsp, err);
		if (rc < 0 && exited_meanwhile(rsp, &stop))
			rc = 1;
		else if (rc == 0)
			rc = rp_rsp_wait_stop(rsp, -1, &stop, err);
	}
	if (rc < 0)
		return rc;
	if (stop.kind == RP_RSP_EXITED || stop.kind == RP_RSP_KILLED) {
		res->exit_code = stop.code;
		snprintf(res->reason, sizeof(res->reason), stop.kind == RP_RSP_EXITED ?
			 "target exited (status %d)" : "target killed (signal %d)", stop.code);
		return 1;
	}
	uint64_t pc, ra;
	if ((rc = rp_rsp_read_pc(rsp, &stop, &pc, &ra, err)) < 0)
		return rc;
	int64_t cost = now_ns() - t0 - (t1 - t0 < wait ? t1 - t0 : wait);
	lp->overhead_ns += (cost - lp->overhead_ns) / 8;
	if ((rc = rp_samples_add(s, pc, 1, err)) < 0)
		return rc;
	if (opts->callers && ra)
		rc = rp_samples_add_arc(s, ra & ~(uint64_t)1, pc, 1, err);
	return rc;
}

static void update_stats(rp_sampler_stats *st, int64_t start)
{
	st->elapsed_s = (double)(now_ns() - start) / 1e9;
	st->rate_hz = st->elapsed_s > 0 ? (double)st->samples / st->elapsed_s : 0.0;
}

/* Why the loop should stop before the next sample, or -1 to go on. */
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

/* Ends a run that stopped while the target is halted: lets it run on without the debugger. */
static int finish_halted(rp_rsp *rsp, rp_sampler_result *res, rp_err *err)
{
	static const char *const names[] = { "duration", "samples", "", "interrupted", "" };
	snprintf(res->reason, sizeof(res->reason), "%s", names[res->stop]);
	int rc = rp_rsp_detach(rsp, err);
	if (rc < 0)
		return kept(err, rc, res->stats.samples);
	if (res->stop == RP_SAMPLER_INTERRUPTED) {
		rp_err_set(err, RP_EINTERRUPT, "%s: interrupted", rp_rsp_name(rsp));
		return kept(err, RP_EINTERRUPT, res->stats.samples);
	}
	return 0;
}

int rp_sampler_run(rp_rsp *rsp, rp_samples *s, const rp_sampler_opts *opts, rp_sampler_result *res,
		   rp_err *err)
{
	int64_t start = now_ns(), next_progress = start + PROGRESS_NS;
	struct loop lp = { opts->seed, INT64_MAX, 0 };
	if (opts->duration_s > 0)
		lp.end = start + (int64_t)(opts->duration_s * 1e9);
	uint64_t base = s->total;
	memset(res, 0, sizeof(*res));
	for (;;) {
		int why = limit_reached(opts, res->stats.samples, lp.end);
		if (why >= 0) {
			res->stop = (rp_sampler_stop)why;
			update_stats(&res->stats, start);
			return finish_halted(rsp, res, err);
		}
		int rc = sample_once(rsp, s, opts, &lp, res, err);
		res->stats.samples = s->total - base;
		if (rc != 0) {
			update_stats(&res->stats, start);
			res->stop = rc > 0 ? RP_SAMPLER_EXITED : RP_SAMPLER_FAILED;
			if (rc > 0)
				return 0;
			reason_from_err(res, rsp, err);
			return kept(err, rc, res->stats.samples);
		}
		if (opts->progress && now_ns() >= next_progress) {
			update_stats(&res->stats, start);
			opts->progress(opts->progress_ctx, &res->stats);
			next_progress += PROGRESS_NS;
		}
	}
}
