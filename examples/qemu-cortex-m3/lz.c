/* lz.c: greedy LZ77 with a single-entry hash table (like LZ4's fast mode, far simpler).
 * Workload: a few KiB of text per call. The compressor spends its time in match_length and the
 * hash probe, and clears its 2 KiB table with memset on each call; the decompressor is mostly
 * memcpy of literal runs and non-overlapping matches. */
#include <string.h>

#include "lz.h"

#define MIN_MATCH 3u
#define MAX_MATCH (MIN_MATCH + 0x7fu)
#define MAX_LITERALS 0x80u
#define HASH_BITS 10
#define NO_POS 0xffffu

/* Most recent position of each 3-byte hash; positions fit 16 bits because n <= LZ_MAX_INPUT. */
static uint16_t head[1u << HASH_BITS];

static uint32_t hash3(const uint8_t *p)
{
	uint32_t v = p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;

	return (v * 2654435761u) >> (32 - HASH_BITS);	/* Knuth's multiplicative hash */
}

/* noinline: keeps the hottest compressor loop a function of its own, so profiles and
 * placements see it separately from lz_compress. */
__attribute__((noinline)) static size_t match_length(const uint8_t *a, const uint8_t *b, size_t max)
{
	size_t n = 0;

	while (n < max && a[n] == b[n])
		n++;
	return n;
}

static uint8_t *emit_literals(uint8_t *out, const uint8_t *lit, size_t count)
{
	while (count > 0) {
		size_t run = count < MAX_LITERALS ? count : MAX_LITERALS;

		*out++ = (uint8_t)(run - 1);
		memcpy(out, lit, run);
		out += run;
		lit += run;
		count -= run;
	}
	return out;
}

static uint8_t *emit_match(uint8_t *out, size_t distance, size_t len)
{
	*out++ = (uint8_t)(0x80u | (len - MIN_MATCH));
	*out++ = (uint8_t)distance;
	*out++ = (uint8_t)(distance >> 8);
	return out;
}

int lz_compress(size_t *out_len, uint8_t *dst, size_t cap, const uint8_t *src, size_t n)
{
	uint8_t *out = dst;
	size_t lit = 0, pos = 0;

	if (n > LZ_MAX_INPUT || cap < LZ_BOUND(n))
		return -1;
	memset(head, 0xff, sizeof head);
	while (pos + MIN_MATCH <= n) {
		uint32_t h = hash3(src + pos);
		size_t cand = head[h], len = 0, max = n - pos;

		head[h] = (uint16_t)pos;
		if (cand != NO_POS)
			len = match_length(src + cand, src + pos, max < MAX_MATCH ? max : MAX_MATCH);
		if (len < MIN_MATCH) {
			pos++;
			continue;
		}
		out = emit_literals(out, src + lit, pos - lit);
		out = emit_match(out, pos - cand, len);
		pos += len;
		lit = pos;
	}
	out = emit_literals(out, src + lit, n - lit);
	*out_len = (size_t)(out - dst);
	return 0;
}

/* Matches may overlap their own output (distance < len, e.g. a run of spaces): those must be
 * copied forward byte by byte, which is exactly what memcpy/memmove do not promise. */
static void copy_match(uint8_t *out, size_t distance, size_t len)
{
	const uint8_t *from = out - distance;

	if (distance >= len) {
		memcpy(out, from, len);
		return;
	}
	while (len--)
		*out++ = *from++;
}

int lz_decompress(size_t *out_len, uint8_t *dst, size_t cap, const uint8_t *src, size_t n)
{
	const uint8_t *in = src, *end = src + n;
	size_t done = 0;

	while (in < end) {
		uint8_t tag = *in++;

		if (tag < 0x80u) {
			size_t run = (size_t)tag + 1;

			if ((size_t)(end - in) < run || cap - done < run)
				return -1;
			memcpy(dst + done, in, run);
			in += run;
			done += run;
		} else {
			size_t len = (tag & 0x7fu) + MIN_MATCH, distance;

			if (end - in < 2)
				return -1;
			distance = in[0] | (size_t)in[1] << 8;
			in += 2;
			if (distance == 0 || distance > done || cap - done < len)
				return -1;
			copy_match(dst + done, distance, len);
			done += len;
		}
	}
	*out_len = done;
	return 0;
}
