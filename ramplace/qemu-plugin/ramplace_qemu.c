/* ramplace_qemu.c: libramplace-qemu.so, a QEMU TCG plugin that counts exactly how often every
 * guest instruction executes, for `ramplace import` (format "qemu", docs/import-formats.md).
 * With each address it writes the instruction's bytes as QEMU translated them, so that the
 * importer can tell counts of this firmware from counts of another (file version 2).
 *
 *   qemu-system-arm ... -plugin /path/libramplace-qemu.so,out=counts.txt[,mode=tb|insn]
 *
 * mode=tb (default): one inline 64-bit add per executed translation block, credited to each
 * instruction of the block at exit (a block left early by an exception still counts whole; on
 * firmware that is a handful of blocks per exception). mode=insn: one inline add per executed
 * instruction, exact also across exceptions, slower. Instruction addresses come from
 * qemu_plugin_insn_vaddr, never from the block start plus sizes (QEMU may report a 16-bit
 * Thumb instruction near a page end as 4 bytes).
 *
 * Debian's QEMU 7.2 loads plugins but ships no qemu-plugin.h, so the few API functions used are
 * declared here, as in QEMU 7.2's include/qemu/qemu-plugin.h (plugin API version 1). The plugin
 * owns every block record it allocates until QEMU exits; the output file is written once, by
 * the atexit callback, to a temporary file beside it that is renamed over it, so a failed
 * write (disk full) leaves no partial file. Messages go to stderr: qemu_plugin_outs prints only
 * under `-d plugin`, which would make every failure silent. An output that cannot be created
 * is found at load: qemu_plugin_install then fails, and QEMU 7.2 refuses to start ("Could not
 * load plugin ...", exit status 1). */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the QEMU 7.2 plugin API subset (include/qemu/qemu-plugin.h, QEMU_PLUGIN_VERSION 1) ---- */
#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))
typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn, enum qemu_plugin_op op,
						void *ptr, uint64_t imm);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
QEMU_PLUGIN_EXPORT extern int qemu_plugin_version;
QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv);
/* ---- end of the API subset ---- */

QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;

#define MAX_INSN_BYTES 16   /* longer instructions (x86 has up to 15 bytes) are cut here */

typedef struct insn_rec {
	uint64_t vaddr;
	uint8_t len;             /* bytes kept of the instruction as translated */
	uint8_t bytes[MAX_INSN_BYTES];
} insn_rec;

/* One translation: its instructions and their counters (one per block in tb mode). */
typedef struct block {
	struct block *next;
	uint64_t count;          /* tb mode: executions of the whole block */
	size_t n;
	uint64_t *insn_counts;   /* insn mode: one per instruction, else NULL */
	insn_rec insns[];
} block;

static struct {
	pthread_mutex_t lock;
	block *blocks;           /* every translation, newest first */
	char *out;
	char target[32];
	int per_insn;
	int failed;              /* an allocation failed: the output says so instead of lying */
} st = { PTHREAD_MUTEX_INITIALIZER, NULL, NULL, "", 0, 0 };

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	size_t n = qemu_plugin_tb_n_insns(tb);
	block *b = calloc(1, sizeof(*b) + n * sizeof(insn_rec));
	if (b && st.per_insn && !(b->insn_counts = calloc(n ? n : 1, sizeof(uint64_t)))) {
		free(b);
		b = NULL;
	}
	if (!b) {
		st.failed = 1;
		return;
	}
	b->n = n;
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		size_t len = qemu_plugin_insn_size(insn);
		const void *data = qemu_plugin_insn_data(insn);
		b->insns[i].vaddr = qemu_plugin_insn_vaddr(insn);
		b->insns[i].len = (uint8_t)(data ? (len < MAX_INSN_BYTES ? len : MAX_INSN_BYTES) : 0);
		memcpy(b->insns[i].bytes, data ? data : "", b->insns[i].len);
		if (st.per_insn)
			qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &b->insn_counts[i], 1);
	}
	if (!st.per_insn)
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->count, 1);
	pthread_mutex_lock(&st.lock);
	b->next = st.blocks;
	st.blocks = b;
	pthread_mutex_unlock(&st.lock);
}

/* address -> count and the bytes that ran there, open addressing; grows at half load. An
 * address translated with other bytes at other times (code copied to RAM over something else)
 * keeps the bytes of the translation that ran most, as far as one pass can tell. */
typedef struct slot {
	uint64_t addr, count;
	uint64_t bytes_count;    /* executions credited to the bytes kept */
	insn_rec insn;
} slot;

typedef struct table {
	slot *slots;
	size_t cap, used;
} table;

static slot *table_find(const table *t, uint64_t addr)
{
	size_t i = (size_t)((addr * 0x9e3779b97f4a7c15ull) >> 20) & (t->cap - 1);
	while (t->slots[i].count && t->slots[i].addr != addr)
		i = (i + 1) & (t->cap - 1);
	return &t->slots[i];
}

static int table_add(table *t, const insn_rec *in, uint64_t count)
{
	if ((t->used + 1) * 2 > t->cap) {
		table bigger = { NULL, t->cap ? t->cap * 2 : 4096, 0 };
		if (!(bigger.slots = calloc(bigger.cap, sizeof(slot))))
			return -1;
		for (size_t i = 0; i < t->cap; i++)
			if (t->slots[i].count) {
				*table_find(&bigger, t->slots[i].addr) = t->slots[i];
				bigger.used++;
			}
		free(t->slots);
		*t = bigger;
	}
	slot *s = table_find(t, in->vaddr);
	if (!s->count) {
		s->addr = in->vaddr;
		s->insn = *in;
		t->used++;
	}
	s->count += count;
	if (s->insn.len == in->len && memcmp(s->insn.bytes, in->bytes, in->len) == 0) {
		s->bytes_count += count;
	} else if (count > s->bytes_count) {
		s->insn = *in;
		s->bytes_count = count;
	}
	return 0;
}

static int cmp_addr(const void *a, const void *b)
{
	uint64_t x = ((const slot *)a)->addr, y = ((const slot *)b)->addr;
	return x < y ? -1 : x > y;
}

/* Writes the file; returns 0, or -1 with errno set (a write error, disk full). */
static int write_counts(FILE *fp, table *t, uint64_t tb_execs, uint64_t ntrans)
{
	uint64_t total = 0;
	size_t n = 0;
	/* the live slots moved to the front, then sorted by address */
	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i].count) {
			t->slots[n++] = t->slots[i];
			total += t->slots[i].count;
		}
	qsort(t->slots, n, sizeof(slot), cmp_addr);
	fprintf(fp, "# ramplace-qemu 2\n# target %s\n# mode %s\n# translations %" PRIu64 "\n",
		st.target, st.per_insn ? "insn" : "tb", ntrans);
	if (!st.per_insn)
		fprintf(fp, "# blocks-executed %" PRIu64 "\n", tb_execs);
	fprintf(fp, "# insns-executed %" PRIu64 "\n# addresses %zu\n", total, n);
	for (size_t k = 0; k < n; k++) {
		const slot *s = &t->slots[k];
		char hex[2 * MAX_INSN_BYTES + 1] = "00";   /* QEMU gave no bytes: a placeholder that cannot verify */
		for (size_t i = 0; i < s->insn.len; i++)
			snprintf(hex + 2 * i, 3, "%02x", s->insn.bytes[i]);
		fprintf(fp, "%" PRIx64 " %" PRIu64 " %s\n", s->addr, s->count, hex);
	}
	fprintf(fp, "# end\n");
	return fflush(fp) != 0 || ferror(fp) ? -1 : 0;
}

/* "<out>.tmp.<pid>" beside the output, so that the rename stays within one file system and
 * two QEMUs writing the same output do not share it. Returns the descriptor, or -1 (errno). */
static int make_temp(char *tmp, size_t size)
{
	if ((size_t)snprintf(tmp, size, "%s.tmp.%ld", st.out, (long)getpid()) >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
}

/* Writes the counts through fd (closed here) and renames tmp over the output: 0, or an errno. */
static int commit(int fd, const char *tmp, table *t, uint64_t tb_execs, uint64_t ntrans)
{
	FILE *fp = fdopen(fd, "w");
	int e = 0;
	if (!fp) {
		e = errno;
		close(fd);
		return e;
	}
	errno = 0;
	if (write_counts(fp, t, tb_execs, ntrans) != 0)
		e = errno ? errno : EIO;
	errno = 0;
	if (fclose(fp) != 0 && !e)
		e = errno ? errno : EIO;
	if (!e && rename(tmp, st.out) != 0)
		e = errno;
	return e;
}

static void report(const char *what, int errnum)
{
	fprintf(stderr, "ramplace-qemu: %s: %s: %s\n", st.out, what, strerror(errnum));
}

static void at_exit(qemu_plugin_id_t id, void *userdata)
{
	(void)id;
	(void)userdata;
	table t = { NULL, 0, 0 };
	uint64_t tb_execs = 0, ntrans = 0;
	char tmp[4200];
	int bad = st.failed;
	for (block *b = st.blocks; b && !bad; b = b->next) {
		ntrans++;
		tb_execs += b->count;
		for (size_t i = 0; i < b->n && !bad; i++) {
			uint64_t c = st.per_insn ? b->insn_counts[i] : b->count;
			bad = c && table_add(&t, &b->insns[i], c) != 0;
		}
	}
	int fd = bad ? -1 : make_temp(tmp, sizeof(tmp));
	int e = bad ? ENOMEM : fd < 0 ? errno : commit(fd, tmp, &t, tb_execs, ntrans);
	if (e) {
		report("could not write the counts", e);
		if (fd >= 0)
			unlink(tmp);   /* nothing half-written stays behind */
	}
	free(t.slots);
	while (st.blocks) {
		block *next = st.blocks->next;
		free(st.blocks->insn_counts);
		free(st.blocks);
		st.blocks = next;
	}
	free(st.out);
}

/* Fails now, while QEMU can still refuse to start, when the output cannot be written later: a
 * directory that does not exist or cannot be written to, or an output that is a directory. */
static int check_out(void)
{
	char tmp[4200];
	struct stat sb;
	if (stat(st.out, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		report("cannot write the counts there", EISDIR);
		return -1;
	}
	int fd = make_temp(tmp, sizeof(tmp));
	if (fd < 0) {
		report("cannot write the counts there", errno);
		return -1;
	}
	close(fd);
	unlink(tmp);
	return 0;
}

/* Options arrive as "name=value" (QEMU 7.2), or as "arg=name=value" (older spelling). */
QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	const char *out = "ramplace-qemu.out";
	for (int i = 0; i < argc; i++) {
		const char *a = strncmp(argv[i], "arg=", 4) == 0 ? argv[i] + 4 : argv[i];
		if (strncmp(a, "out=", 4) == 0 && a[4]) {
			out = a + 4;
		} else if (strcmp(a, "mode=tb") == 0) {
			st.per_insn = 0;
		} else if (strcmp(a, "mode=insn") == 0) {
			st.per_insn = 1;
		} else {
			fprintf(stderr, "ramplace-qemu: unknown option '%s' (out=FILE, mode=tb|insn)\n", a);
			return -1;
		}
	}
	if (!(st.out = strdup(out))) {
		fprintf(stderr, "ramplace-qemu: out of memory\n");
		return -1;
	}
	if (check_out() != 0) {
		free(st.out);
		st.out = NULL;
		return -1;
	}
	snprintf(st.target, sizeof(st.target), "%s", info && info->target_name ? info->target_name : "unknown");
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
