/* entry_stall.c: handlers' entry stall cycles (entry_stall.h). Owns the entry addresses and,
 * per entry, the worst window and the count of invocations; one window is open at a time (an
 * entry met inside a window, a nested or tail-chained handler, closes it and opens its own).
 * Workload: a callback on every instruction executed, only when entry= was given (the run is
 * then a few times slower); nothing at all without it. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "entry_stall.h"

/* ---- the QEMU 7.2 plugin API subset used here (include/qemu/qemu-plugin.h, version 1) ---- */
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags, void *userdata);
/* ---- end of the API subset ---- */

#define MAX_ENTRIES 16

static struct {
	uint64_t addr[MAX_ENTRIES];
	uint64_t worst[MAX_ENTRIES], count[MAX_ENTRIES];
	uint64_t sum[MAX_ENTRIES];   /* every invocation's window summed: the mean's numerator */
	size_t n;
	unsigned window;         /* instructions per window (entry-window=, 16) */
	int open;                /* the entry whose window is open, or -1 */
	unsigned left;           /* instructions the open window still counts */
	uint64_t acc;            /* its stall cycles so far */
} es = { .window = 16, .open = -1 };

static int parse_u64(const char *text, int base, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(text, &end, base);
	if (errno || end == text || *end || *text == '-')
		return -1;
	*out = v;
	return 0;
}

int entry_stall_option(const char *a)
{
	uint64_t v;
	if (strncmp(a, "entry=", 6) == 0) {
		const char *hex = strncmp(a + 6, "0x", 2) == 0 ? a + 8 : a + 6;
		if (es.n == MAX_ENTRIES || parse_u64(hex, 16, &v)) {
			fprintf(stderr, "ramplace-qemu: %s: not a hex address, or more than %d entry= options\n", a,
				MAX_ENTRIES);
			return -1;
		}
		es.addr[es.n++] = v & ~1ull;   /* a Thumb address's bit 0 is no part of it */
		return 1;
	}
	if (strncmp(a, "entry-window=", 13) == 0) {
		if (parse_u64(a + 13, 10, &v) || v == 0 || v > 1000000) {
			fprintf(stderr, "ramplace-qemu: %s: not a count of instructions from 1 to 1000000\n", a);
			return -1;
		}
		es.window = (unsigned)v;
		return 1;
	}
	return 0;
}

int entry_stall_on(void)
{
	return es.n > 0;
}

static void close_window(void)
{
	if (es.open < 0)
		return;
	if (es.acc > es.worst[es.open])
		es.worst[es.open] = es.acc;
	es.sum[es.open] += es.acc;
	es.count[es.open]++;
	es.open = -1;
}

/* udata: the entry's index + 1, or 0 for any other instruction. */
static void tick(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	uintptr_t entry = (uintptr_t)udata;
	if (entry) {
		close_window();
		es.open = (int)(entry - 1);
		es.left = es.window;
		es.acc = 0;
	}
	if (es.open >= 0 && es.left-- == 0)
		close_window();
}

void entry_stall_translate(struct qemu_plugin_insn *insn, uint64_t vaddr)
{
	uintptr_t entry = 0;
	for (size_t i = 0; i < es.n && !entry; i++)
		if (es.addr[i] == (vaddr & ~1ull))
			entry = i + 1;
	qemu_plugin_register_vcpu_insn_exec_cb(insn, tick, QEMU_PLUGIN_CB_NO_REGS, (void *)entry);
}

void entry_stall_add(uint64_t stall)
{
	if (es.open >= 0)
		es.acc += stall;
}

void entry_stall_report(void)
{
	close_window();
	for (size_t i = 0; i < es.n; i++)
		fprintf(stderr, "ramplace-qemu: entry 0x%" PRIx64 ": worst %" PRIu64 " stall cycles in its first %u "
			"instructions, %" PRIu64 " invocations\n", es.addr[i], es.worst[i], es.window, es.count[i]);
}

void entry_stall_write(FILE *fp)
{
	close_window();
	fprintf(fp, "# entries %zu window %u\n", es.n, es.window);
	for (size_t i = 0; i < es.n; i++)
		fprintf(fp, "h %" PRIx64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", es.addr[i], es.count[i], es.worst[i],
			es.sum[i]);
}
