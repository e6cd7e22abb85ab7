/* test_cfg.c: the control-flow graph (cfg.h) on hand-made instruction lists: the -Os layout of
 * a copy loop (exit test and call before the body), a guarded -O2 loop, a call that never
 * returns, and reachability that avoids a set of instructions (dominance as the reset path
 * uses it). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ramplace/cfg.h"

static rp_insn op(uint64_t addr) { rp_insn in; memset(&in, 0, sizeof(in)); in.addr = addr; in.len = 2; return in; }
static rp_insn jump(uint64_t addr, rp_insn_kind kind, uint64_t target)
{
	rp_insn in = op(addr);
	in.kind = kind;
	in.has_target = 1;
	in.target = target;
	in.no_fallthrough = kind == RP_INSN_JUMP;
	return in;
}

/* Reset_Handler at -Os:  0 ldr; 2 cmp; 4 bcc 10; 6 dsb; 8 bl main; 10 ldr; 12 str; 14 b 2 */
static void test_os_layout(void **state)
{
	(void)state;
	rp_insn v[8] = { op(0), op(2), jump(4, RP_INSN_CONDJUMP, 10), op(6), jump(8, RP_INSN_CALL, 0x100),
			 op(10), op(12), jump(14, RP_INSN_JUMP, 2) };
	unsigned char noreturn[8] = { 0, 0, 0, 0, 1, 0, 0, 0 };   /* main never returns */
	rp_cfg c;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_cfg_build(&c, v, 8, noreturn, &err), 0);
	/* blocks: [0], [2,4], [6,8], [10..14] */
	assert_int_equal(c.nblocks, 4);
	const rp_cfg_loop *l = rp_cfg_loop_of(&c, c.block_of[6]);
	assert_non_null(l);
	assert_int_equal(l->header, c.block_of[1]);
	assert_int_equal(l->size, 2);                       /* test and body, not the call's block */
	assert_null(rp_cfg_loop_of(&c, c.block_of[4]));
	unsigned char avoid[8] = { 0 }, reached[8];
	for (size_t i = 1; i < 8; i++)
		avoid[i] = l->body[c.block_of[i]];
	assert_int_equal(rp_cfg_reach(&c, avoid, reached, &err), 0);
	assert_int_equal(reached[0], 1);
	assert_int_equal(reached[4], 0);                    /* the call to main only after the loop */
	rp_cfg_release(&c);

	/* the same when main may return: the body follows the call, and joins the loop */
	assert_int_equal(rp_cfg_build(&c, v, 8, NULL, &err), 0);
	l = rp_cfg_loop_of(&c, c.block_of[6]);
	assert_int_equal(l->size, 3);
	rp_cfg_release(&c);
}

/* -O2: 0 cmp; 2 bcs 10 (skip when empty); 4 ldr; 6 str; 8 bne 4; 10 bl main; 12 b 12 */
static void test_guarded_loop(void **state)
{
	(void)state;
	rp_insn v[7] = { op(0), jump(2, RP_INSN_CONDJUMP, 10), op(4), op(6), jump(8, RP_INSN_CONDJUMP, 4),
			 jump(10, RP_INSN_CALL, 0x100), jump(12, RP_INSN_JUMP, 12) };
	rp_cfg c;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_cfg_build(&c, v, 7, NULL, &err), 0);
	const rp_cfg_loop *l = rp_cfg_loop_of(&c, c.block_of[3]);
	assert_non_null(l);
	assert_int_equal(l->size, 1);                       /* the body loops on itself */
	assert_non_null(rp_cfg_loop_of(&c, c.block_of[6]));   /* b . */
	unsigned char avoid[7] = { 0, 0, 1, 1, 1, 0, 0 }, reached[7];
	assert_int_equal(rp_cfg_reach(&c, avoid, reached, &err), 0);
	assert_int_equal(reached[5], 1);                    /* the guard skips the loop */
	avoid[0] = avoid[1] = 1;                            /* the guard is part of the copy */
	assert_int_equal(rp_cfg_reach(&c, avoid, reached, &err), 0);
	assert_int_equal(reached[5], 0);
	rp_cfg_release(&c);
}

/* A return in the middle: what follows is reached only through the branch around it. */
static void test_returns_and_outside_targets(void **state)
{
	(void)state;
	rp_insn v[5] = { jump(0, RP_INSN_CONDJUMP, 6), op(2), op(4), op(6), jump(8, RP_INSN_JUMP, 0x4000) };
	v[2].no_fallthrough = 1;   /* bx lr */
	rp_cfg c;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_cfg_build(&c, v, 5, NULL, &err), 0);
	unsigned char avoid[5] = { 0, 0, 0, 0, 0 }, reached[5];
	avoid[0] = 1;
	assert_int_equal(rp_cfg_reach(&c, avoid, reached, &err), 0);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(reached[i], 0);
	assert_int_equal(rp_cfg_reach(&c, NULL, reached, &err), 0);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(reached[i], 1);
	assert_int_equal(c.blocks[c.block_of[4]].nsucc, 0);   /* a tail jump out of the function */
	assert_int_equal(c.nloops, 0);
	rp_cfg_release(&c);
	assert_int_equal(rp_cfg_build(&c, v, 0, NULL, &err), 0);   /* no instructions: an empty graph */
	assert_int_equal(c.nblocks, 0);
	assert_int_equal(rp_cfg_reach(&c, NULL, reached, &err), 0);
	rp_cfg_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_os_layout),
		cmocka_unit_test(test_guarded_loop),
		cmocka_unit_test(test_returns_and_outside_targets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
