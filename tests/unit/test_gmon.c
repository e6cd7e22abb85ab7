/* test_gmon.c: the gmon.out reader and gprof's crediting of bins to functions, on files built
 * here byte by byte against the arm-m3 fixtures (helper 0x1000+8, scale.constprop.0 0x1008,
 * cold_split 0x1050, a_entry 0x1078): a bin split between two functions, both byte orders,
 * OpenOCD's little-endian bins on a big-endian target, records summed, saturated bins,
 * basic-block records, and hostile files (message with name and byte offset, nothing kept). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "ramplace/gmon.h"
#include "ramplace/import.h"

typedef struct buf {
	unsigned char b[4096];
	size_t n;
	int be;
} buf;

static void put(buf *o, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		o->b[o->n++] = (unsigned char)(v >> (8 * (o->be ? n - 1 - i : i)));
}

static void header(buf *o)
{
	memcpy(o->b, "gmon", 4);
	o->n = 4;
	put(o, 1, 4);
	memset(o->b + o->n, 0, 12);
	o->n += 12;
}

/* a histogram record over [low, high) with nbins bins, bins[i] = counts[i] (rest 0) */
static void hist(buf *o, uint32_t low, uint32_t high, uint32_t nbins, const uint16_t *counts, size_t ncounts)
{
	o->b[o->n++] = 0;
	put(o, low, 4);
	put(o, high, 4);
	put(o, nbins, 4);
	put(o, 100, 4);
	memset(o->b + o->n, 0, 16);
	memcpy(o->b + o->n, "seconds", 7);
	o->b[o->n + 15] = 's';
	o->n += 16;
	for (uint32_t i = 0; i < nbins; i++)
		put(o, i < ncounts ? counts[i] : 0, 2);
}

static void arc(buf *o, uint32_t from, uint32_t self, uint32_t count)
{
	o->b[o->n++] = 1;
	put(o, from, 4);
	put(o, self, 4);
	put(o, count, 4);
}

static uint64_t count_at(const rp_samples *s, uint64_t pc)
{
	for (size_t i = 0; i < s->pcs_cap; i++)
		if (s->pcs[i].count && s->pcs[i].pc == pc)
			return s->pcs[i].count;
	return 0;
}

static rp_image *load(const char *name)
{
	rp_image *img = NULL;
	rp_err err = RP_ERR_INIT;
	char path[256];
	snprintf(path, sizeof(path), TEST_DATA_DIR "/elf/%s", name);
	assert_int_equal(rp_image_load(&img, path, &err), 0);
	return img;
}

/* 16-byte bins (8 units): bin 0 is half helper, half scale.constprop.0; bin 7 [0x1070,0x1080)
 * is half cold_split, half a_entry. */
static const uint16_t counts[] = { 10, 0, 0, 0, 0, 0, 0, 30, 65535 };

static void check_split(const rp_samples *s)
{
	/* R = 0x100 / 2 = 128 units, N = 16 bins: a credit is overlap * count * 16 / 128 */
	assert_int_equal(s->scale, 128);
	assert_int_equal(count_at(s, 0x1000), 4 * 10 * 16);          /* 5 samples to helper */
	assert_int_equal(count_at(s, 0x1008), 4 * 10 * 16);          /* 5 to scale.constprop.0 */
	assert_int_equal(count_at(s, 0x1070), 4 * 30 * 16);          /* 15 to cold_split */
	assert_int_equal(count_at(s, 0x1078), 4 * 30 * 16);          /* 15 to a_entry */
	assert_int_equal(count_at(s, 0x1080), 8 * 65535 * 16);       /* all of a saturated bin */
	assert_int_equal(s->taken, 10 + 30 + 65535);
	assert_int_equal(s->narcs, 1);
	assert_int_equal(s->arcs[0].count, 7);
}

static void run_import(rp_samples *s, rp_import_meta *m, rp_import_format fmt, const rp_image *img,
		       const buf *o, int want)
{
	rp_err err = RP_ERR_INIT;
	rp_samples_init(s);
	int rc = rp_import_file(s, m, fmt, img, (const char *)o->b, o->n, "gmon.out", &err);
	if (rc != want)
		fail_msg("rc %d, want %d: %s", rc, want, err.msg);
}

static void test_split_le(void **state)
{
	(void)state;
	rp_image *img = load("arm-m3.elf");
	buf o = { .be = 0 };
	rp_samples s;
	rp_import_meta m;
	header(&o);
	hist(&o, 0x1000, 0x1100, 16, counts, 9);
	arc(&o, 0x1080 | 1, 0x1001, 7);
	assert_int_equal(rp_import_detect((const char *)o.b, o.n), RP_IMPORT_GMON);
	run_import(&s, &m, RP_IMPORT_AUTO, img, &o, 0);
	check_split(&s);
	assert_true(m.rate_hz == 100);
	assert_string_equal(m.dimension, "seconds");
	assert_int_equal(m.saturated, 1);
	rp_samples_release(&s);
	rp_image_free(img);
}

static void test_split_be_and_openocd(void **state)
{
	(void)state;
	rp_image *img = load("arm-m3-be.elf");
	buf o = { .be = 1 };
	rp_samples s;
	rp_import_meta m;
	header(&o);
	hist(&o, 0x1000, 0x1100, 16, counts, 9);
	arc(&o, 0x1080 | 1, 0x1001, 7);
	run_import(&s, &m, RP_IMPORT_GMON, img, &o, 0);
	check_split(&s);
	rp_samples_release(&s);

	/* OpenOCD: header and addresses in the target's order, bins always little-endian */
	buf oo = { .be = 1 };
	header(&oo);
	size_t bins_at = oo.n + 1 + 16 + 16;
	hist(&oo, 0x1000, 0x1100, 16, counts, 9);
	for (size_t i = bins_at; i < oo.n; i += 2) {
		unsigned char t = oo.b[i];
		oo.b[i] = oo.b[i + 1];
		oo.b[i + 1] = t;
	}
	arc(&oo, 0x1080 | 1, 0x1001, 7);
	run_import(&s, &m, RP_IMPORT_OPENOCD, img, &oo, 0);
	check_split(&s);
	rp_samples_release(&s);
	rp_image_free(img);
}

static void test_records_summed(void **state)
{
	(void)state;
	rp_image *img = load("arm-m3.elf");
	buf o = { .be = 0 };
	rp_samples s;
	rp_import_meta m;
	const uint16_t one[] = { 2 }, other[] = { 0, 0, 0, 0, 0, 0, 0, 0, 4 };
	header(&o);
	hist(&o, 0x1000, 0x1100, 16, one, 1);
	hist(&o, 0x1000, 0x1100, 16, one, 1);          /* same range: summed */
	hist(&o, 0x2000, 0x2100, 16, other, 9);        /* same scale elsewhere: kept */
	o.b[o.n++] = 2;                                 /* basic-block counts: 1 pair */
	put(&o, 1, 4);
	put(&o, 0x1000, 4);
	put(&o, 5, 4);
	run_import(&s, &m, RP_IMPORT_GMON, img, &o, 0);
	assert_int_equal(count_at(&s, 0x1000), 4 * 4 * 16);
	assert_int_equal(count_at(&s, 0x2080), 8 * 4 * 16);   /* outside every function */
	assert_int_equal(s.taken, 8);
	assert_int_equal(m.nbb, 1);
	rp_samples_release(&s);
	rp_image_free(img);
}

/* expect failure with the message containing `what` */
static void refused(const rp_image *img, const buf *o, rp_import_format fmt, const char *what)
{
	rp_samples s;
	rp_import_meta m;
	rp_err err = RP_ERR_INIT;
	rp_samples_init(&s);
	assert_int_equal(rp_import_file(&s, &m, fmt, img, (const char *)o->b, o->n, "bad.out", &err), RP_EINPUT);
	if (!strstr(err.msg, what) || strncmp(err.msg, "bad.out: ", 9) != 0 || strchr(err.msg, '\n'))
		fail_msg("message '%s' lacks '%s'", err.msg, what);
	assert_int_equal(s.total, 0);
	assert_int_equal(s.narcs, 0);
	rp_samples_release(&s);
}

static void test_hostile(void **state)
{
	(void)state;
	rp_image *img = load("arm-m3.elf"), *be = load("arm-m3-be.elf");
	buf o = { .be = 0 };
	header(&o);
	hist(&o, 0x1000, 0x1100, 16, counts, 9);
	buf cut = o;
	cut.n -= 5;
	refused(img, &cut, RP_IMPORT_GMON, "byte 53: truncated: histogram declares 16 bins");
	cut.n = 30;
	refused(img, &cut, RP_IMPORT_GMON, "byte 29: truncated");
	cut.n = 10;
	refused(img, &cut, RP_IMPORT_GMON, "byte 10: truncated");
	refused(be, &o, RP_IMPORT_GMON, "byte 4: version is 1 in little byte order");

	buf zero = { .be = 0 };
	header(&zero);
	hist(&zero, 0x1000, 0x1100, 0, counts, 0);
	refused(img, &zero, RP_IMPORT_GMON, "byte 20: histogram with zero bins");

	buf garbage = { .be = 0 };
	memcpy(garbage.b, "GIF89a garbage, not a profile", 29);
	garbage.n = 29;
	refused(img, &garbage, RP_IMPORT_GMON, "byte 0: not a gmon.out file");

	buf tag = o;
	tag.b[tag.n++] = 7;
	refused(img, &tag, RP_IMPORT_GMON, "unknown record tag 7");

	buf scales = o;
	hist(&scales, 0x1080, 0x1100, 64, counts, 9);
	refused(img, &scales, RP_IMPORT_GMON, "overlaps the record at byte 20 with a different scale");

	buf reversed = { .be = 0 };
	header(&reversed);
	hist(&reversed, 0x1100, 0x1000, 4, counts, 0);
	refused(img, &reversed, RP_IMPORT_GMON, "empty or reversed");
	rp_image_free(img);
	rp_image_free(be);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_le),
		cmocka_unit_test(test_split_be_and_openocd),
		cmocka_unit_test(test_records_summed),
		cmocka_unit_test(test_hostile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
