/* test_layout_sampled.c: a sampled trace (the plugin's trace-window=, trace-period=) priced on
 * the small map of layout_fixture.h: its windows scaled to the run, the warm-up of each window,
 * a line's first miss counted once, and each window started from what the flash held (the
 * granules the plugin writes before it). */
#include <elf.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <unistd.h>

#include "ramplace/layout.h"
#include "layout/layout_link.h"
#include "ramplace/map.h"

#include "../support/layout_fixture.h"

/* A sampled trace: windows break runs and calls, and the runs' cost is scaled by every access
 * over those kept. */
static void test_sampled(void **state)
{
	fixture *f = *state;
	rp_layout_trace *t = parse(f, "# window at 0\nF 100 2\nF 102 2\n# window at 50\nF 104 2\nF 120 2\n"
				      "# accesses 40\n");
	assert_int_equal(t->windows, 2);
	assert_int_equal(t->accesses, 4);
	assert_true(t->scale == 10.0);
	assert_int_equal(t->nruns, 3);              /* 100-104 and 104-106 are two runs: a window between */
	assert_int_equal(t->runs[2].from, 0);       /* a call within the second window */
	rp_layout_trace_free(t);
}

/* Prices text (a sampled trace, the layout as linked) both ways under cfg_spec: the two must
 * agree on the stall; the runs' cost. */
static rp_layout_cost price_sampled(fixture *f, const char *text, const char *cfg_spec)
{
	rp_layout_trace *t = parse(f, text);
	char path[] = "/tmp/test_layout_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *fp = fdopen(fd, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	rp_err err = RP_ERR_INIT;
	rp_layout_link *link = NULL;
	assert_int_equal(rp_layout_link_new(&link, &f->img, f->map, t, ".ramtext", &err), 0);
	link->all_direct = 1;
	rp_layout_plan lp = { NULL, NULL, 0, 0, 0, 0, NULL, 0 };
	rp_layout_addrs a;
	rp_fm_cfg cfg;
	char why[200];
	assert_int_equal(rp_fm_parse(&cfg, cfg_spec, why, sizeof(why)), 0);
	rp_layout_cost runs, full;
	assert_int_equal(rp_layout_arrange(t, link, &lp, &a, &err), 0);
	assert_int_equal(rp_layout_price(t, link, &lp, &a, &cfg, &runs, &err), 0);
	assert_int_equal(rp_layout_price_full(path, NULL, t, link, &lp, &a, &cfg, &full, &err), 0);
	assert_int_equal(runs.stall, full.stall);
	unlink(path);
	rp_layout_addrs_release(&a);
	rp_layout_link_free(link);
	rp_layout_trace_free(t);
	return runs;
}

/* A sampled window's first accesses warm the model and are not counted: two windows of 20 single-access runs
 * on two lines (a and c calling each other), the first two of each (10 %) the warm-up. The
 * two cold misses fall in the warm-up and in sets that never evict: counted once each (20),
 * not scaled by the sampling, by the runs and by the full replay alike, and the scale is every
 * access over the 36 counted. */
static void test_sampled_warmup(void **state)
{
	fixture *f = *state;
	char text[1024] = "";
	for (int w = 0; w < 2; w++) {
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "# window at %d\n", w * 100);
		for (int k = 0; k < 10; k++)
			snprintf(text + strlen(text), sizeof(text) - strlen(text), "F 100 2\nF 140 2\n");
	}
	snprintf(text + strlen(text), sizeof(text) - strlen(text), "# accesses 400\n");
	rp_layout_trace *t = parse(f, text);
	assert_int_equal(t->accesses, 40);
	assert_int_equal(t->nruns, 40);
	assert_int_equal(t->nwindow_warm, 2);
	assert_int_equal(t->window_warm[0], 2);
	assert_int_equal(t->window_warm[1], 2);
	assert_true(t->runs[0].warm && t->runs[1].warm && !t->runs[2].warm && t->runs[20].warm && !t->runs[22].warm);
	assert_true(t->scale == 400.0 / 36.0);
	rp_layout_trace_free(t);
	rp_layout_cost c = price_sampled(f, text, "cache:size=256,ways=2,line=16,penalty=10");
	assert_int_equal(c.stall, 20);
	assert_int_equal(c.misses, 2);

	/* a window whose first run (12 of 16 accesses) is more than its tenth: no warm-up there;
	 * the runs and the replay count the same, non-zero, stall */
	const char big[] = "# window at 0\nF 100 2\nF 102 2\nF 104 2\nF 106 2\nF 108 2\nF 10a 2\nF 10c 2\nF 10e 2\n"
			   "F 110 2\nF 112 2\nF 114 2\nF 116 2\nF 140 2\nF 100 2\nF 140 2\nF 118 2\n# accesses 160\n";
	t = parse(f, big);
	assert_int_equal(t->nwindow_warm, 1);
	assert_int_equal(t->window_warm[0], 0);
	assert_true(t->scale == 10.0);
	rp_layout_trace_free(t);
	assert_true(price_sampled(f, big, "cache:size=256,ways=2,line=16,penalty=10").stall > 0);
}

/* A sampled trace's misses scale where a set evicts, and count once where it never does: two
 * sets of two 16-byte lines; set 0 cycles through three lines (a, b, c: every access misses),
 * set 1 holds 0x110 alone. Two windows of 31 accesses, 3 of each the warm-up, so the scale is
 * 620/56: set 0's 56 counted misses cost 560 x 620/56 = 6200; 0x110's one miss, in the first
 * warm-up, 10. */
static void test_sampled_cold_once(void **state)
{
	fixture *f = *state;
	char text[2048] = "";
	for (int w = 0; w < 2; w++) {
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "# window at %d\nF 110 2\n", w * 310);
		for (int k = 0; k < 10; k++)
			snprintf(text + strlen(text), sizeof(text) - strlen(text), "F 100 2\nF 120 2\nF 140 2\n");
	}
	snprintf(text + strlen(text), sizeof(text) - strlen(text), "# accesses 620\n");
	assert_int_equal(price_sampled(f, text, "cache:size=64,ways=2,line=16,penalty=10").stall, 6210);
	/* one set of four ways holds all four lines: every miss is cold, counted once */
	assert_int_equal(price_sampled(f, text, "cache:size=64,ways=4,line=16,penalty=10").stall, 40);
}

/* A sampled trace whose windows start from what the flash held (the plugin's "f|r" lines):
 * cache:size=64,ways=2,line=16 (set 0: 0x100, 0x120, 0x140). The run kept 0x100 and 0x120,
 * so the first window, replayed from them, misses nothing. In the second, 0x140 is a line's
 * first miss (once, 10), and evicts 0x100, whose miss then evicts 0x120: 20 in the steady
 * state, scaled by the 80 accesses over the 7 counted (229). 0x100's and 0x120's first misses
 * fell in the first snapshot: once each (20). 259 in all, the runs and the replay alike. */
static void test_sampled_recency(void **state)
{
	fixture *f = *state;
	const char text[] = "# window at 0\nf 100 2\nf 120 2\nF 100 2\nF 120 2\nF 100 2\nF 120 2\n"
			    "# window at 40\nf 100 2\nf 120 2\nF 140 2\nF 100 2\nF 120 2\n"
			    "# footprint\nf 140 2\nf 100 2\nf 120 2\n# accesses 80\n";
	rp_layout_trace *t = parse(f, text);
	assert_true(t->warmed);
	assert_int_equal(t->accesses, 7);             /* what the flash held is not counted */
	assert_true(t->scale == 80.0 / 7.0);
	assert_true(t->runs[0].warm && t->runs[0].window && !t->runs[2].warm);
	assert_int_equal(t->nwindow_warm, 2);
	assert_int_equal(t->window_warm[0], 0);        /* no warm-up of their own */
	rp_layout_trace_free(t);
	rp_layout_cost c = price_sampled(f, text, "cache:size=64,ways=2,line=16,penalty=10");
	assert_int_equal(c.stall, 259);

	/* the plugin merges granules that follow in flash and in time: a line into the next
	 * section is one warm access per section */
	t = parse(f, "# window at 0\nf 11c 8\nF 100 2\n# accesses 10\n");
	assert_int_equal(t->nruns, 3);
	assert_true(t->runs[0].piece == 0 && t->runs[0].off == 0x1c && t->runs[0].len == 4);
	assert_true(t->runs[1].piece == 1 && t->runs[1].off == 0 && t->runs[1].len == 4 && t->runs[1].warm);
	rp_layout_trace_free(t);

	bad(f, "f 100 2\nF 100 2\n", "t.trace:1: what the flash held");            /* no window before */
	bad(f, "# window at 0\nF 100 2\nf 100 2\n# accesses 9\n", "t.trace:3:");  /* after an access */
	bad(f, "# window at 0\nf 100 4098\nF 100 2\n# accesses 9\n", "t.trace:2:");
	bad(f, "F 100 2\n# footprint\nf 100 2\n", "without windows");
	bad(f, "# window at 0\nF 100 2\n# footprint\nf 100 2\nF 100 2\n# accesses 9\n", "t.trace:5: an access after");
	bad(f, "# window at 0\nF 100 2\n# accesses 9\nf 100 2\n", "t.trace:4:");     /* not right after */
	bad(f, "# window at 0\nF 100 2\n# recency lost: out of memory\n# accesses 9\n", "t.trace:3:");
}


int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sampled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sampled_warmup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sampled_cold_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sampled_recency, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
