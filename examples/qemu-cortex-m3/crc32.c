/* crc32.c: byte-at-a-time table-driven CRC-32. crc32_update is a short, very hot loop; the
 * table builder and the self-test run once and are cold. */
#include <string.h>

#include "crc32.h"

#define CRC32_POLY 0xedb88320u	/* reflected 0x04c11db7 */

static uint32_t crc_table[256];

void crc32_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int bit = 0; bit < 8; bit++)
			c = (c & 1) ? (c >> 1) ^ CRC32_POLY : c >> 1;
		crc_table[i] = c;
	}
}

uint32_t crc32_update(uint32_t crc, const void *data, size_t n)
{
	const uint8_t *p = data;

	crc = ~crc;
	while (n--)
		crc = crc_table[(crc ^ *p++) & 0xffu] ^ (crc >> 8);
	return ~crc;
}

int crc32_selftest(void)
{
	static const char check[] = "123456789";

	return crc32_update(0, check, strlen(check)) == 0xcbf43926u ? 0 : -1;
}
