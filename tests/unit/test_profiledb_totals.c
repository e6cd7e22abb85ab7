/* test_profiledb_totals.c: the per-function totals place and report read (rp_db_totals_load_run)
 * are summed in C from one ordered scan (profiledb_read.c); these tests hold them to the SQL
 * they replace, bit for bit: the GROUP BY / ORDER BY query below, run by SQLite itself on the
 * same database. Databases with several runs, scales above 1, sampling rates, many offsets per
 * function, ties in the sample counts, rows of runs that do not exist, and values only SQLite's
 * own conversions handle (a count stored as a real, a name stored as a blob). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <math.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "ramplace/profiledb.h"

/* The query profiledb_read.c ran before the C sums, kept here as the reference. */
static const char reference_sql[] =
	"SELECT s.function, s.file, TOTAL(s.count * 1.0 / r.scale),"
	" TOTAL(CASE WHEN r.rate_hz > 0 THEN s.count * 1.0 / r.scale / r.rate_hz ELSE 0 END),"
	" CASE WHEN MAX(r.scale) = 1 THEN SUM(s.count) END"
	" FROM samples s JOIN runs r ON r.id = s.run_id WHERE ?1 = 0 OR r.id = ?1"
	" GROUP BY s.function, s.file ORDER BY 3 DESC, 1, 2";

static char dir[] = "/tmp/rp-test-totals-XXXXXX";
static char path[256];

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/profile.db", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static void exec(sqlite3 *sql, const char *text)
{
	char *msg = NULL;
	int rc = sqlite3_exec(sql, text, NULL, NULL, &msg);
	if (rc != SQLITE_OK)
		fail_msg("%s: %s", text, msg ? msg : "?");
}

/* A fresh profile.db (ramplace's schema) with one image; its samples and runs come from sql. */
static sqlite3 *fresh_db(void)
{
	rp_db *db;
	rp_err err = RP_ERR_INIT;
	unlink(path);
	assert_int_equal(rp_db_open(&db, path, &err), 0);
	rp_db_close(db);
	sqlite3 *sql;
	assert_int_equal(sqlite3_open(path, &sql), SQLITE_OK);
	exec(sql, "INSERT INTO images VALUES(1, 'b1d', 1, '/fw.elf', 'arm')");
	return sql;
}

static void add_run(sqlite3 *sql, int id, double rate, long scale)
{
	char text[300];
	snprintf(text, sizeof(text),
		 "INSERT INTO runs(id, image_id, source, tool, method, started, rate_hz, duration_s, samples, stop_reason, scale)"
		 " VALUES(%d, 1, 'test', 'import', 'prof', '2024-01-01', %.17g, 1, 1000, 'end', %ld)", id, rate, scale);
	exec(sql, text);
}

/* Compares rp_db_totals_load_run(run) with the reference query on the same file, row by row. */
static void check_same(int64_t run, size_t expect_rows)
{
	rp_db *db;
	rp_err err = RP_ERR_INIT;
	rp_db_totals t;
	assert_int_equal(rp_db_open_existing(&db, path, &err), 0);
	assert_int_equal(rp_db_totals_load_run(db, run, &t, &err), 0);
	rp_db_close(db);

	sqlite3 *sql;
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_open(path, &sql), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(sql, reference_sql, -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_int64(st, 1, run);
	size_t i = 0;
	uint64_t total = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		assert_true(i < t.nfuncs);
		const rp_func_total *f = &t.funcs[i];
		const char *file = (const char *)sqlite3_column_text(st, 1);
		assert_string_equal(f->func, (const char *)sqlite3_column_text(st, 0));
		if (*file)
			assert_string_equal(f->file ? f->file : "(null)", file);
		else
			assert_null(f->file);
		double samples = sqlite3_column_double(st, 2), seconds = sqlite3_column_double(st, 3);
		assert_memory_equal(&f->samples, &samples, sizeof(double));   /* the same bits */
		assert_memory_equal(&f->seconds, &seconds, sizeof(double));
		uint64_t count = sqlite3_column_type(st, 4) == SQLITE_INTEGER ? (uint64_t)sqlite3_column_int64(st, 4)
									   : (uint64_t)llround(samples);
		assert_int_equal(f->count, count);
		total += count;
		i++;
	}
	sqlite3_finalize(st);
	sqlite3_close(sql);
	assert_int_equal(i, t.nfuncs);
	assert_int_equal(t.nfuncs, expect_rows);
	assert_int_equal(t.total, total);
	rp_db_totals_release(&t);
}

/* One run, scale 1, no rate: exact integer sums, ties in the counts ordered by name and file. */
static void test_one_run(void **state)
{
	(void)state;
	sqlite3 *sql = fresh_db();
	add_run(sql, 1, 0, 1);
	exec(sql, "INSERT INTO samples VALUES(1, 'b', '', 0, 5), (1, 'b', '', 4, 2), (1, 'a', 'x.c', 0, 7),"
		  " (1, 'a', 'w.c', 2, 7), (1, 'a', '', 0, 7), (1, 'c', '', 0, 1), (1, '<unknown>', '', 16, 3)");
	sqlite3_close(sql);
	check_same(0, 6);
	check_same(1, 6);
}

/* Three runs with scales 1, 3 and 7 and rates: fractional sums over rows of several runs and
 * offsets, added in the order SQLite adds them; a run's rows apart from the run alone. */
static void test_runs_scales_rates(void **state)
{
	(void)state;
	sqlite3 *sql = fresh_db();
	add_run(sql, 1, 1234.567, 1);
	add_run(sql, 2, 1000.5, 3);
	add_run(sql, 4, 0, 7);
	exec(sql, "BEGIN");
	unsigned x = 12345;
	char text[200];
	for (int f = 0; f < 400; f++)
		for (int run = 1; run <= 4; run++) {
			if (run == 3 || (f + run) % 3 == 0)
				continue;
			for (int off = 0; off < 1 + f % 4; off++) {
				x = x * 1103515245u + 12345u;
				snprintf(text, sizeof(text), "INSERT INTO samples VALUES(%d, 'fn%d', '%s', %d, %u)", run, f,
					 f % 5 == 0 ? "s.c" : "", off * 2, (x >> 16) % 1000 + 1);
				exec(sql, text);
			}
		}
	/* a run that does not exist: JOIN runs drops its rows in both */
	exec(sql, "INSERT INTO samples VALUES(9, 'fn1', '', 0, 100000), (9, 'orphan', '', 0, 5)");
	exec(sql, "COMMIT");
	sqlite3_close(sql);
	check_same(0, 400);
	check_same(1, 267);
	check_same(2, 267);
	check_same(4, 267);
}

/* What the C sums leave to SQLite: a count stored as a real, a name stored as a blob. The
 * totals are still the query's. */
static void test_declined_to_sql(void **state)
{
	(void)state;
	sqlite3 *sql = fresh_db();
	add_run(sql, 1, 0, 1);
	add_run(sql, 2, 500, 2);
	exec(sql, "INSERT INTO samples VALUES(1, 'a', '', 0, 5), (1, 'b', '', 0, 2.5), (2, 'a', '', 0, 3)");
	sqlite3_close(sql);
	check_same(0, 2);
	sql = fresh_db();
	add_run(sql, 1, 0, 1);
	exec(sql, "INSERT INTO samples VALUES(1, 'a', '', 0, 5), (1, CAST('b' AS BLOB), '', 0, 2), (1, 'b', '', 4, 1)");
	sqlite3_close(sql);
	check_same(0, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_run),
		cmocka_unit_test(test_runs_scales_rates),
		cmocka_unit_test(test_declined_to_sql),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
