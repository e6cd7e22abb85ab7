/* test_entry_stall.c: the QEMU plugin's handler measurements (ramplace/qemu-plugin/entry_stall.c,
 * compiled into this test) driven instruction by instruction as the plugin's callbacks would:
 * the Thumb and RISC-V instructions that call and return, an invocation's end read from where
 * execution goes on after a return (back to a call of its own, on past a conditional return not
 * taken, elsewhere: the exception return), tail-chaining, nesting, the vector read charged on
 * entry, and the "h" lines written. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "entry_stall.h"

/* The plugin API the module registers through: the tests call entry_stall_step themselves. */
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, void (*cb)(unsigned int, void *),
					    int flags, void *userdata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, void (*cb)(unsigned int, void *),
					    int flags, void *userdata)
{
	(void)insn;
	(void)cb;
	(void)flags;
	(void)userdata;
}

static void classify_thumb_and_riscv(void **state)
{
	(void)state;
	static const uint8_t bx_lr[] = { 0x70, 0x47 }, pop_pc[] = { 0x10, 0xbd }, blx_r3[] = { 0x98, 0x47 },
			     bl[] = { 0x00, 0xf0, 0x08, 0xf8 }, pop_w[] = { 0xbd, 0xe8, 0xf0, 0x8f },
			     ldr_pc[] = { 0x5d, 0xf8, 0x04, 0xfb }, mov[] = { 0x08, 0x46 }, b_w[] = { 0x00, 0xf0, 0x08, 0xb8 },
			     mret[] = { 0x73, 0x00, 0x20, 0x30 }, ecall[] = { 0x73, 0x00, 0x00, 0x00 };
	assert_int_equal(entry_stall_classify(bx_lr, 2, 0), ES_RETURN);
	assert_int_equal(entry_stall_classify(pop_pc, 2, 0), ES_RETURN);
	assert_int_equal(entry_stall_classify(blx_r3, 2, 0), ES_CALL);
	assert_int_equal(entry_stall_classify(bl, 4, 0), ES_CALL);
	assert_int_equal(entry_stall_classify(pop_w, 4, 0), ES_RETURN);
	assert_int_equal(entry_stall_classify(ldr_pc, 4, 0), ES_RETURN);
	assert_int_equal(entry_stall_classify(mov, 2, 0), 0);
	static const uint8_t it_eq[] = { 0x08, 0xbf }, nop[] = { 0x00, 0xbf };
	assert_int_equal(entry_stall_classify(it_eq, 2, 0), ES_IT);
	assert_int_equal(entry_stall_classify(nop, 2, 0), 0);   /* a hint, no IT */
	assert_int_equal(entry_stall_classify(b_w, 4, 0), 0);   /* b.w: a tail jump, no call */
	assert_int_equal(entry_stall_bl_target(bl, 4, 0x202), 0x216);
	static const uint8_t bl_back[] = { 0xff, 0xf7, 0xc0, 0xff };   /* bl . - 0x7c */
	assert_int_equal(entry_stall_bl_target(bl_back, 4, 0x1008), 0xf8c);
	assert_int_equal(entry_stall_bl_target(b_w, 4, 0x202), 0);
	assert_int_equal(entry_stall_classify(mret, 4, 1), ES_EXC_RETURN);
	assert_int_equal(entry_stall_classify(ecall, 4, 1), 0);
	assert_int_equal(entry_stall_classify(mret, 4, 0), 0);   /* those bytes on Thumb are no mret */
}

/* One instruction about to run. Its record lives on, as the plugin's translated ones do (a
 * return is judged at the next instruction, through its record). */
static void step_to(uint64_t vaddr, unsigned len, int entry, unsigned kind, uint64_t target)
{
	static es_insn ring[16];
	static unsigned next;
	es_insn *in = &ring[next++ % 16];
	*in = (es_insn){ vaddr, (uint8_t)len, entry, kind, target };
	entry_stall_step(in);
}

static void step(uint64_t vaddr, unsigned len, int entry, unsigned kind)
{
	step_to(vaddr, len, entry, kind, 0);
}

/* The "h" line of the entry at addr, from what entry_stall_write writes now. */
static void h_line(const char *addr, char *line, size_t size)
{
	static char buf[4096];
	FILE *fp = fmemopen(buf, sizeof(buf), "w");
	assert_non_null(fp);
	entry_stall_write(fp);
	fclose(fp);
	char key[32];
	snprintf(key, sizeof(key), "h %s ", addr);
	const char *p = strstr(buf, key);
	assert_non_null(p);
	size_t n = strcspn(p, "\n");
	snprintf(line, size, "%.*s", (int)n, p);
}

/* The model's data read, as the plugin gives it: notes the address, charges 5 cycles. */
static uint64_t read_at;
static void fake_read(uint64_t addr, unsigned size)
{
	read_at = addr;
	entry_stall_add(size == 4 ? 5 : 1000);
}

/* One test drives the module through every case in turn: its state is the plugin's own (one
 * process, one set of entries), so each case uses an entry of its own. */
static void invocations(void **state)
{
	(void)state;
	char line[128];
	assert_int_equal(entry_stall_option("entry=200"), 1);   /* A: calls and returns */
	assert_int_equal(entry_stall_option("entry=300"), 1);   /* B: tail-chained after A */
	assert_int_equal(entry_stall_option("entry=0x401"), 1); /* C: nested in D; a Thumb address */
	assert_int_equal(entry_stall_option("entry=500"), 1);   /* D */
	assert_int_equal(entry_stall_option("entry=900@3c"), 1); /* E: its vector read charged */
	assert_int_equal(entry_stall_option("entry=900@"), -1);
	assert_int_equal(entry_stall_option("entry=900@0"), -1);
	assert_int_equal(entry_stall_option("entry-window=2"), 1);
	entry_stall_target("arm");
	entry_stall_reader(fake_read);

	/* A: entered from thread code, calls f (which returns to it), a conditional return not
	 * taken, then its exception return: 5 + 3 + 2 + 1 stall cycles in all, 5 in its window */
	step(0x100, 2, 0, 0);
	entry_stall_add(7);               /* thread code: no invocation, no window */
	step(0x200, 2, 1, 0);
	entry_stall_add(5);
	step(0x202, 4, 0, ES_CALL);       /* bl f: returns to 0x206 */
	step(0x600, 2, 0, 0);             /* f; the window (2 instructions) closed before it */
	entry_stall_add(3);
	step(0x602, 2, 0, ES_RETURN);     /* f's bx lr */
	step(0x206, 2, 0, ES_RETURN | ES_COND);   /* back in A: a conditional pop {pc}, not taken */
	entry_stall_add(2);
	step(0x208, 2, 0, 0);             /* it went on: A still runs */
	entry_stall_add(1);
	step(0x20a, 2, 0, ES_RETURN);     /* A's pop {pc}: the exception return */
	step(0x102, 2, 0, 0);             /* thread code again */
	entry_stall_add(4);               /* not A's */
	h_line("200", line, sizeof(line));
	assert_string_equal(line, "h 200 1 5 5 1 11");

	/* A again, then B tail-chained: A's return goes on at B's entry */
	step(0x200, 2, 1, 0);
	entry_stall_add(2);
	step(0x202, 2, 0, ES_RETURN);
	step(0x300, 2, 2, 0);
	entry_stall_add(6);
	step(0x302, 2, 0, ES_RETURN);
	step(0x104, 2, 0, 0);
	h_line("200", line, sizeof(line));
	assert_string_equal(line, "h 200 2 5 7 2 11");
	h_line("300", line, sizeof(line));
	assert_string_equal(line, "h 300 1 6 6 1 6");

	/* D entered, C nested in it: C's stall delays D too; C's return ends C only */
	step(0x500, 2, 4, 0);
	entry_stall_add(1);
	step(0x400, 2, 3, 0);
	entry_stall_add(8);
	step(0x402, 2, 0, ES_RETURN);
	step(0x502, 2, 0, 0);             /* back in D, where C came in */
	entry_stall_add(1);
	step(0x504, 2, 0, ES_RETURN);
	step(0x106, 2, 0, 0);
	h_line("400", line, sizeof(line));
	assert_string_equal(line, "h 400 1 8 8 1 8");
	h_line("500", line, sizeof(line));
	assert_string_equal(line, "h 500 1 1 1 1 10");   /* its window closed when C's opened */

	/* A calls g, g calls h, h returns (bx lr) to A's own call site (g's return address lost: a
	 * tail call through a register); then A's return goes to neither: the exception return */
	step(0x200, 2, 1, 0);
	step(0x202, 4, 0, ES_CALL);       /* -> g, back at 0x206 */
	step(0x700, 4, 0, ES_CALL);       /* g -> h, back at 0x704 */
	step(0x800, 2, 0, ES_RETURN);     /* h returns straight to 0x206 */
	step(0x206, 2, 0, 0);             /* the window (2 instructions) is over */
	entry_stall_add(20);
	step(0x208, 2, 0, ES_RETURN);     /* A's return goes to none of its calls: its end */
	step(0x110, 2, 0, 0);
	entry_stall_add(1);               /* thread code: not A's */
	h_line("200", line, sizeof(line));
	assert_string_equal(line, "h 200 3 5 7 3 20");

	/* A calls f; f returns and, before A goes on, B comes in (QEMU takes interrupts between
	 * blocks, and a return ends one): f's return is judged once B has returned, by where A went
	 * on, and A is still running */
	step(0x200, 2, 1, 0);
	step(0x202, 4, 0, ES_CALL);       /* -> f, back at 0x206 */
	step(0x600, 2, 0, ES_RETURN);     /* f's bx lr */
	step(0x300, 2, 2, 0);             /* B's entry */
	entry_stall_add(4);
	step(0x302, 2, 0, ES_RETURN);     /* B's exception return */
	step(0x206, 2, 0, 0);             /* A goes on after its call */
	entry_stall_add(30);
	step(0x208, 2, 0, ES_RETURN);     /* A's exception return */
	step(0x112, 2, 0, 0);
	h_line("200", line, sizeof(line));
	assert_string_equal(line, "h 200 4 5 7 4 34");   /* 4 of B's and 30 of its own, whole */
	h_line("300", line, sizeof(line));
	assert_string_equal(line, "h 300 2 6 10 2 6");

	/* no new invocation for a loop back to B's first instruction, nor for a bl to A (A called
	 * as a function, from B) */
	step(0x300, 2, 2, 0);
	step(0x302, 2, 0, 0);
	step(0x300, 2, 2, 0);             /* b . back to the entry */
	step_to(0x304, 4, 0, ES_CALL, 0x200);
	step(0x200, 2, 1, 0);             /* A, called */
	entry_stall_add(2);
	step(0x202, 2, 0, ES_RETURN);
	step(0x308, 2, 0, 0);             /* back in B */
	step(0x30a, 2, 0, ES_RETURN);
	step(0x114, 2, 0, 0);
	h_line("300", line, sizeof(line));
	assert_string_equal(line, "h 300 3 6 10 3 6");   /* one more invocation, 2 cycles (worst stays 6) */
	h_line("200", line, sizeof(line));
	assert_string_equal(line, "h 200 4 5 7 4 34");   /* A not entered as an exception */

	/* E: the vector word read on entry, before its first instruction, counts in its window */
	step(0x900, 2, 5, 0);
	assert_int_equal(read_at, 0x3c);
	entry_stall_add(1);
	step(0x902, 2, 0, ES_RETURN);
	step(0x108, 2, 0, 0);
	h_line("900", line, sizeof(line));
	assert_string_equal(line, "h 900 1 6 6 1 6");

	/* D entered and never seen to return before the run ends: counted, not measured */
	step(0x500, 2, 4, 0);
	entry_stall_add(50);
	h_line("500", line, sizeof(line));
	assert_string_equal(line, "h 500 2 50 51 1 10");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(classify_thumb_and_riscv),
		cmocka_unit_test(invocations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
