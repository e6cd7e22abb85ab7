/* lz.h: a small LZ77 byte compressor and its decompressor, used for a round-trip check.
 *
 * Stream format: a tag byte t < 0x80 is followed by t + 1 literal bytes; a tag t >= 0x80 is a
 * match of (t & 0x7f) + 3 bytes at the little-endian 16-bit distance that follows it. */
#ifndef FW_LZ_H
#define FW_LZ_H

#include <stddef.h>
#include <stdint.h>

/* Largest input lz_compress accepts (distances are 16-bit). */
#define LZ_MAX_INPUT 65535u

/* Output capacity that is always enough for n input bytes (all literals, one tag per 128). */
#define LZ_BOUND(n) ((n) + (n) / 128 + 1)

/* Compresses src[0..n) into dst. Returns 0 and sets *out_len, or -1 if n > LZ_MAX_INPUT or
 * cap < LZ_BOUND(n) (nothing useful is written then). */
int lz_compress(size_t *out_len, uint8_t *dst, size_t cap, const uint8_t *src, size_t n);

/* Decompresses src[0..n) into dst. Returns 0 and sets *out_len, or -1 on a truncated stream,
 * a distance before the start of the output, or output longer than cap. */
int lz_decompress(size_t *out_len, uint8_t *dst, size_t cap, const uint8_t *src, size_t n);

#endif
