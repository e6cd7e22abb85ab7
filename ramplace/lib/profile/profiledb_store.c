/* profiledb_store.c: one run into profile.db (profiledb.h): its image (by build-id), the run row,
 * the samples symbolized to (function, defining file, offset) and the caller->callee arcs; PCs
 * outside every function are kept as "<unknown>" with the function just below them. Owns the
 * statements it prepares once per connection (profiledb_internal.h). Workload: up to a few
 * hundred thousand distinct rows per run, thousands of runs in one import. */
#include <elf.h>
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ramplace/profiledb.h"
#include "ramplace/util.h"
#include "profiledb_internal.h"

/* A statement of the store, prepared on first use and reset for the next. */
static sqlite3_stmt *cached(rp_db *db, int slot, const char *sql)
{
	if (!db->st[slot] && sqlite3_prepare_v2(db->sql, sql, -1, &db->st[slot], NULL) != SQLITE_OK)
		return NULL;
	sqlite3_reset(db->st[slot]);
	sqlite3_clear_bindings(db->st[slot]);
	return db->st[slot];
}

static int store_image(rp_db *db, const rp_image *img, int64_t *image_id, rp_err *err)
{
	sqlite3_stmt *st = cached(db, ST_IMAGE,
		"INSERT INTO images(build_id, build_id_is_hash, path, arch) VALUES(?1, ?2, ?3, ?4)"
		" ON CONFLICT(build_id) DO UPDATE SET path = excluded.path RETURNING id");
	int rc = SQLITE_ERROR;
	if (st) {
		sqlite3_bind_text(st, 1, img->build_id, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 2, img->build_id_is_hash);
		sqlite3_bind_text(st, 3, img->path, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, rp_image_arch(img), -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
	}
	if (rc != SQLITE_ROW)
		return rp_dbi_fail(db, err, "storing the image");
	*image_id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);   /* RETURNING: the row is only written once the statement is run out */
	return 0;
}

static int store_run_row(rp_db *db, int64_t image_id, const rp_run_info *info, uint64_t nsamples,
			 uint64_t scale, int64_t *run_id, rp_err *err)
{
	char started[32];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", &tm);
	sqlite3_stmt *st = cached(db, ST_RUN,
		"INSERT INTO runs(image_id, source, tool, method, started, rate_hz, duration_s, samples,"
		" stop_reason, scale, covered, slowdown) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
	int rc = SQLITE_ERROR;
	if (st) {
		sqlite3_bind_int64(st, 1, image_id);
		sqlite3_bind_text(st, 2, info->source ? info->source : "", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, info->tool ? info->tool : "", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, info->method ? info->method : "", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, started, -1, SQLITE_STATIC);
		sqlite3_bind_double(st, 6, info->rate_hz);
		sqlite3_bind_double(st, 7, info->duration_s);
		sqlite3_bind_int64(st, 8, (sqlite3_int64)nsamples);
		sqlite3_bind_text(st, 9, info->stop_reason ? info->stop_reason : "", -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 10, (sqlite3_int64)scale);
		/* unknown stays unbound, NULL (cached() clears the last run's bindings) */
		if (info->covered == 0 || info->covered == 1)
			sqlite3_bind_int(st, 11, info->covered);
		if (info->slowdown >= 0 && isfinite(info->slowdown))
			sqlite3_bind_double(st, 12, info->slowdown);
		rc = sqlite3_step(st);
	}
	if (rc != SQLITE_DONE)
		return rp_dbi_fail(db, err, "storing the run");
	*run_id = sqlite3_last_insert_rowid(db->sql);
	return 0;
}

/* Symbolized key of an address: the function and the offset in it, or "<unknown>" and the
 * address itself. */
static const rp_func *symbolize(const rp_image *img, uint64_t pc, uint64_t *offset)
{
	const rp_func *f = rp_image_func_at(img, pc);
	uint64_t addr = img->machine == EM_ARM ? pc & ~(uint64_t)1 : pc;
	*offset = f ? addr - f->addr : addr;
	return f;
}

/* For an address no function covers: the last function symbol starting below it, when the
 * address lies in executable code (the PLT after _init, padding, a stub without a symbol), else
 * NULL. gprof credits such samples to that symbol; see after_key. */
static const rp_func *function_below(const rp_image *img, uint64_t addr)
{
	int in_code = 0;
	for (size_t i = 0; i < img->nsections && !in_code; i++) {
		const rp_section *sec = &img->sections[i];
		in_code = sec->is_exec && sec->is_alloc && addr >= sec->vma && addr - sec->vma < sec->size;
	}
	return in_code ? rp_image_func_below(img, addr) : NULL;
}

/* The file column of an "<unknown>" row names the function symbol below its address:
 * "after NAME", or "after NAME (FILE)" for a static, so that a report can credit the samples
 * to it as gprof does (rp_db_unknown_after) while placement, which skips "<unknown>", never
 * mistakes them for the function's own. '' when there is none (docs/profile-db.md). */
static const char *after_key(char *buf, size_t cap, const rp_image *img, uint64_t addr)
{
	const rp_func *below = function_below(img, addr);
	if (!below)
		return "";
	if (below->file)
		snprintf(buf, cap, "after %s (%s)", below->name, below->file);
	else
		snprintf(buf, cap, "after %s", below->name);
	return buf;
}

int rp_db_unknown_after(const rp_func_total *t, char **name, char **file, rp_err *err)
{
	const char *k = t->file;
	*name = *file = NULL;
	if (strcmp(t->func, "<unknown>") != 0 || !k || strncmp(k, "after ", 6) != 0 || !k[6])
		return 0;
	k += 6;
	const char *paren = strstr(k, " (");
	size_t len = strlen(k);
	if (!paren || paren == k || k[len - 1] != ')')
		return rp_strdup(name, k, err) ? err->code : 1;
	if (!(*name = strndup(k, (size_t)(paren - k))) ||
	    !(*file = strndup(paren + 2, (size_t)(k + len - 1 - (paren + 2))))) {
		free(*name);
		*name = NULL;
		return rp_err_nomem(err, "reading samples");
	}
	return 1;
}

static int store_samples(rp_db *db, const rp_image *img, int64_t run_id, const rp_samples *s, rp_err *err)
{
	char after[1024];
	sqlite3_stmt *st = cached(db, ST_SAMPLE,
		"INSERT INTO samples(run_id, function, file, offset, count) VALUES(?1, ?2, ?3, ?4, ?5)"
		" ON CONFLICT DO UPDATE SET count = count + excluded.count");
	if (!st)
		return rp_dbi_fail(db, err, "storing samples");
	for (size_t i = 0; i < s->pcs_cap; i++) {
		if (!s->pcs[i].count)
			continue;
		uint64_t offset;
		const rp_func *f = symbolize(img, s->pcs[i].pc, &offset);
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_text(st, 2, f ? f->name : "<unknown>", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, f ? (f->file ? f->file : "") : after_key(after, sizeof(after), img, offset),
				  -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, (sqlite3_int64)offset);
		sqlite3_bind_int64(st, 5, (sqlite3_int64)s->pcs[i].count);
		if (sqlite3_step(st) != SQLITE_DONE)
			return rp_dbi_fail(db, err, "storing samples");
		sqlite3_reset(st);
	}
	return 0;
}

static int store_arcs(rp_db *db, const rp_image *img, int64_t run_id, const rp_samples *s, rp_err *err)
{
	if (s->narcs == 0)
		return 0;
	sqlite3_stmt *st = cached(db, ST_ARC,
		"INSERT INTO arcs(run_id, caller, caller_file, callee, callee_file, count)"
		" VALUES(?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT DO UPDATE SET count = count + excluded.count");
	if (!st)
		return rp_dbi_fail(db, err, "storing arcs");
	for (size_t i = 0; i < s->narcs; i++) {
		uint64_t off;
		/* a return address points past the call, possibly past the end of a noreturn caller */
		const rp_func *from = symbolize(img, s->arcs[i].from_pc ? s->arcs[i].from_pc - 1 : 0, &off);
		const rp_func *to = symbolize(img, s->arcs[i].self_pc, &off);
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_text(st, 2, from ? from->name : "<unknown>", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, from && from->file ? from->file : "", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, to ? to->name : "<unknown>", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, to && to->file ? to->file : "", -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 6, (sqlite3_int64)s->arcs[i].count);
		if (sqlite3_step(st) != SQLITE_DONE)
			return rp_dbi_fail(db, err, "storing arcs");
		sqlite3_reset(st);
	}
	return 0;
}

int rp_db_store_run(rp_db *db, const rp_image *img, const rp_run_info *info,
		    const rp_samples *samples, int64_t *run_id, rp_err *err)
{
	int64_t image_id = 0, id = 0;
	uint64_t scale = samples->scale ? samples->scale : 1;
	uint64_t taken = samples->taken ? samples->taken : (samples->total + scale / 2) / scale;
	if (scale > INT64_MAX)
		return rp_err_set(err, RP_EINPUT, "%s: sample scale %llu too large", db->path,
				  (unsigned long long)scale);
	/* inside rp_db_begin the run joins the caller's transaction, undone alone on failure */
	int own = sqlite3_get_autocommit(db->sql);
	if (rp_dbi_exec(db, own ? "BEGIN IMMEDIATE" : "SAVEPOINT store_run", "starting the transaction", err))
		return err->code;
	if (store_image(db, img, &image_id, err) ||
	    store_run_row(db, image_id, info, taken, scale, &id, err) ||
	    store_samples(db, img, id, samples, err) || store_arcs(db, img, id, samples, err)) {
		if (own)
			rp_db_rollback(db);
		else
			sqlite3_exec(db->sql, "ROLLBACK TO store_run; RELEASE store_run", NULL, NULL, NULL);
		return err->code;
	}
	if (rp_dbi_exec(db, own ? "COMMIT" : "RELEASE store_run", "committing the run", err)) {
		if (own)
			rp_db_rollback(db);
		return err->code;
	}
	if (run_id)
		*run_id = id;
	return 0;
}
