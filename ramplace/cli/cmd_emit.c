/* cmd_emit.c: `ramplace emit`: writes a plan made by `ramplace place` in another dialect: a
 * fragment for ld.lld, an ESP-IDF linker fragment, Zephyr code-relocation lines, or pico-sdk
 * section renames (the formats' table and writers: rp_ldgen_emit, ldgen_emit.c). The output
 * is written atomically. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "ramplace/elf_locator.h"
#include "ramplace/ldgen/ldgen.h"

/* What emit writes: a dialect's build input, or GNU ld's fragment for ld.lld. */
static const char usage[] =
	"usage: ramplace emit --format FORMAT [options] -o FILE\n"
	"\n"
	"Writes the plan in another dialect. FORMAT is one of\n"
	"  gnu      the GNU ld fragment, as 'ramplace place' writes it\n"
	"  lld      a fragment for ld.lld (INCLUDEd the same way)\n"
	"  esp-idf  an ESP-IDF linker fragment file (.lf): [mapping] entries with noflash_text;\n"
	"           with -o DIR/ (or an existing folder) a whole component: DIR/ramplace.lf and\n"
	"           DIR/CMakeLists.txt with idf_component_register(LDFRAGMENTS ramplace.lf)\n"
	"  zephyr   zephyr_code_relocate(FILES ... FILTER ... LOCATION ...) lines for CMake\n"
	"  pico     pico-sdk: the planned input sections to rename to .time_critical* (which\n"
	"           the SDK's linker script copies to RAM in .data), one 'FILE MEMBER SECTION\n"
	"           NEWNAME' line each, for the link launcher ramplace-link-renamed.sh that\n"
	"           ramplace_add_placement() sets on a pico-sdk target\n"
	"\n"
	"      --plan FILE       the plan (default ramtext.ld.plan)\n"
	"      --elf FILE        the firmware ELF: zephyr takes source paths from its DWARF\n"
	"      --location NAME   zephyr: memory location (default RAM_TEXT: the RAM of Zephyr's\n"
	"                        Cortex-M and RISC-V memory maps; ITCM_TEXT, SRAM2_TEXT... where\n"
	"                        a board defines them)\n"
	"      --phdr NAME       zephyr: the program header (PHDR) of the relocated sections\n"
	"      --nokeep          zephyr: NOKEEP (no KEEP() in the generated linker script)\n"
	"  -o, --output FILE     file to write (required)\n";

int cmd_emit(int argc, char **argv, rp_err *err)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' }, { "plan", required_argument, NULL, 'P' },
		{ "elf", required_argument, NULL, 'e' },    { "location", required_argument, NULL, 'L' },
		{ "output", required_argument, NULL, 'o' }, { "help", no_argument, NULL, 'h' },
		{ "phdr", required_argument, NULL, 'H' },   { "nokeep", no_argument, NULL, 'N' },
		{ NULL, 0, NULL, 0 }
	};
	const char *format = NULL, *plan_path = "ramtext.ld.plan", *elf_path = NULL, *output = NULL;
	rp_ldgen_emit_opts eo = { .locator = NULL, .zephyr = RP_LDGEN_ZEPHYR_OPTS_INIT };
	int c;
	while ((c = getopt_long(argc, argv, "f:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': format = optarg; break;
		case 'P': plan_path = optarg; break;
		case 'e': elf_path = optarg; break;
		case 'L': eo.zephyr.location = optarg; break;
		case 'H': eo.zephyr.phdr = optarg; break;
		case 'N': eo.zephyr.nokeep = 1; break;
		case 'o': output = optarg; break;
		case 'h': fputs(usage, stdout); return 0;
		default: return cli_usage_error(err, "emit", "unknown option");
		}
	}
	if (optind != argc || !format || !output)
		return cli_usage_error(err, "emit", "expects --format and -o FILE, and no other arguments");
	if (!rp_ldgen_format_known(format))
		return cli_usage_error(err, "emit", "--format is gnu, lld, esp-idf, zephyr or pico");
	int zephyr = strcmp(format, "zephyr") == 0;
	rp_plan *plan = NULL;
	rp_image *img = NULL;
	rp_elf_locator sl = { 0 };
	int rc = rp_plan_read(&plan, plan_path, err);
	if (!rc && elf_path && zephyr)
		rc = rp_image_load(&img, elf_path, err);
	if (!rc && zephyr && !elf_path)
		cli_note("ramplace: note: emit --format zephyr without --elf: the files are named after the objects, "
			 "and zephyr_code_relocate() looks for them beside the CMakeLists.txt that includes %s; "
			 "--elf gives each source's path", output);
	if (!rc && img)
		rc = rp_elf_locator_open(&sl, img, err);
	rp_ldgen_locator lc = rp_elf_locator_get(&sl);
	eo.locator = img ? &lc : NULL;
	rp_ldgen_emit_result res;
	if (!rc)
		rc = rp_ldgen_emit(format, plan, &eo, output, &res, err);
	for (size_t i = 0; !rc && i < res.nwarnings; i++)
		cli_note("ramplace: warning: %s", res.warnings[i]);
	rp_elf_locator_close(&sl);
	rp_image_free(img);
	rp_plan_free(plan);
	return rc;
}
