/* profiledb_read.c: what report, diff and place read back from profile.db (profiledb.h): per
 * function totals over all runs or one (runs weighted by their scale, or equally), caller->callee
 * arcs, the runs and the images. Sums are checked: SQLite's integer SUM() overflow is an error,
 * not a wrapped number. Owns only what it returns. Workload: sums over up to millions of rows. */
#include <elf.h>
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/profiledb.h"
#include "ramplace/util.h"
#include "profiledb_internal.h"

static int dup_column(char **out, sqlite3_stmt *st, int col, int empty_is_null, rp_err *err)
{
	const char *text = (const char *)sqlite3_column_text(st, col);
	if (empty_is_null && (!text || !*text)) {
		*out = NULL;
		return 0;
	}
	return rp_strdup(out, text ? text : "", err);
}

static int run_exists(rp_db *db, int64_t run_id, rp_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->sql, "SELECT 1 FROM runs WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
		return rp_dbi_fail(db, err, "reading runs");
	sqlite3_bind_int64(st, 1, run_id);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		return rp_err_set(err, RP_EINPUT, "%s: no run %lld", db->path, (long long)run_id);
	return rp_dbi_fail(db, err, "reading runs");
}

/* Run-level sums: samples taken, and the rate if every run shares one. */
static int load_run_sums(rp_db *db, int64_t run_id, rp_db_totals *out, rp_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->sql,
		"SELECT count(*), count(DISTINCT image_id), TOTAL(samples), MIN(rate_hz), MAX(rate_hz),"
		" TOTAL(CASE WHEN rate_hz > 0 THEN samples / rate_hz ELSE 0 END),"
		" EXISTS(SELECT 1 FROM arcs a JOIN runs r ON r.id = a.run_id"
		"  WHERE r.tool = 'record' AND (?1 = 0 OR r.id = ?1))"
		" FROM runs WHERE ?1 = 0 OR id = ?1", -1, &st, NULL) != SQLITE_OK)
		return rp_dbi_fail(db, err, "reading runs");
	sqlite3_bind_int64(st, 1, run_id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return rp_dbi_fail(db, err, "reading runs");
	}
	out->nruns = (size_t)sqlite3_column_int64(st, 0);
	out->nimages = (size_t)sqlite3_column_int64(st, 1);
	out->taken = sqlite3_column_double(st, 2);
	if (out->taken < 0 || out->taken > 0x1p63) {
		sqlite3_finalize(st);
		return rp_err_set(err, RP_EINPUT, "%s: the runs' sample counts sum to %.0f, outside 0 to %llu (a damaged profile.db?)",
				  db->path, out->taken, (unsigned long long)RP_COUNT_MAX);
	}
	double lo = sqlite3_column_double(st, 3), hi = sqlite3_column_double(st, 4);
	out->rate_hz = out->nruns && lo > 0 && lo == hi ? lo : 0.0;
	out->taken_seconds = out->rate_hz > 0 ? sqlite3_column_double(st, 5) : 0.0;
	/* the sampler is the one collector whose arcs are return addresses; gmon.out's are calls */
	out->sampled_arcs = sqlite3_column_int(st, 6) != 0;
	sqlite3_finalize(st);
	return 0;
}

static const char totals_sql[] =
	"SELECT s.function, s.file, TOTAL(s.count * 1.0 / r.scale),"
	" TOTAL(CASE WHEN r.rate_hz > 0 THEN s.count * 1.0 / r.scale / r.rate_hz ELSE 0 END)"
	" FROM samples s JOIN runs r ON r.id = s.run_id WHERE ?1 = 0 OR r.id = ?1"
	" GROUP BY s.function, s.file ORDER BY 3 DESC, 1, 2";

/* Every run scaled to the mean run's samples, so a long run does not drown a short one. */
static const char totals_equal_sql[] =
	"WITH rt AS (SELECT s.run_id AS id, TOTAL(s.count * 1.0 / r.scale) AS t FROM samples s"
	"  JOIN runs r ON r.id = s.run_id GROUP BY s.run_id),"
	" m AS (SELECT AVG(t) AS mean FROM rt)"
	" SELECT s.function, s.file, TOTAL(s.count * 1.0 / r.scale * (SELECT mean FROM m) / rt.t),"
	" TOTAL(CASE WHEN r.rate_hz > 0 THEN s.count * 1.0 / r.scale / r.rate_hz ELSE 0 END)"
	" FROM samples s JOIN runs r ON r.id = s.run_id JOIN rt ON rt.id = s.run_id WHERE ?1 = 0 OR r.id = ?1"
	" GROUP BY s.function, s.file ORDER BY 3 DESC, 1, 2";

static int load_totals(rp_db *db, int64_t run_id, const char *sql, rp_db_totals *out, rp_err *err);

int rp_db_totals_load_run(rp_db *db, int64_t run_id, rp_db_totals *out, rp_err *err)
{
	return load_totals(db, run_id, totals_sql, out, err);
}

int rp_db_totals_load_weighted(rp_db *db, int equal, rp_db_totals *out, rp_err *err)
{
	return load_totals(db, 0, equal ? totals_equal_sql : totals_sql, out, err);
}

/* The exact integer sum of the stored counts: the doubles the totals are read as cannot tell
 * INT64_MAX from one more, but SUM() can, and fails with "integer overflow" past it. */
static int check_count_sum(rp_db *db, int64_t run_id, rp_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->sql, "SELECT SUM(count), MIN(count) FROM samples WHERE ?1 = 0 OR run_id = ?1", -1, &st,
			       NULL) != SQLITE_OK)
		return rp_dbi_fail(db, err, "reading samples");
	sqlite3_bind_int64(st, 1, run_id);
	int rc = sqlite3_step(st);
	int negative = rc == SQLITE_ROW && sqlite3_column_type(st, 1) != SQLITE_NULL && sqlite3_column_int64(st, 1) < 0;
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW && !negative)
		return 0;
	if (negative)
		return rp_err_set(err, RP_EINPUT, "%s: a negative sample count (a damaged profile.db?)", db->path);
	if (strstr(sqlite3_errmsg(db->sql), "integer overflow"))
		return rp_err_set(err, RP_EINPUT, "%s: the runs together hold more than %llu samples (the most ramplace can count)",
				  db->path, (unsigned long long)RP_COUNT_MAX);
	return rp_dbi_fail(db, err, "reading samples");
}

static int load_totals(rp_db *db, int64_t run_id, const char *sql, rp_db_totals *out, rp_err *err)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	memset(out, 0, sizeof(*out));
	if (run_id && run_exists(db, run_id, err))
		return err->code;
	if (check_count_sum(db, run_id, err))
		return err->code;
	if (sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL) != SQLITE_OK)
		return rp_dbi_fail(db, err, "reading samples");
	sqlite3_bind_int64(st, 1, run_id);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (rp_grow((void **)&out->funcs, &cap, out->nfuncs + 1, sizeof(*out->funcs), err))
			break;
		rp_func_total *t = &out->funcs[out->nfuncs];
		memset(t, 0, sizeof(*t));
		out->nfuncs++;
		if (dup_column(&t->func, st, 0, 0, err) || dup_column(&t->file, st, 1, 1, err))
			break;
		t->samples = sqlite3_column_double(st, 2);
		t->seconds = sqlite3_column_double(st, 3);
		/* the sums are doubles (TOTAL): one past int64 would make llround undefined, and the
		 * runs together may hold more than any one run was allowed to */
		if (!(t->samples <= 0x1p63) || t->samples < 0) {
			rp_err_set(err, RP_EINPUT, "%s: %s has %.0f samples over all runs, more than %llu (the most ramplace can count)",
				   db->path, t->func, t->samples, (unsigned long long)RP_COUNT_MAX);
			rc = SQLITE_ROW;
			break;
		}
		/* a double holds INT64_MAX as 2^63: that one rounding is the largest count, not past it */
		t->count = t->samples >= 0x1p63 ? RP_COUNT_MAX : (uint64_t)llround(t->samples);
		/* check_count_sum has refused a true total past int64; only the rounding of counts near
		 * it to doubles can pass it, so the sum saturates there */
		if (rp_count_add(&out->total, t->count))
			out->total = RP_COUNT_MAX;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		rp_db_totals_release(out);
		return rc == SQLITE_ROW ? err->code : rp_dbi_fail(db, err, "reading samples");
	}
	if (load_run_sums(db, run_id, out, err)) {
		rp_db_totals_release(out);
		return err->code;
	}
	return 0;
}

int rp_db_totals_load(rp_db *db, rp_db_totals *out, rp_err *err)
{
	return rp_db_totals_load_run(db, 0, out, err);
}

void rp_db_totals_release(rp_db_totals *t)
{
	for (size_t i = 0; i < t->nfuncs; i++) {
		free(t->funcs[i].func);
		free(t->funcs[i].file);
	}
	free(t->funcs);
	memset(t, 0, sizeof(*t));
}

int rp_db_arcs_load(rp_db *db, rp_arc_total **out, size_t *n, rp_err *err)
{
	return rp_db_arcs_load_run(db, 0, out, n, err);
}

int rp_db_arcs_load_run(rp_db *db, int64_t run_id, rp_arc_total **out, size_t *n, rp_err *err)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(db->sql,
		"SELECT caller, caller_file, callee, callee_file, SUM(count) FROM arcs"
		" WHERE ?1 = 0 OR run_id = ?1"
		" GROUP BY 1, 2, 3, 4 ORDER BY 5 DESC, 1, 3", -1, &st, NULL) != SQLITE_OK)
		return rp_dbi_fail(db, err, "reading arcs");
	sqlite3_bind_int64(st, 1, run_id);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (rp_grow((void **)out, &cap, *n + 1, sizeof(**out), err))
			break;
		rp_arc_total *a = &(*out)[*n];
		memset(a, 0, sizeof(*a));
		(*n)++;
		if (dup_column(&a->caller, st, 0, 0, err) || dup_column(&a->caller_file, st, 1, 1, err) ||
		    dup_column(&a->callee, st, 2, 0, err) || dup_column(&a->callee_file, st, 3, 1, err))
			break;
		a->count = (uint64_t)sqlite3_column_int64(st, 4);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		rp_arc_totals_free(*out, *n);
		*out = NULL;
		*n = 0;
		return rc == SQLITE_ROW ? err->code : rp_dbi_fail(db, err, "reading arcs");
	}
	return 0;
}

void rp_arc_totals_free(rp_arc_total *arcs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(arcs[i].caller);
		free(arcs[i].caller_file);
		free(arcs[i].callee);
		free(arcs[i].callee_file);
	}
	free(arcs);
}

int rp_db_runs_load(rp_db *db, rp_run_row **out, size_t *n, rp_err *err)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(db->sql,
		"SELECT r.id, i.build_id, i.path, r.source, r.tool, r.method, r.started, r.stop_reason,"
		" r.rate_hz, r.duration_s, r.samples, r.scale FROM runs r JOIN images i ON i.id = r.image_id"
		" ORDER BY r.id", -1, &st, NULL) != SQLITE_OK)
		return rp_dbi_fail(db, err, "reading runs");
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (rp_grow((void **)out, &cap, *n + 1, sizeof(**out), err))
			break;
		rp_run_row *r = &(*out)[*n];
		memset(r, 0, sizeof(*r));
		(*n)++;
		r->id = sqlite3_column_int64(st, 0);
		if (dup_column(&r->build_id, st, 1, 0, err) || dup_column(&r->image_path, st, 2, 0, err) ||
		    dup_column(&r->source, st, 3, 0, err) || dup_column(&r->tool, st, 4, 0, err) ||
		    dup_column(&r->method, st, 5, 0, err) || dup_column(&r->started, st, 6, 0, err) ||
		    dup_column(&r->stop_reason, st, 7, 0, err))
			break;
		r->rate_hz = sqlite3_column_double(st, 8);
		r->duration_s = sqlite3_column_double(st, 9);
		r->samples = sqlite3_column_double(st, 10);
		r->scale = (uint64_t)sqlite3_column_int64(st, 11);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		rp_run_rows_free(*out, *n);
		*out = NULL;
		*n = 0;
		return rc == SQLITE_ROW ? err->code : rp_dbi_fail(db, err, "reading runs");
	}
	return 0;
}

void rp_run_rows_free(rp_run_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].build_id);
		free(rows[i].image_path);
		free(rows[i].source);
		free(rows[i].tool);
		free(rows[i].method);
		free(rows[i].started);
		free(rows[i].stop_reason);
	}
	free(rows);
}

int rp_db_images_load(rp_db *db, rp_db_image **out, size_t *n, rp_err *err)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(db->sql,
		"SELECT i.build_id, i.path, i.arch, count(*),"
		" (SELECT COALESCE(SUM(s.count), 0) FROM samples s JOIN runs r2 ON s.run_id = r2.id"
		"  WHERE r2.image_id = i.id)"
		" FROM images i JOIN runs r ON r.image_id = i.id GROUP BY i.id ORDER BY 5 DESC, 1",
		-1, &st, NULL) != SQLITE_OK)
		return rp_dbi_fail(db, err, "reading images");
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (rp_grow((void **)out, &cap, *n + 1, sizeof(**out), err))
			break;
		rp_db_image *im = &(*out)[*n];
		memset(im, 0, sizeof(*im));
		(*n)++;
		if (dup_column(&im->build_id, st, 0, 0, err) || dup_column(&im->path, st, 1, 0, err) ||
		    dup_column(&im->arch, st, 2, 0, err))
			break;
		im->nruns = (size_t)sqlite3_column_int64(st, 3);
		im->samples = (uint64_t)sqlite3_column_int64(st, 4);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		rp_db_images_free(*out, *n);
		*out = NULL;
		*n = 0;
		return rc == SQLITE_ROW ? err->code : rp_dbi_fail(db, err, "reading images");
	}
	return 0;
}

void rp_db_images_free(rp_db_image *images, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(images[i].build_id);
		free(images[i].path);
		free(images[i].arch);
	}
	free(images);
}
