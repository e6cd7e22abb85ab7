/* cmd_import.c: `ramplace import [--format F] profile.db firmware.elf FILE...`: reads profile
 * files other tools wrote ("-" is standard input) and stores them as one run, symbolized
 * against firmware.elf. Every file is parsed, and checked to belong to its ELF (a file of
 * which less than --min-verified of the samples fit is refused unless --force, as place refuses
 * a stale profile), before anything is written. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_stability.h"
#include "ramplace/import.h"
#include "ramplace/profdir.h"
#include "ramplace/profiledb.h"
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
	rp_import_format fmt;
	int quiet;
	int force;                          /* --force: import files that do not verify */
	double min_verified;                /* --min-verified, as a share */
	const char *elf_paths[MAX_ELVES];   /* [0] is firmware.elf, then --image */
	size_t nelves;
	char *sig_ids[MAX_ELVES];           /* --signature ID=ELF */
	const char *sig_paths[MAX_ELVES];
	size_t nsigs;
} import_args;

typedef struct import_run {
	rp_samples s;
	double rate_hz;        /* shared by every file, else 0 */
	char method[64];
	char notes[512];
	int nfiles;
	rp_import_format detected;  /* of the first file, named in the run's tool column */
	rp_costs costs;        /* what a flash model charged (plugin files of version 3) */
} import_run;

/* A plugin file's flash-model costs added to the run's. Every file of a run has the same
 * model, or none has one: stall cycles of part of a run would understate the rest. */
static int add_costs(import_run *r, const char *text, size_t len, const char *name, rp_err *err)
{
	rp_costs one;
	rp_costs_init(&one);
	int rc = rp_import_qemu_costs(&one, text, len, name, err);
	if (!rc && r->nfiles && strcmp(one.model, r->costs.model) != 0)
		rc = rp_err_set(err, RP_EINPUT, "%s: flash model '%s', but the files before it have '%s': import them as separate runs",
				name, one.model[0] ? one.model : "none", r->costs.model[0] ? r->costs.model : "none");
	if (!rc && rp_costs_have(&one) &&
	    !(rc = rp_samples_merge(&r->costs.fetch_stall, &one.fetch_stall, name, err)) &&
	    !(rc = rp_samples_merge(&r->costs.data_reads, &one.data_reads, name, err)) &&
	    !(rc = rp_samples_merge(&r->costs.data_stall, &one.data_stall, name, err)))
		rc = rp_costs_merge_evict(&r->costs, &one, err);
	if (!rc && rp_costs_have(&one)) {
		memcpy(r->costs.model, one.model, sizeof(one.model));
		r->costs.misses += one.misses;
	}
	rp_costs_release(&one);
	return rc;
}

static void add_note(import_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_note(import_run *r, const char *fmt, ...)
{
	va_list ap;
	size_t used = strlen(r->notes);
	snprintf(r->notes + used, sizeof(r->notes) - used, "%s", used ? "; " : "");
	used = strlen(r->notes);
	va_start(ap, fmt);
	vsnprintf(r->notes + used, sizeof(r->notes) - used, fmt, ap);
	va_end(ap);
}

/* A file of which too few samples fit its ELF was taken on another firmware: refused unless
 * --force, in the words place uses for a stale profile. Returns 0 to go on. */
static int verify(const import_args *a, const rp_import_check *c, const rp_image *img, const char *name,
		  rp_err *err)
{
	double share = rp_import_check_share(c);
	char details[640];
	if (share >= a->min_verified)
		return 0;
	rp_import_check_details(details, sizeof(details), c, img);
	if (!a->force)
		return rp_err_set(err, RP_EINPUT, "%s: only %.1f%% of %.0f samples verify against %s (--min-verified %.0f%%): %s: "
				  "the profile is from another firmware; import it against the ELF it was taken on, or pass --force",
				  name, 100.0 * share, rp_import_check_samples(c, c->checked), img->path,
				  100.0 * a->min_verified, details);
	cli_note("ramplace: warning: %s: only %.1f%% of %.0f samples verify against %s (--min-verified %.0f%%): %s; imported anyway (--force)",
		name, 100.0 * share, rp_import_check_samples(c, c->checked), img->path, 100.0 * a->min_verified, details);
	return 0;
}

/* QEMU logs run to gigabytes: a regular file is mapped, not copied. Anything else (standard
 * input, a FIFO, a character device) is read to its end through the one descriptor opened here:
 * a writer's bytes come once, so the format is sniffed and parsed from that copy. */
static int map_file(char **text, size_t *len, int *mapped, const char *path, const char *name, rp_err *err)
{
	struct stat st;
	*mapped = 0;
	int fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rp_err_set(err, RP_EINPUT, "%s: %s", name, strerror(errno));
	int rc = 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			*text = p;
			*len = (size_t)st.st_size;
			*mapped = 1;
		}
	}
	if (!*mapped)
		rc = rp_read_fd(text, len, fd, name, err);
	if (fd != STDIN_FILENO)
		close(fd);
	return rc;
}

static int parse_one(import_run *r, const import_args *a, const rp_image *img, const char *path, rp_err *err)
{
	rp_import_format fmt = a->fmt;
	char *text;
	size_t len;
	rp_samples one;
	rp_import_meta meta;
	const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
	int mapped = 0;
	int rc = map_file(&text, &len, &mapped, path, name, err);
	if (rc)
		return rc;
	rp_samples_init(&one);
	if (r->nfiles == 0)
		r->detected = fmt == RP_IMPORT_AUTO ? rp_import_detect(text, len) : fmt;
	rc = rp_import_file(&one, &meta, fmt, img, text, len, name, err);
	if (!rc && meta.plugin_version >= 3)
		rc = add_costs(r, text, len, name, err);
	if (mapped)
		munmap(text, len);
	else
		free(text);
	if (!rc)
		rc = verify(a, &meta.check, img, name, err);
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
	if (meta.text_blocks > 1)
		add_note(r, "%s holds %zu profile dumps: the last one is imported (the runtime's histogram accumulates)",
			 name, meta.text_blocks);
	if (strcmp(meta.method, "swo") == 0)   /* always: what the capture lost is part of the run */
		add_note(r, "SWO %s: %llu sleeping samples, %llu overflows (packets lost), %llu framing errors, "
			 "%llu bytes skipped resynchronising%s", name, (unsigned long long)meta.swo.sleeping,
			 (unsigned long long)meta.swo.overflows, (unsigned long long)meta.swo.errors,
			 (unsigned long long)meta.swo.skipped, meta.swo.truncated ? ", last packet cut off" : "");
	if (meta.plugin_version == 1)
		add_note(r, "%s is from libramplace-qemu.so version 1, without instruction bytes: checked by address only", name);
	if (meta.check.verified < meta.check.checked)
		add_note(r, "%.0f of %.0f samples of %s do not verify against the ELF",
			 rp_import_check_samples(&meta.check, meta.check.checked - meta.check.verified),
			 rp_import_check_samples(&meta.check, meta.check.checked), name);
	return 0;
}

static int parse_files(import_run *r, const import_args *a, const rp_image *img, char **files,
		       int nfiles, rp_err *err)
{
	for (int i = 0; i < nfiles; i++) {
		int rc = parse_one(r, a, img, files[i], err);
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
	char tool[64], stop[576];
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
	int costs = !rc && rp_costs_have(&r->costs);
	if (costs)   /* the run and its costs in one transaction */
		rc = rp_db_begin(db, err);
	if (!rc)
		rc = rp_db_store_run(db, img, &info, &r->s, &run_id, err);
	if (!rc && costs && !(rc = rp_db_store_costs(db, img, run_id, &r->costs, err)))
		rc = rp_db_commit(db, err);
	if (rc && costs)
		rp_db_rollback(db);
	if (!rc && !quiet) {
		/* whole samples exactly (as profile.db stores the run): %.0f of the double is 2^63 for
		 * INT64_MAX */
		printf("imported %llu samples", (unsigned long long)(r->s.taken ? r->s.taken : (r->s.total + scale / 2) / scale));
		if (r->s.narcs)
			printf(" and %zu call arcs", r->s.narcs);
		printf(" from %s as run %lld\n", source, (long long)run_id);
		if (costs)
			printf("flash model %s: %llu stall cycles on fetches, %llu on data reads from flash\n", r->costs.model,
			       (unsigned long long)r->costs.fetch_stall.total, (unsigned long long)r->costs.data_stall.total);
		if (r->notes[0])
			printf("note: %s\n", r->notes);
	}
	rp_db_close(db);
	return rc;
}

static int store_entry(rp_db *db, const rp_prof_entry *e, int64_t *run_id, rp_err *err)
{
	char source[600], notes[400];
	rp_run_info info = RP_RUN_INFO_INIT;
	snprintf(source, sizeof(source), "file %s", e->path);
	snprintf(notes, sizeof(notes), "image %s%s%s%s", e->header.image[0] ? e->header.image : e->name,
		 e->own ? " (no ELF with this signature: offsets kept)" : "",
		 e->header.version[0] ? "; profiler version " : "", e->header.version);
	info.source = source;
	info.tool = "import:prof";
	info.method = "sampled";
	info.stop_reason = notes;
	return rp_db_store_run(db, e->img, &info, &e->samples, run_id, err);
}

/* One run per file of a profd directory, each on the image its signature names, all in one
 * transaction: a kill or a full disk part-way leaves none of them, and thousands of files cost
 * one journal sync, not one per file. What was imported is said only once it is committed. */
static int import_dir(const char *db_path, const char *dir, const import_args *a, rp_err *err)
{
	rp_image *elves[2 * MAX_ELVES] = { 0 };
	rp_prof_sig sigs[MAX_ELVES];
	rp_prof_dir d = { 0 };
	rp_db *db = NULL;
	int64_t *run_ids = NULL;
	int rc = 0;
	for (size_t i = 0; !rc && i < a->nelves; i++)
		rc = rp_image_load(&elves[i], a->elf_paths[i], err);
	for (size_t i = 0; !rc && i < a->nsigs; i++) {
		rc = rp_image_load(&elves[a->nelves + i], a->sig_paths[i], err);
		sigs[i] = (rp_prof_sig){ a->sig_ids[i], elves[a->nelves + i] };
	}
	if (!rc)
		rc = rp_prof_dir_load(&d, dir, (const rp_image *const *)elves, a->nelves, sigs, a->nsigs, err);
	for (size_t i = 0; !rc && i < d.n; i++)   /* files no ELF matched are kept as offsets: nothing to check */
		if (!d.entries[i].own)
			rc = verify(a, &d.entries[i].check, d.entries[i].img, d.entries[i].path, err);
	if (!rc && !(run_ids = calloc(d.n, sizeof(*run_ids))))
		rc = rp_err_nomem(err, "importing a profile directory");
	if (!rc && !(rc = rp_db_open(&db, db_path, err)))
		rc = rp_db_begin(db, err);
	for (size_t i = 0; !rc && i < d.n; i++)
		rc = store_entry(db, &d.entries[i], &run_ids[i], err);
	if (!rc)
		rc = rp_db_commit(db, err);
	else
		rp_db_rollback(db);
	rp_db_close(db);
	for (size_t i = 0; !rc && !a->quiet && i < d.n; i++) {
		const rp_prof_entry *e = &d.entries[i];
		printf("imported %llu samples of %s (%s%s) as run %lld\n", (unsigned long long)e->samples.total,
		       e->name, e->own ? "signature " : "", e->own ? e->image_id : e->img->path, (long long)run_ids[i]);
	}
	for (size_t i = 0; !rc && i < d.nskipped; i++)   /* a note even with --quiet: a file was left out */
		cli_note("ramplace: note: %s", d.skipped[i]);
	free(run_ids);
	rp_prof_dir_release(&d);
	for (size_t i = 0; i < 2 * MAX_ELVES; i++)
		rp_image_free(elves[i]);
	return rc;
}

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
	a->nelves = 1;
	a->min_verified = RP_IMPORT_MIN_VERIFIED;
	while ((c = getopt_long(argc, argv, "f:qh", longopts, NULL)) != -1) {
		if (c == 'f') {
			if ((rc = rp_import_format_parse(&a->fmt, optarg, err)))
				return rc;
		} else if (c == 'q') {
			a->quiet = 1;
		} else if (c == 'F') {
			a->force = 1;
		} else if (c == 'M') {
			char *end;
			double v = strtod(optarg, &end);
			if (end == optarg || (*end && strcmp(end, "%") != 0) || !(v >= 0.0 && v <= 100.0))
				return rp_err_set(err, RP_EUSAGE, "--min-verified: '%s' is not a percentage from 0 to 100", optarg);
			a->min_verified = v / 100.0;
		} else if (c == 'I' && a->nelves < MAX_ELVES) {
			a->elf_paths[a->nelves++] = optarg;
		} else if (c == 'S' && a->nsigs < MAX_ELVES && strchr(optarg, '=')) {
			char *eq = strchr(optarg, '=');
			*eq = '\0';
			a->sig_ids[a->nsigs] = optarg;
			a->sig_paths[a->nsigs++] = eq + 1;
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
	import_run r;
	memset(&r, 0, sizeof(r));
	rp_samples_init(&r.s);
	rp_costs_init(&r.costs);
	char source[512];
	snprintf(source, sizeof(source), "file %s%s", argv[optind + 2], argc - optind > 3 ? " ..." : "");
	rc = parse_files(&r, &a, img, argv + optind + 2, argc - optind - 2, err);
	if (!rc)
		rc = store(argv[optind], img, &r, source, a.fmt == RP_IMPORT_AUTO ? r.detected : a.fmt, a.quiet, err);
	if (!rc && !a.quiet)   /* how stable a placement from the whole profile would be */
		cli_stability_after_store(argv[optind], img);
	rp_samples_release(&r.s);
	rp_costs_release(&r.costs);
	rp_image_free(img);
	return rc;
}
