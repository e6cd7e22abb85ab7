/* cmd_annotate.c: `ramplace annotate`: turns a plan into a patch over the sources that marks each
 * planned function's definition with a section attribute (ldgen/attr.h), so that a build
 * without the linker fragment places the same functions. Writes the patch (atomically, or to
 * stdout) and says on stderr what it annotated and what it could not (library code, sources
 * outside the root). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/ldgen/attr.h"
#include "cli.h"
#include "ramplace/elf_locator.h"
#include "ramplace/util.h"

static const char usage[] =
	"usage: ramplace annotate [options] firmware.elf\n"
	"\n"
	"Writes a unified diff that adds MACRO(name) to the definition of every function in the\n"
	"plan, found through the ELF's DWARF (build with -g), and creates a header defining MACRO as\n"
	"__attribute__((section(\".ramtext.name\"), noinline, noclone)). Apply it at the source root\n"
	"with 'git apply' or 'patch -p1'. Functions without debug information or defined outside\n"
	"the root (library code) are listed and left to the linker fragment.\n"
	"\n"
	"      --plan FILE      the plan (default ramtext.ld.plan)\n"
	"      --root DIR       source tree the patch applies to (default .)\n"
	"      --header PATH    header to create, relative to the root (default\n"
	"                       ramplace_ramfunc.h beside the first annotated file)\n"
	"      --macro NAME     attribute macro (default RAMPLACE_RAMFUNC)\n"
	"      --no-noinline    let the compiler inline the functions\n"
	"      --no-noclone     let the compiler clone them (.constprop, .isra stay in flash)\n"
	"  -o, --output FILE    patch to write (default: standard output)\n"
	"  -q, --quiet          list nothing on standard error\n";

typedef struct annotate_args {
	rp_attr_opts opts;
	const char *plan_path, *output, *elf_path;
	int quiet;
} annotate_args;

static int parse_args(annotate_args *a, int argc, char **argv, rp_err *err)
{
	static const struct option longopts[] = {
		{ "plan", required_argument, NULL, 'P' },   { "root", required_argument, NULL, 'r' },
		{ "header", required_argument, NULL, 'H' }, { "macro", required_argument, NULL, 'M' },
		{ "no-noinline", no_argument, NULL, 'I' },  { "no-noclone", no_argument, NULL, 'C' },
		{ "output", required_argument, NULL, 'o' }, { "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 }
	};
	int c;
	while ((c = getopt_long(argc, argv, "o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'P': a->plan_path = optarg; break;
		case 'r': a->opts.root = optarg; break;
		case 'H': a->opts.header = optarg; break;
		case 'M': a->opts.macro = optarg; break;
		case 'I': a->opts.noinline = 0; break;
		case 'C': a->opts.noclone = 0; break;
		case 'o': a->output = optarg; break;
		case 'q': a->quiet = 1; break;
		case 'h': fputs(usage, stdout); return 1;
		default: return cli_usage_error(err, "annotate", "unknown option");
		}
	}
	if (argc - optind != 1)
		return cli_usage_error(err, "annotate", "expects firmware.elf");
	a->elf_path = argv[optind];
	return 0;
}

static void print_result(const rp_attr_result *res, const annotate_args *a, const rp_plan *plan,
			 const rp_image *img)
{
	if (plan->build_id && strcmp(plan->build_id, img->build_id) != 0)
		cli_note("ramplace: note: the plan was made on build %.12s, %s is %.12s; functions are matched by name",
			plan->build_id, a->elf_path, img->build_id);
	if (a->quiet)
		return;
	for (size_t i = 0; i < res->nannotated; i++)
		cli_note("annotated: %s", res->annotated[i]);
	for (size_t i = 0; i < res->nskipped; i++)
		cli_note("left to the linker fragment: %s", res->skipped[i]);
	cli_note("%zu definition(s) annotated, %zu function(s) left%s%s", res->nannotated,
		res->nskipped, a->output ? "; wrote " : "", a->output ? a->output : "");
}

int cmd_annotate(int argc, char **argv, rp_err *err)
{
	annotate_args a = { .opts = RP_ATTR_OPTS_INIT, .plan_path = "ramtext.ld.plan" };
	rp_plan *plan = NULL;
	rp_image *img = NULL;
	rp_elf_locator sl = { 0 };
	rp_attr_result res = { 0 };
	char *patch = NULL;
	size_t len = 0;
	int rc = parse_args(&a, argc, argv, err);
	if (rc == 1)
		return 0;
	if (!rc)
		rc = rp_plan_read(&plan, a.plan_path, err);
	if (!rc)
		rc = rp_image_load(&img, a.elf_path, err);
	if (!rc)
		rc = rp_elf_locator_open(&sl, img, err);
	if (!rc) {
		rp_ldgen_locator lc = rp_elf_locator_get(&sl);
		rc = rp_attr_make_patch(&patch, &len, &res, plan, &lc, &a.opts, err);
	}
	if (!rc)
		rc = rp_write_whole(a.output && strcmp(a.output, "-") != 0 ? a.output : NULL, patch, len, err);
	if (!rc)
		print_result(&res, &a, plan, img);
	free(patch);
	rp_attr_result_release(&res);
	rp_elf_locator_close(&sl);
	rp_image_free(img);
	rp_plan_free(plan);
	return rc;
}
