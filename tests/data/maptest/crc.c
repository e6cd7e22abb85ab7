/* crc.c: a bitwise CRC-32 with a long name, so that GNU ld prints its input section name on
 * a line of its own in the map. */
#include "maptest.h"

unsigned crc32_bitwise_reference_implementation(const unsigned char *p, unsigned n)
{
	unsigned crc = 0xffffffffu;
	for (unsigned i = 0; i < n; i++) {
		crc ^= p[i];
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1u));
	}
	return ~crc;
}
