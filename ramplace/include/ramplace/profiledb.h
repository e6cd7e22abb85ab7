/* profiledb.h: profile.db, the SQLite store of runs.
 *
 * Samples are stored symbolized, as (function, defining file for statics, offset, count), and
 * each run is tied to the image (build-id) it was taken on, so a profile survives a relink that
 * moves every address. Several runs add up. The schema version lives in PRAGMA user_version;
 * a database with another or a newer version, or whose tables are not ramplace's, is refused;
 * an older version is migrated in place by rp_db_open (read-only opens read it as it is). Each import
 * or recording is written in one transaction: rp_db_store_run's own, or the caller's between
 * rp_db_begin and rp_db_commit for a command that stores several runs.
 *
 * Version 2 added runs.scale: a run's sample counts are in units of 1/scale sample, so that a
 * gmon.out histogram bin split between two functions in proportion to the overlap (as gprof
 * does) stays an exact integer (docs/profile-db.md).
 *
 * Version 3 added what a flash model charged a run (costs.h): tables cost_runs and costs. Older
 * files are migrated by rp_db_open, and read by read-only opens as having no costs.
 *
 * Version 4 added runs.covered and runs.slowdown: what record measured about a run, as data
 * rather than only in its notes (stop_reason, kept as text for people). NULL where unknown,
 * which is every run an older version stored. */
#ifndef RAMPLACE_PROFILEDB_H
#define RAMPLACE_PROFILEDB_H

#include <stdint.h>
#include <stddef.h>
#include "ramplace/error.h"
#include "ramplace/image.h"
#include "ramplace/costs.h"
#include "ramplace/samples.h"

#define RP_DB_SCHEMA_VERSION 4

/* A connection, used by one thread at a time (opened without SQLite's per-call mutex). */
typedef struct rp_db rp_db;

typedef struct rp_run_info {
	const char *source;     /* "gdbserver localhost:1234", "file pc.log" */
	const char *tool;       /* "record", "import:pclog", ... */
	const char *method;     /* "halt", "dwt", "exact", "" */
	double rate_hz;         /* achieved sampling rate, 0 when unknown */
	double duration_s;
	const char *stop_reason;/* "duration", "target exited (status 0)", ... */
	int covered;            /* 1: the run went on to the target's exit, 0: it was cut before; -1 unknown */
	double slowdown;        /* time halted / time run (0 for DWT sampling, which never halts); < 0 unknown */
} rp_run_info;

#define RP_RUN_INFO_INIT { .source = "", .tool = "", .method = "", .rate_hz = 0.0, .duration_s = 0.0, \
			   .stop_reason = "", .covered = -1, .slowdown = -1.0 }

/* Opens or creates path. Refuses a file that is not a ramplace database or has a schema
 * version other than RP_DB_SCHEMA_VERSION; waits up to 2 s for a lock, then fails. */
int rp_db_open(rp_db **out, const char *path, rp_err *err);
/* Opens an existing database read-only, for commands that only read (report, diff, place):
 * never creates, migrates or writes the file; a missing file is an error. */
int rp_db_open_existing(rp_db **out, const char *path, rp_err *err);
/* Checks, creating and changing nothing, that rp_db_open(path) could store a run: an existing
 * file must be writable and a ramplace database it reads (or migrates); for a missing one, its
 * folder must be writable. For a caller that gathers first and stores only what it got. */
int rp_db_probe(const char *path, rp_err *err);
/* Closes db (NULL is fine). On a connection that writes, a transaction that failed on an I/O
 * error (a full disk) is rolled back from its journal before this returns, so no
 * profile.db-journal is left and the file holds only committed runs. */
void rp_db_close(rp_db *db);

/* One transaction over several rp_db_store_run calls (BEGIN IMMEDIATE ... COMMIT): either
 * every run is stored or none. A failed commit rolls back. rp_db_rollback undoes an open
 * transaction (none open: does nothing). */
int rp_db_begin(rp_db *db, rp_err *err);
int rp_db_commit(rp_db *db, rp_err *err);
void rp_db_rollback(rp_db *db);

/* Symbolizes the samples against img and stores image, run, samples and arcs in one
 * transaction. Samples outside every function are stored under the name "<unknown>" with the
 * raw address as offset and, in executable code, the function symbol below them as file
 * ("after NAME", see rp_db_unknown_after). Inside rp_db_begin it joins that transaction.
 * On failure nothing of this run is written. */
int rp_db_store_run(rp_db *db, const rp_image *img, const rp_run_info *info,
		    const rp_samples *samples, int64_t *run_id, rp_err *err);

typedef struct rp_func_total {
	char *func;
	char *file;       /* NULL for globals */
	uint64_t count;   /* whole samples (samples rounded) */
	double samples;   /* exact samples, fractional where a histogram bin was split */
	double seconds;   /* samples / rate summed over runs; meaningful when rp_db_totals.rate_hz != 0 */
} rp_func_total;

typedef struct rp_db_totals {
	rp_func_total *funcs;    /* sorted by samples descending, then name */
	size_t nfuncs;
	uint64_t total;          /* sum of the functions' counts, including "<unknown>" */
	size_t nruns;
	size_t nimages;          /* distinct builds the runs were taken on */
	double taken;            /* samples taken (gmon: sum of the bins); the base of "% time" */
	uint64_t taken_count;    /* the same, exact: a double holds integers only up to 2^53 */
	double rate_hz;          /* the sampling rate shared by every run, 0 if unknown or mixed */
	double taken_seconds;    /* taken / rate, when rate_hz != 0 */
	int whole_runs;          /* there are runs, and every one went to its program's exit (runs.covered
				    is 1, set by record, cmd_record.c): a longer one would add nothing */
	int sampled_arcs;        /* some run's arcs are sampled return addresses (record), which
				    count samples, not calls as gmon.out's do */
	const rp_image *bound_to; /* the image func_of was looked up in (rp_db_totals_bind), or NULL */
	size_t *func_of;         /* per row: its index in bound_to->funcs, SIZE_MAX if none */
} rp_db_totals;

/* Sums samples per (function, file) over every run in the database. */
int rp_db_totals_load(rp_db *db, rp_db_totals *out, rp_err *err);
/* Same for one run (run_id > 0) or every run (run_id 0). A missing run is RP_EINPUT. */
int rp_db_totals_load_run(rp_db *db, int64_t run_id, rp_db_totals *out, rp_err *err);
/* Every run; equal != 0 weighs every run the same (each scaled to the mean run's samples). */
int rp_db_totals_load_weighted(rp_db *db, int equal, rp_db_totals *out, rp_err *err);
void rp_db_totals_release(rp_db_totals *t);
/* Looks every row up in img once (rp_image_func_by_name): the staleness check, the cycle weights
 * and the placement each walk every row, and on a large firmware the lookups (a cache miss or
 * more each) were a tenth of place's time. img must outlive the binding; a shallow copy of t
 * with its rows in the same order shares it. */
int rp_db_totals_bind(rp_db_totals *t, const rp_image *img, rp_err *err);
/* Row i's function in img: the binding's answer when t is bound to img, else a lookup. */
const rp_func *rp_db_totals_func(const rp_db_totals *t, const rp_image *img, size_t i);

/* For an "<unknown>" row: the function symbol just below its samples, which lie in code past
 * that function's end where no function is (the PLT after _init, padding); gprof credits such
 * samples to it. Returns 1 with *name and *file (NULL for a global) malloc'ed, 0 when the row
 * names none (or is no "<unknown>" row), or a negative code. */
int rp_db_unknown_after(const rp_func_total *t, char **name, char **file, rp_err *err);

typedef struct rp_run_row {
	int64_t id;
	char *build_id, *image_path, *source, *tool, *method, *started, *stop_reason;
	double rate_hz, duration_s, samples;
	uint64_t scale;
	int covered;            /* as rp_run_info: 1, 0, or -1 unknown (NULL) */
	double slowdown;        /* as rp_run_info: < 0 unknown (NULL) */
} rp_run_row;

/* Every run, oldest first. *out is the caller's (free with rp_run_rows_free). */
int rp_db_runs_load(rp_db *db, rp_run_row **out, size_t *n, rp_err *err);
void rp_run_rows_free(rp_run_row *rows, size_t n);

typedef struct rp_arc_total {
	char *caller, *caller_file, *callee, *callee_file;
	uint64_t count;
} rp_arc_total;

/* Sums arcs per (caller, callee) over every run. *out is the caller's (free with
 * rp_arc_totals_free). */
int rp_db_arcs_load(rp_db *db, rp_arc_total **out, size_t *n, rp_err *err);
/* Same for one run (run_id > 0) or every run (0). */
int rp_db_arcs_load_run(rp_db *db, int64_t run_id, rp_arc_total **out, size_t *n, rp_err *err);
void rp_arc_totals_free(rp_arc_total *arcs, size_t n);

/* One build the profile was taken on, with what was recorded on it. */
typedef struct rp_db_image {
	char *build_id;
	char *path;       /* the ELF's path when it was last recorded or imported */
	char *arch;
	size_t nruns;
	uint64_t samples; /* all samples of its runs, "<unknown>" included */
} rp_db_image;

/* Lists the builds that runs were taken on, most samples first. *out is the caller's (free with
 * rp_db_images_free). */
int rp_db_images_load(rp_db *db, rp_db_image **out, size_t *n, rp_err *err);
void rp_db_images_free(rp_db_image *images, size_t n);

/* Stores what the flash model charged run run_id (costs.h): fetch stall cycles by function
 * (symbolized like samples), data reads and their stall cycles by data object (STT_OBJECT
 * symbols of img; "<unknown>" with the address as offset where none covers it), and each
 * measured handler entry (kinds "entry-invocations", "entry-sum", "entry-worst", "entry-window"
 * "entry-returned", "entry-invocation-worst" under the handler's function and offset;
 * docs/profile-db.md). Nothing when c has no model.
 * Inside the caller's transaction (rp_db_begin) with the run. */
int rp_db_store_costs(rp_db *db, const rp_image *img, int64_t run_id, const rp_costs *c, rp_err *err);

typedef struct rp_cost_total {
	char *name;
	char *file;        /* functions: defining file of a static, NULL for globals; data: NULL */
	uint64_t stall;    /* stall cycles: of its fetches (functions) or of its reads (data) */
	uint64_t reads;    /* data: reads from flash; functions: 0 */
	uint64_t evicted;  /* stall cycles of other code's or data's misses on lines this one's
			      accesses had evicted (cache, art): saved too if this one moves */
	uint64_t victim;   /* the part of stall that others caused: misses on lines another
			      function's or object's accesses had evicted */
} rp_cost_total;

/* A handler entry's stall cycles over the runs that measured it (the plugin's entry=): in the
 * first window instructions of each invocation, the worst one's and all of them summed; and
 * over each whole invocation that was seen to return, the worst. */
typedef struct rp_entry_total {
	char *name;        /* the handler (the function holding the entry) */
	char *file;        /* its defining file when static, else NULL */
	uint64_t offset;   /* the entry's offset in it (0: its start) */
	uint64_t invocations, sum, worst;
	uint64_t returned;   /* invocations seen to return */
	uint64_t inv_worst;  /* the worst of those, entry to return */
	unsigned window;   /* instructions counted from each entry (the largest of the runs') */
} rp_entry_total;

/* What the flash model charged every run that had one. The read API for placing hot const
 * data (per data object read counts and stall cycles) as well as code. */
typedef struct rp_db_costs {
	rp_cost_total *funcs;     /* by stall cycles descending, then name */
	size_t nfuncs;
	rp_cost_total *data;      /* the same, per data object */
	size_t ndata;
	uint64_t fetch_stall, read_stall, misses;
	uint64_t evicted;         /* sum of the rows' evicted (the same misses again, by evictor) */
	size_t nruns;             /* runs with a model */
	char model[96];           /* their model; "" none; "mixed" when runs differ */
	uint64_t insns;           /* instructions executed in those runs (their samples, exact counts) */
	rp_entry_total *entries;  /* measured handler entries, by name, file, offset */
	size_t nentries;
} rp_db_costs;

int rp_db_costs_load(rp_db *db, rp_db_costs *out, rp_err *err);
/* Same for one run (run > 0) or every run (0). */
int rp_db_costs_load_run(rp_db *db, int64_t run, rp_db_costs *out, rp_err *err);
void rp_db_costs_release(rp_db_costs *c);

#endif
