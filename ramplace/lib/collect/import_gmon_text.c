/* import_gmon_text.c: the runtime's text dump of a gmon.out image (ramplace/runtime/dump_text.c),
 * found in a whole console log: a board without a probe sends its profile over its stdio (UART,
 * USB CDC), and what the host captures holds the firmware's other output, \r\n line ends and
 * maybe several dumps. A block is
 *   ramplace-gmon 1
 *   <hex digits, two per byte, any number per line>
 *   ramplace-gmon end <bytes> <crc32>
 * Only the last block counts (the runtime's histogram accumulates, so the last dump holds the
 * most); it must be whole: its byte count and zlib CRC-32 catch a line lost or mangled on the
 * way. Owns the decoded bytes it returns. Workload: a console log of a few MB at most. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/import.h"
#include "ramplace/util.h"

static const char begin_tag[] = "ramplace-gmon 1";
static const char end_tag[] = "ramplace-gmon end ";

/* The next line without its ending and the blanks a console leaves before it; 0 at the end. */
static int next_trimmed(rp_lines *lines, const char **p, size_t *n)
{
	if (!rp_lines_next(lines, p, n))
		return 0;
	while (*n && ((*p)[*n - 1] == '\r' || (*p)[*n - 1] == ' ' || (*p)[*n - 1] == '\t'))
		(*n)--;
	return 1;
}

/* Where the last line ending in begin_tag starts its tag, or NULL; *nblocks counts them all. The
 * tag may end a line of other output ("progress: doneramplace-gmon 1"): a console line the
 * firmware did not end (the runtime's own dump starts with a newline). */
static const char *last_begin(const char *text, size_t len, size_t *nblocks)
{
	const char *p, *found = NULL;
	size_t n, tag = sizeof(begin_tag) - 1;
	rp_lines lines;
	rp_lines_init(&lines, text, len);
	*nblocks = 0;
	while (next_trimmed(&lines, &p, &n))
		if (n >= tag && memcmp(p + n - tag, begin_tag, tag) == 0) {
			found = p + n - tag;
			(*nblocks)++;
		}
	return found;
}

int rp_gmon_text_detect(const char *text, size_t len)
{
	size_t n;
	return last_begin(text, len, &n) != NULL;
}

static uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
	}
	return crc;
}

static int bad(rp_err *err, const char *name, const char *text, const char *at, const char *what)
{
	return rp_err_set(err, RP_EINPUT, "%s: byte %zu: %s", name, (size_t)(at - text), what);
}

/* "<bytes> <crc32>" after the end tag: 1 to 10 decimal digits, one space, exactly 8 hex digits. */
static int parse_trailer(const char *p, size_t n, uint64_t *bytes, uint32_t *crc)
{
	size_t i = 0;
	uint64_t b = 0;
	while (i < n && i < 10 && p[i] >= '0' && p[i] <= '9')
		b = b * 10 + (uint64_t)(p[i++] - '0');
	if (i == 0 || i + 9 != n || p[i] != ' ')
		return -1;
	uint32_t c = 0;
	for (size_t k = i + 1; k < n; k++) {
		int v = rp_hex_digit((unsigned char)p[k]);
		if (v < 0)
			return -1;
		c = c << 4 | (uint32_t)v;
	}
	*bytes = b;
	*crc = c;
	return 0;
}

int rp_gmon_text_decode(unsigned char **out, size_t *outlen, size_t *nblocks, size_t *at, const char *text,
			size_t len, const char *name, rp_err *err)
{
	*out = NULL;
	*outlen = 0;
	const char *p = last_begin(text, len, nblocks), *end = text + len;
	*at = p ? (size_t)(p - text) : 0;
	if (!p)
		return rp_err_set(err, RP_EINPUT, "%s: byte 0: no '%s' line (the runtime's profile_gmon_write_text)", name,
				  begin_tag);
	rp_lines lines;
	rp_lines_init(&lines, p, (size_t)(end - p));
	const char *line;
	size_t ln, cap = 0, n = 0;
	unsigned char *buf = NULL;
	next_trimmed(&lines, &line, &ln);   /* the begin tag's */
	while (next_trimmed(&lines, &line, &ln)) {
		if (ln >= sizeof(end_tag) - 1 && memcmp(line, end_tag, sizeof(end_tag) - 1) == 0) {
			uint64_t bytes;
			uint32_t crc;
			if (parse_trailer(line + sizeof(end_tag) - 1, ln - (sizeof(end_tag) - 1), &bytes, &crc) != 0) {
				free(buf);
				return bad(err, name, text, line, "expected 'ramplace-gmon end BYTES CRC32' (decimal, 8 hex digits)");
			}
			if (bytes != n) {
				free(buf);
				return rp_err_set(err, RP_EINPUT, "%s: byte %zu: the block holds %zu bytes, its end line says %llu: "
						  "a line was lost on the way", name, (size_t)(line - text), n,
						  (unsigned long long)bytes);
			}
			uint32_t got = crc32_update(0xffffffffu, buf, n) ^ 0xffffffffu;
			if (got != crc) {
				free(buf);
				return rp_err_set(err, RP_EINPUT, "%s: byte %zu: CRC-32 %08x of the block's bytes, its end line "
						  "says %08x: a line was mangled on the way", name, (size_t)(line - text),
						  (unsigned)got, (unsigned)crc);
			}
			*out = buf;
			*outlen = n;
			return 0;
		}
		if (ln % 2) {
			free(buf);
			return bad(err, name, text, line, "a line of the block with an odd number of hex digits");
		}
		if (rp_grow((void **)&buf, &cap, n + ln / 2 + 1, 1, err)) {
			free(buf);
			return err->code;
		}
		for (size_t i = 0; i < ln; i += 2) {
			int hi = rp_hex_digit((unsigned char)line[i]), lo = rp_hex_digit((unsigned char)line[i + 1]);
			if (hi < 0 || lo < 0) {
				free(buf);
				return bad(err, name, text, line + i + (hi < 0 ? 0 : 1), "not a hex digit inside the block");
			}
			buf[n++] = (unsigned char)(hi << 4 | lo);
		}
	}
	free(buf);
	return bad(err, name, text, end, "the last 'ramplace-gmon 1' block has no end line: the capture was cut off");
}
