/* cmd_import.c: `ramplace import [--format F] profile.db firmware.elf FILE...`: reads profile
 * files other tools wrote ("-" is standard input) and stores them as one run, symbolized
 * against firmware.elf. Every file is parsed before anything is written. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ramplace/import.h"
#include "ramplace/profiledb.h"
#include "ramplace/util.h"

static const char usage[] =
	"usage: ramplace import [--format FMT] profile.db firmware.elf FILE...\n"
	"\n"
	"Imports profiles into profile.db as one run, symbolized against firmware.elf.\n"
	"FILE '-' is standard input. Formats (detected unless --format says):\n"
	"  pclog    a gdb log of 'p $pc' lines: $1 = (void (*)()) 0x2000f1c4 <run_repl+12>\n"
	"  pclist   one hex PC per line, optionally followed by a decimal count\n"
	"  -f, --format FMT   auto (default), pclog or pclist\n"
	"  -q, --quiet        print nothing on success\n";

static int parse_files(rp_samples *s, rp_import_format fmt, char **files, int nfiles, rp_err *err)
{
	for (int i = 0; i < nfiles; i++) {
		char *text;
		size_t len;
		const char *name = strcmp(files[i], "-") == 0 ? "<stdin>" : files[i];
		int rc = rp_read_file(&text, &len, files[i], err);
		if (rc)
			return rc;
		rc = rp_import_parse(s, fmt, text, len, name, err);
		free(text);
		if (rc)
			return rc;
	}
	return 0;
}

static int store(const char *db_path, const char *elf_path, const rp_samples *s, const char *source,
		 rp_import_format fmt, int quiet, rp_err *err)
{
	rp_image *img = NULL;
	rp_db *db = NULL;
	char tool[64];
	int64_t run_id = 0;
	snprintf(tool, sizeof(tool), "import:%s", rp_import_format_name(fmt));
	rp_run_info info = RP_RUN_INFO_INIT;
	info.source = source;
	info.tool = tool;
	info.stop_reason = "end of file";
	int rc = rp_image_load(&img, elf_path, err);
	if (!rc)
		rc = rp_db_open(&db, db_path, err);
	if (!rc)
		rc = rp_db_store_run(db, img, &info, s, &run_id, err);
	if (!rc && !quiet)
		printf("imported %llu samples at %zu addresses from %s as run %lld\n",
		       (unsigned long long)s->total, s->pcs_used, source, (long long)run_id);
	rp_db_close(db);
	rp_image_free(img);
	return rc;
}

int cmd_import(int argc, char **argv, rp_err *err)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' }, { "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 }
	};
	rp_import_format fmt = RP_IMPORT_AUTO;
	int c, quiet = 0, rc = 0;
	while ((c = getopt_long(argc, argv, "+f:qh", longopts, NULL)) != -1) {
		if (c == 'f' && (rc = rp_import_format_parse(&fmt, optarg, err)))
			return rc;
		else if (c == 'q')
			quiet = 1;
		else if (c == 'h')
			return fputs(usage, stdout) < 0 ? RP_EIO : 0;
		else if (c != 'f')
			return cli_usage_error(err, "import", "unknown option");
	}
	if (argc - optind < 3)
		return cli_usage_error(err, "import", "expects profile.db, firmware.elf and at least one FILE");
	/* the ELF must be good before the files are worth parsing */
	rp_image *img = NULL;
	if ((rc = rp_image_load(&img, argv[optind + 1], err)))
		return rc;
	rp_image_free(img);
	rp_samples s;
	rp_samples_init(&s);
	char source[512];
	snprintf(source, sizeof(source), "file %s%s", argv[optind + 2], argc - optind > 3 ? " ..." : "");
	rc = parse_files(&s, fmt, argv + optind + 2, argc - optind - 2, err);
	if (!rc)
		rc = store(argv[optind], argv[optind + 1], &s, source, fmt, quiet, err);
	rp_samples_release(&s);
	return rc;
}
