/* profiledb.c: profile.db in SQLite (see profiledb.h). Owns the connection and the schema.
 * Workload: a recording or import writes one run of up to a few hundred thousand distinct
 * (function, offset) rows, or a profile directory thousands of small runs, in one transaction;
 * readers (report, diff, place) sum over all runs through a read-only connection that never
 * creates, migrates or rolls back anything. The journal is SQLite's default rollback journal
 * (DELETE mode): a failed write is undone from it before rp_db_close returns. */
#include <elf.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "ramplace/profiledb.h"
#include "ramplace/util.h"

#define RP_DB_APPLICATION_ID 0x52504c43 /* "RPLC" */

/* Statements a store prepares once per connection, not once per run: a profile directory
 * stores thousands of runs. */
enum { ST_IMAGE, ST_RUN, ST_SAMPLE, ST_ARC, ST_COUNT };

struct rp_db {
	sqlite3 *sql;
	char *path;
	int writable;
	sqlite3_stmt *st[ST_COUNT];
};

static const char schema_sql[] =
	"CREATE TABLE images(id INTEGER PRIMARY KEY, build_id TEXT NOT NULL UNIQUE,"
	" build_id_is_hash INTEGER NOT NULL, path TEXT NOT NULL, arch TEXT NOT NULL);"
	"CREATE TABLE runs(id INTEGER PRIMARY KEY, image_id INTEGER NOT NULL REFERENCES images(id),"
	" source TEXT NOT NULL, tool TEXT NOT NULL, method TEXT NOT NULL, started TEXT NOT NULL,"
	" rate_hz REAL NOT NULL, duration_s REAL NOT NULL, samples INTEGER NOT NULL,"
	" stop_reason TEXT NOT NULL, scale INTEGER NOT NULL DEFAULT 1);"
	"CREATE TABLE samples(run_id INTEGER NOT NULL REFERENCES runs(id), function TEXT NOT NULL,"
	" file TEXT NOT NULL, offset INTEGER NOT NULL, count INTEGER NOT NULL,"
	" PRIMARY KEY(run_id, function, file, offset)) WITHOUT ROWID;"
	"CREATE TABLE arcs(run_id INTEGER NOT NULL REFERENCES runs(id), caller TEXT NOT NULL,"
	" caller_file TEXT NOT NULL, callee TEXT NOT NULL, callee_file TEXT NOT NULL,"
	" count INTEGER NOT NULL,"
	" PRIMARY KEY(run_id, caller, caller_file, callee, callee_file)) WITHOUT ROWID;";

static int sql_fail(rp_db *db, rp_err *err, const char *what)
{
	int code = sqlite3_errcode(db->sql);
	if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
		return rp_err_set(err, RP_EINPUT, "%s: database is locked by another process (while %s)",
				  db->path, what);
	if (sqlite3_extended_errcode(db->sql) == SQLITE_READONLY_ROLLBACK)
		return rp_err_set(err, RP_EINPUT, "%s: an interrupted write left %s-journal, which a read-only command "
				  "does not roll back; the next import or record does (while %s)", db->path, db->path, what);
	return rp_err_set(err, RP_EINPUT, "%s: %s (while %s)", db->path, sqlite3_errmsg(db->sql), what);
}

static int exec(rp_db *db, const char *sql, const char *what, rp_err *err)
{
	if (sqlite3_exec(db->sql, sql, NULL, NULL, NULL) != SQLITE_OK)
		return sql_fail(db, err, what);
	return 0;
}

static int pragma_int(rp_db *db, const char *sql, int64_t *out, rp_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL) != SQLITE_OK)
		return sql_fail(db, err, "reading the schema");
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return sql_fail(db, err, "reading the schema");
	}
	*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return 0;
}

static int create_schema(rp_db *db, rp_err *err)
{
	char pragmas[128];
	snprintf(pragmas, sizeof(pragmas), "PRAGMA application_id=%d; PRAGMA user_version=%d;",
		 RP_DB_APPLICATION_ID, RP_DB_SCHEMA_VERSION);
	if (exec(db, "BEGIN IMMEDIATE", "creating the schema", err))
		return err->code;
	if (exec(db, schema_sql, "creating the schema", err) || exec(db, pragmas, "creating the schema", err)) {
		sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
		return err->code;
	}
	return exec(db, "COMMIT", "creating the schema", err);
}

/* Version 1 lacked runs.scale; every count it holds is in whole samples. */
static int migrate_from_1(rp_db *db, rp_err *err)
{
	char sql[160];
	snprintf(sql, sizeof(sql), "ALTER TABLE runs ADD COLUMN scale INTEGER NOT NULL DEFAULT 1;"
		 " PRAGMA user_version=%d;", RP_DB_SCHEMA_VERSION);
	if (exec(db, "BEGIN IMMEDIATE", "migrating the schema from version 1", err))
		return err->code;
	if (exec(db, sql, "migrating the schema from version 1", err)) {
		sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
		return err->code;
	}
	return exec(db, "COMMIT", "migrating the schema from version 1", err);
}

/* The columns ramplace reads and writes, per table: a file with the right application id and
 * version but other tables (another tool's, a hand-made one) is refused before anything is
 * migrated or read. Version 1 lacks runs.scale. */
static const char *const schema_columns[][2] = {
	{ "images", "id, build_id, build_id_is_hash, path, arch" },
	{ "runs", "id, image_id, source, tool, method, started, rate_hz, duration_s, samples, stop_reason" },
	{ "samples", "run_id, function, file, offset, count" },
	{ "arcs", "run_id, caller, caller_file, callee, callee_file, count" },
	{ "runs", "scale" },   /* version 2 */
};

static int validate_schema(rp_db *db, int64_t version, rp_err *err)
{
	size_t n = sizeof(schema_columns) / sizeof(schema_columns[0]) - (version == 1);
	for (size_t i = 0; i < n; i++) {
		char sql[256];
		sqlite3_stmt *st = NULL;
		snprintf(sql, sizeof(sql), "SELECT %s FROM main.%s LIMIT 0", schema_columns[i][1], schema_columns[i][0]);
		int rc = sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL);
		sqlite3_finalize(st);
		if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED || sqlite3_extended_errcode(db->sql) == SQLITE_READONLY_ROLLBACK)
			return sql_fail(db, err, "reading the schema");
		if (rc != SQLITE_OK)
			return rp_err_set(err, RP_EINPUT, "%s: a ramplace profile of schema version %lld, but table %s is not "
					  "ramplace's: %s", db->path, (long long)version, schema_columns[i][0],
					  sqlite3_errmsg(db->sql));
	}
	return 0;
}

/* A read-only connection reads a version 1 file as version 2 without writing to it: a
 * temporary view (in the connection's own temp schema, searched before the file's) adds the
 * scale every version 1 count has. */
static int read_version_1(rp_db *db, rp_err *err)
{
	return exec(db, "CREATE TEMP VIEW runs AS SELECT *, 1 AS scale FROM main.runs", "reading a version 1 schema", err);
}

/* With change 0 (read-only: rp_db_open_existing, rp_db_probe), an empty file and version 1
 * pass as they are, validated: only rp_db_open creates or migrates, when there is something to
 * store. */
static int check_schema(rp_db *db, int change, rp_err *err)
{
	int64_t app_id, version, ntables;
	if (pragma_int(db, "PRAGMA application_id", &app_id, err) ||
	    pragma_int(db, "PRAGMA user_version", &version, err) ||
	    pragma_int(db, "SELECT count(*) FROM sqlite_master", &ntables, err))
		return err->code;
	if (app_id == 0 && version == 0 && ntables == 0)
		return change ? create_schema(db, err) : 0;
	if (app_id != RP_DB_APPLICATION_ID)
		return rp_err_set(err, RP_EINPUT, "%s: an SQLite database, but not a ramplace profile", db->path);
	if (version != 1 && version != RP_DB_SCHEMA_VERSION)
		return rp_err_set(err, RP_EINPUT, "%s: schema version %lld; this ramplace reads version %d%s",
				  db->path, (long long)version, RP_DB_SCHEMA_VERSION,
				  version > RP_DB_SCHEMA_VERSION ? " (made by a newer ramplace)" : "");
	if (validate_schema(db, version, err))
		return err->code;
	if (version == 1)
		return change ? migrate_from_1(db, err) : read_version_1(db, err);
	return 0;
}

static int open_db(rp_db **out, const char *path, int flags, rp_err *err)
{
	struct stat st;
	*out = NULL;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return rp_err_set(err, RP_EINPUT, "%s: not a regular file", path);
	rp_db *db = calloc(1, sizeof(*db));
	if (!db || rp_strdup(&db->path, path, err)) {
		free(db);
		return rp_err_nomem(err, "opening the profile database");
	}
	if (sqlite3_open_v2(path, &db->sql, flags, NULL) != SQLITE_OK) {
		int rc = rp_err_set(err, RP_EINPUT, "%s: cannot open: %s", path,
				    db->sql ? sqlite3_errmsg(db->sql) : "out of memory");
		rp_db_close(db);
		return rc;
	}
	sqlite3_busy_timeout(db->sql, 2000);
	db->writable = !(flags & SQLITE_OPEN_READONLY);
	int rc = check_schema(db, db->writable, err);
	if (rc) {
		rp_db_close(db);
		return rc;
	}
	*out = db;
	return 0;
}

int rp_db_open(rp_db **out, const char *path, rp_err *err)
{
	return open_db(out, path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, err);
}

int rp_db_open_existing(rp_db **out, const char *path, rp_err *err)
{
	struct stat st;
	*out = NULL;
	if (stat(path, &st) != 0)
		return rp_err_set(err, RP_EINPUT, "%s: no such profile database", path);
	return open_db(out, path, SQLITE_OPEN_READONLY, err);
}

/* SQLite writes a journal beside the database, and creates a missing one there. */
static int folder_writable(const char *path, rp_err *err)
{
	char *dir = NULL;
	if (rp_strdup(&dir, path, err))
		return err->code;
	char *slash = strrchr(dir, '/');
	const char *folder = !slash ? "." : slash == dir ? "/" : (*slash = '\0', dir);
	int rc = 0;
	if (access(folder, W_OK | X_OK) != 0)
		rc = rp_err_set(err, RP_EINPUT, "%s: cannot write in %s: %s", path, folder, strerror(errno));
	free(dir);
	return rc;
}

int rp_db_probe(const char *path, rp_err *err)
{
	struct stat st;
	int exists = stat(path, &st) == 0;
	if (!exists && errno != ENOENT)
		return rp_err_set(err, RP_EINPUT, "%s: %s", path, strerror(errno));
	if (folder_writable(path, err))
		return err->code;
	if (!exists)
		return 0;
	if (S_ISREG(st.st_mode) && access(path, W_OK) != 0)
		return rp_err_set(err, RP_EINPUT, "%s: cannot write: %s", path, strerror(errno));
	rp_db *db;
	int rc = open_db(&db, path, SQLITE_OPEN_READONLY, err);
	rp_db_close(db);
	return rc;
}

/* After an I/O error (a full disk) in the middle of a transaction, SQLite's pager stops
 * trusting its cache and leaves the rollback to the next connection: the journal stays beside
 * the file and the failed transaction's spilled pages in it, so a plain copy of profile.db
 * alone would carry them. A fresh connection that reads rolls the hot journal back now; a
 * journal another process's open transaction owns is not hot and is left alone. */
static void roll_back_hot_journal(const char *path)
{
	char *journal = NULL;
	sqlite3 *sql = NULL;
	rp_err ignored = RP_ERR_INIT;
	if (rp_asprintf(&journal, &ignored, "%s-journal", path))
		return;
	if (access(journal, F_OK) == 0 && sqlite3_open_v2(path, &sql, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK) {
		sqlite3_busy_timeout(sql, 2000);
		sqlite3_exec(sql, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
	}
	sqlite3_close(sql);
	free(journal);
}

void rp_db_close(rp_db *db)
{
	if (!db)
		return;
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(db->st[i]);
	sqlite3_close(db->sql);
	if (db->writable)
		roll_back_hot_journal(db->path);
	free(db->path);
	free(db);
}

int rp_db_begin(rp_db *db, rp_err *err)
{
	return exec(db, "BEGIN IMMEDIATE", "starting the transaction", err);
}

int rp_db_commit(rp_db *db, rp_err *err)
{
	if (exec(db, "COMMIT", "committing", err)) {
		rp_db_rollback(db);
		return err->code;
	}
	return 0;
}

void rp_db_rollback(rp_db *db)
{
	if (db && !sqlite3_get_autocommit(db->sql))
		sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
}

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
		return sql_fail(db, err, "storing the image");
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
		" stop_reason, scale) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
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
		rc = sqlite3_step(st);
	}
	if (rc != SQLITE_DONE)
		return sql_fail(db, err, "storing the run");
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
		return sql_fail(db, err, "storing samples");
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
			return sql_fail(db, err, "storing samples");
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
		return sql_fail(db, err, "storing arcs");
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
			return sql_fail(db, err, "storing arcs");
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
	if (exec(db, own ? "BEGIN IMMEDIATE" : "SAVEPOINT store_run", "starting the transaction", err))
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
	if (exec(db, own ? "COMMIT" : "RELEASE store_run", "committing the run", err)) {
		if (own)
			rp_db_rollback(db);
		return err->code;
	}
	if (run_id)
		*run_id = id;
	return 0;
}

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
		return sql_fail(db, err, "reading runs");
	sqlite3_bind_int64(st, 1, run_id);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		return rp_err_set(err, RP_EINPUT, "%s: no run %lld", db->path, (long long)run_id);
	return sql_fail(db, err, "reading runs");
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
		return sql_fail(db, err, "reading runs");
	sqlite3_bind_int64(st, 1, run_id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return sql_fail(db, err, "reading runs");
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
		return sql_fail(db, err, "reading samples");
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
	return sql_fail(db, err, "reading samples");
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
		return sql_fail(db, err, "reading samples");
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
		return rc == SQLITE_ROW ? err->code : sql_fail(db, err, "reading samples");
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
		return sql_fail(db, err, "reading arcs");
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
		return rc == SQLITE_ROW ? err->code : sql_fail(db, err, "reading arcs");
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
		return sql_fail(db, err, "reading runs");
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
		return rc == SQLITE_ROW ? err->code : sql_fail(db, err, "reading runs");
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
		return sql_fail(db, err, "reading images");
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
		return rc == SQLITE_ROW ? err->code : sql_fail(db, err, "reading images");
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
