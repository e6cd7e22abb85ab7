/* import_profdir.c: a profd database directory (see profdir.h). Owns the entries, their
 * samples and the function-less images made for files no ELF matched. */
#include <ctype.h>
#include <dirent.h>
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

static int list_files(char ***out, size_t *n, const char *dir, rp_err *err)
{
	DIR *dp = opendir(dir);
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	if (!dp)
		return rp_err_set(err, RP_EINPUT, "%s: cannot open the directory", dir);
	for (struct dirent *de; (de = readdir(dp));) {
		size_t len = strlen(de->d_name);
		if (len < 6 || strcmp(de->d_name + len - 5, ".prof") != 0)
			continue;
		char *path = malloc(strlen(dir) + len + 2);
		if (!path || rp_grow((void **)out, &cap, *n + 1, sizeof(char *), err)) {
			free(path);
			closedir(dp);
			return rp_err_nomem(err, "listing a profile directory");
		}
		snprintf(path, strlen(dir) + len + 2, "%s/%s", dir, de->d_name);
		(*out)[(*n)++] = path;
	}
	closedir(dp);
	if (*n)
		qsort(*out, *n, sizeof(char *), cmp_str);
	return 0;
}

static int load_entry(rp_prof_entry *e, const rp_image *const *elves, size_t nelves, const rp_prof_sig *sigs,
		      size_t nsigs, rp_err *err)
{
	char *text;
	size_t len;
	if (rp_prof_name_parse(e->path, e->name, sizeof(e->name), e->image_id, sizeof(e->image_id)))
		return rp_err_set(err, RP_EINPUT, "%s: byte 0: not named name-imageid[-pid].prof (imageid: 8 hex digits)", e->path);
	e->img = match(e->image_id, elves, nelves, sigs, nsigs);
	int rc = rp_read_file(&text, &len, e->path, err);
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
	int rc = list_files(&files, &n, dir, err);
	if (rc)
		return rc;
	if (n == 0)
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
