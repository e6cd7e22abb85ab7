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
 * declared in qemu_api.h, as in QEMU 7.2's include/qemu/qemu-plugin.h (plugin API version 1). The plugin
 * owns every block record it allocates until QEMU exits; the output file is written once, by
 * the atexit callback, to a temporary file beside it that is renamed over it, so a failed
 * write (disk full) leaves no partial file. Messages go to stderr: qemu_plugin_outs prints only
 * under `-d plugin`, which would make every failure silent. An output that cannot be created
 * is found at load: qemu_plugin_install then fails, and QEMU 7.2 refuses to start ("Could not
 * load plugin ...", exit status 1).
 *
 * model=SPEC (flashmodel.h: ws:5, cache:rp2040 ...) with flash=LO-HI (hex, end exclusive, both
 * repeatable: the n-th model for the n-th range, flashmap.h): every executed fetch and data read
 * in flash goes through the library's own flashmodel.c in program order; the file (version 4)
 * gains the stall cycles per address and data address, and per (evicting, missing) access pair
 * those of misses on lines the first had evicted (evictions.c). trace=FILE writes every access
 * fed to the model for replay and place --trace (docs/layout.md), windowed by trace-window=,
 * trace-period= (recency.c). entry=ADDR[@SLOT] measures a handler's entry and invocations
 * (entry_stall.c; version 5's "h" lines). docs/import-formats.md has the formats. One vCPU: a
 * second would interleave two streams into one model. */
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

#include "ramplace/flashmap.h"     /* model=,flash= pairs: one model per flash range */
#include "ramplace/flashmodel.h"
#include "entry_stall.h" /* entry=ADDR: handlers' worst entry stall cycles */
#include "evictions.h"  /* model=: (evictor, victim) pairs, version 4's "e" lines */
#include "recency.h"    /* trace-window=: what each window starts from */
#include "swo_emit.h"   /* swo=FILE|tcp:PORT: the DWT PC sampler's SWO stream */

#include "qemu_api.h"  /* the QEMU 7.2 plugin API subset this plugin uses */

QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;

#define MAX_INSN_BYTES 16   /* longer instructions (x86 has up to 15 bytes) are cut here */

typedef struct insn_rec {
	uint64_t vaddr;
	uint8_t len;             /* bytes kept of the instruction as translated */
	uint8_t bytes[MAX_INSN_BYTES];
	uint64_t stall;          /* model: fetch stall cycles of this translation's executions */
	uint8_t fm;              /* model: the flash range holding vaddr (its model) */
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
	rp_fm *model;            /* model=: the first range's model; NULL without any */
	rp_fm *models[RP_FM_MAX_RANGES];   /* the n-th model= with the n-th flash= */
	rp_fm_cfg cfgs[RP_FM_MAX_RANGES];
	size_t ncfgs, nflash;
	rp_fm_map fmap;          /* the pairs, once model_ready has checked them */
	uint64_t flash_lo[RP_FM_MAX_RANGES], flash_hi[RP_FM_MAX_RANGES];
	uint64_t fetch_stall[RP_FM_MAX_RANGES], read_stall[RP_FM_MAX_RANGES], evicted[RP_FM_MAX_RANGES];   /* per range */
	FILE *trace;             /* trace=: NULL without */
	uint64_t trace_window, trace_period;   /* trace-window=, trace-period= (0: every access) */
	uint64_t trace_seen;     /* accesses fed so far */
} st = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int data_add(uint64_t addr, uint64_t stall);

/* Where the window of period k starts within it: spread by a fixed hash, so that windows do not
 * all fall on the same phase of a workload whose loop is as long as the period (the same on
 * every run: the trace of one build is always the same). */
static uint64_t window_offset(uint64_t k)
{
	uint64_t room = st.trace_period - st.trace_window + 1, h = (k + 1) * 0x9e3779b97f4a7c15ull;
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 29;
	return h % room;
}

/* Out of memory for what the flash held: the counts are withheld (st.failed) and the trace
 * says so in a line place --trace refuses, once, rather than read as whole. */
static void recency_lost(void)
{
	static int said;
	if (!said)
		fprintf(st.trace, "# recency lost: out of memory\n");
	said = 1;
	st.failed = 1;
}

/* One access to the trace, when it falls in a window (every access without trace-period). */
static void trace_access(char op, uint64_t addr, unsigned size)
{
	uint64_t i = st.trace_seen++;
	if (st.trace_period) {
		uint64_t k = i / st.trace_period, at = i % st.trace_period, from = window_offset(k);
		if (at == from) {   /* the window starts from what the flash held (recency.c) */
			fprintf(st.trace, "# window at %" PRIu64 "\n", i);
			if (recency_write(st.trace) != 0)
				recency_lost();
		}
		if (recency_touch(addr, size, op == 'R', i) != 0)
			recency_lost();
		if (at < from || at - from >= st.trace_window)
			return;
	}
	fprintf(st.trace, "%c %" PRIx64 " %u\n", op, addr, size);
}

static void evictions_add(size_t fm);

/* model=: the instruction's fetch, then (QEMU calls memory callbacks after the instruction's
 * own) its data reads, in program order. */
static void model_fetch(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	insn_rec *in = udata;
	unsigned size = in->len ? in->len : 2;
	uint64_t stall = rp_fm_access(st.models[in->fm], in->vaddr, size, RP_FM_FETCH);
	in->stall += stall;
	st.fetch_stall[in->fm] += stall;
	entry_stall_add(stall);
	evictions_add(in->fm);
	if (st.trace)
		trace_access('F', in->vaddr, size);
}

/* A data read of size bytes at vaddr through the model of its flash range (none outside). */
static void model_data_read(uint64_t vaddr, unsigned size)
{
	int fm = rp_fm_map_find(&st.fmap, vaddr);
	if (fm < 0)
		return;
	uint64_t stall = rp_fm_access(st.models[fm], vaddr, size, RP_FM_READ);
	st.read_stall[fm] += stall;
	entry_stall_add(stall);
	if (data_add(vaddr, stall) != 0)
		st.failed = 1;
	evictions_add((size_t)fm);
	if (st.trace)
		trace_access('R', vaddr, size);
}

static void model_read(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	(void)vcpu;
	(void)udata;
	if (!qemu_plugin_mem_is_store(info))
		model_data_read(vaddr, 1u << qemu_plugin_mem_size_shift(info));
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	swo_emit_translate(tb);
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
		if (entry_stall_on())   /* before the model's callbacks: an entry's own fetch counts */
			entry_stall_translate(insn, b->insns[i].vaddr, data, len);
		if (st.model) {
			/* code outside flash (copied to RAM) costs no stall: no callback at all */
			int fm = rp_fm_map_find(&st.fmap, b->insns[i].vaddr);
			b->insns[i].fm = (uint8_t)(fm < 0 ? 0 : fm);
			if (fm >= 0)
				qemu_plugin_register_vcpu_insn_exec_cb(insn, model_fetch, QEMU_PLUGIN_CB_NO_REGS, &b->insns[i]);
			/* MEM_RW, loads picked by model_read: Debian's QEMU 7.2 calls a MEM_R callback
			 * for stores only (measured: every call it made was a store) */
			qemu_plugin_register_vcpu_mem_cb(insn, model_read, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, NULL);
		}
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
	uint64_t stall;          /* model: stall cycles (code: of fetches; data: of reads) */
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

static int table_add(table *t, const insn_rec *in, uint64_t count, uint64_t stall)
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
	s->stall += stall;
	if (s->insn.len == in->len && memcmp(s->insn.bytes, in->bytes, in->len) == 0) {
		s->bytes_count += count;
	} else if (count > s->bytes_count) {
		s->insn = *in;
		s->bytes_count = count;
	}
	return 0;
}

/* model: data address -> reads (count) and their stall cycles */
static table data_tab;

static int data_add(uint64_t addr, uint64_t stall)
{
	insn_rec in = { addr, 0, { 0 }, 0, 0 };
	return table_add(&data_tab, &in, 1, stall);
}

/* The last access's misses on evicted lines (flashmodel.h) into the table (evictions.c). */
static void evictions_add(size_t fm)
{
	const rp_fm_evict *ev;
	size_t n = rp_fm_last_evictions(st.models[fm], &ev);
	for (size_t k = 0; k < n; k++)
		st.evicted[fm] += ev[k].stall;
	if (n && evictions_record(ev, n) != 0)
		st.failed = 1;
}

static int cmp_addr(const void *a, const void *b)
{
	uint64_t x = ((const slot *)a)->addr, y = ((const slot *)b)->addr;
	return x < y ? -1 : x > y;
}

/* The live slots moved to the front and sorted by address; returns how many, and their sums. */
static size_t compact(table *t, uint64_t *total, uint64_t *stall)
{
	size_t n = 0;
	*total = *stall = 0;
	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i].count) {
			t->slots[n++] = t->slots[i];
			*total += t->slots[i].count;
			*stall += t->slots[i].stall;
		}
	if (n)
		qsort(t->slots, n, sizeof(slot), cmp_addr);
	return n;
}

/* The "# model" name: one range keeps its model's plain name ("ws:5"), as before several
 * ranges were possible; more name each model with its range (flashmap.h). -1: too long. */
static int model_name(char *buf, size_t len)
{
	if (st.fmap.n == 1) {
		rp_fm_map one = { 1, { { 0, 0, st.cfgs[0] } } };
		return rp_fm_map_name(&one, buf, len);
	}
	return rp_fm_map_name(&st.fmap, buf, len);
}

/* Version 3's model header: what the model was and what it counted. With several flash
 * ranges the model is the map's name (flashmap.h: every model with its range), "# flash" is
 * given per range, and "# range" lines say what each range's model counted. */
static void write_model_header(FILE *fp, uint64_t fetch_stall, uint64_t read_stall)
{
	char name[96];
	uint64_t misses = 0;
	model_name(name, sizeof(name));   /* model_ready checked that it fits */
	fprintf(fp, "# model %s\n", name);
	for (size_t i = 0; i < st.fmap.n; i++) {
		rp_fm_stats ms;
		rp_fm_get_stats(st.models[i], &ms);
		misses += ms.misses;
		fprintf(fp, "# flash %" PRIx64 "-%" PRIx64 "\n", st.fmap.r[i].lo, st.fmap.r[i].hi);
		if (st.fmap.n > 1)
			fprintf(fp, "# range %" PRIx64 "-%" PRIx64 " %s stall-fetch %" PRIu64 " stall-read %" PRIu64
				" misses %" PRIu64 " stall-evicted %" PRIu64 "\n", st.fmap.r[i].lo, st.fmap.r[i].hi,
				st.cfgs[i].name, st.fetch_stall[i], st.read_stall[i], ms.misses, st.evicted[i]);
	}
	fprintf(fp, "# stall-fetch %" PRIu64 "\n# stall-read %" PRIu64 "\n# misses %" PRIu64 "\n# stall-evicted %" PRIu64
		"\n", fetch_stall, read_stall, misses, evictions_stall());
}

/* Writes the file; returns 0, or -1 with errno set (a write error, disk full). */
static int write_counts(FILE *fp, table *t, uint64_t tb_execs, uint64_t ntrans)
{
	uint64_t total, fetch_stall, reads, read_stall;
	size_t n = compact(t, &total, &fetch_stall), nd = st.model ? compact(&data_tab, &reads, &read_stall) : 0;
	fprintf(fp, "# ramplace-qemu %d\n# target %s\n# mode %s\n# translations %" PRIu64 "\n",
		st.model ? (entry_stall_on() ? 5 : 4) : 2,
		st.target, st.per_insn ? "insn" : "tb", ntrans);
	if (!st.per_insn)
		fprintf(fp, "# blocks-executed %" PRIu64 "\n", tb_execs);
	if (st.model)
		write_model_header(fp, fetch_stall, read_stall);
	fprintf(fp, "# insns-executed %" PRIu64 "\n# addresses %zu\n", total, n);
	for (size_t k = 0; k < n; k++) {
		const slot *s = &t->slots[k];
		char hex[2 * MAX_INSN_BYTES + 1] = "00";   /* QEMU gave no bytes: a placeholder that cannot verify */
		for (size_t i = 0; i < s->insn.len; i++)
			snprintf(hex + 2 * i, 3, "%02x", s->insn.bytes[i]);
		fprintf(fp, "%" PRIx64 " %" PRIu64 " %s", s->addr, s->count, hex);
		if (st.model)
			fprintf(fp, " %" PRIu64, s->stall);
		fputc('\n', fp);
	}
	if (st.model)
		fprintf(fp, "# data-addresses %zu\n", nd);
	for (size_t k = 0; k < nd; k++)
		fprintf(fp, "d %" PRIx64 " %" PRIu64 " %" PRIu64 "\n", data_tab.slots[k].addr, data_tab.slots[k].count,
			data_tab.slots[k].stall);
	if (st.model)
		evictions_write(fp);
	if (st.model && entry_stall_on())
		entry_stall_write(fp);
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
	swo_emit_stop();
	entry_stall_report();
	table t = { NULL, 0, 0 };
	uint64_t tb_execs = 0, ntrans = 0;
	char tmp[4200];
	int bad = st.failed;
	if (st.trace && st.trace_period) {
		/* what was first touched after the last window: its cold misses */
		fprintf(st.trace, "# footprint\n");
		if (recency_write(st.trace) != 0)
			recency_lost();
		bad |= st.failed;
		recency_free();
		fprintf(st.trace, "# accesses %" PRIu64 "\n", st.trace_seen);
	}
	if (st.trace)
		fflush(st.trace);
	for (block *b = st.blocks; b && !bad; b = b->next) {
		ntrans++;
		tb_execs += b->count;
		for (size_t i = 0; i < b->n && !bad; i++) {
			uint64_t c = st.per_insn ? b->insn_counts[i] : b->count;
			bad = c && table_add(&t, &b->insns[i], c, b->insns[i].stall) != 0;
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
	free(data_tab.slots);
	evictions_free();
	for (size_t i = 0; i < st.ncfgs; i++)
		rp_fm_free(st.models[i]);
	if (st.trace && fclose(st.trace) != 0)
		report("could not write the trace", errno);
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

/* trace=, trace-window=, trace-period= */
static int is_trace_option(const char *a)
{
	return strncmp(a, "trace=", 6) == 0 || strncmp(a, "trace-window=", 13) == 0 || strncmp(a, "trace-period=", 13) == 0;
}

/* model=SPEC, flash=LO-HI, trace=FILE: 0, or -1 after saying why. model= and flash= may be
 * repeated: the n-th model applies to the n-th range, each with a model instance of its own. */
static int model_option(const char *a)
{
	char why[200], *end;
	int is_model = strncmp(a, "model=", 6) == 0;
	if ((is_model ? st.ncfgs : st.nflash) >= RP_FM_MAX_RANGES && !is_trace_option(a)) {
		fprintf(stderr, "ramplace-qemu: '%s': at most %d model=/flash= pairs\n", a, RP_FM_MAX_RANGES);
		return -1;
	}
	if (is_model) {
		if (rp_fm_parse(&st.cfgs[st.ncfgs], a + 6, why, sizeof(why)) != 0) {
			fprintf(stderr, "ramplace-qemu: %s\n", why);
			return -1;
		}
		if (!(st.models[st.ncfgs] = rp_fm_new(&st.cfgs[st.ncfgs]))) {
			fprintf(stderr, "ramplace-qemu: out of memory\n");
			return -1;
		}
		st.model = st.models[0];
		st.ncfgs++;
		return 0;
	}
	if (strncmp(a, "trace-window=", 13) == 0 || strncmp(a, "trace-period=", 13) == 0) {
		char *e;
		errno = 0;
		unsigned long long v = strtoull(a + 13, &e, 10);
		if (errno || e == a + 13 || *e || v == 0 || a[13] == '-') {
			fprintf(stderr, "ramplace-qemu: %s: not a count of accesses above 0\n", a);
			return -1;
		}
		*(a[6] == 'w' ? &st.trace_window : &st.trace_period) = v;
		return 0;
	}
	if (strncmp(a, "trace=", 6) == 0) {
		if (a[6] && (st.trace = fopen(a + 6, "we")))
			return 0;
		fprintf(stderr, "ramplace-qemu: trace=%s: %s\n", a + 6, a[6] ? strerror(errno) : "no file name");
		return -1;
	}
	errno = 0;
	uint64_t lo = strtoull(a + 6, &end, 16);
	if (!errno && end != a + 6 && *end == '-') {
		const char *hi = end + 1;
		uint64_t h = strtoull(hi, &end, 16);
		if (!errno && end != hi && !*end && h > lo) {
			st.flash_lo[st.nflash] = lo;
			st.flash_hi[st.nflash++] = h;
			return 0;
		}
	}
	fprintf(stderr, "ramplace-qemu: '%s': expected flash=LO-HI, hex addresses, LO below HI (e.g. flash=0-400000)\n", a);
	return -1;
}

/* model= needs flash=, and flash= and trace= need model=; as many of each, ranges apart. */
static int model_ready(void)
{
	char why[200], name[96];
	if (!st.model && (st.nflash || st.trace)) {
		fprintf(stderr, "ramplace-qemu: flash= and trace= need model=SPEC (e.g. model=ws:5)\n");
		return -1;
	}
	if (entry_stall_on() && !st.model) {
		fprintf(stderr, "ramplace-qemu: entry= needs model=SPEC: the stall cycles are the model's\n");
		return -1;
	}
	if (!st.trace_window != !st.trace_period || st.trace_window > st.trace_period || (st.trace_period && !st.trace)) {
		fprintf(stderr, "ramplace-qemu: trace-window=N and trace-period=M go together, with trace=FILE and N <= M\n");
		return -1;
	}
	if (st.model && !st.nflash) {
		fprintf(stderr, "ramplace-qemu: model= needs flash=LO-HI: the addresses the model applies to\n");
		return -1;
	}
	if (st.ncfgs != st.nflash) {
		fprintf(stderr, "ramplace-qemu: %zu model= but %zu flash=: the n-th model applies to the n-th flash range\n",
			st.ncfgs, st.nflash);
		return -1;
	}
	for (size_t i = 0; i < st.ncfgs; i++)
		if (rp_fm_map_add(&st.fmap, &st.cfgs[i], st.flash_lo[i], st.flash_hi[i], why, sizeof(why)) != 0) {
			fprintf(stderr, "ramplace-qemu: %s\n", why);
			return -1;
		}
	if (st.ncfgs && model_name(name, sizeof(name)) != 0) {
		fprintf(stderr, "ramplace-qemu: the models with their ranges take more than %zu characters (profile.db "
			"keeps that many)\n", sizeof(name) - 1);
		return -1;
	}
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
		} else if (strncmp(a, "model=", 6) == 0 || strncmp(a, "flash=", 6) == 0 || is_trace_option(a)) {
			if (model_option(a) != 0)
				return -1;
		} else if (strncmp(a, "entry", 5) == 0) {
			int r = entry_stall_option(a);
			if (r == 0)
				fprintf(stderr, "ramplace-qemu: unknown option '%s' (entry=ADDR, entry-window=N)\n", a);
			if (r != 1)
				return -1;
		} else if (strncmp(a, "swo", 3) == 0) {
			if (swo_emit_option(a) != 1)
				return -1;
		} else {
			fprintf(stderr, "ramplace-qemu: unknown option '%s' (out=FILE, mode=tb|insn) or a flash model option (model=SPEC, flash=LO-HI, trace=FILE, trace-window=N, trace-period=M, entry=ADDR, entry-window=N) or an SWO one (swo=FILE|tcp:PORT, swo-interval=N, swo-tpiu=on|off)\n", a);
			return -1;
		}
	}
	if (model_ready() != 0)
		return -1;
	if (!(st.out = strdup(out))) {
		fprintf(stderr, "ramplace-qemu: out of memory\n");
		return -1;
	}
	if (check_out() != 0) {
		free(st.out);
		st.out = NULL;
		return -1;
	}
	if (swo_emit_start() != 0)
		return -1;
	snprintf(st.target, sizeof(st.target), "%s", info && info->target_name ? info->target_name : "unknown");
	entry_stall_target(st.target);
	entry_stall_reader(model_data_read);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
