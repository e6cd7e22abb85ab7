/* cmd_import.c: `ramplace import [--format F] profile.db firmware.elf FILE...`: reads profile
 * files other tools wrote ("-" is standard input) and stores them as one run, symbolized
 * against firmware.elf. Every file is parsed before anything is written. */
#include <fcntl.h>
#include <getopt.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
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
	"  gmon     gprof's gmon.out (glibc, eCos, embedded runtimes): histogram and arcs;\n"
	"           byte order and address size from firmware.elf\n"
	"  openocd  gmon.out from OpenOCD's 'profile' command (bins always little-endian)\n"
	"  qemu     exact counts from libramplace-qemu.so:\n"
	"           qemu-system-arm ... -plugin /path/libramplace-qemu.so,out=FILE\n"
	"  qemu-log a log of qemu-system-* -d exec,nochain,in_asm -D FILE\n"
	"  pclog    a gdb log of 'p $pc' lines: $1 = (void (*)()) 0x2000f1c4 <run_repl+12>\n"
	"  pclist   one hex PC per line, optionally followed by a decimal count\n"
	"  -f, --format FMT   auto (default), gmon, openocd, qemu, qemu-log, pclog, pclist\n"
	"  -q, --quiet        print nothing on success\n";

typedef struct import_run {
	rp_samples s;
	double rate_hz;        /* shared by every file, else 0 */
	char method[64];
	char notes[256];
	int nfiles;
	rp_import_format detected;  /* of the first file, named in the run's tool column */
} import_run;

static void add_note(import_run *r, const char *fmt, unsigned long long n, const char *name)
{
	size_t used = strlen(r->notes);
	snprintf(r->notes + used, sizeof(r->notes) - used, "%s", used ? "; " : "");
	used = strlen(r->notes);
	snprintf(r->notes + used, sizeof(r->notes) - used, fmt, n, name);
}

/* QEMU logs run to gigabytes: a regular file is mapped, not copied. */
static int map_file(char **text, size_t *len, int *mapped, const char *path, rp_err *err)
{
	struct stat st;
	*mapped = 0;
	int fd = strcmp(path, "-") == 0 ? -1 : open(path, O_RDONLY);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		close(fd);
		if (p != MAP_FAILED) {
			*text = p;
			*len = (size_t)st.st_size;
			*mapped = 1;
			return 0;
		}
	} else if (fd >= 0) {
		close(fd);
	}
	return rp_read_file(text, len, path, err);
}

static int parse_one(import_run *r, rp_import_format fmt, const rp_image *img, const char *path, rp_err *err)
{
	char *text;
	size_t len;
	rp_samples one;
	rp_import_meta meta;
	const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
	int mapped = 0;
	int rc = map_file(&text, &len, &mapped, path, err);
	if (rc)
		return rc;
	rp_samples_init(&one);
	if (r->nfiles == 0)
		r->detected = fmt == RP_IMPORT_AUTO ? rp_import_detect(text, len) : fmt;
	rc = rp_import_file(&one, &meta, fmt, img, text, len, name, err);
	if (mapped)
		munmap(text, len);
	else
		free(text);
	if (!rc)
		rc = rp_samples_merge(&r->s, &one, name, err);
	rp_samples_release(&one);
	if (rc)
		return rc;
	r->rate_hz = r->nfiles == 0 || r->rate_hz == meta.rate_hz ? meta.rate_hz : 0.0;
	if (r->nfiles++ == 0)
		snprintf(r->method, sizeof(r->method), "%s", meta.method);
	if (meta.saturated)
		add_note(r, "%llu histogram bins saturated at 65535 in %s (their counts are lower bounds)",
			 (unsigned long long)meta.saturated, name);
	if (meta.blocks_without_insns)
		add_note(r, "%llu translation blocks of %s counted at their start only (log made without -d in_asm)",
			 (unsigned long long)meta.blocks_without_insns, name);
	if (meta.nbb)
		add_note(r, "%llu basic-block counts in %s not used", (unsigned long long)meta.nbb, name);
	return 0;
}

static int parse_files(import_run *r, rp_import_format fmt, const rp_image *img, char **files,
		       int nfiles, rp_err *err)
{
	for (int i = 0; i < nfiles; i++) {
		int rc = parse_one(r, fmt, img, files[i], err);
		if (rc)
			return rc;
	}
	if (r->s.total == 0 && r->s.narcs == 0)
		return rp_err_set(err, RP_EINPUT, "%s: no samples found", files[0]);
	return 0;
}

static int store(const char *db_path, const rp_image *img, const import_run *r, const char *source,
		 rp_import_format fmt, int quiet, rp_err *err)
{
	rp_db *db = NULL;
	char tool[64], stop[320];
	int64_t run_id = 0;
	snprintf(tool, sizeof(tool), "import:%s", rp_import_format_name(fmt));
	snprintf(stop, sizeof(stop), "end of file%s%s", r->notes[0] ? "; " : "", r->notes);
	rp_run_info info = RP_RUN_INFO_INIT;
	uint64_t scale = r->s.scale ? r->s.scale : 1;
	double taken = r->s.taken ? (double)r->s.taken : (double)r->s.total / (double)scale;
	info.source = source;
	info.tool = tool;
	info.method = r->method;
	info.rate_hz = r->rate_hz;
	info.duration_s = r->rate_hz > 0 ? taken / r->rate_hz : 0.0;
	info.stop_reason = stop;
	int rc = rp_db_open(&db, db_path, err);
	if (!rc)
		rc = rp_db_store_run(db, img, &info, &r->s, &run_id, err);
	if (!rc && !quiet) {
		printf("imported %.0f samples", taken);
		if (r->s.narcs)
			printf(" and %zu call arcs", r->s.narcs);
		printf(" from %s as run %lld\n", source, (long long)run_id);
		if (r->notes[0])
			printf("note: %s\n", r->notes);
	}
	rp_db_close(db);
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
	/* the ELF must be good before the files are worth parsing: it gives byte order,
	 * address size and the functions histogram bins are split over */
	rp_image *img = NULL;
	if ((rc = rp_image_load(&img, argv[optind + 1], err)))
		return rc;
	import_run r;
	memset(&r, 0, sizeof(r));
	rp_samples_init(&r.s);
	char source[512];
	snprintf(source, sizeof(source), "file %s%s", argv[optind + 2], argc - optind > 3 ? " ..." : "");
	rc = parse_files(&r, fmt, img, argv + optind + 2, argc - optind - 2, err);
	if (!rc)
		rc = store(argv[optind], img, &r, source, fmt == RP_IMPORT_AUTO ? r.detected : fmt, quiet, err);
	rp_samples_release(&r.s);
	rp_image_free(img);
	return rc;
}
