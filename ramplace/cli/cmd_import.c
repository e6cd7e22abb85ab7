/* cmd_import.c: `ramplace import [--format F] profile.db firmware.elf FILE...`: reads profile
 * files other tools wrote ("-" is standard input) and stores them as one run, symbolized
 * against firmware.elf; or a profile directory, one run per file. The options in, the result
 * out: the work is rp_import_files / rp_import_dir (import_run.h), which parse every file and
 * check it belongs to its ELF (refusing, unless --force, a file of which less than
 * --min-verified of the samples fit) before anything is written. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_stability.h"
#include "ramplace/import_run.h"
#include "ramplace/util.h"

static const char usage[] =
	"usage: ramplace import [--format FMT] profile.db firmware.elf FILE...\n"
	"       ramplace import [--image ELF]... [--signature ID=ELF]... profile.db firmware.elf DIR\n"
	"\n"
	"Imports profiles into profile.db as one run, symbolized against firmware.elf.\n"
	"FILE '-' is standard input. A directory DIR of name-imageid[-pid].prof files (Itsy\n"
	"profd) is a database of several images: each file becomes a run on the ELF whose\n"
	"build-id starts with its imageid (firmware.elf, --image ELF) or that --signature names.\n"
	"Formats (detected unless --format says):\n"
	"  gmon     gprof's gmon.out (glibc, eCos, embedded runtimes): histogram and arcs;\n"
	"           byte order and address size from firmware.elf\n"
	"  gmon-text  the sampling runtime's text dump of a gmon.out (profile_dump_stdout:\n"
	"           'ramplace-gmon 1', hex lines, 'ramplace-gmon end BYTES CRC32') found in a\n"
	"           whole console log; the last dump counts\n"
	"  openocd  gmon.out from OpenOCD's 'profile' command (bins always little-endian)\n"
	"  qemu     exact counts from libramplace-qemu.so:\n"
	"           qemu-system-arm ... -plugin /path/libramplace-qemu.so,out=FILE\n"
	"  qemu-log a log of qemu-system-* -d exec,nochain,in_asm -D FILE\n"
	"  prof     'offset count' samples (Itsy profd): 'key value' header lines, then\n"
	"           hex file offsets into the ELF and counts\n"
	"  swo      a raw SWO capture of DWT PC samples (ITM packets, with or without TPIU\n"
	"           frames) as OpenOCD, orbuculum or J-Link write it (never detected)\n"
	"  pclog    a gdb log of 'p $pc' lines: $1 = (void (*)()) 0x2000f1c4 <run_repl+12>\n"
	"  pclist   one hex PC per line, optionally followed by a decimal count\n"
	"Each file must belong to its ELF: its samples are checked against the instruction\n"
	"bytes QEMU ran (qemu, qemu-log), else against the ELF's functions and instruction\n"
	"starts; a file of which too few verify was taken on another firmware and is refused.\n"
	"  -f, --format FMT   auto (default), gmon, gmon-text, openocd, qemu, qemu-log, prof, swo,\n"
	"                     pclog, pclist\n"
	"      --image ELF    another ELF a profile directory's files may belong to\n"
	"      --signature ID=ELF  the file with image id ID belongs to ELF\n"
	"      --min-verified PCT  refuse a file of which less than PCT% of the samples\n"
	"                     verify against its ELF (default 90)\n"
	"      --force        import a file that does not verify anyway\n"
	"  -q, --quiet        print nothing on success but warnings\n";

#define MAX_ELVES 32

typedef struct import_args {
	rp_import_opts o;
	int quiet;
	const char *elf_paths[MAX_ELVES];   /* [0] is firmware.elf, then --image */
	const char *sig_ids[MAX_ELVES];     /* --signature ID=ELF */
	const char *sig_paths[MAX_ELVES];
} import_args;

static int is_dir(const char *path)
{
	struct stat st;
	return strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int parse_args(import_args *a, int argc, char **argv, rp_err *err)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' }, { "quiet", no_argument, NULL, 'q' },
		{ "image", required_argument, NULL, 'I' },  { "signature", required_argument, NULL, 'S' },
		{ "force", no_argument, NULL, 'F' },        { "min-verified", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 }
	};
	int c, rc;
	memset(a, 0, sizeof(*a));
	a->o = (rp_import_opts)RP_IMPORT_OPTS_INIT;
	a->o.elf_paths = a->elf_paths;
	a->o.sig_ids = a->sig_ids;
	a->o.sig_paths = a->sig_paths;
	a->o.nelves = 1;
	while ((c = getopt_long(argc, argv, "f:qh", longopts, NULL)) != -1) {
		if (c == 'f') {
			if ((rc = rp_import_format_parse(&a->o.fmt, optarg, err)))
				return rc;
		} else if (c == 'q') {
			a->quiet = 1;
		} else if (c == 'F') {
			a->o.force = 1;
		} else if (c == 'M') {
			char *end;
			double v = strtod(optarg, &end);
			if (end == optarg || (*end && strcmp(end, "%") != 0) || !(v >= 0.0 && v <= 100.0))
				return rp_err_set(err, RP_EUSAGE, "--min-verified: '%s' is not a percentage from 0 to 100", optarg);
			a->o.min_verified = v / 100.0;
		} else if (c == 'I' && a->o.nelves < MAX_ELVES) {
			a->elf_paths[a->o.nelves++] = optarg;
		} else if (c == 'S' && a->o.nsigs < MAX_ELVES && strchr(optarg, '=')) {
			char *eq = strchr(optarg, '=');
			*eq = '\0';
			a->sig_ids[a->o.nsigs] = optarg;
			a->sig_paths[a->o.nsigs++] = eq + 1;
		} else if (c == 'h') {
			return 1;
		} else {
			return cli_usage_error(err, "import", c == 'S' ? "--signature takes ID=ELF" : "unknown option");
		}
	}
	if (argc - optind < 3)
		return cli_usage_error(err, "import", "expects profile.db, firmware.elf and at least one FILE");
	a->elf_paths[0] = argv[optind + 1];
	return 0;
}

static void print_warnings(const rp_import_result *res)
{
	for (size_t i = 0; i < res->nwarnings; i++)
		cli_note("ramplace: warning: %s", res->warnings[i]);
}

static void print_run(const rp_import_result *res, const char *source)
{
	printf("imported %llu samples", (unsigned long long)res->samples);
	if (res->narcs)
		printf(" and %zu call arcs", res->narcs);
	printf(" from %s as run %lld\n", source, (long long)res->run_id);
	if (res->have_costs)
		printf("flash model %s: %llu stall cycles on fetches, %llu on data reads from flash\n", res->model,
		       (unsigned long long)res->fetch_stall, (unsigned long long)res->data_stall);
	if (res->notes[0])
		printf("note: %s\n", res->notes);
}

static int import_dir(const char *db_path, const char *dir, const import_args *a, rp_err *err)
{
	rp_import_result res;
	int rc = rp_import_dir(db_path, dir, &a->o, &res, err);
	if (rc)
		return rc;
	print_warnings(&res);
	for (size_t i = 0; !a->quiet && i < res.nruns; i++) {
		const rp_import_dir_run *run = &res.runs[i];
		printf("imported %llu samples of %s (%s%s) as run %lld\n", (unsigned long long)run->samples, run->name,
		       run->own ? "signature " : "", run->image, (long long)run->run_id);
	}
	for (size_t i = 0; i < res.nskipped; i++)   /* a note even with --quiet: a file was left out */
		cli_note("ramplace: note: %s", res.skipped[i]);
	rp_import_result_release(&res);
	return 0;
}

int cmd_import(int argc, char **argv, rp_err *err)
{
	import_args a;
	int rc = parse_args(&a, argc, argv, err);
	if (rc)
		return rc > 0 ? (fputs(usage, stdout) < 0 ? RP_EIO : 0) : rc;
	if (is_dir(argv[optind + 2])) {
		if (argc - optind != 3)
			return cli_usage_error(err, "import", "a profile directory is imported on its own");
		return import_dir(argv[optind], argv[optind + 2], &a, err);
	}
	/* the ELF must be good before the files are worth parsing: it gives byte order,
	 * address size and the functions histogram bins are split over */
	rp_image *img = NULL;
	if ((rc = rp_image_load(&img, argv[optind + 1], err)))
		return rc;
	char source[512];
	snprintf(source, sizeof(source), "file %s%s", argv[optind + 2], argc - optind > 3 ? " ..." : "");
	rp_import_result res;
	rc = rp_import_files(argv[optind], img, &a.o, (const char *const *)argv + optind + 2, (size_t)(argc - optind - 2),
			     source, &res, err);
	if (!rc) {
		print_warnings(&res);
		if (!a.quiet)
			print_run(&res, source);
		rp_import_result_release(&res);
	}
	if (!rc && !a.quiet)   /* how stable a placement from the whole profile would be */
		cli_stability_after_store(argv[optind], img);
	rp_image_free(img);
	return rc;
}
