/* util.c: size parsing, whole-file reads, atomic output files, growable arrays, clone-suffix
 * stripping (see util.h). No state of its own. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ctype.h>
#include <stdarg.h>

#include "ramplace/util.h"

int rp_parse_size(uint64_t *out, const char *text, const char *what, rp_err *err)
{
	char *end = NULL;
	uint64_t mult = 1;
	if (!text || !*text || *text == '-' || isspace((unsigned char)*text))
		return rp_err_set(err, RP_EUSAGE, "%s: '%s' is not a size", what, text ? text : "");
	errno = 0;
	unsigned long long v = strtoull(text, &end, 0);
	if (errno || end == text)
		return rp_err_set(err, RP_EUSAGE, "%s: '%s' is not a size", what, text);
	if (!strcasecmp(end, "k") || !strcasecmp(end, "kib") || !strcasecmp(end, "kb"))
		mult = 1024;
	else if (!strcasecmp(end, "m") || !strcasecmp(end, "mib") || !strcasecmp(end, "mb"))
		mult = 1024 * 1024;
	else if (*end)
		return rp_err_set(err, RP_EUSAGE, "%s: '%s' has an unknown suffix '%s' (use K, KiB or M)",
				  what, text, end);
	if (v > UINT64_MAX / mult)
		return rp_err_set(err, RP_EUSAGE, "%s: '%s' is too large", what, text);
	*out = v * mult;
	return 0;
}

static int read_stream(char **out, size_t *len, FILE *fp, const char *path, rp_err *err)
{
	size_t cap = 65536, used = 0;
	char *buf = malloc(cap);
	if (!buf)
		return rp_err_nomem(err, "reading a file");
	for (;;) {
		if (cap - used < 2) {
			char *bigger = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
			if (!bigger) {
				free(buf);
				return rp_err_nomem(err, "reading a file");
			}
			buf = bigger;
			cap *= 2;
		}
		size_t n = fread(buf + used, 1, cap - used - 1, fp);
		used += n;
		if (n == 0)
			break;
	}
	if (ferror(fp)) {
		free(buf);
		return rp_err_set(err, RP_EIO, "%s: read failed at byte %zu", path, used);
	}
	buf[used] = '\0';
	*out = buf;
	*len = used;
	return 0;
}

int rp_read_file(char **out, size_t *len, const char *path, rp_err *err)
{
	if (strcmp(path, "-") == 0)
		return read_stream(out, len, stdin, "<stdin>", err);
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return rp_err_set(err, RP_EINPUT, "%s: %s", path, strerror(errno));
	int rc = read_stream(out, len, fp, path, err);
	fclose(fp);
	return rc;
}

int rp_afile_open(rp_afile *af, const char *path, rp_err *err)
{
	memset(af, 0, sizeof(*af));
	size_t n = strlen(path) + 32;
	af->tmp = malloc(n);
	af->path = strdup(path);
	if (!af->tmp || !af->path) {
		rp_afile_abort(af);
		return rp_err_nomem(err, "opening an output file");
	}
	snprintf(af->tmp, n, "%s.tmp.%ld", path, (long)getpid());
	af->fp = fopen(af->tmp, "w");
	if (!af->fp) {
		int e = errno;
		free(af->tmp);
		af->tmp = NULL;
		rp_afile_abort(af);
		return rp_err_set(err, RP_EIO, "%s: cannot write: %s", path, strerror(e));
	}
	return 0;
}

int rp_afile_commit(rp_afile *af, rp_err *err)
{
	int failed = ferror(af->fp);
	if (fclose(af->fp) != 0)
		failed = 1;
	af->fp = NULL;
	if (failed) {
		rp_err_set(err, RP_EIO, "%s: write failed", af->path);
		rp_afile_abort(af);
		return RP_EIO;
	}
	if (rename(af->tmp, af->path) != 0) {
		rp_err_set(err, RP_EIO, "%s: cannot rename into place: %s", af->path, strerror(errno));
		rp_afile_abort(af);
		return RP_EIO;
	}
	free(af->tmp);
	free(af->path);
	af->tmp = af->path = NULL;
	return 0;
}

void rp_afile_abort(rp_afile *af)
{
	if (af->fp)
		fclose(af->fp);
	if (af->tmp)
		unlink(af->tmp);
	free(af->tmp);
	free(af->path);
	memset(af, 0, sizeof(*af));
}

int rp_grow(void **items, size_t *cap, size_t need, size_t elem, rp_err *err)
{
	if (need <= *cap)
		return 0;
	size_t newcap = *cap ? *cap : 16;
	while (newcap < need) {
		if (newcap > SIZE_MAX / 2 / elem)
			return rp_err_nomem(err, "growing an array");
		newcap *= 2;
	}
	void *p = realloc(*items, newcap * elem);
	if (!p)
		return rp_err_nomem(err, "growing an array");
	*items = p;
	*cap = newcap;
	return 0;
}

int rp_strlist_pushf(char ***list, size_t *n, rp_err *err, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	char **bigger = realloc(*list, (*n + 1) * sizeof(char *));
	if (!bigger)
		return rp_err_nomem(err, "recording a note");
	*list = bigger;
	if (rp_strdup(&bigger[*n], buf, err))
		return err->code;
	(*n)++;
	return 0;
}

int rp_asprintf(char **out, rp_err *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(out, fmt, ap);
	va_end(ap);
	if (n < 0) {
		*out = NULL;
		return rp_err_nomem(err, "formatting a string");
	}
	return 0;
}

int rp_strdup(char **out, const char *s, rp_err *err)
{
	*out = NULL;
	if (!s)
		return 0;
	*out = strdup(s);
	return *out ? 0 : rp_err_nomem(err, "copying a string");
}

/* GCC's clone suffixes; ".cold" parts and IPA clones belong to the function they came from. */
static const char *const clone_suffixes[] = {
	".part.", ".isra.", ".constprop.", ".lto_priv.", ".cold", ".clone."
};

/* A suffix must end the name or be followed by '.', so "init.coldstart" is not a clone. */
static int is_suffix_at(const char *hit, const char *suffix)
{
	size_t n = strlen(suffix);
	if (suffix[n - 1] == '.')
		return 1;
	return hit[n] == '\0' || hit[n] == '.';
}

const char *rp_clone_parent(const char *name, char *buf, size_t bufsize)
{
	size_t cut = strlen(name);
	for (size_t i = 0; i < sizeof(clone_suffixes) / sizeof(clone_suffixes[0]); i++) {
		const char *hit = strstr(name, clone_suffixes[i]);
		/* a clone suffix never starts the name: ".part.0" alone is not a clone of "" */
		if (hit && hit != name && (size_t)(hit - name) < cut && is_suffix_at(hit, clone_suffixes[i]))
			cut = (size_t)(hit - name);
	}
	if (cut >= bufsize)
		cut = bufsize - 1;
	memcpy(buf, name, cut);
	buf[cut] = '\0';
	return buf;
}
