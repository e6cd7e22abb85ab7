/* profiledb_read.c: what report, diff and place read back from profile.db (profiledb.h), apart
 * from the per-function totals (profiledb_totals.c): caller->callee arcs, the runs and the
 * images. Owns only what it returns. Workload: up to millions of rows, read once per command. */
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
		" r.rate_hz, r.duration_s, r.samples, r.scale, r.covered, r.slowdown FROM runs r JOIN images i ON i.id = r.image_id"
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
		/* NULL (unknown, every run before version 4) and anything but 0/1 or a slowdown >= 0
		 * (a hand-edited file) read as unknown */
		int64_t cov = sqlite3_column_int64(st, 12);
		r->covered = sqlite3_column_type(st, 12) == SQLITE_INTEGER && (cov == 0 || cov == 1) ? (int)cov : -1;
		r->slowdown = sqlite3_column_type(st, 13) == SQLITE_NULL ? -1.0 : sqlite3_column_double(st, 13);
		if (!isfinite(r->slowdown) || r->slowdown < 0)
			r->slowdown = -1.0;
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
