/* import_run.c: `ramplace import`'s work (import_run.h): each file read (mapped when it is a
 * regular file: QEMU logs run to gigabytes), parsed by its format's reader, checked against its
 * ELF, merged into one histogram with its flash-model costs, and stored as one run; a profile
 * directory's files stored as one run each. Owns the run being built and the result's lists.
 * Workload: a few files of up to gigabytes, or a directory of thousands of small ones, once. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ramplace/import_run.h"
#include "ramplace/profdir.h"
#include "ramplace/profiledb.h"
#include "ramplace/util.h"

typedef struct import_build {
	const rp_import_opts *o;
	rp_import_result *res;
	rp_samples s;
	double rate_hz;        /* shared by every file, else 0 */
	char method[64];
	int nfiles;
	rp_costs costs;        /* what a flash model charged (plugin files of version 3) */
} import_build;

/* A plugin file's flash-model costs added to the run's. Every file of a run has the same
 * model, or none has one: stall cycles of part of a run would understate the rest. */
static int add_costs(import_build *r, const char *text, size_t len, const char *name, rp_err *err)
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
	if (!rc && rp_costs_have(&one))
		rc = rp_costs_merge_entries(&r->costs, &one, err);
	if (!rc && rp_costs_have(&one)) {
		memcpy(r->costs.model, one.model, sizeof(one.model));
		r->costs.misses += one.misses;
	}
	rp_costs_release(&one);
	return rc;
}

static void add_note(rp_import_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_note(rp_import_result *res, const char *fmt, ...)
{
	va_list ap;
	size_t used = strlen(res->notes);
	snprintf(res->notes + used, sizeof(res->notes) - used, "%s", used ? "; " : "");
	used = strlen(res->notes);
	va_start(ap, fmt);
	vsnprintf(res->notes + used, sizeof(res->notes) - used, fmt, ap);
	va_end(ap);
}

/* A file of which too few samples fit its ELF was taken on another firmware: refused unless
 * force, in the words place uses for a stale profile; forced, a warning in the result. */
static int verify(const rp_import_opts *o, rp_import_result *res, const rp_import_check *c, const rp_image *img,
		  const char *name, rp_err *err)
{
	double share = rp_import_check_share(c);
	char details[640];
	if (share >= o->min_verified)
		return 0;
	rp_import_check_details(details, sizeof(details), c, img);
	if (!o->force)
		return rp_err_set(err, RP_EINPUT, "%s: only %.1f%% of %.0f samples verify against %s (--min-verified %.0f%%): %s: "
				  "the profile is from another firmware; import it against the ELF it was taken on, or pass --force",
				  name, 100.0 * share, rp_import_check_samples(c, c->checked), img->path,
				  100.0 * o->min_verified, details);
	return rp_strlist_pushf(&res->warnings, &res->nwarnings, err,
				"%s: only %.1f%% of %.0f samples verify against %s (--min-verified %.0f%%): %s; imported anyway (--force)",
				name, 100.0 * share, rp_import_check_samples(c, c->checked), img->path,
				100.0 * o->min_verified, details);
}

/* A regular file is mapped, not copied. Anything else (standard input, a FIFO, a character
 * device) is read to its end through the one descriptor opened here: a writer's bytes come
 * once, so the format is sniffed and parsed from that copy. */
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

/* What a file lost or left out, for the run's notes. */
static void note_meta(rp_import_result *res, const rp_import_meta *meta, const char *name)
{
	if (meta->saturated)
		add_note(res, "%llu histogram bins saturated at 65535 in %s (their counts are lower bounds)",
			 (unsigned long long)meta->saturated, name);
	if (meta->blocks_without_insns)
		add_note(res, "%llu translation blocks of %s counted at their start only (log made without -d in_asm)",
			 (unsigned long long)meta->blocks_without_insns, name);
	if (meta->nbb)
		add_note(res, "%llu basic-block counts in %s not used", (unsigned long long)meta->nbb, name);
	if (meta->text_blocks > 1)
		add_note(res, "%s holds %zu profile dumps: the last one is imported (the runtime's histogram accumulates)",
			 name, meta->text_blocks);
	if (strcmp(meta->method, "swo") == 0)   /* always: what the capture lost is part of the run */
		add_note(res, "SWO %s: %llu sleeping samples, %llu overflows (packets lost), %llu framing errors, "
			 "%llu bytes skipped resynchronising%s", name, (unsigned long long)meta->swo.sleeping,
			 (unsigned long long)meta->swo.overflows, (unsigned long long)meta->swo.errors,
			 (unsigned long long)meta->swo.skipped, meta->swo.truncated ? ", last packet cut off" : "");
	if (meta->plugin_version == 1)
		add_note(res, "%s is from libramplace-qemu.so version 1, without instruction bytes: checked by address only", name);
	if (meta->check.verified < meta->check.checked)
		add_note(res, "%.0f of %.0f samples of %s do not verify against the ELF",
			 rp_import_check_samples(&meta->check, meta->check.checked - meta->check.verified),
			 rp_import_check_samples(&meta->check, meta->check.checked), name);
}

static int parse_one(import_build *r, const rp_image *img, const char *path, rp_err *err)
{
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
		r->res->format = r->o->fmt == RP_IMPORT_AUTO ? rp_import_detect(text, len) : r->o->fmt;
	rc = rp_import_file(&one, &meta, r->o->fmt, img, text, len, name, err);
	if (!rc && meta.plugin_version >= 3)
		rc = add_costs(r, text, len, name, err);
	if (mapped)
		munmap(text, len);
	else
		free(text);
	if (!rc)
		rc = verify(r->o, r->res, &meta.check, img, name, err);
	if (!rc)
		rc = rp_samples_merge(&r->s, &one, name, err);
	rp_samples_release(&one);
	if (rc)
		return rc;
	r->rate_hz = r->nfiles == 0 || r->rate_hz == meta.rate_hz ? meta.rate_hz : 0.0;
	if (r->nfiles++ == 0)
		snprintf(r->method, sizeof(r->method), "%s", meta.method);
	note_meta(r->res, &meta, name);
	return 0;
}

/* The run and its costs in one transaction. */
static int store(const char *db_path, const rp_image *img, import_build *r, const char *source, rp_err *err)
{
	rp_import_result *res = r->res;
	rp_db *db = NULL;
	char tool[64], stop[576];
	snprintf(tool, sizeof(tool), "import:%s", rp_import_format_name(res->format));
	snprintf(stop, sizeof(stop), "end of file%s%s", res->notes[0] ? "; " : "", res->notes);
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
	if (costs)
		rc = rp_db_begin(db, err);
	if (!rc)
		rc = rp_db_store_run(db, img, &info, &r->s, &res->run_id, err);
	if (!rc && costs && !(rc = rp_db_store_costs(db, img, res->run_id, &r->costs, err)))
		rc = rp_db_commit(db, err);
	if (rc && costs)
		rp_db_rollback(db);
	rp_db_close(db);
	if (rc)
		return rc;
	res->samples = r->s.taken ? r->s.taken : (r->s.total + scale / 2) / scale;
	res->narcs = r->s.narcs;
	res->have_costs = costs;
	if (costs) {
		memcpy(res->model, r->costs.model, sizeof(res->model));
		res->fetch_stall = r->costs.fetch_stall.total;
		res->data_stall = r->costs.data_stall.total;
	}
	return 0;
}

int rp_import_files(const char *db_path, const rp_image *img, const rp_import_opts *o, const char *const *files,
		    size_t nfiles, const char *source, rp_import_result *res, rp_err *err)
{
	memset(res, 0, sizeof(*res));
	import_build r = { .o = o, .res = res };
	rp_samples_init(&r.s);
	rp_costs_init(&r.costs);
	res->format = o->fmt;
	int rc = 0;
	for (size_t i = 0; !rc && i < nfiles; i++)
		rc = parse_one(&r, img, files[i], err);
	if (!rc && r.s.total == 0 && r.s.narcs == 0)
		rc = rp_err_set(err, RP_EINPUT, "%s: no samples found", nfiles ? files[0] : "(no file)");
	if (!rc)
		rc = store(db_path, img, &r, source, err);
	rp_samples_release(&r.s);
	rp_costs_release(&r.costs);
	if (rc)
		rp_import_result_release(res);
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

/* The runs stored, into the result (the directory's entries are released with it). */
static int keep_runs(rp_import_result *res, const rp_prof_dir *d, const int64_t *run_ids, rp_err *err)
{
	if (d->n && !(res->runs = calloc(d->n, sizeof(*res->runs))))
		return rp_err_nomem(err, "importing a profile directory");
	for (size_t i = 0; i < d->n; i++) {
		const rp_prof_entry *e = &d->entries[i];
		rp_import_dir_run *run = &res->runs[res->nruns++];
		run->own = e->own != NULL;
		run->samples = e->samples.total;
		run->run_id = run_ids[i];
		if (rp_strdup(&run->name, e->name, err) || rp_strdup(&run->image, e->own ? e->image_id : e->img->path, err))
			return err->code;
	}
	for (size_t i = 0; i < d->nskipped; i++)
		if (rp_strlist_pushf(&res->skipped, &res->nskipped, err, "%s", d->skipped[i]))
			return err->code;
	return 0;
}

#define MAX_ELVES 64

/* One run per file, each on the image its signature names, all in one transaction: a kill or
 * a full disk part-way leaves none of them, and thousands of files cost one journal sync. */
int rp_import_dir(const char *db_path, const char *dir, const rp_import_opts *o, rp_import_result *res, rp_err *err)
{
	memset(res, 0, sizeof(*res));
	res->format = RP_IMPORT_PROF;
	if (o->nelves + o->nsigs > MAX_ELVES)
		return rp_err_set(err, RP_EUSAGE, "importing a profile directory: at most %d ELFs", MAX_ELVES);
	rp_image *elves[MAX_ELVES] = { 0 };
	rp_prof_sig sigs[MAX_ELVES];
	rp_prof_dir d = { 0 };
	rp_db *db = NULL;
	int64_t *run_ids = NULL;
	int rc = 0;
	for (size_t i = 0; !rc && i < o->nelves; i++)
		rc = rp_image_load(&elves[i], o->elf_paths[i], err);
	for (size_t i = 0; !rc && i < o->nsigs; i++) {
		rc = rp_image_load(&elves[o->nelves + i], o->sig_paths[i], err);
		sigs[i] = (rp_prof_sig){ o->sig_ids[i], elves[o->nelves + i] };
	}
	if (!rc)
		rc = rp_prof_dir_load(&d, dir, (const rp_image *const *)elves, o->nelves, sigs, o->nsigs, err);
	for (size_t i = 0; !rc && i < d.n; i++)   /* files no ELF matched are kept as offsets: nothing to check */
		if (!d.entries[i].own)
			rc = verify(o, res, &d.entries[i].check, d.entries[i].img, d.entries[i].path, err);
	if (!rc && !(run_ids = calloc(d.n ? d.n : 1, sizeof(*run_ids))))
		rc = rp_err_nomem(err, "importing a profile directory");
	if (!rc && !(rc = rp_db_open(&db, db_path, err)))
		rc = rp_db_begin(db, err);
	for (size_t i = 0; !rc && i < d.n; i++)
		rc = store_entry(db, &d.entries[i], &run_ids[i], err);
	if (!rc)
		rc = rp_db_commit(db, err);
	else if (db)
		rp_db_rollback(db);
	rp_db_close(db);
	if (!rc)
		rc = keep_runs(res, &d, run_ids, err);
	free(run_ids);
	rp_prof_dir_release(&d);
	for (size_t i = 0; i < MAX_ELVES; i++)
		rp_image_free(elves[i]);
	if (rc)
		rp_import_result_release(res);
	return rc;
}

void rp_import_result_release(rp_import_result *res)
{
	for (size_t i = 0; i < res->nwarnings; i++)
		free(res->warnings[i]);
	free(res->warnings);
	for (size_t i = 0; i < res->nruns; i++) {
		free(res->runs[i].name);
		free(res->runs[i].image);
	}
	free(res->runs);
	for (size_t i = 0; i < res->nskipped; i++)
		free(res->skipped[i]);
	free(res->skipped);
	memset(res, 0, sizeof(*res));
}
