/* profiledb_internal.h: what the parts of profile.db share (profiledb.c: the connection,
 * schema and transactions; profiledb_store.c: storing runs; profiledb_read.c: reading them;
 * profiledb_totals.c: the per-function totals).
 * Not installed. */
#ifndef RAMPLACE_PROFILEDB_INTERNAL_H
#define RAMPLACE_PROFILEDB_INTERNAL_H

#include <sqlite3.h>
#include "ramplace/error.h"
#include "ramplace/profiledb.h"

/* Statements a store prepares once per connection, not once per run: a profile directory
 * stores thousands of runs. */
enum { ST_IMAGE, ST_RUN, ST_SAMPLE, ST_ARC, ST_COUNT };

struct rp_db {
	sqlite3 *sql;
	char *path;
	int writable;
	sqlite3_stmt *st[ST_COUNT];
};

/* Sets err from the connection's last error, "<path>: <what>: <sqlite message>"; returns the code. */
int rp_dbi_fail(rp_db *db, rp_err *err, const char *what);
/* Runs sql (no results); on failure err says what it was doing. */
int rp_dbi_exec(rp_db *db, const char *sql, const char *what, rp_err *err);

#endif
