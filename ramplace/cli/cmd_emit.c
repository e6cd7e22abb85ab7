/* cmd_emit.c: `ramplace emit`: writes a plan made by `ramplace place` in another dialect: a
 * fragment for ld.lld, an ESP-IDF linker fragment, Zephyr code-relocation lines, or pico-sdk
 * section renames
 * (ldgen/dialects.h). The output is written atomically. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "ramplace/ldgen/dialects.h"
#include "ramplace/ldgen/ldgen.h"


/* What emit writes: a dialect's build input, or GNU ld's fragment for ld.lld. */
enum emit_fmt { EMIT_NONE = -1, EMIT_GNU, EMIT_LLD, EMIT_ESPIDF, EMIT_ZEPHYR, EMIT_PICO };
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

/* -o DIR/ or an existing directory: esp-idf writes a whole component there. */
static int is_folder(const char *path)
{
	struct stat st;
	size_t n = strlen(path);
	return (n && path[n - 1] == '/') || (stat(path, &st) == 0 && S_ISDIR(st.st_mode));
}

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
	rp_ldgen_zephyr_opts zo = RP_LDGEN_ZEPHYR_OPTS_INIT;
	size_t ndropped = 0;
	zo.ndropped = &ndropped;
	int c;
	while ((c = getopt_long(argc, argv, "f:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': format = optarg; break;
		case 'P': plan_path = optarg; break;
		case 'e': elf_path = optarg; break;
		case 'L': zo.location = optarg; break;
		case 'H': zo.phdr = optarg; break;
		case 'N': zo.nokeep = 1; break;
		case 'o': output = optarg; break;
		case 'h': fputs(usage, stdout); return 0;
		default: return cli_usage_error(err, "emit", "unknown option");
		}
	}
	if (optind != argc || !format || !output)
		return cli_usage_error(err, "emit", "expects --format and -o FILE, and no other arguments");
	/* ld.lld's fragment is GNU ld's dialect written for lld; the others are a dialect's own */
	int dialect = rp_dialect_from_name(format);
	enum emit_fmt fmt = strcmp(format, "lld") == 0 ? EMIT_LLD
			  : dialect == RP_DIALECT_GNU ? EMIT_GNU : dialect == RP_DIALECT_ESPIDF ? EMIT_ESPIDF
			  : dialect == RP_DIALECT_ZEPHYR ? EMIT_ZEPHYR : dialect == RP_DIALECT_PICO ? EMIT_PICO : EMIT_NONE;
	if (fmt == EMIT_NONE)
		return cli_usage_error(err, "emit", "--format is gnu, lld, esp-idf, zephyr or pico");
	rp_plan *plan = NULL;
	rp_image *img = NULL;
	cli_srcloc sl = { 0 };
	int rc = rp_plan_read(&plan, plan_path, err);
	if (!rc && elf_path && fmt == EMIT_ZEPHYR)
		rc = rp_image_load(&img, elf_path, err);
	if (!rc && fmt == EMIT_ZEPHYR && !elf_path)
		cli_note("ramplace: note: emit --format zephyr without --elf: the files are named after the objects, "
			 "and zephyr_code_relocate() looks for them beside the CMakeLists.txt that includes %s; "
			 "--elf gives each source's path", output);
	if (!rc && img)
		rc = cli_srcloc_open(&sl, img, err);
	rp_ldgen_locator lc = cli_srcloc_locator(&sl);
	if (!rc) {
		switch (fmt) {
		case EMIT_GNU: rc = rp_ldgen_gnu_write(plan, output, err); break;
		case EMIT_LLD: rc = rp_ldgen_lld_write(plan, output, err); break;
		case EMIT_ESPIDF: rc = is_folder(output) ? rp_ldgen_espidf_component(plan, output, &ndropped, err)
					       : rp_ldgen_espidf_write(plan, output, &ndropped, err);
			break;
		case EMIT_ZEPHYR: rc = rp_ldgen_zephyr_write(plan, img ? &lc : NULL, &zo, output, err); break;
		default: rc = rp_ldgen_pico_write(plan, output, &ndropped, err); break;
		}
	}
	if (!rc && fmt == EMIT_PICO && ndropped)
		cli_note("ramplace: warning: %s: %zu input section(s) of the plan cannot be renamed (listed as comments, "
			 "with the reason: a plan made without --map names no object), so 'check' fails on them: place with "
			 "--map --dialect pico", output, ndropped);
	if (!rc && fmt == EMIT_PICO && rp_plan_dialect(plan) != RP_DIALECT_PICO)
		cli_note("ramplace: warning: %s: the plan was made for %s: its output section is %s, where pico-sdk's "
			 "renamed sections do not go ('check' fails); place with --dialect pico", output,
			 plan->dialect ? plan->dialect : "GNU ld", plan->outsec);
	if (!rc && (fmt == EMIT_ESPIDF || fmt == EMIT_ZEPHYR) && ndropped)
		cli_note("ramplace: warning: %s: %zu input section(s) of the plan have no %s form (listed as comments, "
			 "with the reason)%s", output, ndropped, fmt == EMIT_ZEPHYR ? "Zephyr" : "ESP-IDF",
			 rp_plan_dialect(plan) == dialect ? ""
			 : fmt == EMIT_ZEPHYR ? ": the plan was made for GNU ld, so their budget is lost and 'check' fails on them; "
				      "'place --dialect zephyr' leaves them in flash and gives their budget to code it can move"
				    : ": the plan was made for GNU ld, so their budget is lost and 'check' fails on them; "
				      "'place --dialect esp-idf' leaves them in flash and gives their budget to code it can move");
	cli_srcloc_close(&sl);
	rp_image_free(img);
	rp_plan_free(plan);
	return rc;
}
