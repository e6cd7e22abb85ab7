/* record_opts.c: the options of `ramplace record` (cli.h), for both methods: sampling the pc
 * (cmd_record.c) and reading the target-side runtime's histogram (--runtime,
 * cmd_record_runtime.c). One table and one parser serve both, so the options they share
 * (--remote, --duration, the timeouts, --quiet, the operands) are read and checked the same
 * way; each method sees only its own options, so an option of the other method is unknown to
 * it, and abbreviations are resolved among its own. Also what every method (--swo included:
 * cmd_record_swo.c) shares: the number parser, the checks before anything remote is touched,
 * and the signals taken as "stop and keep what was gathered". Owns nothing: o points into argv. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "ramplace/profiledb.h"
#include "ramplace/runtime.h"

static const char sampling_usage[] =
	"usage: ramplace record --remote HOST:PORT [options] profile.db firmware.elf\n\n"
	"Samples the program counter of a target behind a gdbserver (QEMU -gdb, OpenOCD,\n"
	"J-Link, gdbserver) by halting it at random intervals, and stores the run in profile.db.\n\n"
	"  --remote HOST:PORT        the gdbserver to connect to\n"
	"  --duration SECONDS        stop after this long (default: until another limit)\n"
	"  --samples N               stop after N samples\n"
	"  --rate HZ|auto            mean sampling rate; 0: as fast as possible; auto (default):\n"
	"                            the fastest rate that keeps the target's slowdown under\n"
	"                            --max-slowdown (halting), as fast as possible (DWT)\n"
	"  --max-slowdown PCT        bound on the time the target spends halted, in percent\n"
	"                            of the time it runs (default 5); a forced --rate that\n"
	"                            goes over it is warned about\n"
	"  --min-run USEC            halting: the target runs at least this long between\n"
	"                            samples (default 30)\n"
	"  --method auto|halt        auto (default): on Cortex-M read the DWT PC sample\n"
	"                            register without halting when it works, else halt\n"
	"  --seed N                  seed of the randomized intervals (default: from the clock)\n"
	"  --connect-timeout MS      keep trying to connect this long: a refused connection\n"
	"                            is retried, for a gdbserver still starting (default 3000)\n"
	"  --timeout MS              bound on every reply (default 2000)\n"
	"  --no-callers              do not record lr/ra -> pc arcs\n"
	"  --quiet                   no progress line\n"
	"  --runtime                 read the target-side runtime's histogram instead\n"
	"                            (see 'ramplace record --runtime --help')\n"
	"  --swo HOST:PORT           read DWT PC samples from an SWO stream instead\n"
	"                            (see 'ramplace record --swo --help')\n"
	"  --help                    print this and exit\n\n"
	"The run ends at --duration, --samples, when the target exits, or on Ctrl-C, SIGTERM\n"
	"or SIGHUP (exit status 130); the samples gathered are stored in every case. The\n"
	"report says the slowdown the halts caused and whether the run covered the target's\n"
	"whole run (it exited while recorded); both are stored in the run's notes. Halts that\n"
	"took a pending interrupt and stopped on its handler's entry are dropped (Cortex-M).\n"
	"Against QEMU, halting samples are biased: use the plugin's exact counts there.\n"
	"profile.db is created or changed only when there is a run to store.\n";

static const char runtime_usage[] =
	"usage: ramplace record --runtime --remote HOST:PORT [options] profile.db firmware.elf\n\n"
	"Reads the histogram of ramplace's target-side sampling runtime (ramplace/runtime,\n"
	"linked into the firmware) from target memory through a gdbserver and stores it in\n"
	"profile.db as a run with method \"runtime\". By default it stops the target when it\n"
	"calls ramplace_profile_ready, reads, and lets it run on.\n\n"
	"  --remote HOST:PORT        the gdbserver to connect to\n"
	"  --at FUNCTION             stop on this function instead of ramplace_profile_ready\n"
	"  --now                     read at once, wherever the gdbserver halted the target\n"
	"  --duration SECONDS        read after this long if the breakpoint was not reached\n"
	"  --gmon FILE               also write the histogram as a gmon.out file\n"
	"  --reset                   zero the histogram on the target after reading it\n"
	"  --connect-timeout MS      keep trying to connect this long: a refused connection\n"
	"                            is retried, for a gdbserver still starting (default 3000)\n"
	"  --timeout MS              bound on every reply (default 2000)\n"
	"  --quiet                   no summary line\n"
	"  --help                    print this and exit\n\n"
	"profile.db is created or changed only when a histogram was read.\n";

enum { OPT_RUNTIME = 256, OPT_REMOTE, OPT_AT, OPT_NOW, OPT_DURATION, OPT_GMON, OPT_RESET, OPT_SAMPLES,
       OPT_RATE, OPT_SEED, OPT_CTIMEOUT, OPT_TIMEOUT, OPT_NO_CALLERS, OPT_QUIET, OPT_HELP, OPT_MIN_RUN,
       OPT_METHOD, OPT_MAX_SLOWDOWN };

enum { SAMPLING = 1, RUNTIME = 2, BOTH = SAMPLING | RUNTIME };

/* In this order getopt_long names the candidates of an ambiguous abbreviation; it is the order
 * each method's own table had before they were merged, so those messages did not change. */
static const struct {
	struct option opt;
	int methods;
} all_opts[] = {
	{ { "runtime", no_argument, NULL, OPT_RUNTIME }, RUNTIME },
	{ { "remote", required_argument, NULL, OPT_REMOTE }, BOTH },
	{ { "at", required_argument, NULL, OPT_AT }, RUNTIME },
	{ { "now", no_argument, NULL, OPT_NOW }, RUNTIME },
	{ { "duration", required_argument, NULL, OPT_DURATION }, BOTH },
	{ { "gmon", required_argument, NULL, OPT_GMON }, RUNTIME },
	{ { "reset", no_argument, NULL, OPT_RESET }, RUNTIME },
	{ { "samples", required_argument, NULL, OPT_SAMPLES }, SAMPLING },
	{ { "rate", required_argument, NULL, OPT_RATE }, SAMPLING },
	{ { "seed", required_argument, NULL, OPT_SEED }, SAMPLING },
	{ { "connect-timeout", required_argument, NULL, OPT_CTIMEOUT }, BOTH },
	{ { "timeout", required_argument, NULL, OPT_TIMEOUT }, BOTH },
	{ { "no-callers", no_argument, NULL, OPT_NO_CALLERS }, SAMPLING },
	{ { "quiet", no_argument, NULL, OPT_QUIET }, BOTH },
	{ { "help", no_argument, NULL, OPT_HELP }, BOTH },
	{ { "min-run", required_argument, NULL, OPT_MIN_RUN }, SAMPLING },
	{ { "method", required_argument, NULL, OPT_METHOD }, SAMPLING },
	{ { "max-slowdown", required_argument, NULL, OPT_MAX_SLOWDOWN }, SAMPLING },
};

#define NOPTS (sizeof(all_opts) / sizeof(all_opts[0]))

void cli_record_opts_init(cli_record_opts *o, int runtime)
{
	rp_sampler_opts sdflt = RP_SAMPLER_OPTS_INIT;
	rp_rsp_opts rdflt = RP_RSP_OPTS_INIT;
	memset(o, 0, sizeof(*o));
	o->runtime = runtime;
	o->rsp = rdflt;
	o->sampler = sdflt;
	o->sampler.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
}

int cli_record_number(double *out, const char *text, double min, double max, const char *what,
		      rp_err *err)
{
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (errno || end == text || *end || !(v >= min && v <= max))
		return cli_usage_error(err, "record", what);
	*out = v;
	return 0;
}

static int parse_u64(uint64_t *out, const char *text, uint64_t max, const char *what, rp_err *err)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 0);
	if (errno || end == text || *end || text[0] == '-' || v > max)
		return cli_usage_error(err, "record", what);
	*out = v;
	return 0;
}

/* One option of either method; getopt_long has already refused those of the other one. */
static int parse_option(cli_record_opts *o, int c, const char *arg, int *have_remote, int *now, rp_err *err)
{
	double d = 0; /* set when cli_record_number succeeds, which GCC -O2 cannot always see */
	int rc;
	switch (c) {
	case OPT_REMOTE:
		*have_remote = 1;
		return cli_parse_remote(o->host, sizeof(o->host), &o->port, arg, "record", err);
	case OPT_DURATION:
		return cli_record_number(&o->duration_s, arg, 0.001, 1e7, "--duration wants a positive number of seconds", err);
	case OPT_CTIMEOUT:
	case OPT_TIMEOUT:
		rc = cli_record_number(&d, arg, 1, 3600000, "timeouts want milliseconds (1..3600000)", err);
		if (rc == 0)
			*(c == OPT_TIMEOUT ? &o->rsp.timeout_ms : &o->rsp.connect_timeout_ms) = (int)d;
		return rc;
	case OPT_QUIET:
		o->quiet = 1;
		return 0;
	/* sampling */
	case OPT_SAMPLES:
		rc = parse_u64(&o->sampler.max_samples, arg, UINT64_MAX, "--samples wants a positive count", err);
		if (rc == 0 && o->sampler.max_samples == 0)
			rc = cli_usage_error(err, "record", "--samples wants a positive count");
		return rc;
	case OPT_RATE:
		if (strcmp(arg, "auto") == 0) {
			o->sampler.rate_hz = RP_SAMPLER_RATE_AUTO;
			return 0;
		}
		return cli_record_number(&o->sampler.rate_hz, arg, 0, 1e7,
				    "--rate wants a rate in Hz (0: as fast as possible) or auto", err);
	case OPT_MAX_SLOWDOWN:
		rc = cli_record_number(&d, arg, 0.01, 1000, "--max-slowdown wants a percentage (0.01..1000)", err);
		if (rc == 0)
			o->sampler.max_slowdown = d / 100;
		return rc;
	case OPT_MIN_RUN:
		return cli_record_number(&o->sampler.min_run_us, arg, 0, 1e7, "--min-run wants microseconds (0..10000000)", err);
	case OPT_METHOD:
		if (strcmp(arg, "auto") == 0)
			o->sampler.method = RP_SAMPLER_METHOD_AUTO;
		else if (strcmp(arg, "halt") == 0)
			o->sampler.method = RP_SAMPLER_METHOD_HALT;
		else
			return cli_usage_error(err, "record", "--method wants auto or halt");
		return 0;
	case OPT_SEED:
		return parse_u64(&o->sampler.seed, arg, UINT64_MAX, "--seed wants a number", err);
	case OPT_NO_CALLERS:
		o->sampler.callers = 0;
		return 0;
	/* --runtime */
	case OPT_RUNTIME:
		return 0;
	case OPT_AT:
		o->at = arg;
		return 0;
	case OPT_NOW:
		*now = 1;
		return 0;
	case OPT_GMON:
		o->gmon_path = arg;
		return 0;
	case OPT_RESET:
		o->reset = 1;
		return 0;
	default:
		return cli_usage_error(err, "record", "unknown option");
	}
}

int cli_record_opts_parse(cli_record_opts *o, int argc, char **argv, rp_err *err)
{
	struct option opts[NOPTS + 1];
	size_t n = 0;
	int method = o->runtime ? RUNTIME : SAMPLING;
	for (size_t i = 0; i < NOPTS; i++)
		if (all_opts[i].methods & method)
			opts[n++] = all_opts[i].opt;
	memset(&opts[n], 0, sizeof(opts[n]));

	int c, rc = 0, have_remote = 0, now = 0;
	while (rc == 0 && (c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == OPT_HELP) {
			fputs(o->runtime ? runtime_usage : sampling_usage, stdout);
			return 1;
		}
		rc = parse_option(o, c, optarg, &have_remote, &now, err);
	}
	if (rc < 0)
		return rc;
	if (!have_remote)
		return cli_usage_error(err, "record", "--remote HOST:PORT is required");
	if (now && (o->at || o->duration_s > 0))
		return cli_usage_error(err, "record", "--now reads at once: no --at or --duration with it");
	if (o->runtime)
		o->at = now ? NULL : o->at ? o->at : RP_RUNTIME_READY_SYMBOL;
	if (argc - optind != 2)
		return cli_usage_error(err, "record", "wants profile.db and firmware.elf");
	o->db_path = argv[optind];
	o->elf_path = argv[optind + 1];
	return 0;
}

int cli_record_open(rp_image **img, const char *elf_path, const char *db_path, rp_err *err)
{
	int rc = rp_image_load(img, elf_path, err);
	if (rc < 0)
		return rc;
	if ((rc = rp_db_probe(db_path, err)) < 0) {
		rp_image_free(*img);
		*img = NULL;
		return rc;
	}
	return 0;
}

static const int stop_signals[3] = { SIGINT, SIGTERM, SIGHUP };

void cli_record_signals_set(cli_record_sigs *saved, void (*fn)(int))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn; /* no SA_RESTART: a wait must wake up to see the flag */
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 3; i++)
		sigaddset(&sa.sa_mask, stop_signals[i]); /* one handler at a time: the first signal names the stop */
	for (int i = 0; i < 3; i++)
		sigaction(stop_signals[i], &sa, &saved->old[i]);
}

void cli_record_signals_restore(const cli_record_sigs *saved)
{
	for (int i = 0; i < 3; i++)
		sigaction(stop_signals[i], &saved->old[i], NULL);
}
