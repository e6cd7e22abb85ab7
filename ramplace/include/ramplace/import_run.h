/* import_run.h: `ramplace import`'s work as library calls (cli/cmd_import.c parses the options,
 * calls one of these and prints the result): profile files parsed, each checked to belong to its
 * ELF, merged and stored as one run (with a flash model's costs, in one transaction); or a
 * profile directory (profdir.h) stored as one run per file, all in one transaction. Nothing is
 * written unless every file parses and verifies. */
#ifndef RAMPLACE_IMPORT_RUN_H
#define RAMPLACE_IMPORT_RUN_H

#include <stddef.h>
#include <stdint.h>
#include "ramplace/error.h"
#include "ramplace/image.h"
#include "ramplace/import.h"

typedef struct rp_import_opts {
	rp_import_format fmt;            /* RP_IMPORT_AUTO: detected from the first file */
	int force;                       /* store files of which too few samples verify (a warning each) */
	double min_verified;             /* the share below which a file is refused */
	const char *const *elf_paths;    /* directories: the ELFs files may belong to */
	size_t nelves;
	const char *const *sig_ids;      /* directories: --signature ID=ELF, in two arrays */
	const char *const *sig_paths;
	size_t nsigs;
} rp_import_opts;

#define RP_IMPORT_OPTS_INIT { .fmt = RP_IMPORT_AUTO, .min_verified = RP_IMPORT_MIN_VERIFIED }

/* One file of a directory, stored as its own run. */
typedef struct rp_import_dir_run {
	char *name;                      /* from the file name */
	char *image;                     /* the ELF's path, or the signature when none matched */
	int own;                         /* no ELF matched: offsets kept under its signature */
	uint64_t samples;
	int64_t run_id;
} rp_import_dir_run;

typedef struct rp_import_result {
	rp_import_format format;         /* given, or detected from the first file */
	int64_t run_id;
	uint64_t samples;                /* whole samples, as the run stores them */
	size_t narcs;
	int have_costs;                  /* a flash model's stall cycles were stored with the run */
	char model[96];
	uint64_t fetch_stall, data_stall;
	char notes[512];                 /* what the files lost or left out, "" when nothing */
	char **warnings;                 /* files stored anyway (force), one line each */
	size_t nwarnings;
	rp_import_dir_run *runs;         /* a directory's runs, in file-name order */
	size_t nruns;
	char **skipped;                  /* a directory's entries that are not regular files */
	size_t nskipped;
} rp_import_result;

/* files (nfiles >= 1; "-" is standard input) against img, into db_path as one run; source
 * names them in the run. */
int rp_import_files(const char *db_path, const rp_image *img, const rp_import_opts *o, const char *const *files,
		    size_t nfiles, const char *source, rp_import_result *res, rp_err *err);
/* A profile directory: every *.prof file, each on the ELF its image id names (o->elf_paths,
 * o->sig_*), as one run each. */
int rp_import_dir(const char *db_path, const char *dir, const rp_import_opts *o, rp_import_result *res, rp_err *err);
void rp_import_result_release(rp_import_result *res);

#endif
