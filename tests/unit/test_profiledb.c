/* test_profiledb.c: profile.db: samples stored symbolized and summed over runs, arcs, the
 * schema version check and migrations (version 1; version 3 to 4's runs.covered and
 * runs.slowdown, which read back exactly, or NULL where unknown, through the runs, the totals'
 * whole_runs and report --json), hostile files (text, directory, newer schema), a locked database
 * leaving nothing half-written, the probe that changes nothing, and samples where no function
 * is naming the function below them (credited to it by the report's model, as gprof does). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "ramplace/profiledb.h"
#include "ramplace/report.h"

static char dir[] = "/tmp/rp-test-db-XXXXXX";
static char path[256];
static rp_image *img;

static int setup(void **state)
{
	(void)state;
	rp_err err = RP_ERR_INIT;
	if (!mkdtemp(dir) || rp_image_load(&img, TEST_DATA_DIR "/elf/arm-m3.elf", &err))
		return -1;
	snprintf(path, sizeof(path), "%s/profile.db", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rp_image_free(img);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static int fresh(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static void store(rp_db *db, uint64_t base_count)
{
	rp_samples s;
	rp_err err = RP_ERR_INIT;
	rp_samples_init(&s);
	/* helper (a.c) at 0x1000..0x1008, helper (b.c) at 0x10ac, a_entry at 0x1078, one stray pc */
	assert_int_equal(rp_samples_add(&s, 0x1001, base_count, &err), 0);
	assert_int_equal(rp_samples_add(&s, 0x1004, 1, &err), 0);
	assert_int_equal(rp_samples_add(&s, 0x10ae, 2 * base_count, &err), 0);
	assert_int_equal(rp_samples_add(&s, 0x1080, 3, &err), 0);
	assert_int_equal(rp_samples_add(&s, 0x9000, 5, &err), 0);
	assert_int_equal(rp_samples_add_arc(&s, 0x1080 | 1, 0x1001, 4, &err), 0);
	rp_run_info info = RP_RUN_INFO_INIT;
	info.tool = "test";
	int64_t id = 0;
	assert_int_equal(rp_db_store_run(db, img, &info, &s, &id, &err), 0);
	assert_true(id > 0);
	rp_samples_release(&s);
}

static uint64_t count_of(const rp_db_totals *t, const char *func, const char *file)
{
	for (size_t i = 0; i < t->nfuncs; i++)
		if (strcmp(t->funcs[i].func, func) == 0 &&
		    ((!file && !t->funcs[i].file) || (file && t->funcs[i].file && strcmp(file, t->funcs[i].file) == 0)))
			return t->funcs[i].count;
	return 0;
}

static void test_runs_add_up(void **state)
{
	(void)state;
	rp_db *db;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_db_open(&db, path, &err), 0);
	store(db, 10);
	store(db, 100);
	rp_db_totals t;
	assert_int_equal(rp_db_totals_load(db, &t, &err), 0);
	assert_int_equal(t.nruns, 2);
	assert_int_equal(t.nimages, 1);
	assert_int_equal(count_of(&t, "helper", "a.c"), 10 + 1 + 100 + 1);
	assert_int_equal(count_of(&t, "helper", "b.c"), 20 + 200);
	assert_int_equal(count_of(&t, "a_entry", NULL), 6);
	assert_int_equal(count_of(&t, "<unknown>", NULL), 10);
	assert_int_equal(t.total, 112 + 220 + 6 + 10);
	assert_string_equal(t.funcs[0].func, "helper");   /* sorted by count */
	assert_string_equal(t.funcs[0].file, "b.c");
	rp_db_totals_release(&t);
	rp_arc_total *arcs;
	size_t n;
	assert_int_equal(rp_db_arcs_load(db, &arcs, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(arcs[0].caller, "a_entry");
	assert_string_equal(arcs[0].callee, "helper");
	assert_string_equal(arcs[0].callee_file, "a.c");
	assert_int_equal(arcs[0].count, 8);
	rp_arc_totals_free(arcs, n);
	rp_db_close(db);
}

static void set_user_version(int v)
{
	sqlite3 *sql;
	char q[64];
	assert_int_equal(sqlite3_open(path, &sql), SQLITE_OK);
	snprintf(q, sizeof(q), "PRAGMA user_version=%d", v);
	assert_int_equal(sqlite3_exec(sql, q, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(sql);
}

static void test_schema_version_refused(void **state)
{
	(void)state;
	rp_db *db;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_db_open(&db, path, &err), 0);
	rp_db_close(db);
	set_user_version(RP_DB_SCHEMA_VERSION + 1);
	assert_int_equal(rp_db_open(&db, path, &err), RP_EINPUT);
	assert_non_null(strstr(err.msg, "newer ramplace"));
	assert_non_null(strstr(err.msg, path));
}

/* A version-1 file (no runs.scale) is migrated in place and its counts stay whole samples. */
static void test_migrate_from_1(void **state)
{
	(void)state;
	sqlite3 *sql;
	rp_db *db;
	rp_db_totals t;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(sqlite3_open(path, &sql), SQLITE_OK);
	assert_int_equal(sqlite3_exec(sql,
		"CREATE TABLE images(id INTEGER PRIMARY KEY, build_id TEXT NOT NULL UNIQUE,"
		" build_id_is_hash INTEGER NOT NULL, path TEXT NOT NULL, arch TEXT NOT NULL);"
		"CREATE TABLE runs(id INTEGER PRIMARY KEY, image_id INTEGER NOT NULL REFERENCES images(id),"
		" source TEXT NOT NULL, tool TEXT NOT NULL, method TEXT NOT NULL, started TEXT NOT NULL,"
		" rate_hz REAL NOT NULL, duration_s REAL NOT NULL, samples INTEGER NOT NULL,"
		" stop_reason TEXT NOT NULL);"
		"CREATE TABLE samples(run_id INTEGER NOT NULL REFERENCES runs(id), function TEXT NOT NULL,"
		" file TEXT NOT NULL, offset INTEGER NOT NULL, count INTEGER NOT NULL,"
		" PRIMARY KEY(run_id, function, file, offset)) WITHOUT ROWID;"
		"CREATE TABLE arcs(run_id INTEGER NOT NULL REFERENCES runs(id), caller TEXT NOT NULL,"
		" caller_file TEXT NOT NULL, callee TEXT NOT NULL, callee_file TEXT NOT NULL,"
		" count INTEGER NOT NULL,"
		" PRIMARY KEY(run_id, caller, caller_file, callee, callee_file)) WITHOUT ROWID;"
		"INSERT INTO images VALUES(1, 'abc', 0, 'fw.elf', 'arm');"
		"INSERT INTO runs VALUES(1, 1, 'x', 'record', 'halt', 'now', 0, 0, 7, 'done');"
		"INSERT INTO samples VALUES(1, 'hot', '', 0, 7);"
		"PRAGMA application_id=1380994115; PRAGMA user_version=1;", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(sql);
	assert_int_equal(rp_db_open(&db, path, &err), 0);
	assert_int_equal(rp_db_totals_load(db, &t, &err), 0);
	assert_int_equal(t.nfuncs, 1);
	assert_int_equal(t.funcs[0].count, 7);
	assert_true(t.funcs[0].samples == 7.0 && t.taken == 7.0);
	rp_db_totals_release(&t);
	rp_db_close(db);
	assert_int_equal(sqlite3_open(path, &sql), SQLITE_OK);
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(sql, "PRAGMA user_version", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), RP_DB_SCHEMA_VERSION);
	sqlite3_finalize(st);
	sqlite3_close(sql);
}

/* A version 3 file, as version 3 made it: its tables and one recorded run whose notes say it
 * covered the whole run (only the text knew it then). */
static void make_version_3(void)
{
	sqlite3 *sql;
	assert_int_equal(sqlite3_open(path, &sql), SQLITE_OK);
	assert_int_equal(sqlite3_exec(sql,
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
		" PRIMARY KEY(run_id, caller, caller_file, callee, callee_file)) WITHOUT ROWID;"
		"CREATE TABLE cost_runs(run_id INTEGER PRIMARY KEY REFERENCES runs(id), model TEXT NOT NULL,"
		" misses INTEGER NOT NULL);"
		"CREATE TABLE costs(run_id INTEGER NOT NULL REFERENCES runs(id), kind TEXT NOT NULL,"
		" object TEXT NOT NULL, file TEXT NOT NULL, offset INTEGER NOT NULL, count INTEGER NOT NULL,"
		" PRIMARY KEY(run_id, kind, object, file, offset)) WITHOUT ROWID;"
		"INSERT INTO images VALUES(1, 'abc', 0, 'fw.elf', 'arm');"
		"INSERT INTO runs VALUES(1, 1, 'gdbserver x', 'record', 'halt', 'now', 100, 0.07, 7,"
		" 'target exited (status 0); slowdown 4.0 % (bound 5.0 %), target ran 0.07 s, halted 0.00 s;"
		" covered the whole run', 1);"
		"INSERT INTO samples VALUES(1, 'hot', '', 0, 7);"
		"PRAGMA application_id=1380994115; PRAGMA user_version=3;", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(sql);
}

static int64_t sql_int(const char *query)
{
	sqlite3 *sql;
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_open(path, &sql), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(sql, query, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	int64_t v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(sql);
	return v;
}

/* The whole file, malloc'ed, for byte comparisons. */
static char *slurp(size_t *len)
{
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	char *buf = malloc(1 << 20);
	assert_non_null(buf);
	*len = fread(buf, 1, 1 << 20, fp);
	assert_true(*len > 0 && *len < (1 << 20));
	fclose(fp);
	return buf;
}

/* Stores one run of 5 samples with what record would know about it. */
static void store_known(rp_db *db, int covered, double slowdown)
{
	rp_samples s;
	rp_err err = RP_ERR_INIT;
	rp_samples_init(&s);
	assert_int_equal(rp_samples_add(&s, 0x1001, 5, &err), 0);
	rp_run_info info = RP_RUN_INFO_INIT;
	info.tool = "record";
	info.covered = covered;
	info.slowdown = slowdown;
	assert_int_equal(rp_db_store_run(db, img, &info, &s, NULL, &err), 0);
	rp_samples_release(&s);
}

static void load_runs(rp_db *db, rp_run_row **runs, size_t *n)
{
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_db_runs_load(db, runs, n, &err), 0);
}

static int whole_runs(rp_db *db)
{
	rp_err err = RP_ERR_INIT;
	rp_db_totals t;
	assert_int_equal(rp_db_totals_load(db, &t, &err), 0);
	int w = t.whole_runs;
	rp_db_totals_release(&t);
	return w;
}

/* A read-only open of a version 3 file reads it as version 4, its run's covered and slowdown
 * unknown (its notes' text is not parsed), and leaves the file byte for byte as it was. */
static void test_version_3_read_only(void **state)
{
	(void)state;
	rp_db *db;
	rp_err err = RP_ERR_INIT;
	make_version_3();
	size_t len0, len1;
	char *before = slurp(&len0);
	assert_int_equal(rp_db_open_existing(&db, path, &err), 0);
	rp_run_row *runs;
	size_t n;
	load_runs(db, &runs, &n);
	assert_int_equal(n, 1);
	assert_int_equal(runs[0].scale, 1);
	assert_int_equal(runs[0].covered, -1);
	assert_true(runs[0].slowdown < 0);
	assert_non_null(strstr(runs[0].stop_reason, "covered the whole run"));   /* the text is kept */
	rp_run_rows_free(runs, n);
	assert_int_equal(whole_runs(db), 0);
	rp_db_close(db);
	char *after = slurp(&len1);
	assert_int_equal(len0, len1);
	assert_memory_equal(before, after, len0);
	assert_int_equal(sql_int("PRAGMA user_version"), 3);
	free(before);
	free(after);
	char journal[300];
	snprintf(journal, sizeof(journal), "%s-journal", path);
	assert_int_equal(access(journal, F_OK), -1);
}

/* An open that writes migrates a version 3 file to 4 in place: the old run stays, its covered
 * and slowdown NULL, and a new run's read back. */
static void test_migrate_from_3(void **state)
{
	(void)state;
	rp_db *db;
	make_version_3();
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_db_open(&db, path, &err), 0);
	assert_int_equal(sql_int("PRAGMA user_version"), 4);
	assert_int_equal(sql_int("SELECT count(*) FROM runs WHERE covered IS NULL AND slowdown IS NULL AND id = 1"), 1);
	store_known(db, 1, 0.04);
	rp_run_row *runs;
	size_t n;
	load_runs(db, &runs, &n);
	assert_int_equal(n, 2);
	assert_int_equal(runs[0].id, 1);
	assert_int_equal(runs[0].covered, -1);
	assert_true(runs[0].slowdown < 0);
	assert_int_equal(runs[1].covered, 1);
	assert_true(runs[1].slowdown == 0.04);
	rp_run_rows_free(runs, n);
	assert_int_equal(whole_runs(db), 0);   /* the old run is not known to be whole */
	rp_db_close(db);
	assert_int_equal(sql_int("SELECT sum(count) FROM samples"), 12);
}

/* Stored covered and slowdown read back exactly, unknown stays unknown (NULL) after a known one
 * (the run statement is cached across runs), and whole_runs and report --json follow them. */
static void test_run_facts_round_trip(void **state)
{
	(void)state;
	rp_db *db;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_db_open(&db, path, &err), 0);
	store_known(db, 1, 0.04);
	assert_int_equal(whole_runs(db), 1);
	store_known(db, 0, 0.0);
	store_known(db, -1, -1.0);
	assert_int_equal(whole_runs(db), 0);
	rp_run_row *runs;
	size_t n;
	load_runs(db, &runs, &n);
	assert_int_equal(n, 3);
	assert_true(runs[0].covered == 1 && runs[0].slowdown == 0.04);
	assert_true(runs[1].covered == 0 && runs[1].slowdown == 0.0);
	assert_true(runs[2].covered == -1 && runs[2].slowdown < 0);
	rp_db_totals t;
	rp_profile p;
	assert_int_equal(rp_db_totals_load(db, &t, &err), 0);
	assert_int_equal(rp_profile_build(&p, &t, NULL, 0, &err), 0);
	char *json = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&json, &len);
	assert_non_null(out);
	rp_report_json(out, &p, runs, n);
	fclose(out);
	assert_non_null(strstr(json, "\"covered\": true, \"slowdown\": 0.040000000000000001,"));
	assert_non_null(strstr(json, "\"covered\": false, \"slowdown\": 0,"));
	assert_non_null(strstr(json, "\"covered\": null, \"slowdown\": null,"));
	free(json);
	rp_profile_release(&p);
	rp_db_totals_release(&t);
	rp_run_rows_free(runs, n);
	rp_db_close(db);
	assert_int_equal(sql_int("SELECT count(*) FROM runs WHERE covered IS NULL AND slowdown IS NULL"), 1);
}

static void test_hostile_files(void **state)
{
	(void)state;
	rp_db *db;
	rp_err err = RP_ERR_INIT;
	FILE *fp = fopen(path, "w");
	fputs("this is not a database, just some text that is long enough to look like a header.....\n", fp);
	fclose(fp);
	assert_int_equal(rp_db_open(&db, path, &err), RP_EINPUT);
	assert_non_null(strstr(err.msg, "not a database"));
	unlink(path);
	/* another SQLite database is not ours */
	sqlite3 *sql;
	assert_int_equal(sqlite3_open(path, &sql), SQLITE_OK);
	assert_int_equal(sqlite3_exec(sql, "CREATE TABLE t(x)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(sql);
	assert_int_equal(rp_db_open(&db, path, &err), RP_EINPUT);
	assert_non_null(strstr(err.msg, "not a ramplace profile"));
	assert_int_equal(rp_db_open(&db, dir, &err), RP_EINPUT);
	assert_non_null(strstr(err.msg, "not a regular file"));
	char missing[300];
	snprintf(missing, sizeof(missing), "%s/missing.db", dir);
	assert_int_equal(rp_db_open_existing(&db, missing, &err), RP_EINPUT);
	assert_int_equal(access(missing, F_OK), -1);   /* not created */
}

static void test_locked_db_writes_nothing(void **state)
{
	(void)state;
	rp_db *db;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_db_open(&db, path, &err), 0);
	store(db, 1);
	sqlite3 *holder;
	assert_int_equal(sqlite3_open(path, &holder), SQLITE_OK);
	assert_int_equal(sqlite3_exec(holder, "BEGIN EXCLUSIVE", NULL, NULL, NULL), SQLITE_OK);
	rp_samples s;
	rp_samples_init(&s);
	assert_int_equal(rp_samples_add(&s, 0x1001, 7, &err), 0);
	rp_run_info info = RP_RUN_INFO_INIT;
	assert_int_equal(rp_db_store_run(db, img, &info, &s, NULL, &err), RP_EINPUT);
	assert_non_null(strstr(err.msg, "locked"));
	sqlite3_exec(holder, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(holder);
	rp_db_totals t;
	assert_int_equal(rp_db_totals_load(db, &t, &err), 0);
	assert_int_equal(t.nruns, 1);
	assert_int_equal(count_of(&t, "helper", "a.c"), 2);
	rp_db_totals_release(&t);
	rp_samples_release(&s);
	rp_db_close(db);
}

/* rp_db_probe answers whether a run could be stored without creating or changing anything. */
static void test_probe_changes_nothing(void **state)
{
	(void)state;
	rp_db *db;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_db_probe(path, &err), 0);
	assert_int_equal(access(path, F_OK), -1);   /* not created */
	char nodir[300];
	snprintf(nodir, sizeof(nodir), "%s/no/such/dir/p.db", dir);
	assert_int_equal(rp_db_probe(nodir, &err), RP_EINPUT);
	assert_non_null(strstr(err.msg, "cannot write in"));
	/* an empty file and a version-1 database pass as they are: not created into, not migrated */
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fclose(fp);
	assert_int_equal(rp_db_probe(path, &err), 0);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(rp_db_open(&db, path, &err), 0);
	rp_db_close(db);
	set_user_version(1);
	assert_int_equal(rp_db_probe(path, &err), 0);
	sqlite3 *sql;
	sqlite3_stmt *q;
	assert_int_equal(sqlite3_open(path, &sql), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(sql, "PRAGMA user_version", -1, &q, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(q, 0), 1);
	sqlite3_finalize(q);
	assert_int_equal(sqlite3_exec(sql, "PRAGMA application_id=7", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(sql);
	assert_int_equal(rp_db_probe(path, &err), RP_EINPUT);   /* what rp_db_open refuses, too */
	assert_non_null(strstr(err.msg, "not a ramplace profile"));
}

/* A sample in code where no function is (here the 2 bytes of padding between scale.constprop.0,
 * a static of a.c, and scale) stays "<unknown>" for placement, but names the function below it,
 * to which the report's model credits it as gprof does. A sample outside code names none. */
static void test_unknown_names_the_function_below(void **state)
{
	(void)state;
	rp_db *db;
	rp_err err = RP_ERR_INIT;
	rp_samples s;
	rp_samples_init(&s);
	assert_int_equal(rp_samples_add(&s, 0x1026, 4, &err), 0);
	assert_int_equal(rp_samples_add(&s, 0x100a, 6, &err), 0);   /* in scale.constprop.0 */
	assert_int_equal(rp_samples_add(&s, 0x9000, 5, &err), 0);
	assert_int_equal(rp_db_open(&db, path, &err), 0);
	rp_run_info info = RP_RUN_INFO_INIT;
	assert_int_equal(rp_db_store_run(db, img, &info, &s, NULL, &err), 0);
	rp_samples_release(&s);
	rp_db_totals t;
	assert_int_equal(rp_db_totals_load(db, &t, &err), 0);
	rp_db_close(db);
	assert_int_equal(count_of(&t, "<unknown>", "after scale.constprop.0 (a.c)"), 4);
	assert_int_equal(count_of(&t, "<unknown>", NULL), 5);
	char *name, *file;
	for (size_t i = 0; i < t.nfuncs; i++) {
		int rc = rp_db_unknown_after(&t.funcs[i], &name, &file, &err);
		assert_int_equal(rc, t.funcs[i].file && strncmp(t.funcs[i].file, "after ", 6) == 0);
		if (rc) {
			assert_string_equal(name, "scale.constprop.0");
			assert_string_equal(file, "a.c");
		}
		free(name);
		free(file);
	}
	rp_profile p;
	assert_int_equal(rp_profile_build(&p, &t, NULL, 0, &err), 0);
	assert_int_equal(p.nfns, 2);
	assert_string_equal(p.fns[0].name, "scale.constprop.0");
	assert_true(p.fns[0].self == 10 && p.fns[0].outside == 4);
	assert_string_equal(p.fns[1].name, "<unknown>");
	assert_true(p.fns[1].self == 5 && p.fns[1].outside == 0);
	rp_profile_release(&p);
	rp_db_totals_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_runs_add_up, fresh),
		cmocka_unit_test_setup(test_schema_version_refused, fresh),
		cmocka_unit_test_setup(test_migrate_from_1, fresh),
		cmocka_unit_test_setup(test_version_3_read_only, fresh),
		cmocka_unit_test_setup(test_migrate_from_3, fresh),
		cmocka_unit_test_setup(test_run_facts_round_trip, fresh),
		cmocka_unit_test_setup(test_hostile_files, fresh),
		cmocka_unit_test_setup(test_locked_db_writes_nothing, fresh),
		cmocka_unit_test_setup(test_probe_changes_nothing, fresh),
		cmocka_unit_test_setup(test_unknown_names_the_function_below, fresh),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
