/* cli.h: the subcommand table that main.c dispatches through, and the helpers the cmd_*.c files
 * share (cli_args.c, record_opts.c, cli_print.c). main.c calls the commands; nothing here
 * calls back into main.c.
 *
 * Each subcommand is `int cmd_<name>(int argc, char **argv, rp_err *err)`: argv[0] is the
 * subcommand name, options are parsed with getopt_long (optind is reset by main) in GNU order,
 * so they may follow the operands and `--` ends them (no leading '+' in an optstring). It
 * returns 0 or a negative rp_code with err filled; it never prints the error or exits itself. */
#ifndef RAMPLACE_CLI_H
#define RAMPLACE_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "ramplace/error.h"
#include "ramplace/image.h"
#include "ramplace/rsp.h"
#include "ramplace/sampler.h"

typedef int (*rp_cmd_fn)(int argc, char **argv, rp_err *err);

/* One note or warning line on standard error, its newline added, escaped as main escapes the
 * error line (rp_escape_name: bytes from input that are not printable become \xNN); cli_print.c. */
void cli_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

int cmd_place(int argc, char **argv, rp_err *err);
int cmd_record(int argc, char **argv, rp_err *err);
int cmd_record_runtime(int argc, char **argv, rp_err *err); /* record --runtime */
int cmd_record_swo(int argc, char **argv, rp_err *err);     /* record --swo */
int cmd_import(int argc, char **argv, rp_err *err);
int cmd_check(int argc, char **argv, rp_err *err);
int cmd_report(int argc, char **argv, rp_err *err);
int cmd_annotate(int argc, char **argv, rp_err *err);
int cmd_emit(int argc, char **argv, rp_err *err);
int cmd_diff(int argc, char **argv, rp_err *err);
int cmd_callgraph(int argc, char **argv, rp_err *err);

/* ---- cli_args.c */

/* Appends s (borrowed) to the growable list *list of *n strings: repeatable options. */
int cli_push(const char ***list, size_t *n, const char *s, rp_err *err);

/* Parses --remote HOST:PORT ("[::1]:1234" too) into host (hostcap bytes) and port 1..65535;
 * a usage error for `cmd` otherwise. */
int cli_parse_remote(char *host, size_t hostcap, int *port, const char *text, const char *cmd, rp_err *err);

/* Sets err to a usage error for `cmd` and returns RP_EUSAGE. */
int cli_usage_error(rp_err *err, const char *cmd, const char *what);

/* ---- record_opts.c: the options of `ramplace record`, sampling (cmd_record.c) and --runtime
 * (cmd_record_runtime.c) alike */

typedef struct cli_record_opts {
	int runtime;             /* --runtime: read the target-side runtime's histogram */
	char host[256];          /* --remote */
	int port;
	rp_rsp_opts rsp;         /* the timeouts; the caller fills in the target from the ELF */
	double duration_s;       /* sampling: stop after this long; runtime: read after this long
				    unless the breakpoint came first; 0: no limit */
	int quiet;
	const char *db_path, *elf_path;
	/* sampling only */
	rp_sampler_opts sampler; /* all but duration_s, which is above */
	/* --runtime only */
	const char *at;          /* breakpoint function; NULL with --now */
	const char *gmon_path;   /* also write gmon.out here; NULL: no */
	int reset;
} cli_record_opts;

/* The defaults of one method (runtime: 1 for --runtime), the sampling seed from the clock. */
void cli_record_opts_init(cli_record_opts *o, int runtime);

/* Parses the method's options and the two operands into o (see cli_record_opts_init). Prints
 * the method's help and returns 1 after --help; returns 0 to go on, or a usage error. */
int cli_record_opts_parse(cli_record_opts *o, int argc, char **argv, rp_err *err);

/* A number of `what` in [min, max] into *out, else a usage error of `record` saying `what`. */
int cli_record_number(double *out, const char *text, double min, double max, const char *what,
		      rp_err *err);

/* Before anything remote is touched: loads the ELF into *img and checks that profile.db could
 * store a run (rp_db_probe). Returns 0, or a negative rp_code with *img NULL (nothing open). */
int cli_record_open(rp_image **img, const char *elf_path, const char *db_path, rp_err *err);

/* The signals that stop a recording and keep what it gathered: SIGINT, SIGTERM, SIGHUP. */
typedef struct cli_record_sigs {
	struct sigaction old[3];
} cli_record_sigs;

/* Installs fn for the three (without SA_RESTART, so that a wait wakes up to see the flag fn
 * sets), keeping the old handlers in *saved; cli_record_signals_restore puts them back. */
void cli_record_signals_set(cli_record_sigs *saved, void (*fn)(int));
void cli_record_signals_restore(const cli_record_sigs *saved);



#endif
