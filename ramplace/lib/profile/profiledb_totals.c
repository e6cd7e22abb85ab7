/* profiledb_totals.c: the per-function totals report, diff and place read back from profile.db
 * (profiledb.h): over all runs or one, runs weighted by their scale or equally. Sums are checked:
 * SQLite's integer SUM() overflow is an error, not a wrapped number. Owns only what it returns.
 * Workload: sums over up to millions of rows; the plain totals are summed here in one ordered
 * scan rather than by SQLite's GROUP BY and ORDER BY, whose two sorts cost 5x the scan on
 * 50,000 functions (issue 14 item 6). */
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
		"  WHERE r.tool = 'record' AND (?1 = 0 OR r.id = ?1)), SUM(samples),"
		" TOTAL(covered = 1)"
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
	/* SUM is exact (TOTAL above is a double); within int64: the sum of the doubles was */
	out->taken_count = (uint64_t)sqlite3_column_int64(st, 7);
	/* runs.covered (version 4): NULL, unknown, counts as not covered */
	out->whole_runs = out->nruns > 0 && sqlite3_column_double(st, 8) == (double)out->nruns;
	sqlite3_finalize(st);
	return 0;
}

static const char totals_sql[] =
	"SELECT s.function, s.file, TOTAL(s.count * 1.0 / r.scale),"
	" TOTAL(CASE WHEN r.rate_hz > 0 THEN s.count * 1.0 / r.scale / r.rate_hz ELSE 0 END),"
	" CASE WHEN MAX(r.scale) = 1 THEN SUM(s.count) END"
	" FROM samples s JOIN runs r ON r.id = s.run_id WHERE ?1 = 0 OR r.id = ?1"
	" GROUP BY s.function, s.file ORDER BY 3 DESC, 1, 2";

/* Every run scaled to the mean run's samples, so a long run does not drown a short one. */
static const char totals_equal_sql[] =
	"WITH rt AS (SELECT s.run_id AS id, TOTAL(s.count * 1.0 / r.scale) AS t FROM samples s"
	"  JOIN runs r ON r.id = s.run_id GROUP BY s.run_id),"
	" m AS (SELECT AVG(t) AS mean FROM rt)"
	" SELECT s.function, s.file, TOTAL(s.count * 1.0 / r.scale * (SELECT mean FROM m) / rt.t),"
	" TOTAL(CASE WHEN r.rate_hz > 0 THEN s.count * 1.0 / r.scale / r.rate_hz ELSE 0 END), NULL"
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

/* scan_totals: totals_sql summed in C. The rows come in the primary key's order (run, function,
 * file, offset), the order SQLite feeds its GROUP BY sorter, which keeps equal keys in that
 * order: each group's doubles are added in the same order, so the sums are the same bits. What
 * only SQLite's own conversions reproduce (a count that is no integer, a scale below 1, names
 * with NUL bytes or not text) is left to the SQL: SCAN_DECLINED. */
enum { SCAN_DECLINED = 1 };

static int add_total(rp_db *db, rp_db_totals *out, size_t *cap, const char *func, const char *file,
		     double samples, double seconds, int have_exact, uint64_t exact, rp_err *err);

typedef struct scan_run {
	int64_t id, scale;
	double rate_hz;
} scan_run;

typedef struct scan_row {
	size_t func, file;   /* offsets into the name arena */
	size_t run;          /* index into the runs */
	int64_t count;
	size_t seq;          /* scan order: the tiebreak that keeps the grouping sort stable */
} scan_row;

typedef struct scan_group {
	const char *func, *file;
	double samples, seconds;
	uint64_t exact;
	int have_exact;
} scan_group;

typedef struct scan {
	scan_run *runs;
	size_t nruns, runs_cap;
	scan_row *rows;
	size_t nrows, rows_cap;
	char *names;         /* every distinct consecutive (function, file), NUL-terminated */
	size_t nnames, names_cap;
	scan_group *groups;
	size_t ngroups;
} scan;

static void scan_release(scan *sc)
{
	free(sc->runs);
	free(sc->rows);
	free(sc->names);
	free(sc->groups);
}

static int scan_runs(rp_db *db, int64_t run_id, scan *sc, rp_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->sql, "SELECT id, scale, rate_hz FROM runs WHERE ?1 = 0 OR id = ?1 ORDER BY id", -1,
			       &st, NULL) != SQLITE_OK)
		return rp_dbi_fail(db, err, "reading runs");
	sqlite3_bind_int64(st, 1, run_id);
	int rc, declined = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int rate_type = sqlite3_column_type(st, 2);
		if (sqlite3_column_type(st, 1) != SQLITE_INTEGER || sqlite3_column_int64(st, 1) < 1 ||
		    (rate_type != SQLITE_FLOAT && rate_type != SQLITE_INTEGER)) {
			declined = 1;
			break;
		}
		if (rp_grow((void **)&sc->runs, &sc->runs_cap, sc->nruns + 1, sizeof(scan_run), err))
			break;
		sc->runs[sc->nruns++] = (scan_run){ sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
						    sqlite3_column_double(st, 2) };
	}
	sqlite3_finalize(st);
	if (declined)
		return SCAN_DECLINED;
	if (rc != SQLITE_DONE)
		return rc == SQLITE_ROW ? err->code : rp_dbi_fail(db, err, "reading runs");
	return 0;
}

/* Appends s (len bytes, no NUL among them) to the arena; its offset in *off. */
static int scan_name(scan *sc, const char *s, size_t len, size_t *off, rp_err *err)
{
	if (len >= SIZE_MAX - sc->nnames ||
	    rp_grow((void **)&sc->names, &sc->names_cap, sc->nnames + len + 1, 1, err))
		return err->code ? err->code : rp_err_nomem(err, "reading samples");
	memcpy(sc->names + sc->nnames, s, len + 1);
	*off = sc->nnames;
	sc->nnames += len + 1;
	return 0;
}

/* One sample row: SCAN_DECLINED for what the SQL must sum; rows of runs the join drops skipped. */
static int scan_row_add(scan *sc, sqlite3_stmt *st, size_t *cursor, rp_err *err)
{
	if (sqlite3_column_type(st, 0) != SQLITE_INTEGER || sqlite3_column_type(st, 1) != SQLITE_TEXT ||
	    sqlite3_column_type(st, 2) != SQLITE_TEXT || sqlite3_column_type(st, 3) != SQLITE_INTEGER)
		return SCAN_DECLINED;   /* the types the C sums assume: integer ids and counts, text names */
	int64_t run = sqlite3_column_int64(st, 0);
	while (*cursor < sc->nruns && sc->runs[*cursor].id < run)
		(*cursor)++;
	if (*cursor == sc->nruns || sc->runs[*cursor].id != run)
		return 0;   /* no such run: JOIN runs drops the row */
	const char *func = (const char *)sqlite3_column_text(st, 1);
	size_t flen = (size_t)sqlite3_column_bytes(st, 1);
	const char *file = (const char *)sqlite3_column_text(st, 2);
	size_t filen = (size_t)sqlite3_column_bytes(st, 2);
	if (!func || !file)
		return rp_err_nomem(err, "reading samples");
	if (strlen(func) != flen || strlen(file) != filen)
		return SCAN_DECLINED;   /* a NUL inside: SQLite compares all the bytes, C strings stop there */
	if (rp_grow((void **)&sc->rows, &sc->rows_cap, sc->nrows + 1, sizeof(scan_row), err))
		return err->code;
	scan_row *r = &sc->rows[sc->nrows];
	const scan_row *prev = sc->nrows ? r - 1 : NULL;
	*r = (scan_row){ 0, 0, *cursor, sqlite3_column_int64(st, 3), sc->nrows };
	if (prev && strcmp(sc->names + prev->func, func) == 0 && strcmp(sc->names + prev->file, file) == 0) {
		r->func = prev->func;   /* the next offset of the same function: its names once */
		r->file = prev->file;
	} else if (scan_name(sc, func, flen, &r->func, err) || scan_name(sc, file, filen, &r->file, err)) {
		return err->code;
	}
	sc->nrows++;
	return 0;
}

static int scan_rows(rp_db *db, int64_t run_id, scan *sc, rp_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->sql,
		"SELECT run_id, function, file, count FROM samples WHERE ?1 = 0 OR run_id = ?1"
		" ORDER BY run_id, function, file, offset", -1, &st, NULL) != SQLITE_OK)
		return rp_dbi_fail(db, err, "reading samples");
	sqlite3_bind_int64(st, 1, run_id);
	int rc, r = 0;
	size_t cursor = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && !(r = scan_row_add(sc, st, &cursor, err)))
		;
	sqlite3_finalize(st);
	if (r)
		return r;
	return rc == SQLITE_DONE ? 0 : rp_dbi_fail(db, err, "reading samples");
}

static int row_key_cmp(const scan_row *a, const scan_row *b, const char *names)
{
	int c = strcmp(names + a->func, names + b->func);
	return c ? c : strcmp(names + a->file, names + b->file);
}

static int by_key_then_scan(const void *x, const void *y, void *names)
{
	const scan_row *a = x, *b = y;
	int c = a->func == b->func && a->file == b->file ? 0 : row_key_cmp(a, b, names);
	return c ? c : a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* A group's place in ORDER BY 3 DESC, 1, 2: sorted on its own, 16 bytes rather than a group. */
typedef struct group_key {
	double samples;
	size_t pos;          /* the group's rank in (function, file) order: groups are made in it */
} group_key;

/* No two groups share a key, so any sort gives this one order; the rank breaks ties without a
 * strcmp. */
static int by_samples_desc(const void *x, const void *y)
{
	const group_key *a = x, *b = y;
	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* TOTAL(count * 1.0 / scale), TOTAL(... / rate_hz), and SUM(count) when every scale is 1. */
static int scan_group_sums(scan *sc, rp_err *err)
{
	sc->groups = malloc((sc->nrows ? sc->nrows : 1) * sizeof(scan_group));
	if (!sc->groups)
		return rp_err_nomem(err, "reading samples");
	for (size_t i = 0; i < sc->nrows;) {
		scan_group *g = &sc->groups[sc->ngroups];
		const scan_row *first = &sc->rows[i];
		sc->ngroups++;
		*g = (scan_group){ sc->names + first->func, sc->names + first->file, 0.0, 0.0, 0, 1 };
		for (size_t start = i; i < sc->nrows && (i == start || row_key_cmp(first, &sc->rows[i], sc->names) == 0); i++) {
			const scan_row *r = &sc->rows[i];
			const scan_run *run = &sc->runs[r->run];
			double v = (double)r->count * 1.0 / (double)run->scale;
			g->samples += v;
			g->seconds += run->rate_hz > 0 ? v / run->rate_hz : 0.0;
			g->have_exact &= run->scale == 1;
			if (r->count < 0 || rp_count_add(&g->exact, (uint64_t)r->count))
				return SCAN_DECLINED;   /* check_count_sum rules both out; SQL says it exactly */
		}
	}
	return 0;
}

static int scan_totals(rp_db *db, int64_t run_id, rp_db_totals *out, rp_err *err)
{
	scan sc = { 0 };
	int rc = scan_runs(db, run_id, &sc, err);
	if (!rc)
		rc = scan_rows(db, run_id, &sc, err);
	int sorted = 1;
	for (size_t i = 1; !rc && sorted && i < sc.nrows; i++)
		sorted = sc.rows[i - 1].func == sc.rows[i].func || row_key_cmp(&sc.rows[i - 1], &sc.rows[i], sc.names) <= 0;
	if (!rc && !sorted)   /* several runs: their rows of one function apart */
		rp_sort_r(sc.rows, sc.nrows, sizeof(scan_row), by_key_then_scan, sc.names);
	if (!rc)
		rc = scan_group_sums(&sc, err);
	group_key *keys = rc ? NULL : malloc((sc.ngroups ? sc.ngroups : 1) * sizeof(group_key));
	if (!rc && !keys)
		rc = rp_err_nomem(err, "reading samples");
	for (size_t i = 0; !rc && i < sc.ngroups; i++)
		keys[i] = (group_key){ sc.groups[i].samples, i };
	if (!rc)
		rp_sort(keys, sc.ngroups, sizeof(group_key), by_samples_desc);
	size_t cap = 0;
	for (size_t i = 0; !rc && i < sc.ngroups; i++) {
		const scan_group *g = &sc.groups[keys[i].pos];
		rc = add_total(db, out, &cap, g->func, g->file, g->samples, g->seconds, g->have_exact, g->exact, err);
	}
	free(keys);
	scan_release(&sc);
	return rc;
}

/* One row of the totals: the checks and the rounding both ways of summing share. */
static int add_total(rp_db *db, rp_db_totals *out, size_t *cap, const char *func, const char *file,
		     double samples, double seconds, int have_exact, uint64_t exact, rp_err *err)
{
	if (rp_grow((void **)&out->funcs, cap, out->nfuncs + 1, sizeof(*out->funcs), err))
		return err->code;
	rp_func_total *t = &out->funcs[out->nfuncs];
	memset(t, 0, sizeof(*t));
	out->nfuncs++;
	if (rp_strdup(&t->func, func ? func : "", err) || (file && *file && rp_strdup(&t->file, file, err)))
		return err->code;
	t->samples = samples;
	t->seconds = seconds;
	/* the sums are doubles (TOTAL): one past int64 would make llround undefined, and the
	 * runs together may hold more than any one run was allowed to */
	if (!(t->samples <= 0x1p63) || t->samples < 0)
		return rp_err_set(err, RP_EINPUT, "%s: %s has %.0f samples over all runs, more than %llu (the most ramplace can count)",
				  db->path, t->func, t->samples, (unsigned long long)RP_COUNT_MAX);
	/* a double holds INT64_MAX as 2^63: that one rounding is the largest count, not past it */
	t->count = t->samples >= 0x1p63 ? RP_COUNT_MAX : (uint64_t)llround(t->samples);
	/* whole samples (every run unscaled) are summed exactly too: within int64, as
	 * check_count_sum found the sum of them all to be */
	if (have_exact)
		t->count = exact;
	/* check_count_sum has refused a true total past int64; only the rounding of counts near
	 * it to doubles can pass it, so the sum saturates there */
	if (rp_count_add(&out->total, t->count))
		out->total = RP_COUNT_MAX;
	return 0;
}

static int sql_totals(rp_db *db, int64_t run_id, const char *sql, rp_db_totals *out, rp_err *err)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	if (sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL) != SQLITE_OK)
		return rp_dbi_fail(db, err, "reading samples");
	sqlite3_bind_int64(st, 1, run_id);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *func = (const char *)sqlite3_column_text(st, 0);
		const char *file = (const char *)sqlite3_column_text(st, 1);
		if (add_total(db, out, &cap, func, file, sqlite3_column_double(st, 2), sqlite3_column_double(st, 3),
			      sqlite3_column_type(st, 4) == SQLITE_INTEGER, (uint64_t)sqlite3_column_int64(st, 4), err))
			break;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return rc == SQLITE_ROW ? err->code : rp_dbi_fail(db, err, "reading samples");
	return 0;
}

static int load_totals(rp_db *db, int64_t run_id, const char *sql, rp_db_totals *out, rp_err *err)
{
	memset(out, 0, sizeof(*out));
	if (run_id && run_exists(db, run_id, err))
		return err->code;
	if (check_count_sum(db, run_id, err))
		return err->code;
	int rc = sql == totals_sql ? scan_totals(db, run_id, out, err) : SCAN_DECLINED;
	if (rc == SCAN_DECLINED) {
		rp_db_totals_release(out);
		rc = sql_totals(db, run_id, sql, out, err);
	}
	if (!rc)
		rc = load_run_sums(db, run_id, out, err);
	if (rc)
		rp_db_totals_release(out);
	return rc;
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
	free(t->func_of);
	memset(t, 0, sizeof(*t));
}

int rp_db_totals_bind(rp_db_totals *t, const rp_image *img, rp_err *err)
{
	free(t->func_of);
	t->func_of = NULL;
	t->bound_to = NULL;
	if (!(t->func_of = malloc((t->nfuncs ? t->nfuncs : 1) * sizeof(size_t))))
		return rp_err_nomem(err, "looking the profile's functions up");
	for (size_t i = 0; i < t->nfuncs; i++) {
		const rp_func *f = rp_image_func_by_name(img, t->funcs[i].func, t->funcs[i].file);
		t->func_of[i] = f ? (size_t)(f - img->funcs) : SIZE_MAX;
	}
	t->bound_to = img;
	return 0;
}

const rp_func *rp_db_totals_func(const rp_db_totals *t, const rp_image *img, size_t i)
{
	if (t->bound_to == img && t->func_of)
		return t->func_of[i] == SIZE_MAX ? NULL : &img->funcs[t->func_of[i]];
	return rp_image_func_by_name(img, t->funcs[i].func, t->funcs[i].file);
}
