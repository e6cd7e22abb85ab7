/* cmd_record.c: `ramplace record`: samples a running target's pc through a gdbserver and stores
 * the run in profile.db.
 *
 * Bad input fails before anything is touched remotely: options, then the ELF and the database
 * are opened before connecting. Whatever ends the sampling, the samples gathered so far are
 * stored in one transaction, and only then is an error returned. Owns the SIGINT handler for
 * the duration of the command; it only sets a flag that the sampler polls. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "ramplace/image.h"
#include "ramplace/profiledb.h"
#include "ramplace/rsp.h"
#include "ramplace/sampler.h"
#include "ramplace/samples.h"

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

struct record_opts {
	char host[256];
	int port;
	rp_sampler_opts sampler;
	rp_rsp_opts rsp;
	int quiet;
	const char *db_path, *elf_path;
};

static void usage(void)
{
	printf("usage: ramplace record --remote HOST:PORT [options] profile.db firmware.elf\n\n"
	       "Samples the program counter of a target behind a gdbserver (QEMU -gdb, OpenOCD,\n"
	       "J-Link, gdbserver) by halting it at random intervals, and stores the run in profile.db.\n\n"
	       "  --remote HOST:PORT        the gdbserver to connect to\n"
	       "  --duration SECONDS        stop after this long (default: until another limit)\n"
	       "  --samples N               stop after N samples\n"
	       "  --rate HZ                 mean sampling rate (default 0: as fast as possible)\n"
	       "  --min-run USEC            halting: the target runs at least this long between\n"
	       "                            samples (default 30)\n"
	       "  --method auto|halt        auto (default): on Cortex-M read the DWT PC sample\n"
	       "                            register without halting when it works, else halt\n"
	       "  --seed N                  seed of the randomized intervals (default: from the clock)\n"
	       "  --connect-timeout MS      bound on connecting (default 3000)\n"
	       "  --timeout MS              bound on every reply (default 2000)\n"
	       "  --no-callers              do not record lr/ra -> pc arcs\n"
	       "  --quiet                   no progress line\n"
	       "  --runtime                 read the target-side runtime's histogram instead\n"
	       "                            (see 'ramplace record --runtime --help')\n"
	       "  --help                    print this and exit\n\n"
	       "The run ends at --duration, --samples, when the target exits, or on Ctrl-C; the\n"
	       "samples gathered are stored in every case.\n");
}

/* Parses a number of `what` in [min, max]. */
static int parse_double(double *out, const char *text, double min, double max, const char *what,
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

/* "host:port", "[v6addr]:port". */
enum { OPT_REMOTE = 256, OPT_DURATION, OPT_SAMPLES, OPT_RATE, OPT_SEED, OPT_CTIMEOUT, OPT_TIMEOUT,
       OPT_NO_CALLERS, OPT_QUIET, OPT_HELP, OPT_MIN_RUN, OPT_METHOD };

static const struct option long_opts[] = {
	{ "remote", required_argument, NULL, OPT_REMOTE },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "samples", required_argument, NULL, OPT_SAMPLES },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "connect-timeout", required_argument, NULL, OPT_CTIMEOUT },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "no-callers", no_argument, NULL, OPT_NO_CALLERS },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "min-run", required_argument, NULL, OPT_MIN_RUN },
	{ "method", required_argument, NULL, OPT_METHOD },
	{ NULL, 0, NULL, 0 },
};

/* Returns 1 after --help, 0 to go on, or a usage error. */
static int parse_args(struct record_opts *o, int argc, char **argv, rp_err *err)
{
	int c, rc = 0, have_remote = 0;
	double d;
	while (rc == 0 && (c = getopt_long(argc, argv, "", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_REMOTE:
			rc = cli_parse_remote(o->host, sizeof(o->host), &o->port, optarg, "record", err);
			have_remote = 1;
			break;
		case OPT_DURATION:
			rc = parse_double(&o->sampler.duration_s, optarg, 0.001, 1e7,
					  "--duration wants a positive number of seconds", err);
			break;
		case OPT_SAMPLES:
			rc = parse_u64(&o->sampler.max_samples, optarg, UINT64_MAX,
				       "--samples wants a positive count", err);
			if (rc == 0 && o->sampler.max_samples == 0)
				rc = cli_usage_error(err, "record", "--samples wants a positive count");
			break;
		case OPT_RATE:
			rc = parse_double(&o->sampler.rate_hz, optarg, 0, 1e7,
					  "--rate wants a rate in Hz (0: as fast as possible)", err);
			break;
		case OPT_MIN_RUN:
			rc = parse_double(&o->sampler.min_run_us, optarg, 0, 1e7,
					  "--min-run wants microseconds (0..10000000)", err);
			break;
		case OPT_METHOD:
			if (strcmp(optarg, "auto") == 0)
				o->sampler.method = RP_SAMPLER_METHOD_AUTO;
			else if (strcmp(optarg, "halt") == 0)
				o->sampler.method = RP_SAMPLER_METHOD_HALT;
			else
				rc = cli_usage_error(err, "record", "--method wants auto or halt");
			break;
		case OPT_SEED:
			rc = parse_u64(&o->sampler.seed, optarg, UINT64_MAX, "--seed wants a number", err);
			break;
		case OPT_CTIMEOUT:
		case OPT_TIMEOUT:
			rc = parse_double(&d, optarg, 1, 3600000, "timeouts want milliseconds (1..3600000)", err);
			*(c == OPT_TIMEOUT ? &o->rsp.timeout_ms : &o->rsp.connect_timeout_ms) = (int)d;
			break;
		case OPT_NO_CALLERS:
			o->sampler.callers = 0;
			break;
		case OPT_QUIET:
			o->quiet = 1;
			break;
		case OPT_HELP:
			usage();
			return 1;
		default:
			return cli_usage_error(err, "record", "unknown option");
		}
	}
	if (rc < 0)
		return rc;
	if (!have_remote)
		return cli_usage_error(err, "record", "--remote HOST:PORT is required");
	if (argc - optind != 2)
		return cli_usage_error(err, "record", "wants profile.db and firmware.elf");
	o->db_path = argv[optind];
	o->elf_path = argv[optind + 1];
	return 0;
}

static void show_progress(void *ctx, const rp_sampler_stats *st)
{
	(void)ctx;
	fprintf(stderr, "\rrecording: %llu samples, %.0f samples/s, %.1f s   ",
		(unsigned long long)st->samples, st->rate_hz, st->elapsed_s);
	fflush(stderr);
}

/* Connects, samples, and stores whatever was gathered; returns the sampling error, if any,
 * after the run is safely stored. */
static int record(struct record_opts *o, rp_db *db, const rp_image *img, rp_err *err)
{
	rp_samples samples;
	rp_sampler_result res;
	rp_rsp *rsp = NULL;
	rp_err serr = RP_ERR_INIT;
	int rc = rp_rsp_connect(&rsp, o->host, o->port, &o->rsp, err);
	if (rc < 0)
		return rc;
	rp_samples_init(&samples);
	int progress = !o->quiet && isatty(STDERR_FILENO);
	if (progress)
		o->sampler.progress = show_progress;
	int src = rp_sampler_run(rsp, &samples, &o->sampler, &res, &serr);
	if (progress)
		fputc('\n', stderr);

	char source[320];
	snprintf(source, sizeof(source), "gdbserver %s", rp_rsp_name(rsp));
	rp_run_info info = RP_RUN_INFO_INIT;
	info.source = source;
	info.tool = "record";
	info.method = res.method;
	info.rate_hz = res.stats.rate_hz;
	info.duration_s = res.stats.elapsed_s;
	info.stop_reason = res.reason;
	int64_t run_id = 0;
	rc = 0;
	if (res.stats.samples > 0)
		rc = rp_db_store_run(db, img, &info, &samples, &run_id, err);
	if (rc == 0) {
		printf("recorded %llu samples in %.2f s (%.0f samples/s, %s) from %s; stopped: %s",
		       (unsigned long long)res.stats.samples, res.stats.elapsed_s, res.stats.rate_hz,
		       res.method, rp_rsp_name(rsp), res.reason);
		if (res.stats.samples > 0)
			printf("; run %lld in %s\n", (long long)run_id, o->db_path);
		else
			printf("; nothing stored\n");
		if (res.method_note[0])
			printf("no DWT sampling: %s; halted the target instead\n", res.method_note);
		fflush(stdout);
	}
	rp_samples_release(&samples);
	rp_rsp_close(rsp);
	if (rc == 0 && src < 0) {
		*err = serr;
		rc = src;
	}
	return rc;
}

int cmd_record(int argc, char **argv, rp_err *err)
{
	struct record_opts o;
	rp_sampler_opts sdflt = RP_SAMPLER_OPTS_INIT;
	rp_rsp_opts rdflt = RP_RSP_OPTS_INIT;
	memset(&o, 0, sizeof(o));
	o.sampler = sdflt;
	o.rsp = rdflt;
	o.sampler.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	/* --runtime is another collection method with its own options (cmd_record_runtime.c) */
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--runtime") == 0)
			return cmd_record_runtime(argc, argv, err);
	int rc = parse_args(&o, argc, argv, err);
	if (rc != 0)
		return rc > 0 ? 0 : rc;

	rp_image *img = NULL;
	rp_db *db = NULL;
	if ((rc = rp_image_load(&img, o.elf_path, err)) < 0)
		return rc;
	if ((rc = rp_db_open(&db, o.db_path, err)) < 0) {
		rp_image_free(img);
		return rc;
	}
	o.rsp.elf_machine = img->machine;
	o.rsp.elfclass = img->elfclass;
	o.rsp.big_endian = img->big_endian;
	o.rsp.want_ra = o.sampler.callers;

	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint; /* no SA_RESTART: a wait must wake up to see the flag */
	sigemptyset(&sa.sa_mask);
	interrupted = 0;
	sigaction(SIGINT, &sa, &old);
	o.rsp.cancel = &interrupted;
	o.sampler.stop_flag = &interrupted;
#ifdef __linux__
	/* waits of tens of microseconds: the default 50 us timer slack would double them */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
#endif

	rc = record(&o, db, img, err);

	sigaction(SIGINT, &old, NULL);
	rp_db_close(db);
	rp_image_free(img);
	return rc;
}
