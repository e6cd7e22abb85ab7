/* util.h: small helpers shared by every module: sizes, whole-file reads, atomic output files,
 * growable arrays and string duplication that report allocation failure as an rp_err. */
#ifndef RAMPLACE_UTIL_H
#define RAMPLACE_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>
#include "ramplace/error.h"

/* Parses "98304", "96K", "96KiB", "1M", "0x18000"; K and KiB both mean 1024. Fails on junk,
 * overflow or a negative number; `what` names the subject in the message (e.g. "--budget"). */
int rp_parse_size(uint64_t *out, const char *text, const char *what, rp_err *err);

/* The most rp_read_fd and rp_read_file read into memory (1 GiB); more is RP_EINPUT. */
#define RP_READ_MAX ((size_t)1 << 30)

/* Reads a whole file (or standard input when path is "-") into a NUL-terminated buffer,
 * opening it once. The buffer is the caller's to free. */
int rp_read_file(char **out, size_t *len, const char *path, rp_err *err);
/* Reads fd to its end into a NUL-terminated buffer (the caller's to free); name is for
 * messages. More than RP_READ_MAX bytes is RP_EINPUT, a read error RP_EIO. */
int rp_read_fd(char **out, size_t *len, int fd, const char *name, rp_err *err);

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

/* Writes bytes[0..len) to path whole and atomically (rp_afile: a temp file renamed), or to
 * standard output for NULL (a caller that takes "-" for it says so itself). */
int rp_write_whole(const char *path, const void *bytes, size_t len, rp_err *err);

/* Growable array: ensures room for `need` elements of `elem` bytes in *items (capacity in *cap). */
int rp_grow(void **items, size_t *cap, size_t need, size_t elem, rp_err *err);

/* Appends a printf-formatted line (at most 1023 bytes) to a growable list of owned strings. */
int rp_strlist_pushf(char ***list, size_t *n, rp_err *err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* A newly allocated printf-formatted string in *out (the caller frees it); on failure *out is
 * NULL and err says so. */
int rp_asprintf(char **out, rp_err *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The value of one hexadecimal digit, or -1 for any other character (also negative ones). */
int rp_hex_digit(int c);

/* strdup that reports failure; NULL in gives NULL out with success. */
int rp_strdup(char **out, const char *s, rp_err *err);

/* Whether s ends with suffix and is longer than it ("interp.c.obj" ends with ".obj"). */
int rp_str_ends_with(const char *s, const char *suffix);

/* Strips compiler clone suffixes (".part.N", ".cold", ".isra.N", ".constprop.N", ".lto_priv.N",
 * and combinations) into buf; returns buf. The result names the placement unit. */
const char *rp_clone_parent(const char *name, char *buf, size_t bufsize);
/* Whether name carries a clone suffix (its rp_clone_parent differs from it), without copying it. */
int rp_is_clone(const char *name);

/* Limits every stage agrees on, so that what `place` accepts and writes, `check` and `emit` read
 * back: an alignment beyond a page is a typo, and no architecture's veneer is longer than 64. */
#define RP_ALIGN_MAX 4096u
#define RP_VENEER_MAX 64u
/* The largest sample count or total: SQLite stores integers as int64. */
#define RP_COUNT_MAX ((uint64_t)INT64_MAX)

/* An alignment: a power of two from 1 to RP_ALIGN_MAX. Fails with "<what>: N is not ..." (RP_EINPUT;
 * a command-line caller turns it into RP_EUSAGE). */
int rp_check_align(uint64_t align, const char *what, rp_err *err);

/* A call veneer's size: even, from 0 to RP_VENEER_MAX bytes. Fails like rp_check_align. */
int rp_check_veneer_size(uint64_t bytes, const char *what, rp_err *err);

/* A memory region: origin + length must not pass the end of the 64-bit address space. Fails
 * with "<what>: region NAME ... wraps around" (RP_EINPUT). */
int rp_check_region(uint64_t origin, uint64_t length, const char *name, const char *what, rp_err *err);

/* *total += n when the sum stays within RP_COUNT_MAX: returns 0; else -1 and *total unchanged. */
int rp_count_add(uint64_t *total, uint64_t n);

/* A name taken from input (a symbol, a section, an object path) made printable for a message:
 * bytes that are not printable ASCII or valid UTF-8 become \xNN, so every message shows the
 * same name the same way. Idempotent (backslashes are kept): escaping an escaped text changes
 * nothing, so main can escape a whole message. Truncated with "..." to fit buf; returns buf. */
const char *rp_escape_name(const char *name, char *buf, size_t bufsize);

/* qsort and qsort_r that accept (NULL, 0): the C standard wants a valid base even for no
 * elements, and an empty list (an ELF without call sites) is common input. */
void rp_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
void rp_sort_r(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *, void *), void *arg);

/* rp_sort for records whose order is first that of an unsigned 64-bit key (an address, a hash)
 * and then cmp's: the same result, in linear time for the key (a radix sort), cmp called only
 * within runs of equal keys. cmp must order by key first. */
void rp_sort_keyed(void *base, size_t n, size_t size, uint64_t (*key)(const void *),
		   int (*cmp)(const void *, const void *));

/* The lookup of every table sorted by an unsigned key (an address, an index): how many of the n
 * records at base (size bytes each, the key keysize bytes, 4 or 8, at byte off) have a key below
 * key, or with or_equal at most key; the first at or past key is then at that index, the last
 * at or below it one before. Inline, so that a caller's constant size, offset and width make it
 * the plain loop it stands for. RP_COUNT_BELOW and RP_COUNT_AT_OR_BELOW take an array and its
 * field. */
static inline size_t rp_count_below(const void *base, size_t n, size_t size, size_t off, size_t keysize,
				    uint64_t key, int or_equal)
{
	const unsigned char *b = base;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;
		if (keysize == sizeof(uint64_t)) {
			memcpy(&k, b + mid * size + off, sizeof(k));
		} else {
			uint32_t k32;
			memcpy(&k32, b + mid * size + off, sizeof(k32));
			k = k32;
		}
		if (k < key || (or_equal && k == key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#define RP_COUNT_KEYS_(arr, n, field, key, or_equal)                                                   \
	rp_count_below((arr), (n), sizeof(*(arr)), offsetof(__typeof__(*(arr)), field), sizeof((arr)->field), \
		       (key), (or_equal))
#define RP_COUNT_BELOW(arr, n, field, key) RP_COUNT_KEYS_(arr, n, field, key, 0)
#define RP_COUNT_AT_OR_BELOW(arr, n, field, key) RP_COUNT_KEYS_(arr, n, field, key, 1)

/* A cursor over the lines of a text (the caller's, not copied): each line without its "\n" or
 * "\r\n", its number from 1 and its first byte's offset for messages, and whether a newline
 * ended it (a last line without one is a truncated file to some readers). */
typedef struct rp_lines {
	const char *text;
	size_t len, pos;
	size_t lineno;   /* of the line last returned (0 before the first) */
	size_t offset;   /* its first byte's offset in text */
	int ended;       /* it ended in '\n' */
} rp_lines;

void rp_lines_init(rp_lines *c, const char *text, size_t len);
/* The next line into *p and *n (not NUL-terminated): 1, or 0 past the end. */
int rp_lines_next(rp_lines *c, const char **p, size_t *n);

/* A 64-bit hash of a string (FNV-1a; NULL hashes as ""), the same in every run. */
uint64_t rp_str_hash(const char *s);


/* Strings that live as long as what holds them and are freed together: blocks that never
 * move, so a copy's address stays valid. For the many short names one load makes (a symbol
 * table, a link map), where a malloc and a free per name were a tenth of the run. A pool is a
 * `struct rp_strblock *` set to NULL (what holds one needs no more than that declaration). */
struct rp_strblock;
/* A NUL-terminated copy of s[0..n) in the pool; NULL when memory ran out. */
char *rp_strpool_copy(struct rp_strblock **pool, const char *s, size_t n);
void rp_strpool_release(struct rp_strblock **pool);
/* A name index: records looked up by (name, sub) through a hash table instead of a scan, with
 * sub an optional second key (a defining file, an object; NULL sorts first). The strings are
 * borrowed from the records and must outlive the index. Fill: rp_name_index_init(ix, n), then
 * set every e[i] (index: the record's position, the tiebreak among equal keys; hash is the
 * index's own, computed by rp_name_index_sort), then rp_name_index_sort. Fails only on memory.
 * An index of no entries ({0}) finds nothing. */
typedef struct rp_name_entry {
	const char *name;
	const char *sub;
	size_t index;
	uint64_t hash;
} rp_name_entry;
typedef struct rp_name_slot {
	size_t start; /* 1 + the first entry of one name's run; 0: a free slot */
	size_t len;
} rp_name_slot;
typedef struct rp_name_index {
	rp_name_entry *e;
	size_t n;
	rp_name_slot *slot; /* open addressing, nslot a power of two */
	size_t nslot;
} rp_name_index;
int rp_name_index_init(rp_name_index *ix, size_t n, rp_err *err);
void rp_name_index_sort(rp_name_index *ix);
/* The first entry (lowest sub, then lowest index) named name, and with match_sub also of sub
 * (NULL matches only NULL); NULL when none. rp_name_index_next gives the following entry of the
 * same name (whatever its sub), NULL after the last. */
const rp_name_entry *rp_name_index_find(const rp_name_index *ix, const char *name, const char *sub, int match_sub);
const rp_name_entry *rp_name_index_next(const rp_name_index *ix, const rp_name_entry *e);
void rp_name_index_release(rp_name_index *ix);

/* Seconds on the monotonic clock, for stage timings (place --timings). */
double rp_seconds(void);

#endif
