/* cmd_record_swo.c: `ramplace record --swo HOST:PORT`: DWT PC sampling over SWO. With
 * --remote it first connects to the gdbserver, writes the DWT/ITM/TPIU registers
 * (rp_swo_configure; a target that refuses them, like QEMU, is reported and the stream read
 * anyway) and lets the target run once the SWO stream is connected; then it reads the stream
 * from the probe server's TCP port (swo_live.c), decoding as it comes, until --duration,
 * --samples, the end of the stream, a silent stream (--timeout) or SIGINT/SIGTERM/SIGHUP, and
 * stores the samples as one run (method "swo") in one transaction. Overflows, sleeping samples,
 * framing errors and skipped bytes go into the run's stop reason and are printed. Bad options,
 * the ELF and the database are checked before anything remote is touched; profile.db is
 * created or changed only when there are samples. The recording is rp_swo_record
 * (swo_record.h); this file parses, owns the signals and prints. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ramplace/swo_record.h"

static const char usage[] =
	"usage: ramplace record --swo HOST:PORT [--remote HOST:PORT] [options] profile.db firmware.elf\n\n"
	"Reads DWT PC samples of a Cortex-M from the SWO stream a probe server serves on a TCP\n"
	"port (OpenOCD 'tpiu ... -output :PORT', orbuculum; QEMU with libramplace-qemu.so's\n"
	"swo=tcp:PORT) and stores them in profile.db as one run with method \"swo\".\n\n"
	"  --swo HOST:PORT           the SWO stream's server\n"
	"  --remote HOST:PORT        the gdbserver: configure DWT, ITM and TPIU through it, then\n"
	"                            let the target run (without it the target is left alone)\n"
	"  --swo-clock HZ            SWO bit rate, for the TPIU prescaler (default 2000000)\n"
	"  --cpu-clock HZ            the trace clock the prescaler divides (default 25000000)\n"
	"  --swo-interval CYCLES     cycles between PC samples: 64..1024 x 1..16 (default 1024)\n"
	"  --swo-framing auto|raw|tpiu  TPIU formatter frames or raw ITM (default auto: detected;\n"
	"                            configuring, tpiu turns the formatter on)\n"
	"  --swo-no-config           do not write the registers (someone else configured them)\n"
	"  --duration SECONDS        stop after this long\n"
	"  --samples N               stop after N PC samples\n"
	"  --connect-timeout MS      keep trying to connect this long (default 3000)\n"
	"  --timeout MS              bound on every gdbserver reply, and on a silent stream\n"
	"                            (default 2000 and 5000)\n"
	"  --quiet                   print nothing but the summary line\n"
	"  --help                    print this and exit\n\n"
	"The run ends at --duration, --samples, the end or silence of the stream, or on Ctrl-C,\n"
	"SIGTERM or SIGHUP (exit status 130); the samples gathered are stored in every case.\n"
	"Overflow packets (the SWO line dropped packets) are counted and reported.\n";

typedef struct swo_args {
	char swo_host[256], host[256];
	int swo_port, port;
	rp_swo_config cfg;
	rp_swo_framing framing;
	int no_config, quiet;
	rp_swo_live_opts live;
	rp_rsp_opts rsp;
	const char *db_path, *elf_path;
} swo_args;

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	if (!interrupted)
		interrupted = sig;
}

enum { O_SWO = 256, O_REMOTE, O_SWO_CLOCK, O_CPU_CLOCK, O_INTERVAL, O_FRAMING, O_NO_CONFIG, O_DURATION,
       O_SAMPLES, O_CTIMEOUT, O_TIMEOUT, O_QUIET, O_HELP };

static int option(swo_args *a, int c, const char *arg, rp_err *err)
{
	double v = 0;
	int rc = 0;
	switch (c) {
	case O_SWO:
		if (cli_parse_remote(a->swo_host, sizeof(a->swo_host), &a->swo_port, arg, "record", err) < 0)
			return cli_usage_error(err, "record", "--swo wants HOST:PORT with a port in 1..65535");
		return 0;
	case O_REMOTE:
		return cli_parse_remote(a->host, sizeof(a->host), &a->port, arg, "record", err);
	case O_SWO_CLOCK:
	case O_CPU_CLOCK:
		if (!(rc = cli_record_number(&v, arg, 1, 4e9, "--swo-clock and --cpu-clock want a frequency in Hz", err)))
			*(c == O_SWO_CLOCK ? &a->cfg.swo_clock_hz : &a->cfg.cpu_clock_hz) = (uint32_t)v;
		return rc;
	case O_INTERVAL:
		if (!(rc = cli_record_number(&v, arg, 64, 16384, "--swo-interval wants 64..16384 cycles", err)))
			a->cfg.interval = (uint32_t)v;
		return rc;
	case O_FRAMING:
		return rp_swo_framing_parse(&a->framing, arg, err);
	case O_NO_CONFIG:
		a->no_config = 1;
		return 0;
	case O_DURATION:
		return cli_record_number(&a->live.duration_s, arg, 0.001, 1e7, "--duration wants a positive number of seconds", err);
	case O_SAMPLES:
		if (!(rc = cli_record_number(&v, arg, 1, 1e18, "--samples wants a positive count", err)))
			a->live.max_samples = (uint64_t)v;
		return rc;
	case O_CTIMEOUT:
	case O_TIMEOUT:
		if (!(rc = cli_record_number(&v, arg, 1, 3600000, "timeouts want milliseconds (1..3600000)", err))) {
			*(c == O_TIMEOUT ? &a->rsp.timeout_ms : &a->rsp.connect_timeout_ms) = (int)v;
			if (c == O_TIMEOUT)
				a->live.silence_ms = (int)v;
		}
		return rc;
	case O_QUIET:
		a->quiet = 1;
		return 0;
	default:
		return cli_usage_error(err, "record", "unknown option");
	}
}

static int parse(swo_args *a, int argc, char **argv, rp_err *err)
{
	static const struct option opts[] = {
		{ "swo", required_argument, NULL, O_SWO }, { "remote", required_argument, NULL, O_REMOTE },
		{ "swo-clock", required_argument, NULL, O_SWO_CLOCK }, { "cpu-clock", required_argument, NULL, O_CPU_CLOCK },
		{ "swo-interval", required_argument, NULL, O_INTERVAL }, { "swo-framing", required_argument, NULL, O_FRAMING },
		{ "swo-no-config", no_argument, NULL, O_NO_CONFIG }, { "duration", required_argument, NULL, O_DURATION },
		{ "samples", required_argument, NULL, O_SAMPLES }, { "connect-timeout", required_argument, NULL, O_CTIMEOUT },
		{ "timeout", required_argument, NULL, O_TIMEOUT }, { "quiet", no_argument, NULL, O_QUIET },
		{ "help", no_argument, NULL, O_HELP }, { NULL, 0, NULL, 0 }
	};
	rp_rsp_opts rdflt = RP_RSP_OPTS_INIT;
	int c, rc = 0;
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--help") == 0) {   /* also `record --swo --help`, where getopt would take it as the address */
			fputs(usage, stdout);
			return 1;
		}
	memset(a, 0, sizeof(*a));
	a->rsp = rdflt;
	a->cfg = (rp_swo_config){ 25000000, 2000000, 1024, 0 };
	a->live.silence_ms = 5000;
	while (rc == 0 && (c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == O_HELP) {
			fputs(usage, stdout);
			return 1;
		}
		rc = option(a, c, optarg, err);
	}
	if (rc < 0)
		return rc;
	if (!a->swo_port)
		return cli_usage_error(err, "record", "--swo HOST:PORT is required");
	if (argc - optind != 2)
		return cli_usage_error(err, "record", "wants profile.db and firmware.elf");
	a->cfg.tpiu = a->framing == RP_SWO_FRAMING_TPIU;
	a->db_path = argv[optind];
	a->elf_path = argv[optind + 1];
	return 0;
}

static void report(const swo_args *a, const rp_swo_record_result *r)
{
	printf("recorded %llu PC samples over SWO in %.2f s from %s:%d; stopped: %s", (unsigned long long)r->stats.samples,
	       r->live.elapsed_s, a->swo_host, a->swo_port, r->reason);
	if (r->stats.samples)
		printf("; run %lld in %s\n", (long long)r->run_id, a->db_path);
	else
		printf("; nothing stored\n");
	if (r->stats.overflows)
		fprintf(stderr, "ramplace: warning: %llu SWO overflow packets: the ITM dropped packets; sample less often "
			"(--swo-interval) or raise --swo-clock\n", (unsigned long long)r->stats.overflows);
	fflush(stdout);
}

static int run(swo_args *a, const rp_image *img, rp_err *err)
{
	rp_swo_record_opts o = { .swo_host = a->swo_host, .swo_port = a->swo_port, .host = a->host, .port = a->port,
				 .rsp = a->rsp, .cfg = a->cfg, .no_config = a->no_config, .framing = a->framing,
				 .live = a->live, .db_path = a->db_path, .interrupted = &interrupted };
	rp_swo_record_result r;
	int rc = rp_swo_record(img, &o, &r, err);
	if (r.read && !a->quiet)
		report(a, &r);
	if (!rc && interrupted)
		rc = rp_err_set(err, RP_EINTERRUPT, "SWO %s:%d: %s; %llu samples stored", a->swo_host, a->swo_port,
				r.live.reason, (unsigned long long)r.stats.samples);
	return rc;
}

int cmd_record_swo(int argc, char **argv, rp_err *err)
{
	swo_args a;
	int rc = parse(&a, argc, argv, err);
	if (rc)
		return rc > 0 ? 0 : rc;
	rp_image *img = NULL;
	if ((rc = cli_record_open(&img, a.elf_path, a.db_path, err)) < 0)
		return rc;
	cli_record_sigs sigs;
	interrupted = 0;
	cli_record_signals_set(&sigs, on_signal);
	rc = run(&a, img, err);
	cli_record_signals_restore(&sigs);
	rp_image_free(img);
	return rc;
}
