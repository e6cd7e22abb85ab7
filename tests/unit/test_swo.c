/* test_swo.c: the SWO decoder (swo.h) on streams built here byte by byte after ARMv7-M ARM
 * Appendix D4 and the CoreSight TPIU formatter: every packet kind between PC samples (sync,
 * overflow, local and global timestamps with continuation bytes, extension, stimulus, event
 * counter, exception and data trace), the sleeping form, TPIU frames with immediate and
 * delayed ID changes, a second source, halfword syncs and periodic full syncs; the same
 * results for every split of each stream into two chunks and for byte-at-a-time feeding;
 * hostile streams (garbage, a malformed PC sample, an overlong timestamp, a frame cut by a
 * sync, a cut final packet) counted, never dropped silently; and rp_import_swo's refusals
 * (file name and byte offset in one line). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "ramplace/import.h"
#include "ramplace/swo.h"

typedef struct buf {
	uint8_t b[8192];
	size_t n;
} buf;

static void put(buf *o, const uint8_t *p, size_t n)
{
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

#define PUT(o, ...) put(o, (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ }))

static void pc_sample(buf *o, uint32_t pc)
{
	PUT(o, 0x17, (uint8_t)pc, (uint8_t)(pc >> 8), (uint8_t)(pc >> 16), (uint8_t)(pc >> 24));
}

static void sync_packet(buf *o)
{
	PUT(o, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80);
}

/* The ITM stream every test starts from: 40 PC samples at 0x1000 + 2k, 4 sleeping samples,
 * 4 overflows, 6 syncs and 27 other packets. */
static void itm_stream(buf *o)
{
	sync_packet(o);
	for (uint32_t k = 0; k < 40; k++) {
		pc_sample(o, 0x1000 + 2 * k);
		switch (k % 10) {
		case 1: PUT(o, 0xc0, 0x85, 0x80, 0x01); break;             /* local timestamp 1, 3 more bytes */
		case 2: PUT(o, 0x30); break;                               /* local timestamp 2 */
		case 3: PUT(o, 0x94, 0x81, 0x82, 0x03); break;             /* global timestamp 1 */
		case 4: PUT(o, 0x15, 0x00); break;                         /* sleeping */
		case 5: PUT(o, 0x70); break;                               /* overflow */
		case 6: PUT(o, 0x03, 0x17, 0x00, 0x00, 0x80); break;       /* stimulus port 0, 4 bytes that look like packets */
		case 7: PUT(o, 0x0e, 0x0f, 0x10); break;                   /* exception trace */
		case 8: PUT(o, 0x05, 0x01); break;                         /* event counter */
		case 9: sync_packet(o); break;                             /* periodic sync */
		default: break;
		}
	}
	PUT(o, 0xb4, 0x81, 0x82, 0x83, 0x84, 0x85, 0x06);   /* global timestamp 2, 6 bytes */
	PUT(o, 0x08);                                        /* extension: stimulus page */
	PUT(o, 0x47, 1, 2, 3, 4);                            /* data trace, 4 bytes */
	sync_packet(o);
}

/* Wraps in into 16-byte TPIU frames of source id (a frame sync first and every 4 frames),
 * with a few bytes of source 2 and halfword syncs between, as a formatter would. */
static void tpiu_wrap(buf *o, const buf *in, unsigned id)
{
	size_t i = 0;
	unsigned nframe = 0;
	while (i < in->n) {
		uint8_t f[16] = { 0 };
		unsigned aux = 0;
		if (nframe % 4 == 0)
			PUT(o, 0xff, 0xff, 0xff, 0x7f);
		if (nframe % 3 == 1)
			PUT(o, 0xff, 0x7f);   /* halfword sync between frames */
		if (nframe % 2 == 1) {
			/* source 2 for two bytes: an immediate change (aux bit 0 clear) before byte 1,
			 * then back to id delayed (aux bit 1 set), so that byte 3 is still source 2's */
			f[0] = (uint8_t)(2 << 1 | 1);
			f[1] = 0xaa;
			f[2] = (uint8_t)(id << 1 | 1);
			aux |= 2;
			f[3] = 0xbb;   /* read as ITM, a 4-byte source header: the stream would break */
		} else {
			f[0] = (uint8_t)(id << 1 | 1);
			f[1] = i < in->n ? in->b[i++] : 0;
			uint8_t c = i < in->n ? in->b[i++] : 0;
			f[2] = c & 0xfe;
			aux |= (unsigned)(c & 1) << 1;
			f[3] = i < in->n ? in->b[i++] : 0;
		}
		for (unsigned p = 2; p < 8; p++) {
			uint8_t c = i < in->n ? in->b[i++] : 0;
			f[2 * p] = c & 0xfe;
			aux |= (unsigned)(c & 1) << p;
			if (p < 7)
				f[2 * p + 1] = i < in->n ? in->b[i++] : 0;
		}
		f[15] = (uint8_t)aux;
		put(o, f, 16);
		nframe++;
	}
}

typedef struct result {
	uint32_t pcs[256];
	size_t n;
	rp_swo_stats st;
} result;

static int record_pc(void *ctx, uint32_t pc, rp_err *err)
{
	(void)err;
	result *r = ctx;
	if (r->n < 256)
		r->pcs[r->n] = pc;
	r->n++;
	return 0;
}

/* Decodes in[0..n) fed as [0, split) and [split, n) (split n: one piece, 0: byte by byte). */
static void decode(result *r, const uint8_t *in, size_t n, size_t split, rp_swo_framing framing)
{
	rp_swo *d = NULL;
	rp_err err = RP_ERR_INIT;
	rp_swo_opts o = { framing, 0 };
	memset(r, 0, sizeof(*r));
	assert_int_equal(rp_swo_new(&d, &o, record_pc, r, &err), 0);
	if (split == 0) {
		for (size_t i = 0; i < n; i++)
			assert_int_equal(rp_swo_feed(d, in + i, 1, &err), 0);
	} else {
		assert_int_equal(rp_swo_feed(d, in, split, &err), 0);
		assert_int_equal(rp_swo_feed(d, in + split, n - split, &err), 0);
	}
	assert_int_equal(rp_swo_finish(d, &err), 0);
	r->st = *rp_swo_get_stats(d);
	rp_swo_free(d);
}

static void assert_same(const result *a, const result *b)
{
	assert_int_equal(a->n, b->n);
	assert_memory_equal(a->pcs, b->pcs, (a->n < 256 ? a->n : 256) * sizeof(uint32_t));
	assert_memory_equal(&a->st, &b->st, sizeof(a->st));
}

/* Every split gives what one piece gives. */
static void assert_every_split(const buf *in, rp_swo_framing framing, const result *whole)
{
	result r;
	decode(&r, in->b, in->n, 0, framing);
	assert_same(&r, whole);
	for (size_t split = 1; split < in->n; split++) {
		decode(&r, in->b, in->n, split, framing);
		assert_same(&r, whole);
	}
}

static void assert_itm_counts(const result *r)
{
	assert_int_equal(r->n, 40);
	for (uint32_t k = 0; k < 40; k++)
		assert_int_equal(r->pcs[k], 0x1000 + 2 * k);
	assert_int_equal(r->st.samples, 40);
	assert_int_equal(r->st.sleeping, 4);
	assert_int_equal(r->st.overflows, 4);
	assert_int_equal(r->st.syncs, 6);
	assert_int_equal(r->st.other_packets, 4 * 6 + 3);
	assert_int_equal(r->st.errors, 0);
	assert_int_equal(r->st.skipped, 0);
	assert_int_equal(r->st.truncated, 0);
}

static void test_raw(void **state)
{
	(void)state;
	buf in = { .n = 0 };
	result whole;
	itm_stream(&in);
	decode(&whole, in.b, in.n, in.n, RP_SWO_FRAMING_AUTO);
	assert_itm_counts(&whole);
	assert_int_equal(whole.st.framed, 0);
	assert_int_equal(whole.st.bytes, in.n);
	assert_every_split(&in, RP_SWO_FRAMING_AUTO, &whole);
	result forced;
	decode(&forced, in.b, in.n, in.n, RP_SWO_FRAMING_RAW);
	assert_same(&forced, &whole);
}

static void test_tpiu(void **state)
{
	(void)state;
	buf itm = { .n = 0 }, in = { .n = 0 };
	result whole;
	itm_stream(&itm);
	tpiu_wrap(&in, &itm, 1);
	decode(&whole, in.b, in.n, in.n, RP_SWO_FRAMING_AUTO);
	assert_itm_counts(&whole);
	assert_int_equal(whole.st.framed, 1);
	assert_int_equal(whole.st.stream_id, 1);
	assert_true(whole.st.frames > 10);
	assert_int_equal(whole.st.frame_syncs, (whole.st.frames + 3) / 4);
	assert_int_equal(whole.st.other_stream, 2 * (whole.st.frames / 2));   /* two bytes of source 2 in every other frame */
	assert_every_split(&in, RP_SWO_FRAMING_AUTO, &whole);
	result forced;
	decode(&forced, in.b, in.n, in.n, RP_SWO_FRAMING_TPIU);
	assert_same(&forced, &whole);
	/* garbage before the first frame sync is skipped and counted, not decoded */
	buf pre = { .n = 0 };
	PUT(&pre, 0x17, 0x11, 0x22, 0x33, 0x44, 0x15);
	put(&pre, in.b, in.n);
	decode(&forced, pre.b, pre.n, pre.n, RP_SWO_FRAMING_AUTO);
	assert_int_equal(forced.n, 40);
	assert_int_equal(forced.st.skipped, 6);
	assert_int_equal(forced.st.errors, 0);
}

/* A malformed packet costs the bytes up to the next sync, counted; then decoding goes on. */
static void test_hostile_itm(void **state)
{
	(void)state;
	buf in = { .n = 0 };
	result r;
	sync_packet(&in);
	pc_sample(&in, 0x2000);
	PUT(&in, 0xc0, 0x80, 0x80, 0x80, 0x80, 0x80);   /* timestamp with 5 continuation bytes */
	pc_sample(&in, 0x2002);                          /* lost: no sync yet */
	PUT(&in, 0x70);
	sync_packet(&in);
	pc_sample(&in, 0x2004);
	PUT(&in, 0x15, 0x07);                            /* 1-byte PC sample that is not "sleeping" */
	pc_sample(&in, 0x2006);
	PUT(&in, 0x16, 0x01, 0x02);                      /* 2-byte PC sample */
	PUT(&in, 0x17, 0x01, 0x02);                      /* cut at the end */
	decode(&r, in.b, in.n, in.n, RP_SWO_FRAMING_RAW);
	assert_int_equal(r.n, 3);
	assert_int_equal(r.pcs[0], 0x2000);
	assert_int_equal(r.pcs[1], 0x2004);
	assert_int_equal(r.pcs[2], 0x2006);
	assert_int_equal(r.st.errors, 3);
	assert_int_equal(r.st.first_error, 6 + 5 + 4);   /* the 4th continuation byte */
	assert_int_equal(r.st.skipped, 1 + 5 + 1);      /* the 5th continuation, the sample, the overflow */
	assert_int_equal(r.st.overflows, 0);
	assert_int_equal(r.st.truncated, 1);
	assert_every_split(&in, RP_SWO_FRAMING_RAW, &r);
}

/* A frame cut short by a full sync is an error; the ITM packet in it is dropped, not misread. */
static void test_hostile_tpiu(void **state)
{
	(void)state;
	buf itm = { .n = 0 }, in = { .n = 0 };
	result r;
	itm_stream(&itm);
	tpiu_wrap(&in, &itm, 1);
	buf cut = { .n = 0 };
	put(&cut, in.b, 4 + 16 + 8);                     /* sync, a frame, half a frame */
	PUT(&cut, 0xff, 0xff, 0xff, 0x7f);
	put(&cut, in.b + 4 + 16 + 8, in.n - (4 + 16 + 8));
	decode(&r, cut.b, cut.n, cut.n, RP_SWO_FRAMING_AUTO);
	assert_true(r.st.errors >= 1);
	assert_int_equal(r.st.first_error, 4 + 16 + 8 + 3);
	assert_true(r.n < 40 && r.n >= 28);   /* what the cut frame held, up to the next sync */
	for (size_t k = 0; k < r.n && k < 256; k++)
		assert_true(r.pcs[k] >= 0x1000 && r.pcs[k] < 0x1000 + 80 && r.pcs[k] % 2 == 0);
	assert_every_split(&cut, RP_SWO_FRAMING_AUTO, &r);
	/* a reserved source ID is an error */
	buf bad = { .n = 0 };
	PUT(&bad, 0xff, 0xff, 0xff, 0x7f, 0xfd, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0);
	decode(&r, bad.b, bad.n, bad.n, RP_SWO_FRAMING_TPIU);
	assert_int_equal(r.st.errors, 1);
	assert_int_equal(r.st.frames, 1);
}

static void test_import(void **state)
{
	(void)state;
	buf in = { .n = 0 };
	rp_samples s;
	rp_swo_stats st;
	rp_swo_opts o = RP_SWO_OPTS_INIT;
	rp_err err = RP_ERR_INIT;
	itm_stream(&in);
	rp_samples_init(&s);
	assert_int_equal(rp_import_swo(&s, &st, &o, (const char *)in.b, in.n, "cap.swo", &err), 0);
	assert_int_equal(s.total, 40);
	assert_int_equal(st.sleeping, 4);
	/* nothing but sleeping and overflow: no profile; the message names the file and the end */
	buf none = { .n = 0 };
	sync_packet(&none);
	PUT(&none, 0x15, 0x00, 0x70);
	assert_int_equal(rp_import_swo(&s, &st, &o, (const char *)none.b, none.n, "idle.swo", &err), RP_EINPUT);
	assert_non_null(strstr(err.msg, "idle.swo: byte 9: no DWT PC sample packets"));
	/* mostly garbage: refused at its first error */
	buf junk = { .n = 0 };
	pc_sample(&junk, 0x1000);
	PUT(&junk, 0xc0, 0x81, 0x82, 0x83, 0x84);
	for (int i = 0; i < 64; i++)
		PUT(&junk, 0x17, 0x5a);
	assert_int_equal(rp_import_swo(&s, &st, &o, (const char *)junk.b, junk.n, "junk.bin", &err), RP_EINPUT);
	assert_non_null(strstr(err.msg, "junk.bin: byte 9: not an SWO capture"));
	assert_int_equal(s.total, 40);   /* nothing added by the refused ones */
	rp_samples_release(&s);
	rp_swo_framing f;
	assert_int_equal(rp_swo_framing_parse(&f, "tpiu", &err), 0);
	assert_int_equal(f, RP_SWO_FRAMING_TPIU);
	assert_int_equal(rp_swo_framing_parse(&f, "etm", &err), RP_EUSAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_raw),
		cmocka_unit_test(test_tpiu),
		cmocka_unit_test(test_hostile_itm),
		cmocka_unit_test(test_hostile_tpiu),
		cmocka_unit_test(test_import),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
