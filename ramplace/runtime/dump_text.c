/* dump_text.c: the gmon.out image as text, for a board whose only way out is its console (a
 * UART or USB CDC stdio, an RP2040 without a probe): hex lines framed so that `ramplace import`
 * finds the block in a whole console log, with the byte count and a CRC-32 that catch a line
 * lost or mangled on the way (a newline goes first, so the tag starts a line even after output
 * that did not end its own):
 *   ramplace-gmon 1
 *   67 6d 6f 6e ... as hex digits, 32 bytes (64 digits) per line
 *   ramplace-gmon end <bytes> <crc32, 8 hex digits>
 * The CRC is zlib's (IEEE 802.3, reflected, init and final xor 0xffffffff), computed bit by bit:
 * no table in the firmware's RAM or flash. Sampling pauses while the image is written. */
#include "ramplace_profile.h"

#define BYTES_PER_LINE 32u

struct text_out {
	int (*put)(void *ctx, const char *text, size_t len);
	void *ctx;
	uint32_t crc;
	uint32_t bytes;
	unsigned col;
	char line[2 * BYTES_PER_LINE + 1];
};

static uint32_t crc32_byte(uint32_t crc, unsigned char b)
{
	crc ^= b;
	for (int k = 0; k < 8; k++)
		crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
	return crc;
}

static int flush_line(struct text_out *t)
{
	if (!t->col)
		return 0;
	t->line[2 * t->col] = '\n';
	int rc = t->put(t->ctx, t->line, 2 * t->col + 1);
	t->col = 0;
	return rc;
}

/* profile_gmon_write's sink: each byte as two hex digits, a line every BYTES_PER_LINE bytes. */
static int put_hex(void *ctx, const void *buf, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	struct text_out *t = ctx;
	const unsigned char *p = buf;
	for (size_t i = 0; i < len; i++) {
		t->crc = crc32_byte(t->crc, p[i]);
		t->bytes++;
		t->line[2 * t->col] = digits[p[i] >> 4];
		t->line[2 * t->col + 1] = digits[p[i] & 15u];
		if (++t->col == BYTES_PER_LINE && flush_line(t))
			return -1;
	}
	return 0;
}

static int put_str(struct text_out *t, const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return t->put(t->ctx, s, n);
}

/* "<n> <crc>\n" in decimal and 8 hex digits, without printf. */
static int put_trailer(struct text_out *t)
{
	char buf[40];
	size_t n = 0;
	char dec[11];
	size_t nd = 0;
	uint32_t v = t->bytes;
	do {
		dec[nd++] = (char)('0' + v % 10u);
		v /= 10u;
	} while (v);
	while (nd)
		buf[n++] = dec[--nd];
	buf[n++] = ' ';
	for (int shift = 28; shift >= 0; shift -= 4)
		buf[n++] = "0123456789abcdef"[(t->crc >> shift) & 15u];
	buf[n++] = '\n';
	return t->put(t->ctx, buf, n);
}

int profile_gmon_write_text(int (*put)(void *ctx, const char *text, size_t len), void *ctx)
{
	struct text_out t = { put, ctx, 0xffffffffu, 0, 0, { 0 } };
	if (ramplace_profile.magic != RAMPLACE_PROFILE_MAGIC)
		return -1;   /* profile_on never ran: no block at all, not one without its end */
	/* a newline first: the console's last line may not have ended ("progress: done") */
	if (put_str(&t, "\nramplace-gmon 1\n") || profile_gmon_write(put_hex, &t) || flush_line(&t))
		return -1;
	t.crc ^= 0xffffffffu;
	return put_str(&t, "ramplace-gmon end ") || put_trailer(&t) ? -1 : 0;
}
