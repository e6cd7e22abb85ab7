/* profdir.h: a directory of "offset count" files as the Itsy profiler's profd leaves it, one
 * file per image (and process), named name-imageid[-pid].prof: one profile database of several
 * images. Each file is matched to its ELF by image signature, read (import.h's "prof") and kept
 * as its own run. */
#ifndef RAMPLACE_PROFDIR_H
#define RAMPLACE_PROFDIR_H

#include <stddef.h>
#include "ramplace/error.h"
#include "ramplace/image.h"
#include "ramplace/import.h"
#include "ramplace/samples.h"

typedef struct rp_prof_sig {
	const char *image_id;    /* as in the file names */
	const rp_image *img;     /* configured with --signature ID=ELF */
} rp_prof_sig;

typedef struct rp_prof_entry {
	char *path;
	char name[128];          /* from the file name */
	char image_id[16];
	const rp_image *img;     /* the matched ELF, or `own` */
	rp_image *own;           /* no ELF matched: an image without functions, keyed "sig:ID" */
	rp_prof_header header;
	rp_samples samples;
	rp_import_check check;   /* how the samples fit the matched ELF (nothing checked for `own`) */
} rp_prof_entry;

typedef struct rp_prof_dir {
	rp_prof_entry *entries;  /* in file-name order */
	size_t n, cap;
	char **skipped;          /* "<path>: a FIFO, not a regular file: skipped", one per *.prof
				    entry that is not a regular file (never opened) */
	size_t nskipped;
} rp_prof_dir;

/* Reads every *.prof file of dir. An image id matches an ELF when a --signature names it, or
 * when the ELF's build-id starts with it; the samples of a matched file are then weighed
 * against that ELF (entry->check; refusing is the caller's choice). Any bad file fails the
 * whole load (nothing kept). A *.prof entry that is not a regular file is skipped, never
 * opened, and named in d->skipped. */
int rp_prof_dir_load(rp_prof_dir *d, const char *dir, const rp_image *const *elves, size_t nelves,
		     const rp_prof_sig *sigs, size_t nsigs, rp_err *err);
void rp_prof_dir_release(rp_prof_dir *d);

#endif
