/* test_costs.c: flash-model costs from the QEMU plugin's version 3 to 5 files (rp_import_qemu_costs)
 * into profile.db and back (rp_db_store_costs, rp_db_costs_load), the refusals of a file whose
 * stall cycles do not add up, version 5's handler entries (stored under their function, summed
 * and maxed over files), and the migration of a version 2 profile.db to version 3. */
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

/* Version 4: v3 with evictions. loop_b (0x32) evicted the line that loop_a (0x28) then missed
 * on, 50 cycles; loop_a evicting its own
 * line (0x28 -> 0x2a, 7) is not credited to it twice; a read of 0x4000 (no object) evicted a
 * line of loop_b, 3. */
static const char v4[] =
	"# ramplace-qemu 4\n# target arm\n# mode insn\n# model cache:size=64,ways=2,line=16,penalty=10\n# flash 0-400000\n"
	"# stall-fetch 23\n# stall-read 10\n# misses 7\n# stall-evicted 60\n# insns-executed 30\n# addresses 3\n"
	"28 10 0a24 5\n2a 10 0a24 0\n32 10 0a24 18\n# data-addresses 1\nd 4000 4 10\n# evictions 3\n"
	"e FF 28 2a 7\ne FF 32 28 50\ne RF 4000 32 3\n# end\n";

/* Version 5: v4 with two handler entries measured (entry=28, entry=32): loop_a entered 3 times,
 * its worst window 12 stall cycles of 20 in all, 2 invocations seen to return, the worst 40
 * cycles whole; loop_b once, 0, not seen to return. */
static const char v5[] =
	"# ramplace-qemu 5\n# target arm\n# mode insn\n# model cache:size=64,ways=2,line=16,penalty=10\n# flash 0-400000\n"
	"# stall-fetch 23\n# stall-read 10\n# misses 7\n# stall-evicted 60\n# insns-executed 30\n# addresses 3\n"
	"28 10 0a24 5\n2a 10 0a24 0\n32 10 0a24 18\n# data-addresses 1\nd 4000 4 10\n# evictions 3\n"
	"e FF 28 2a 7\ne FF 32 28 50\ne RF 4000 32 3\n# entries 2 window 16\nh 28 3 12 20 2 40\nh 32 1 0 0 0 0\n# end\n";

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
	costs_of(&c, v4, 0, NULL);
	assert_int_equal(c.nevict, 3);
	assert_int_equal(c.evict[1].by, 0x32);
	assert_int_equal(c.evict[1].victim, 0x28);
	assert_int_equal(c.evict[1].stall, 50);
	assert_true(c.evict[2].by_data && !c.evict[2].victim_data);
	rp_costs_release(&c);
	char bad4[sizeof(v4)];
	memcpy(bad4, v4, sizeof(v4));
	memcpy(strstr(bad4, "e FF 32 28 50"), "e FF 32 28 51", 13);
	costs_of(&c, bad4, RP_EINPUT, "in.txt: byte 338: the eviction lines' stall cycles sum to 61 but the header says 60");
	rp_costs_release(&c);
	memcpy(bad4, v4, sizeof(v4));
	memcpy(strstr(bad4, "e RF"), "e RX", 4);
	costs_of(&c, bad4, RP_EINPUT, "in.txt: line 20 (byte 317): expected 'e F|R F|R hex-evictor hex-victim "
		 "decimal-stall-cycles' (e FF 1a0 2b4 56): 'e RX 4000 32 3'");
	rp_costs_release(&c);
	costs_of(&c, "# ramplace-qemu 3\n28 1 0a24 0\n# end\n", RP_EINPUT,
		 "in.txt: byte 0: version 3 without its '# model', '# stall-fetch', '# stall-read' and '# misses' lines");
	rp_costs_release(&c);
}

/* Version 5's entries: parsed, and refused where they cannot be what the plugin measured. */
static void test_parse_entries(void **state)
{
	(void)state;
	rp_costs c;
	costs_of(&c, v5, 0, NULL);
	assert_int_equal(c.nentries, 2);
	assert_int_equal(c.entries[0].addr, 0x28);
	assert_int_equal(c.entries[0].invocations, 3);
	assert_int_equal(c.entries[0].worst, 12);
	assert_int_equal(c.entries[0].sum, 20);
	assert_int_equal(c.entries[0].window, 16);
	assert_int_equal(c.entries[0].returned, 2);
	assert_int_equal(c.entries[0].inv_worst, 40);
	assert_int_equal(c.entries[1].worst, 0);
	rp_costs_release(&c);
	char bad[sizeof(v5)];
	memcpy(bad, v5, sizeof(v5));
	memcpy(strstr(bad, "h 28 3 12 20"), "h 28 3 21 20", 12);   /* worst over the sum */
	costs_of(&c, bad, RP_EINPUT, "in.txt: line 22 (byte 354): the worst entry stall, the sum and the invocations do not "
		 "agree (worst <= sum <= worst * invocations): 'h 28 3 21 20 2 40'");
	rp_costs_release(&c);
	memcpy(bad, v5, sizeof(v5));
	memcpy(strstr(bad, "h 28 3 12 20 2 40"), "h 28 3 12 20 4 40", 17);   /* more returned than entered */
	costs_of(&c, bad, RP_EINPUT, "in.txt: line 22 (byte 354): more invocations returned than were entered, or a worst "
		 "invocation of none: 'h 28 3 12 20 4 40'");
	rp_costs_release(&c);
	memcpy(bad, v5, sizeof(v5));
	memcpy(strstr(bad, "h 32 1 0 0 0 0"), "h 28 1 0 0 0 0", 14);   /* an entry given twice */
	costs_of(&c, bad, RP_EINPUT, "in.txt: line 23 (byte 372): an entry given twice: 'h 28 1 0 0 0 0'");
	rp_costs_release(&c);
	memcpy(bad, v5, sizeof(v5));
	memcpy(strstr(bad, "h 32 1 0 0 0 0"), "h 32 1 0 0 0 5", 14);   /* a worst invocation of none returned */
	costs_of(&c, bad, RP_EINPUT, NULL);
	rp_costs_release(&c);
	memcpy(bad, v5, sizeof(v5));
	memcpy(strstr(bad, "h 28 3 12 20"), "h 28 1 12 20", 12);   /* one invocation, a sum past its worst */
	costs_of(&c, bad, RP_EINPUT, NULL);
	rp_costs_release(&c);
	memcpy(bad, v5, sizeof(v5));
	memcpy(strstr(bad, "# entries 2 window 16"), "# entries 2 window 00", 21);
	costs_of(&c, bad, RP_EINPUT, "in.txt: line 21 (byte 332): expected '# entries N window W' (N up to 4096, W from 1 "
		 "to 1000000): '# entries 2 window 00'");
	rp_costs_release(&c);
	memcpy(bad, v5, sizeof(v5));
	memcpy(strstr(bad, "# entries 2 window 16"), "# entries 3 window 16", 21);   /* announces a line that is not there */
	char want[128];
	snprintf(want, sizeof(want), "in.txt: byte %zu: 2 'h' lines, but '# entries' says 3", strlen(bad));
	costs_of(&c, bad, RP_EINPUT, want);
	rp_costs_release(&c);
	memcpy(bad, v5, sizeof(v5));
	memcpy(strstr(bad, "# entries 2 window 16"), "# entrees 2 window 16", 21);   /* no header: the h lines are refused */
	costs_of(&c, bad, RP_EINPUT, "in.txt: line 22 (byte 354): an 'h' line before '# entries N window W': 'h 28 3 12 20 2 40'");
	rp_costs_release(&c);
}

/* A name for a profile.db that does not exist yet: path is a mkstemp template. */
static void fresh_path(char *path)
{
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
}

/* The fixture of the store tests: imports the plugin file text (of version `version`) on
 * tests/data/qemu-counts/fw.elf, stores its samples and costs as one run in a new profile.db
 * in one transaction, and reads the costs back into *dc from the file reopened read-only. */
static void store_and_load(const char *text, int version, rp_db_costs *dc)
{
	char path[] = "/tmp/test_costs_XXXXXX";
	fresh_path(path);
	rp_err err = RP_ERR_INIT;
	rp_image *img = NULL;
	if (rp_image_load(&img, TEST_DATA_DIR "/qemu-counts/fw.elf", &err))
		fail_msg("%s", err.msg);
	rp_samples s;
	rp_import_meta meta;
	rp_costs c;
	rp_samples_init(&s);
	assert_int_equal(rp_import_file(&s, &meta, RP_IMPORT_QEMU, img, text, strlen(text), "in.txt", &err), 0);
	assert_int_equal(meta.plugin_version, version);
	costs_of(&c, text, 0, NULL);
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
	assert_int_equal(rp_db_costs_load(db, dc, &err), 0);
	rp_db_close(db);
	rp_costs_release(&c);
	rp_samples_release(&s);
	rp_image_free(img);
	unlink(path);
}

static void test_store_load(void **state)
{
	(void)state;
	rp_db_costs dc;
	store_and_load(v3, 3, &dc);
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
}

/* Version 5's entries land under their handler: loop_a (0x28, offset 0) and loop_b. */
static void test_store_entries(void **state)
{
	(void)state;
	rp_db_costs dc;
	store_and_load(v5, 5, &dc);
	assert_int_equal(dc.nentries, 2);
	assert_string_equal(dc.entries[0].name, "loop_a");
	assert_int_equal(dc.entries[0].offset, 0);
	assert_int_equal(dc.entries[0].invocations, 3);
	assert_int_equal(dc.entries[0].worst, 12);
	assert_int_equal(dc.entries[0].sum, 20);
	assert_int_equal(dc.entries[0].window, 16);
	assert_int_equal(dc.entries[0].returned, 2);
	assert_int_equal(dc.entries[0].inv_worst, 40);
	assert_string_equal(dc.entries[1].name, "loop_b");
	assert_int_equal(dc.entries[1].returned, 0);
	assert_int_equal(dc.entries[1].invocations, 1);
	/* the entries are no stall cycles of their own: the functions' totals are v4's */
	assert_int_equal(dc.fetch_stall, 23);
	assert_int_equal(dc.read_stall, 10);
	rp_db_costs_release(&dc);
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

/* A version 2 file (made here by taking version 3's tables and version 4's columns away) reads
 * as having no costs read-only, unchanged, and is migrated by the next open that writes. */
static void test_migrate_2(void **state)
{
	(void)state;
	char path[] = "/tmp/test_costs_XXXXXX";
	fresh_path(path);
	rp_err err = RP_ERR_INIT;
	rp_db *db;
	assert_int_equal(rp_db_open(&db, path, &err), 0);
	rp_db_close(db);
	sqlite3 *sql;
	assert_int_equal(sqlite3_open(path, &sql), SQLITE_OK);
	assert_int_equal(sqlite3_exec(sql, "DROP TABLE costs; DROP TABLE cost_runs; ALTER TABLE runs DROP COLUMN covered;"
				      " ALTER TABLE runs DROP COLUMN slowdown; PRAGMA user_version=2;", NULL, NULL, NULL),
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
	assert_int_equal(user_version(path), RP_DB_SCHEMA_VERSION);
	unlink(path);
}

/* Evictions into profile.db: credited to the evicting function or object, and to the victim as
 * its share caused by others, except a function evicting itself. */
static void test_store_evictions(void **state)
{
	(void)state;
	rp_db_costs dc;
	store_and_load(v4, 4, &dc);
	assert_int_equal(dc.fetch_stall, 23);   /* evictions add no stall cycles of their own */
	assert_int_equal(dc.evicted, 53);      /* 50 + 3; the 7 of loop_a's self-eviction left out */
	assert_int_equal(dc.nfuncs, 2);
	assert_string_equal(dc.funcs[0].name, "loop_b");
	assert_int_equal(dc.funcs[0].stall, 18);
	assert_int_equal(dc.funcs[0].evicted, 50);
	assert_int_equal(dc.funcs[0].victim, 3);
	assert_string_equal(dc.funcs[1].name, "loop_a");
	assert_int_equal(dc.funcs[1].stall, 5);
	assert_int_equal(dc.funcs[1].evicted, 0);
	assert_int_equal(dc.funcs[1].victim, 50);
	assert_int_equal(dc.ndata, 1);
	assert_string_equal(dc.data[0].name, "<unknown>");
	assert_int_equal(dc.data[0].evicted, 3);
	assert_int_equal(dc.data[0].stall, 10);
	rp_db_costs_release(&dc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_entries),
		cmocka_unit_test(test_store_entries),
		cmocka_unit_test(test_store_load),
		cmocka_unit_test(test_store_evictions),
		cmocka_unit_test(test_migrate_2),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
