/* crc.c: bitwise CRC-32 over a buffer filled from a linear congruential generator. */
#include "work.h"

static uint8_t data[512];

uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
	}
	return ~crc;
}

uint32_t crc_run(uint32_t seed)
{
	for (size_t i = 0; i < sizeof data; i++) {
		seed = seed * 1103515245u + 12345u;
		data[i] = (uint8_t)(seed >> 24);
	}
	return crc32_update(seed, data, sizeof data);
}
