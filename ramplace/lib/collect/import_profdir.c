/* import_profdir.c: a profd database directory (see profdir.h). Owns the entries, their
 * samples and the function-less images made for files no ELF matched. Workload: thousands of
 * small files, each read once; anything in the directory that is not a regular file (a FIFO, a
 * socket, a folder named *.prof) is skipped and named, never opened, since opening a FIFO no
 * one writes to blocks for ever. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ramplace/profdir.h"
#include "ramplace/util.h"

void rp_prof_dir_release(rp_prof_dir *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->entries[i].path);
		rp_image_free(d->entries[i].own);
		rp_samples_release(&d->entries[i].samples);
	}
	free(d->entries);
	for (size_t i = 0; i < d->nskipped; i++)
		free(d->skipped[i]);
	free(d->skipped);
	memset(d, 0, sizeof(*d));
}

static const rp_image *match(const char *id, const rp_image *const *elves, size_t nelves,
			     const rp_prof_sig *sigs, size_t nsigs)
{
	for (size_t i = 0; i < nsigs; i++)
		if (strcasecmp(sigs[i].image_id, id) == 0)
			return sigs[i].img;
	for (size_t i = 0; i < nelves; i++)
		if (!elves[i]->build_id_is_hash && strncasecmp(elves[i]->build_id, id, strlen(id)) == 0)
			return elves[i];
	return NULL;
}

/* An image with no functions for a file no ELF matched: its samples stay file offsets
 * under "<unknown>", and the per-image report still counts them (like iprof's). */
static int own_image(rp_prof_entry *e, rp_err *err)
{
	rp_image *img = calloc(1, sizeof(*img));
	const char *name = e->header.image[0] ? e->header.image : e->name;
	if (!img || rp_strdup(&img->path, name, err)) {
		free(img);
		return rp_err_nomem(err, "reading a profile directory");
	}
	snprintf(img->build_id, sizeof(img->build_id), "sig:%s", e->image_id);
	img->build_id_is_hash = 1;
	img->elfclass = 32;
	e->own = img;
	e->img = img;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static const char *kind_of(mode_t mode)
{
	return S_ISFIFO(mode) ? "a FIFO" : S_ISDIR(mode) ? "a directory" : S_ISSOCK(mode) ? "a socket"
	       : S_ISCHR(mode) ? "a character device" : S_ISBLK(mode) ? "a block device" : "not a regular file";
}

/* The regular *.prof files of dir, sorted; the others are named in d->skipped. */
static int list_files(char ***out, size_t *n, rp_prof_dir *d, const char *dir, rp_err *err)
{
	DIR *dp = opendir(dir);
	size_t cap = 0;
	int rc = 0;
	*out = NULL;
	*n = 0;
	if (!dp)
		return rp_err_set(err, RP_EINPUT, "%s: cannot open the directory: %s", dir, strerror(errno));
	for (struct dirent *de; !rc && (de = readdir(dp));) {
		size_t len = strlen(de->d_name);
		struct stat st;
		if (len < 6 || strcmp(de->d_name + len - 5, ".prof") != 0)
			continue;
		char *path = NULL;
		if (rp_asprintf(&path, err, "%s/%s", dir, de->d_name))
			rc = err->code;
		else if (stat(path, &st) != 0)   /* a dangling link: named, like a FIFO */
			rc = rp_strlist_pushf(&d->skipped, &d->nskipped, err, "%s: %s: skipped", path, strerror(errno));
		else if (!S_ISREG(st.st_mode))
			rc = rp_strlist_pushf(&d->skipped, &d->nskipped, err, "%s: %s, not a regular file: skipped",
					      path, kind_of(st.st_mode));
		else if (!(rc = rp_grow((void **)out, &cap, *n + 1, sizeof(char *), err)))
			(*out)[(*n)++] = path, path = NULL;
		free(path);
	}
	closedir(dp);
	if (rc) {
		for (size_t i = 0; i < *n; i++)
			free((*out)[i]);
		free(*out);
		*out = NULL;
		*n = 0;
	} else if (*n) {
		qsort(*out, *n, sizeof(char *), cmp_str);
	}
	return rc;
}

/* Opened without blocking and checked on the descriptor: a file swapped for a FIFO after the
 * listing is refused, not waited on. */
static int read_regular(char **text, size_t *len, const char *path, rp_err *err)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return rp_err_set(err, RP_EINPUT, "%s: %s", path, strerror(errno));
	int rc = fstat(fd, &st) != 0 ? rp_err_set(err, RP_EIO, "%s: %s", path, strerror(errno))
		 : !S_ISREG(st.st_mode) ? rp_err_set(err, RP_EINPUT, "%s: %s, not a regular file", path, kind_of(st.st_mode))
		 : rp_read_fd(text, len, fd, path, err);
	close(fd);
	return rc;
}

static int load_entry(rp_prof_entry *e, const rp_image *const *elves, size_t nelves, const rp_prof_sig *sigs,
		      size_t nsigs, rp_err *err)
{
	char *text;
	size_t len;
	if (rp_prof_name_parse(e->path, e->name, sizeof(e->name), e->image_id, sizeof(e->image_id)))
		return rp_err_set(err, RP_EINPUT, "%s: byte 0: not named name-imageid[-pid].prof (imageid: 8 hex digits)", e->path);
	e->img = match(e->image_id, elves, nelves, sigs, nsigs);
	int rc = read_regular(&text, &len, e->path, err);
	if (rc)
		return rc;
	rc = rp_import_prof(&e->samples, &e->header, e->img, text, len, e->path, err);
	free(text);
	rp_import_check_init(&e->check);
	if (!rc && e->img)   /* sampled PCs: each on an instruction start of the matched ELF */
		rc = rp_import_check_pcs(&e->check, e->img, &e->samples, RP_CHECK_INSN_START, err);
	if (!rc && !e->img)
		rc = own_image(e, err);
	return rc;
}

int rp_prof_dir_load(rp_prof_dir *d, const char *dir, const rp_image *const *elves, size_t nelves,
		     const rp_prof_sig *sigs, size_t nsigs, rp_err *err)
{
	char **files;
	size_t n;
	memset(d, 0, sizeof(*d));
	int rc = list_files(&files, &n, d, dir, err);
	if (rc) {
		rp_prof_dir_release(d);
		return rc;
	}
	if (n == 0 && d->nskipped)
		rc = rp_err_set(err, RP_EINPUT, "%s: no regular *.prof files in the directory (%s)", dir, d->skipped[0]);
	else if (n == 0)
		rc = rp_err_set(err, RP_EINPUT, "%s: no *.prof files in the directory", dir);
	for (size_t i = 0; !rc && i < n; i++) {
		if ((rc = rp_grow((void **)&d->entries, &d->cap, d->n + 1, sizeof(*d->entries), err)))
			break;
		rp_prof_entry *e = &d->entries[d->n++];
		memset(e, 0, sizeof(*e));
		rp_samples_init(&e->samples);
		e->path = files[i];
		files[i] = NULL;
		rc = load_entry(e, elves, nelves, sigs, nsigs, err);
	}
	for (size_t i = 0; i < n; i++)
		free(files[i]);
	free(files);
	if (rc)
		rp_prof_dir_release(d);
	return rc;
}
