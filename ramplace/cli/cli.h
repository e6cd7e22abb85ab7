/* cli.h: the subcommand table shared by main.c and the cmd_*.c files.
 *
 * Each subcommand is `int cmd_<name>(int argc, char **argv, rp_err *err)`: argv[0] is the
 * subcommand name, options are parsed with getopt_long (optind is reset by main). It returns 0
 * or a negative rp_code with err filled; it never prints the error or exits itself. */
#ifndef RAMPLACE_CLI_H
#define RAMPLACE_CLI_H

#include <stddef.h>

#include "ramplace/error.h"

typedef int (*rp_cmd_fn)(int argc, char **argv, rp_err *err);

int cmd_place(int argc, char **argv, rp_err *err);
int cmd_record(int argc, char **argv, rp_err *err);
int cmd_record_runtime(int argc, char **argv, rp_err *err); /* record --runtime */
int cmd_import(int argc, char **argv, rp_err *err);
int cmd_check(int argc, char **argv, rp_err *err);
int cmd_report(int argc, char **argv, rp_err *err);
int cmd_annotate(int argc, char **argv, rp_err *err);
int cmd_emit(int argc, char **argv, rp_err *err);
int cmd_diff(int argc, char **argv, rp_err *err);
int cmd_callgraph(int argc, char **argv, rp_err *err);

/* Parses --remote HOST:PORT ("[::1]:1234" too) into host (hostcap bytes) and port 1..65535;
 * a usage error for `cmd` otherwise. */
int cli_parse_remote(char *host, size_t hostcap, int *port, const char *text, const char *cmd, rp_err *err);

/* Sets err to a usage error for `cmd` and returns RP_EUSAGE. */
int cli_usage_error(rp_err *err, const char *cmd, const char *what);

#endif
