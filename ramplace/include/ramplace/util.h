/* util.h: small helpers shared by every module: sizes, whole-file reads, atomic output files,
 * growable arrays and string duplication that report allocation failure as an rp_err. */
#ifndef RAMPLACE_UTIL_H
#define RAMPLACE_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stddef.h>
#include "ramplace/error.h"

/* Parses "98304", "96K", "96KiB", "1M", "0x18000"; K and KiB both mean 1024. Fails on junk,
 * overflow or a negative number; `what` names the subject in the message (e.g. "--budget"). */
int rp_parse_size(uint64_t *out, const char *text, const char *what, rp_err *err);

/* Reads a whole file (or standard input when path is "-") into a NUL-terminated buffer.
 * The buffer is the caller's to free. */
int rp_read_file(char **out, size_t *len, const char *path, rp_err *err);

/* An output file written to "<path>.tmp.<pid>" and renamed over path on commit, so readers
 * never see a half-written file. abort() removes the temporary. */
typedef struct rp_afile {
	FILE *fp;
	char *path;
	char *tmp;
} rp_afile;

int rp_afile_open(rp_afile *af, const char *path, rp_err *err);
int rp_afile_commit(rp_afile *af, rp_err *err);
void rp_afile_abort(rp_afile *af);

/* Growable array: ensures room for `need` elements of `elem` bytes in *items (capacity in *cap). */
int rp_grow(void **items, size_t *cap, size_t need, size_t elem, rp_err *err);

/* Appends a printf-formatted line (at most 1023 bytes) to a growable list of owned strings. */
int rp_strlist_pushf(char ***list, size_t *n, rp_err *err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* A newly allocated printf-formatted string in *out (the caller frees it); on failure *out is
 * NULL and err says so. */
int rp_asprintf(char **out, rp_err *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* strdup that reports failure; NULL in gives NULL out with success. */
int rp_strdup(char **out, const char *s, rp_err *err);

/* Strips compiler clone suffixes (".part.N", ".cold", ".isra.N", ".constprop.N", ".lto_priv.N",
 * and combinations) into buf; returns buf. The result names the placement unit. */
const char *rp_clone_parent(const char *name, char *buf, size_t bufsize);

#endif
