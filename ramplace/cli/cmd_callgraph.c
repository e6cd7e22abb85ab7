/* cmd_callgraph.c: `ramplace callgraph [--dot] [--from FUNC] firmware.elf`: prints the static
 * call graph that placement uses (direct calls, tail branches, address-taken functions), as
 * text or Graphviz DOT, optionally only what FUNC reaches; `--handlers` lists its roots that
 * interrupts enter instead, with the QEMU plugin's options that measure them. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ramplace/callgraph.h"
#include "ramplace/image.h"
#include "ramplace/present.h"

static const char usage[] =
	"usage: ramplace callgraph [options] firmware.elf\n"
	"\n"
	"Prints the static call graph decoded from firmware.elf with libopcodes (ARM/Thumb and\n"
	"RISC-V): one line per caller -> callee pair with its number of call and branch sites,\n"
	"and 'address-taken NAME' for functions named by data or a literal pool (possibly called\n"
	"indirectly). Indirect calls have no edges.\n"
	"\n"
	"      --dot             Graphviz DOT instead of text (dashed: tail/branch only; bold:\n"
	"                        address taken)\n"
	"      --from FUNC       only what FUNC reaches (repeatable)\n"
	"      --handlers        instead: the interrupt and exception handlers (the Cortex-M vector\n"
	"                        table's past the reset handler, RISC-V's trap handlers), one\n"
	"                        'ADDRESS NAME' line each, then the QEMU plugin's options measuring\n"
	"                        their entries ('plugin: entry=...', at most 16; on Cortex-M\n"
	"                        entry=ADDRESS@SLOT, SLOT the vector the core reads on entry)\n"
	"  -h, --help            print this help\n";

typedef struct cg_args {
	int dot, handlers;
	const char **from;
	size_t nfrom;
	const char *elf_path;
} cg_args;

static int parse_args(cg_args *a, int argc, char **argv, rp_err *err)
{
	static const struct option longopts[] = {
		{ "dot", no_argument, NULL, 'd' }, { "from", required_argument, NULL, 'f' },
		{ "handlers", no_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	int c;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': a->dot = 1; break;
		case 'H': a->handlers = 1; break;
		case 'f':
			if (cli_push(&a->from, &a->nfrom, optarg, err))
				return err->code;
			break;
		case 'h': fputs(usage, stdout); return 1;
		default: return cli_usage_error(err, "callgraph", "unknown option");
		}
	}
	if (argc - optind != 1)
		return cli_usage_error(err, "callgraph", "expects one firmware.elf");
	a->elf_path = argv[optind];
	return 0;
}

static int run(const cg_args *a, rp_err *err)
{
	rp_image *img = NULL;
	rp_callgraph *cg = NULL;
	unsigned char *only = NULL;
	int rc = rp_image_load(&img, a->elf_path, err);
	if (!rc && a->handlers) {
		rc = rp_present_handlers(stdout, img, err);
		rp_image_free(img);
		return rc;
	}
	if (!rc)
		rc = rp_callgraph_build(&cg, img, err);
	if (!rc && a->nfrom && !(only = calloc(img->nfuncs ? img->nfuncs : 1, 1)))
		rc = rp_err_nomem(err, "walking the call graph");
	if (!rc && a->nfrom && (rc = rp_callgraph_reach_names(cg, a->from, a->nfrom, only, err)) == RP_EUSAGE) {
		char msg[sizeof(err->msg)];
		snprintf(msg, sizeof(msg), "%s", err->msg);
		rp_err_set(err, RP_EUSAGE, "--from: %s", msg);
	}
	if (!rc)
		rp_callgraph_write(cg, stdout, a->dot, only);
	free(only);
	rp_callgraph_free(cg);
	rp_image_free(img);
	return rc;
}

int cmd_callgraph(int argc, char **argv, rp_err *err)
{
	cg_args a = { 0 };
	int rc = parse_args(&a, argc, argv, err);
	if (rc == 0)
		rc = run(&a, err);
	free(a.from);
	return rc > 0 ? 0 : rc;
}
