/* entry_stall.c: handlers' entry and invocation stall cycles (entry_stall.h). Owns the entry
 * addresses and, per entry, the worst window, the windows' sum, the count of invocations, the
 * worst whole invocation and how many invocations were seen to return; one window is open at a
 * time (an entry met inside a window, a nested or tail-chained handler, closes it and opens its
 * own), and a stack of open invocations (nested handlers).
 *
 * The plugin sees neither registers nor the exception return itself, so an invocation's end is
 * read from the instructions: on RISC-V its `mret`; on Cortex-M, a return (`bx lr`, `pop {..pc}`,
 * `ldr pc, [sp], #4`, `ldm sp!, {..pc}`) that goes to none of the return addresses of the calls
 * (`bl`, `blx`) the handler made and has not yet returned from (a shadow stack; a return to a
 * deeper one unwinds to it), and not on to the next instruction (a conditional return not
 * taken). QEMU takes interrupts between blocks, and a return ends one: a return of the handler's
 * callee followed by another handler's entry is judged when that handler has returned, by where
 * execution then goes on. Executing an entry address is an exception entry unless the previous
 * instruction was a bl to it (the handler called as a function) or that entry's own invocation
 * is the innermost open one (a loop back to its first instruction, `b .`: an exception does not
 * preempt itself). An invocation that runs a million instructions without a return is given up
 * (counted, not measured): a return in a form not read here, a handler that never returns. A
 * handler that is not measured ends the invocation it preempts (its return goes to no pending
 * call). The entry's window ends with its invocation at the latest.
 * Workload: a callback on every instruction executed, only when entry= was given (the run is
 * then a few times slower); nothing at all without it. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "entry_stall.h"
#include "ramplace/costs.h"   /* RP_PLUGIN_ENTRIES, shared with callgraph --handlers */

/* ---- the QEMU 7.2 plugin API subset used here (include/qemu/qemu-plugin.h, version 1) ---- */
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags, void *userdata);
/* ---- end of the API subset ---- */

#define MAX_ENTRIES RP_PLUGIN_ENTRIES
#define MAX_NESTED 8          /* open invocations (nested handlers) followed at once */
#define MAX_CALLS 64          /* calls of one invocation followed (deeper ones are not) */
#define GIVE_UP_INSNS 1000000 /* an invocation this long without a seen return is given up */

typedef struct invocation {
	int entry;
	uint64_t stall, insns;
	uint64_t calls[MAX_CALLS];   /* return addresses of the calls it made, innermost last */
	unsigned ncalls, lost_calls; /* calls past MAX_CALLS: their returns are not matched */
	int has_window;              /* the open window is this invocation's entry's */
	const es_insn *pending;      /* a return of its callee that a nested entry followed: judged
					when it is the innermost again */
} invocation;

static struct {
	uint64_t addr[MAX_ENTRIES];
	uint64_t vector[MAX_ENTRIES];    /* the vector slot the core reads on entry (@SLOT), or 0 */
	void (*read)(uint64_t addr, unsigned size);   /* charges a data read through the model */
	uint64_t worst[MAX_ENTRIES], count[MAX_ENTRIES];
	uint64_t sum[MAX_ENTRIES];       /* every invocation's window summed: the mean's numerator */
	uint64_t inv_worst[MAX_ENTRIES]; /* the worst whole invocation, entry to return */
	uint64_t returned[MAX_ENTRIES];  /* invocations seen to return (inv_worst is of these) */
	size_t n;
	unsigned window;         /* instructions per window (entry-window=, 16) */
	int open;                /* the entry whose window is open, or -1 */
	unsigned left;           /* instructions the open window still counts */
	uint64_t acc;            /* its stall cycles so far */
	int riscv;               /* the target's returns are mret */
	invocation inv[MAX_NESTED];
	unsigned ninv;
	const es_insn *returning; /* a return executed by the innermost invocation, judged at the
				     next instruction */
	unsigned it_left;         /* translation: instructions of an IT block still to come */
	const es_insn *prev;      /* the instruction executed last */
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
		char hex[40] = "";
		uint64_t slot = 0;
		const char *at = strchr(a + 6, '@');
		size_t len = at ? (size_t)(at - (a + 6)) : strlen(a + 6);
		if (len < sizeof(hex))
			snprintf(hex, sizeof(hex), "%.*s", (int)len, a + 6);
		const char *h = strncmp(hex, "0x", 2) == 0 ? hex + 2 : hex;
		const char *s = at && strncmp(at + 1, "0x", 2) == 0 ? at + 3 : at ? at + 1 : NULL;
		if (es.n == MAX_ENTRIES || len >= sizeof(hex) || parse_u64(h, 16, &v) || (s && (parse_u64(s, 16, &slot) || !slot))) {
			fprintf(stderr, "ramplace-qemu: %s: not a hex address (ADDR or ADDR@VECTOR-SLOT), or more than %d "
				"entry= options\n", a, MAX_ENTRIES);
			return -1;
		}
		es.vector[es.n] = slot;
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

void entry_stall_reader(void (*read)(uint64_t addr, unsigned size))
{
	es.read = read;
}

void entry_stall_target(const char *target_name)
{
	es.riscv = target_name && strncmp(target_name, "riscv", 5) == 0;
}

static uint16_t half(const uint8_t *b, size_t at)
{
	return (uint16_t)(b[at] | b[at + 1] << 8);
}

unsigned entry_stall_classify(const uint8_t *b, size_t len, int riscv)
{
	if (riscv)
		return len == 4 && half(b, 0) == 0x0073 && half(b, 2) == 0x3020 ? ES_EXC_RETURN : 0;   /* mret */
	if (len == 2) {
		uint16_t h = half(b, 0);
		if ((h & 0xff00) == 0xbf00 && (h & 0xf))      /* it: the next 1 to 4 are conditional */
			return ES_IT;
		if (h == 0x4770 || (h & 0xff00) == 0xbd00)   /* bx lr; pop {..., pc} */
			return ES_RETURN;
		return (h & 0xff87) == 0x4780 ? ES_CALL : 0;  /* blx rm */
	}
	if (len != 4)
		return 0;
	uint16_t h = half(b, 0), h2 = half(b, 2);
	if ((h & 0xf800) == 0xf000 && (h2 & 0xd000) == 0xd000)   /* bl */
		return ES_CALL;
	if ((h == 0xe8bd && (h2 & 0x8000)) || (h == 0xf85d && h2 == 0xfb04))   /* pop.w {..pc}; ldr.w pc, [sp], #4 */
		return ES_RETURN;
	return 0;
}

uint64_t entry_stall_bl_target(const uint8_t *b, size_t len, uint64_t vaddr)
{
	if (len != 4)
		return 0;
	uint16_t h = half(b, 0), h2 = half(b, 2);
	if ((h & 0xf800) != 0xf000 || (h2 & 0xd000) != 0xd000)
		return 0;
	uint32_t s = h >> 10 & 1, j1 = h2 >> 13 & 1, j2 = h2 >> 11 & 1;
	uint32_t i1 = !(j1 ^ s), i2 = !(j2 ^ s);
	uint32_t imm = s << 24 | i1 << 23 | i2 << 22 | (uint32_t)(h & 0x3ff) << 12 | (uint32_t)(h2 & 0x7ff) << 1;
	int64_t off = s ? (int64_t)imm - ((int64_t)1 << 25) : (int64_t)imm;   /* sign-extended from bit 24 */
	return (vaddr + 4 + (uint64_t)off) & 0xffffffffull;
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

static void close_invocation(void)
{
	invocation *v = &es.inv[--es.ninv];
	if (v->has_window)
		close_window();
	if (v->stall > es.inv_worst[v->entry])
		es.inv_worst[v->entry] = v->stall;
	es.returned[v->entry]++;
}

/* A return the innermost invocation executed, judged by where execution went on (at): back to a
 * call of its own, on at the next instruction (a conditional return not taken), or elsewhere:
 * the exception return, after which the invocation it had preempted may have a return of its
 * own to judge by the same address. */
static void judge_return(const es_insn *ret, uint64_t at)
{
	invocation *v = &es.inv[es.ninv - 1];
	if (at == ret->vaddr + ret->len)
		return;   /* not taken (an IT block's, whether or not the block was seen) */
	for (unsigned k = v->ncalls; k-- > 0;)
		if (v->calls[k] == at) {   /* back to a call of its own (a deeper one: unwound) */
			v->ncalls = k;
			return;
		}
	if (v->lost_calls) {   /* a return from a call too deep to follow */
		v->lost_calls--;
		return;
	}
	close_invocation();
	if (es.ninv && es.inv[es.ninv - 1].pending) {
		const es_insn *p = es.inv[es.ninv - 1].pending;
		es.inv[es.ninv - 1].pending = NULL;
		judge_return(p, at);
	}
}

/* Whether executing in (an entry address) is an exception entry: not a bl to it, not a loop back
 * within its own open invocation. */
static int exception_entry(const es_insn *in)
{
	if (!in->entry)
		return 0;
	if (es.prev && (es.prev->kind & ES_CALL) && es.prev->target == in->vaddr)
		return 0;
	return !(es.ninv && es.inv[es.ninv - 1].entry == in->entry - 1);
}

void entry_stall_step(const es_insn *in)
{
	const es_insn *r = es.returning;
	es.returning = NULL;
	if (r && es.ninv) {
		invocation *top = &es.inv[es.ninv - 1];
		if (in->entry && (top->ncalls || top->lost_calls) && !top->pending &&
		    !(es.prev && (es.prev->kind & ES_CALL) && es.prev->target == in->vaddr))
			top->pending = r;   /* a callee's return, then an interrupt: judged after it */
		else
			judge_return(r, in->vaddr);
	}
	int entering = exception_entry(in);
	es.prev = in;
	if (entering) {
		close_window();
		es.open = in->entry - 1;
		es.left = es.window;
		es.acc = 0;
		if (es.ninv == MAX_NESTED) {   /* deeper than followed: the oldest is given up */
			memmove(&es.inv[0], &es.inv[1], (MAX_NESTED - 1) * sizeof(invocation));
			es.ninv--;
		}
		for (unsigned i = 0; i < es.ninv; i++)
			es.inv[i].has_window = 0;
		es.inv[es.ninv++] = (invocation){ .entry = in->entry - 1, .has_window = 1 };
		/* the core read the vector before the handler's first fetch: charged first, into this
		 * window and invocation (and the run's data reads) */
		if (es.vector[in->entry - 1] && es.read)
			es.read(es.vector[in->entry - 1], 4);
	}
	if (es.open >= 0 && es.left-- == 0)
		close_window();
	if (!es.ninv)
		return;
	invocation *v = &es.inv[es.ninv - 1];
	if (++v->insns > GIVE_UP_INSNS) {
		es.ninv--;
		return;
	}
	if (in->kind & ES_EXC_RETURN) {
		close_invocation();
		if (es.ninv && es.inv[es.ninv - 1].pending) {   /* judged where execution goes on next */
			es.returning = es.inv[es.ninv - 1].pending;
			es.inv[es.ninv - 1].pending = NULL;
		}
	} else if (in->kind & ES_CALL) {
		if (v->ncalls < MAX_CALLS)
			v->calls[v->ncalls++] = in->vaddr + in->len;
		else
			v->lost_calls++;
	} else if (in->kind & ES_RETURN) {
		es.returning = in;
	}
}

static void tick(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	entry_stall_step(udata);
}

/* The per-instruction records the callbacks carry, in blocks that live as long as the plugin:
 * a retranslated instruction gets a new one (entry= runs are diagnostic, not long-lived). */
static es_insn *new_record(void)
{
	static es_insn *block;
	static size_t used, cap;
	if (used == cap) {
		cap = 4096;
		used = 0;
		if (!(block = calloc(cap, sizeof(es_insn))))
			return NULL;
	}
	return &block[used++];
}

void entry_stall_translate(struct qemu_plugin_insn *insn, uint64_t vaddr, const uint8_t *bytes, size_t len)
{
	es_insn *r = new_record();
	if (!r)
		return;
	r->vaddr = vaddr & ~1ull;
	r->len = (uint8_t)len;
	for (size_t i = 0; i < es.n && !r->entry; i++)
		if (es.addr[i] == r->vaddr)
			r->entry = (int)i + 1;
	unsigned kind = bytes ? entry_stall_classify(bytes, len, es.riscv) : 0;
	/* an IT block's instructions follow it in the same block of translation */
	static uint64_t next_vaddr;
	if (r->vaddr != next_vaddr)
		es.it_left = 0;
	next_vaddr = r->vaddr + len;
	if (es.it_left) {
		es.it_left--;
		kind |= ES_COND;
	}
	if (kind & ES_IT) {
		unsigned mask = bytes[0] & 0xf;
		es.it_left = mask & 1 ? 4 : mask & 2 ? 3 : mask & 4 ? 2 : 1;
		kind = 0;
	}
	r->kind = kind;
	r->target = bytes && !es.riscv && (kind & ES_CALL) ? entry_stall_bl_target(bytes, len, r->vaddr) : 0;
	qemu_plugin_register_vcpu_insn_exec_cb(insn, tick, QEMU_PLUGIN_CB_NO_REGS, r);
}

void entry_stall_add(uint64_t stall)
{
	if (es.open >= 0)
		es.acc += stall;
	for (unsigned i = 0; i < es.ninv; i++)   /* a nested handler's stall delays the outer ones too */
		es.inv[i].stall += stall;
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
		fprintf(fp, "h %" PRIx64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", es.addr[i],
			es.count[i], es.worst[i], es.sum[i], es.returned[i], es.inv_worst[i]);
}
