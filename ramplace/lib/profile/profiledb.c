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
#include "profiledb_internal.h"

#define RP_DB_APPLICATION_ID 0x52504c43 /* "RPLC" */


static const char schema_sql[] =
	"CREATE TABLE images(id INTEGER PRIMARY KEY, build_id TEXT NOT NULL UNIQUE,"
	" build_id_is_hash INTEGER NOT NULL, path TEXT NOT NULL, arch TEXT NOT NULL);"
	"CREATE TABLE runs(id INTEGER PRIMARY KEY, image_id INTEGER NOT NULL REFERENCES images(id),"
	" source TEXT NOT NULL, tool TEXT NOT NULL, method TEXT NOT NULL, started TEXT NOT NULL,"
	" rate_hz REAL NOT NULL, duration_s REAL NOT NULL, samples INTEGER NOT NULL,"
	" stop_reason TEXT NOT NULL, scale INTEGER NOT NULL DEFAULT 1, covered INTEGER, slowdown REAL);"
	"CREATE TABLE samples(run_id INTEGER NOT NULL REFERENCES runs(id), function TEXT NOT NULL,"
	" file TEXT NOT NULL, offset INTEGER NOT NULL, count INTEGER NOT NULL,"
	" PRIMARY KEY(run_id, function, file, offset)) WITHOUT ROWID;"
	"CREATE TABLE arcs(run_id INTEGER NOT NULL REFERENCES runs(id), caller TEXT NOT NULL,"
	" caller_file TEXT NOT NULL, callee TEXT NOT NULL, callee_file TEXT NOT NULL,"
	" count INTEGER NOT NULL,"
	" PRIMARY KEY(run_id, caller, caller_file, callee, callee_file)) WITHOUT ROWID;";

/* Version 3: what a flash model charged a run (costs.h, docs/profile-db.md). */
static const char costs_sql[] =
	"CREATE TABLE cost_runs(run_id INTEGER PRIMARY KEY REFERENCES runs(id), model TEXT NOT NULL,"
	" misses INTEGER NOT NULL);"
	"CREATE TABLE costs(run_id INTEGER NOT NULL REFERENCES runs(id), kind TEXT NOT NULL,"
	" object TEXT NOT NULL, file TEXT NOT NULL, offset INTEGER NOT NULL, count INTEGER NOT NULL,"
	" PRIMARY KEY(run_id, kind, object, file, offset)) WITHOUT ROWID;";

/* Version 4: what record knows about a run as data, not only in its notes (docs/profile-db.md):
 * covered (1: to the target's exit, 0: cut before it) and slowdown (halted / ran); NULL where
 * the collector does not know, and for every run an older version stored. */
static const char runs_v4_sql[] =
	"ALTER TABLE runs ADD COLUMN covered INTEGER; ALTER TABLE runs ADD COLUMN slowdown REAL;";

int rp_dbi_fail(rp_db *db, rp_err *err, const char *what)
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

int rp_dbi_exec(rp_db *db, const char *sql, const char *what, rp_err *err)
{
	if (sqlite3_exec(db->sql, sql, NULL, NULL, NULL) != SQLITE_OK)
		return rp_dbi_fail(db, err, what);
	return 0;
}

static int pragma_int(rp_db *db, const char *sql, int64_t *out, rp_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL) != SQLITE_OK)
		return rp_dbi_fail(db, err, "reading the schema");
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return rp_dbi_fail(db, err, "reading the schema");
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
	if (rp_dbi_exec(db, "BEGIN IMMEDIATE", "creating the schema", err))
		return err->code;
	if (rp_dbi_exec(db, schema_sql, "creating the schema", err) || rp_dbi_exec(db, costs_sql, "creating the schema", err) ||
	    rp_dbi_exec(db, pragmas, "creating the schema", err)) {
		sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
		return err->code;
	}
	return rp_dbi_exec(db, "COMMIT", "creating the schema", err);
}

/* Version 1 lacked runs.scale (every count it holds is in whole samples), versions 1 and 2 the
 * cost tables (no run of theirs had a flash model), versions 1 to 3 runs.covered and
 * runs.slowdown (NULL: their runs' notes are all that is known). One transaction: all of it or
 * nothing. */
static int migrate(rp_db *db, int64_t from, rp_err *err)
{
	char sql[64], what[64];
	snprintf(what, sizeof(what), "migrating the schema from version %lld", (long long)from);
	snprintf(sql, sizeof(sql), "PRAGMA user_version=%d;", RP_DB_SCHEMA_VERSION);
	if (rp_dbi_exec(db, "BEGIN IMMEDIATE", what, err))
		return err->code;
	if ((from == 1 && rp_dbi_exec(db, "ALTER TABLE runs ADD COLUMN scale INTEGER NOT NULL DEFAULT 1;", what, err)) ||
	    (from < 3 && rp_dbi_exec(db, costs_sql, what, err)) || rp_dbi_exec(db, runs_v4_sql, what, err) ||
	    rp_dbi_exec(db, sql, what, err)) {
		sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
		return err->code;
	}
	return rp_dbi_exec(db, "COMMIT", what, err);
}

/* The columns ramplace reads and writes, per table: a file with the right application id and
 * version but other tables (another tool's, a hand-made one) is refused before anything is
 * migrated or read. Each version adds rows at the end (columns_of). */
static const char *const schema_columns[][2] = {
	{ "images", "id, build_id, build_id_is_hash, path, arch" },
	{ "runs", "id, image_id, source, tool, method, started, rate_hz, duration_s, samples, stop_reason" },
	{ "samples", "run_id, function, file, offset, count" },
	{ "arcs", "run_id, caller, caller_file, callee, callee_file, count" },
	{ "runs", "scale" },   /* version 2 */
	{ "cost_runs", "run_id, model, misses" },   /* version 3 */
	{ "costs", "run_id, kind, object, file, offset, count" },
	{ "runs", "covered, slowdown" },   /* version 4 */
};

/* How many of schema_columns' rows a version has. */
static size_t columns_of(int64_t version)
{
	size_t all = sizeof(schema_columns) / sizeof(schema_columns[0]);
	return version == 1 ? all - 4 : version == 2 ? all - 3 : version == 3 ? all - 1 : all;
}

static int validate_schema(rp_db *db, int64_t version, rp_err *err)
{
	size_t n = columns_of(version);
	for (size_t i = 0; i < n; i++) {
		char sql[256];
		sqlite3_stmt *st = NULL;
		snprintf(sql, sizeof(sql), "SELECT %s FROM main.%s LIMIT 0", schema_columns[i][1], schema_columns[i][0]);
		int rc = sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL);
		sqlite3_finalize(st);
		if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED || sqlite3_extended_errcode(db->sql) == SQLITE_READONLY_ROLLBACK)
			return rp_dbi_fail(db, err, "reading the schema");
		if (rc != SQLITE_OK)
			return rp_err_set(err, RP_EINPUT, "%s: a ramplace profile of schema version %lld, but table %s is not "
					  "ramplace's: %s", db->path, (long long)version, schema_columns[i][0],
					  sqlite3_errmsg(db->sql));
	}
	return 0;
}

/* A read-only connection reads a version 1 to 3 file as version 4 without writing to it: a
 * temporary view (in the connection's own temp schema, searched before the file's) adds the
 * scale every version 1 count has (1) and the covered and slowdown no older run knows (NULL).
 * The columns are named, not "*", so that the view's are version 4's whatever else the file has. */
static int read_old_runs(rp_db *db, int64_t version, rp_err *err)
{
	char sql[320], what[48];
	snprintf(sql, sizeof(sql), "CREATE TEMP VIEW runs AS SELECT id, image_id, source, tool, method, started, rate_hz,"
		 " duration_s, samples, stop_reason, %s AS scale, NULL AS covered, NULL AS slowdown FROM main.runs",
		 version == 1 ? "1" : "scale");
	snprintf(what, sizeof(what), "reading a version %lld schema", (long long)version);
	return rp_dbi_exec(db, sql, what, err);
}

/* Versions 1 and 2 read as version 3 the same way: empty cost tables in the temp schema. */
static int read_without_costs(rp_db *db, rp_err *err)
{
	return rp_dbi_exec(db, "CREATE TEMP TABLE cost_runs(run_id INTEGER PRIMARY KEY, model TEXT, misses INTEGER);"
			   "CREATE TEMP TABLE costs(run_id INTEGER, kind TEXT, object TEXT, file TEXT, offset INTEGER, count INTEGER);",
			   "reading a schema without flash-model costs", err);
}

/* With change 0 (read-only: rp_db_open_existing, rp_db_probe), an empty file and an older
 * version pass as they are, validated: only rp_db_open creates or migrates, when there is
 * something to store. */
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
	if (version < 1 || version > RP_DB_SCHEMA_VERSION)
		return rp_err_set(err, RP_EINPUT, "%s: schema version %lld; this ramplace reads version %d%s",
				  db->path, (long long)version, RP_DB_SCHEMA_VERSION,
				  version > RP_DB_SCHEMA_VERSION ? " (made by a newer ramplace)" : "");
	if (validate_schema(db, version, err))
		return err->code;
	if (version < RP_DB_SCHEMA_VERSION && change)
		return migrate(db, version, err);
	if (version < 3 && read_without_costs(db, err))
		return err->code;
	return version < RP_DB_SCHEMA_VERSION ? read_old_runs(db, version, err) : 0;
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
	/* one connection, one thread (ramplace starts none): without SQLite's mutex per call, which
	 * was a sixth of reading 50,000 functions' samples */
	if (sqlite3_open_v2(path, &db->sql, flags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
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
	int rc = open_db(out, path, SQLITE_OPEN_READONLY, err);
	int64_t ntables = 0;
	if (rc || (rc = pragma_int(*out, "SELECT count(*) FROM sqlite_master", &ntables, err)) || ntables > 0)
		return rc;
	/* an empty file (or an SQLite file without tables) passes check_schema, for rp_db_probe
	 * and rp_db_open, which fill it; a reader would only fail later on a missing table */
	rp_db_close(*out);
	*out = NULL;
	return rp_err_set(err, RP_EINPUT, "%s: an empty database, no profile in it yet ('ramplace record' or "
			  "'ramplace import' writes one)", path);
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
	return rp_dbi_exec(db, "BEGIN IMMEDIATE", "starting the transaction", err);
}

int rp_db_commit(rp_db *db, rp_err *err)
{
	if (rp_dbi_exec(db, "COMMIT", "committing", err)) {
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
