/* test_costs.c: flash-model costs from the QEMU plugin's version 3 files (rp_import_qemu_costs)
 * into profile.db and back (rp_db_store_costs, rp_db_costs_load), the refusals of a file whose
 * stall cycles do not add up, and the migration of a version 2 profile.db to version 3. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "ramplace/import.h"
#include "ramplace/profiledb.h"

/* loop_a (0x28, 10 bytes) and loop_b (0x32) of tests/data/qemu-counts/fw.elf; 0x4000 is in no
 * data object. */
static const char v3[] =
	"# ramplace-qemu 3\n# target arm\n# mode insn\n# model ws:5\n# flash 0-400000\n"
	"# stall-fetch 23\n# stall-read 10\n# misses 7\n# insns-executed 30\n# addresses 3\n"
	"28 10 0a24 5\n2a 10 0a24 0\n32 10 0a24 18\n# data-addresses 1\nd 4000 4 10\n# end\n";

static void costs_of(rp_costs *c, const char *text, int want_rc, const char *msg)
{
	rp_err err = RP_ERR_INIT;
	rp_costs_init(c);
	assert_int_equal(rp_import_qemu_costs(c, text, strlen(text), "in.txt", &err), want_rc);
	if (msg && strcmp(err.msg, msg) != 0)
		fail_msg("expected '%s'\n     got '%s'", msg, err.msg);
}

static void test_parse(void **state)
{
	(void)state;
	rp_costs c;
	costs_of(&c, v3, 0, NULL);
	assert_string_equal(c.model, "ws:5");
	assert_int_equal(c.misses, 7);
	assert_int_equal(c.fetch_stall.total, 23);
	assert_int_equal(c.data_reads.total, 4);
	assert_int_equal(c.data_stall.total, 10);
	rp_costs_release(&c);
	/* versions 1 and 2 carry no costs */
	costs_of(&c, "# ramplace-qemu 2\n28 1 0a24\n# end\n", 0, NULL);
	assert_false(rp_costs_have(&c));
	rp_costs_release(&c);
	char bad[sizeof(v3)];
	memcpy(bad, v3, sizeof(v3));
	memcpy(strstr(bad, "32 10 0a24 18"), "32 10 0a24 19", 13);
	costs_of(&c, bad, RP_EINPUT, "in.txt: byte 228: the stall cycles sum to 24 (fetch) and 10 (read) but the header says 23 and 10");
	rp_costs_release(&c);
	costs_of(&c, "# ramplace-qemu 3\n# model ws:5\n# stall-fetch 0\n# stall-read 0\n# misses 0\nd 40 0 0\n# end\n", RP_EINPUT,
		 "in.txt: line 6 (byte 73): expected 'd hex-address decimal-reads decimal-stall-cycles' (reads > 0): 'd 40 0 0'");
	rp_costs_release(&c);
	costs_of(&c, "# ramplace-qemu 3\n28 1 0a24 0\n# end\n", RP_EINPUT,
		 "in.txt: byte 0: version 3 without its '# model', '# stall-fetch', '# stall-read' and '# misses' lines");
	rp_costs_release(&c);
}

static void test_store_load(void **state)
{
	(void)state;
	char path[] = "/tmp/test_costs_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	rp_err err = RP_ERR_INIT;
	rp_image *img = NULL;
	if (rp_image_load(&img, TEST_DATA_DIR "/qemu-counts/fw.elf", &err))
		fail_msg("%s", err.msg);
	rp_samples s;
	rp_import_meta meta;
	rp_costs c;
	rp_samples_init(&s);
	assert_int_equal(rp_import_file(&s, &meta, RP_IMPORT_QEMU, img, v3, strlen(v3), "in.txt", &err), 0);
	assert_int_equal(meta.plugin_version, 3);
	costs_of(&c, v3, 0, NULL);
	rp_db *db;
	int64_t run;
	rp_run_info info = RP_RUN_INFO_INIT;
	assert_int_equal(rp_db_open(&db, path, &err), 0);
	assert_int_equal(rp_db_begin(db, &err), 0);
	assert_int_equal(rp_db_store_run(db, img, &info, &s, &run, &err), 0);
	assert_int_equal(rp_db_store_costs(db, img, run, &c, &err), 0);
	assert_int_equal(rp_db_commit(db, &err), 0);
	rp_db_close(db);
	assert_int_equal(rp_db_open_existing(&db, path, &err), 0);
	rp_db_costs dc;
	assert_int_equal(rp_db_costs_load(db, &dc, &err), 0);
	rp_db_close(db);
	assert_int_equal(dc.nruns, 1);
	assert_string_equal(dc.model, "ws:5");
	assert_int_equal(dc.fetch_stall, 23);
	assert_int_equal(dc.read_stall, 10);
	assert_int_equal(dc.misses, 7);
	assert_int_equal(dc.insns, 30);
	assert_int_equal(dc.nfuncs, 2);
	assert_string_equal(dc.funcs[0].name, "loop_b");   /* most stall cycles first */
	assert_int_equal(dc.funcs[0].stall, 18);
	assert_string_equal(dc.funcs[1].name, "loop_a");
	assert_int_equal(dc.funcs[1].stall, 5);
	assert_int_equal(dc.ndata, 1);
	assert_string_equal(dc.data[0].name, "<unknown>");
	assert_int_equal(dc.data[0].reads, 4);
	assert_int_equal(dc.data[0].stall, 10);
	rp_db_costs_release(&dc);
	rp_costs_release(&c);
	rp_samples_release(&s);
	rp_image_free(img);
	unlink(path);
}

static int64_t user_version(const char *path)
{
	sqlite3 *sql;
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_open(path, &sql), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(sql, "PRAGMA user_version", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	int64_t v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(sql);
	return v;
}

/* A version 2 file (made here by taking version 3's tables away) reads as having no costs
 * read-only, unchanged, and is migrated by the next open that writes. */
static void test_migrate_2(void **state)
{
	(void)state;
	char path[] = "/tmp/test_costs_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	rp_err err = RP_ERR_INIT;
	rp_db *db;
	assert_int_equal(rp_db_open(&db, path, &err), 0);
	rp_db_close(db);
	sqlite3 *sql;
	assert_int_equal(sqlite3_open(path, &sql), SQLITE_OK);
	assert_int_equal(sqlite3_exec(sql, "DROP TABLE costs; DROP TABLE cost_runs; PRAGMA user_version=2;", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(sql);
	assert_int_equal(rp_db_open_existing(&db, path, &err), 0);
	rp_db_costs dc;
	assert_int_equal(rp_db_costs_load(db, &dc, &err), 0);
	assert_int_equal(dc.nruns, 0);
	rp_db_costs_release(&dc);
	rp_db_close(db);
	assert_int_equal(user_version(path), 2);
	assert_int_equal(rp_db_open(&db, path, &err), 0);
	assert_int_equal(rp_db_costs_load(db, &dc, &err), 0);
	rp_db_costs_release(&dc);
	rp_db_close(db);
	assert_int_equal(user_version(path), 3);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_store_load),
		cmocka_unit_test(test_migrate_2),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
