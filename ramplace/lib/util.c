/* util.c: size parsing, whole-file reads, atomic output files, growable arrays, string pools,
 * clone-suffix stripping, the shared value validators (see util.h; sorting and the name index
 * are util_sort.c). No state of its own. Every input is read once, through one file
 * descriptor: a FIFO or pipe cannot be reopened. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ctype.h>
#include <stdarg.h>
#include <time.h>
#include <sys/stat.h>

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

/* Reads fd to its end, at most RP_READ_MAX bytes: a pipe or FIFO gives its bytes once, so the
 * caller must sniff and parse from this one copy, never reopen the path. */
int rp_read_fd(char **out, size_t *len, int fd, const char *name, rp_err *err)
{
	size_t cap = 65536, used = 0;
	*out = NULL;
	*len = 0;
	/* read() on a directory fails with EISDIR, which would read "read failed at byte 0" */
	struct stat st;
	int known = fstat(fd, &st) == 0;
	if (known && S_ISDIR(st.st_mode))
		return rp_err_set(err, RP_EINPUT, "%s: is a directory, not a file", name);
	/* a regular file in one read of its size (and the 0 after it): a map of 20 MB grown by
	 * doubling was copied and faulted in twice over. A file that grows meanwhile still grows
	 * the buffer below. */
	if (known && S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size < RP_READ_MAX)
		cap = (size_t)st.st_size + 2;
	char *buf = malloc(cap);
	if (!buf)
		return rp_err_nomem(err, "reading a file");
	for (;;) {
		if (used > RP_READ_MAX) {
			free(buf);
			return rp_err_set(err, RP_EINPUT, "%s: more than %zu MiB: too large to read into memory "
					  "(a regular file is mapped, not read: write the stream to a file first)",
					  name, RP_READ_MAX >> 20);
		}
		if (cap - used < 2) {
			char *bigger = realloc(buf, cap * 2);
			if (!bigger) {
				free(buf);
				return rp_err_nomem(err, "reading a file");
			}
			buf = bigger;
			cap *= 2;
		}
		ssize_t n = read(fd, buf + used, cap - used - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			free(buf);
			return rp_err_set(err, RP_EIO, "%s: read failed at byte %zu: %s", name, used, strerror(e));
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	buf[used] = '\0';
	*out = buf;
	*len = used;
	return 0;
}

int rp_read_file(char **out, size_t *len, const char *path, rp_err *err)
{
	if (strcmp(path, "-") == 0)
		return rp_read_fd(out, len, STDIN_FILENO, "<stdin>", err);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rp_err_set(err, RP_EINPUT, "%s: %s", path, strerror(errno));
	int rc = rp_read_fd(out, len, fd, path, err);
	close(fd);
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

int rp_write_whole(const char *path, const void *bytes, size_t len, rp_err *err)
{
	if (!path) {
		if (fwrite(bytes, 1, len, stdout) != len || fflush(stdout) != 0)
			return rp_err_set(err, RP_EIO, "standard output: write failed");
		return 0;
	}
	rp_afile af;
	int rc = rp_afile_open(&af, path, err);
	if (rc)
		return rc;
	if (fwrite(bytes, 1, len, af.fp) != len) {
		int why = errno;   /* before the abort's own calls change it */
		rp_afile_abort(&af);
		return rp_err_set(err, RP_EIO, "%s: write failed: %s", path, strerror(why));
	}
	return rp_afile_commit(&af, err);
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

int rp_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

struct rp_strblock {
	struct rp_strblock *next;
	size_t used, cap;
	char data[];
};

#define RP_STRBLOCK (256 * 1024)

char *rp_strpool_copy(struct rp_strblock **pool, const char *s, size_t n)
{
	struct rp_strblock *b = *pool;
	if (n == SIZE_MAX)
		return NULL;
	if (!b || b->cap - b->used < n + 1) {
		size_t cap = n + 1 > RP_STRBLOCK ? n + 1 : RP_STRBLOCK;
		if (cap > SIZE_MAX - sizeof(struct rp_strblock) || !(b = malloc(sizeof(struct rp_strblock) + cap)))
			return NULL;
		b->next = *pool;
		b->used = 0;
		b->cap = cap;
		*pool = b;
	}
	char *out = b->data + b->used;
	memcpy(out, s, n);
	out[n] = '\0';
	b->used += n + 1;
	return out;
}

void rp_strpool_release(struct rp_strblock **pool)
{
	for (struct rp_strblock *b = *pool, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	*pool = NULL;
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

/* Where name's clone suffix starts, or its length; dot is its first '.', or NULL. */
static size_t clone_cut(const char *name, const char *dot, size_t cut)
{
	for (size_t i = 0; dot && i < sizeof(clone_suffixes) / sizeof(clone_suffixes[0]); i++) {
		const char *hit = strstr(dot, clone_suffixes[i]);
		/* a clone suffix never starts the name: ".part.0" alone is not a clone of "" */
		if (hit && hit != name && (size_t)(hit - name) < cut && is_suffix_at(hit, clone_suffixes[i]))
			cut = (size_t)(hit - name);
	}
	return cut;
}

int rp_is_clone(const char *name)
{
	/* every suffix starts with '.': none before the first one (most names have none) */
	const char *dot = strchr(name, '.');
	if (!dot)
		return 0;
	size_t len = strlen(dot) + (size_t)(dot - name);
	return clone_cut(name, dot, len) < len;
}

const char *rp_clone_parent(const char *name, char *buf, size_t bufsize)
{
	size_t cut = strlen(name);
	cut = clone_cut(name, memchr(name, '.', cut), cut);
	if (cut >= bufsize)
		cut = bufsize - 1;
	memcpy(buf, name, cut);
	buf[cut] = '\0';
	return buf;
}

/* The value validators below are shared by the command line, ramplace.yaml, the plan and the
 * map reader, so a value one of them accepts is never refused by another (issue 13). */
int rp_check_align(uint64_t align, const char *what, rp_err *err)
{
	if (align == 0 || (align & (align - 1)) || align > RP_ALIGN_MAX)
		return rp_err_set(err, RP_EINPUT, "%s: %llu is not a power of two from 1 to %u", what,
				  (unsigned long long)align, RP_ALIGN_MAX);
	return 0;
}

int rp_check_veneer_size(uint64_t bytes, const char *what, rp_err *err)
{
	if (bytes > RP_VENEER_MAX || bytes % 2)
		return rp_err_set(err, RP_EINPUT, "%s: %llu is not an even number of bytes from 0 to %u", what,
				  (unsigned long long)bytes, RP_VENEER_MAX);
	return 0;
}

int rp_check_region(uint64_t origin, uint64_t length, const char *name, const char *what, rp_err *err)
{
	if (length > UINT64_MAX - origin)
		return rp_err_set(err, RP_EINPUT, "%s: region %s (origin 0x%llx, length 0x%llx) wraps around the address space",
				  what, name, (unsigned long long)origin, (unsigned long long)length);
	return 0;
}

int rp_count_add(uint64_t *total, uint64_t n)
{
	if (*total > RP_COUNT_MAX || n > RP_COUNT_MAX - *total)
		return -1;
	*total += n;
	return 0;
}

/* Length of the valid UTF-8 sequence at s (2 to 4 bytes, no overlongs or surrogates), or 0. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
	if (s[0] >= 0xf5)
		n = 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((n == 3 && s[0] == 0xe0 && s[1] < 0xa0) || (n == 3 && s[0] == 0xed && s[1] >= 0xa0) ||
	    (n == 4 && s[0] == 0xf0 && s[1] < 0x90) || (n == 4 && s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return n;
}

/* Backslashes stay as they are, so that escaping twice changes nothing: main escapes every
 * error message once more as a whole (names some stage did not escape), and a name a stage
 * escaped already must not come out as "\\xff" there. */
const char *rp_escape_name(const char *name, char *buf, size_t bufsize)
{
	const unsigned char *s = (const unsigned char *)(name ? name : "");
	size_t k = 0;
	if (bufsize < 8) {
		if (bufsize)
			buf[0] = '\0';
		return buf;
	}
	while (*s) {
		char piece[8];
		size_t n = utf8_len(s);
		if (n) {
			memcpy(piece, s, n);
		} else if (*s < 0x20 || *s >= 0x7f) {
			snprintf(piece, sizeof(piece), "\\x%02x", *s);
			n = 4;
		} else {
			piece[0] = (char)*s;
			n = 1;
		}
		/* keep room for "..." and the NUL */
		if (k + n + 4 > bufsize) {
			memcpy(buf + k, "...", 4);
			return buf;
		}
		memcpy(buf + k, piece, n);
		k += n;
		s += utf8_len(s) ? utf8_len(s) : 1;
	}
	buf[k] = '\0';
	return buf;
}

double rp_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int rp_str_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n > m && strcmp(s + n - m, suffix) == 0;
}
