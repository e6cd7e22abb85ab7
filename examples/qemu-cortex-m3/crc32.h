/* crc32.h: table-driven CRC-32 (IEEE 802.3, reflected, as in zlib) over byte buffers. */
#ifndef FW_CRC32_H
#define FW_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* Builds the 1 KiB lookup table in RAM; call once before crc32_update. */
void crc32_init(void);

/* Continues a CRC: crc32_update(0, buf, n) is the CRC-32 of buf. */
uint32_t crc32_update(uint32_t crc, const void *data, size_t n);

/* Returns 0 if the table yields the standard check value for "123456789", -1 otherwise. */
int crc32_selftest(void);

#endif
