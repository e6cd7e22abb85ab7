/* layout_fixture.h: the small map worked out by hand that the layout tests price on (test_layout.c,
 * test_layout_sampled.c): .ramtext's load image at 0x100, then .text: a, b, c (0x20 each,
 * 4-aligned), then .rodata; an image with ARMv7-M's 8-byte veneers; a trace parser that fails the
 * test on error. */
#ifndef RAMPLACE_TEST_LAYOUT_FIXTURE_H
#define RAMPLACE_TEST_LAYOUT_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "ramplace/layout.h"
#include "ramplace/map.h"

#include "layout_map.h"

typedef struct fixture {
	rp_map *map;
	rp_image img;
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));
	rp_err err = RP_ERR_INIT;
	if (!f || rp_map_parse(&f->map, map_text, sizeof(map_text) - 1, "t.map", &err))
		return -1;
	f->img.veneer_size = 8;   /* ARMv7-M: ldr.w pc + literal */
	f->img.veneer_block_align = 8;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;
	rp_map_free(f->map);
	free(f);
	return 0;
}

static inline rp_layout_trace *parse(const fixture *f, const char *text)
{
	rp_layout_trace *t = NULL;
	rp_err err = RP_ERR_INIT;
	if (rp_layout_trace_parse(&t, f->map, NULL, text, strlen(text), "t.trace", &err))
		fail_msg("%s", err.msg);
	return t;
}

/* The trace text is refused, RP_EINPUT, saying says. */
static inline void bad(const fixture *f, const char *text, const char *says)
{
	rp_layout_trace *t = NULL;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_layout_trace_parse(&t, f->map, NULL, text, strlen(text), "t.trace", &err), RP_EINPUT);
	assert_null(t);
	if (!strstr(err.msg, says))
		fail_msg("'%s' does not say '%s'", err.msg, says);
}

#endif
