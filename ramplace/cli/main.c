/* main.c: the ramplace command: dispatches to one cmd_<name>.c per subcommand, and is the only
 * place that prints an error and chooses the exit status. `ramplace [options] profile.db elf`
 * without a subcommand name means `ramplace place`. */
#include <getopt.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "ramplace/util.h"

struct cmd {
	const char *name;
	rp_cmd_fn fn;
	const char *summary;
};

static const struct cmd commands[] = {
	{ "place", cmd_place, "choose functions for RAM from a profile; write ramtext.ld and the plan" },
	{ "record", cmd_record, "sample a running target's PC over the GDB remote protocol" },
	{ "import", cmd_import, "import a profile file (gmon.out, QEMU counts, profd, gdb log) into profile.db" },
	{ "report", cmd_report, "print the flat profile held in profile.db" },
	{ "diff", cmd_diff, "compare two profiles function by function (before/after table)" },
	{ "check", cmd_check, "verify on the relinked ELF that the plan landed and the budget holds" },
	{ "annotate", cmd_annotate, "write a patch marking the planned functions' definitions with a RAM section attribute" },
	{ "emit", cmd_emit, "write the plan for another build system: lld, ESP-IDF, Zephyr" },
	{ "callgraph", cmd_callgraph, "print the static call graph (text or DOT) decoded from the ELF" },
};

static void print_help(FILE *out)
{
	fprintf(out, "usage: ramplace [place] --budget SIZE [options] profile.db firmware.elf\n"
		     "       ramplace <command> [options] ...\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'ramplace <command> --help' describes a command; 'man ramplace' has the rest.\n");
}

static const struct cmd *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

/* A command is one short batch over tables of up to hundreds of megabytes, freed and grown stage
 * by stage. glibc hands large blocks back to the kernel on free and takes fresh zeroed pages for
 * the next one: at 200,000 functions half the page faults, a fifth of place's time, were that
 * churn. Keeping freed memory in the process costs nothing the process will not reuse. */
static void keep_freed_memory(void)
{
#ifdef __GLIBC__
	mallopt(M_MMAP_THRESHOLD, 1 << 30);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
	mallopt(M_TOP_PAD, 16 << 20);
#endif
}

int main(int argc, char **argv)
{
	rp_err err = RP_ERR_INIT;
	keep_freed_memory();
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		print_help(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("ramplace %s\n", rp_version());
		return 0;
	}
	const struct cmd *cmd = find_command(argv[1]);
	int rc;
	optind = 0; /* glibc: full reinitialisation of getopt (and of its argument permutation) */
	if (cmd) {
		rc = cmd->fn(argc - 1, argv + 1, &err);
	} else if (argv[1][0] == '-' || strchr(argv[1], '.') || strchr(argv[1], '/')) {
		/* `ramplace --budget 96K profile.db fw.elf`: the headline form is place */
		argv[0] = (char *)"place";
		rc = cmd_place(argc, argv, &err);
	} else {
		cli_note("ramplace: '%s' is not a ramplace command; see 'ramplace --help'", argv[1]);
		return 2;
	}
	if (rc < 0) {
		/* every name from input (paths, symbols, sections) shown escaped, and the message stays
		 * one line whatever bytes it carries: one place rather than every message's own */
		char shown[4 * sizeof(err.msg)];
		fprintf(stderr, "ramplace: %s\n", rp_escape_name(err.msg, shown, sizeof(shown)));
		return rp_err_exit_status(rc);
	}
	return 0;
}
