/* ramplace_qemu.c: libramplace-qemu.so, a QEMU TCG plugin that counts exactly how often every
 * guest instruction executes, for `ramplace import` (format "qemu", docs/import-formats.md).
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
 * the atexit callback, to "<out>.tmp" and renamed. */
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
void qemu_plugin_outs(const char *string);
QEMU_PLUGIN_EXPORT extern int qemu_plugin_version;
QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv);
/* ---- end of the API subset ---- */

QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;

/* One translation: its instructions and their counters (one per block in tb mode). */
typedef struct block {
	struct block *next;
	uint64_t count;          /* tb mode: executions of the whole block */
	size_t n;
	uint64_t *insn_counts;   /* insn mode: one per instruction, else NULL */
	uint64_t vaddr[];
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
	block *b = calloc(1, sizeof(*b) + n * sizeof(uint64_t));
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
		b->vaddr[i] = qemu_plugin_insn_vaddr(insn);
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

/* address -> count, open addressing; grows at half load */
typedef struct table {
	uint64_t *addr, *count;
	size_t cap, used;
} table;

static int table_add(table *t, uint64_t addr, uint64_t count)
{
	if ((t->used + 1) * 2 > t->cap) {
		table bigger = { NULL, NULL, t->cap ? t->cap * 2 : 4096, 0 };
		bigger.addr = calloc(bigger.cap, sizeof(uint64_t));
		bigger.count = calloc(bigger.cap, sizeof(uint64_t));
		if (!bigger.addr || !bigger.count) {
			free(bigger.addr);
			free(bigger.count);
			return -1;
		}
		for (size_t i = 0; i < t->cap; i++)
			if (t->count[i])
				table_add(&bigger, t->addr[i], t->count[i]);
		free(t->addr);
		free(t->count);
		*t = bigger;
	}
	size_t i = (size_t)((addr * 0x9e3779b97f4a7c15ull) >> 20) & (t->cap - 1);
	while (t->count[i] && t->addr[i] != addr)
		i = (i + 1) & (t->cap - 1);
	if (!t->count[i]) {
		t->addr[i] = addr;
		t->used++;
	}
	t->count[i] += count;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int write_counts(FILE *fp, table *t, uint64_t tb_execs, uint64_t ntrans)
{
	uint64_t total = 0;
	size_t n = 0;
	uint64_t *order = malloc((t->used + 1) * sizeof(uint64_t));
	if (!order)
		return -1;
	for (size_t i = 0; i < t->cap; i++)
		if (t->count[i]) {
			order[n++] = t->addr[i];
			total += t->count[i];
		}
	qsort(order, n, sizeof(uint64_t), cmp_u64);
	fprintf(fp, "# ramplace-qemu 1\n# target %s\n# mode %s\n# translations %" PRIu64 "\n",
		st.target, st.per_insn ? "insn" : "tb", ntrans);
	if (!st.per_insn)
		fprintf(fp, "# blocks-executed %" PRIu64 "\n", tb_execs);
	fprintf(fp, "# insns-executed %" PRIu64 "\n# addresses %zu\n", total, n);
	for (size_t k = 0; k < n; k++) {
		size_t i = (size_t)((order[k] * 0x9e3779b97f4a7c15ull) >> 20) & (t->cap - 1);
		while (t->addr[i] != order[k] || !t->count[i])
			i = (i + 1) & (t->cap - 1);
		fprintf(fp, "%" PRIx64 " %" PRIu64 "\n", order[k], t->count[i]);
	}
	fprintf(fp, "# end\n");
	free(order);
	return 0;
}

static void at_exit(qemu_plugin_id_t id, void *userdata)
{
	(void)id;
	(void)userdata;
	table t = { NULL, NULL, 0, 0 };
	uint64_t tb_execs = 0, ntrans = 0;
	char msg[600], tmp[520];
	int bad = st.failed;
	for (block *b = st.blocks; b && !bad; b = b->next) {
		ntrans++;
		tb_execs += b->count;
		for (size_t i = 0; i < b->n && !bad; i++) {
			uint64_t c = st.per_insn ? b->insn_counts[i] : b->count;
			bad = c && table_add(&t, b->vaddr[i], c) != 0;
		}
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", st.out);
	FILE *fp = bad ? NULL : fopen(tmp, "w");
	if (!fp || write_counts(fp, &t, tb_execs, ntrans) != 0 || fclose(fp) != 0 || rename(tmp, st.out) != 0) {
		snprintf(msg, sizeof(msg), "ramplace-qemu: %s: could not write the counts%s\n", st.out,
			 bad ? " (out of memory)" : "");
		qemu_plugin_outs(msg);
		remove(tmp);
	}
	free(t.addr);
	free(t.count);
	while (st.blocks) {
		block *next = st.blocks->next;
		free(st.blocks->insn_counts);
		free(st.blocks);
		st.blocks = next;
	}
	free(st.out);
}

/* Options arrive as "name=value" (QEMU 7.2), or as "arg=name=value" (older spelling). */
QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	const char *out = "ramplace-qemu.out";
	char msg[300];
	for (int i = 0; i < argc; i++) {
		const char *a = strncmp(argv[i], "arg=", 4) == 0 ? argv[i] + 4 : argv[i];
		if (strncmp(a, "out=", 4) == 0 && a[4]) {
			out = a + 4;
		} else if (strcmp(a, "mode=tb") == 0) {
			st.per_insn = 0;
		} else if (strcmp(a, "mode=insn") == 0) {
			st.per_insn = 1;
		} else {
			snprintf(msg, sizeof(msg), "ramplace-qemu: unknown option '%s' (out=FILE, mode=tb|insn)\n", a);
			qemu_plugin_outs(msg);
			return -1;
		}
	}
	if (!(st.out = strdup(out)))
		return -1;
	snprintf(st.target, sizeof(st.target), "%s", info && info->target_name ? info->target_name : "unknown");
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
