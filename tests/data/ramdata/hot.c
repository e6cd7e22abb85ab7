/* hot.c: a const lookup table read in a loop (the candidate), a writable table beside it (never
 * a candidate) and a const the hot code does not touch. Built with -fdata-sections. */
#include <stdint.h>

const uint16_t table[64] = { 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597 };
uint16_t scratch[16];
const char banner[] = "ramdata fixture";

extern const uint32_t plain_table[8];

uint32_t lookup(uint32_t n)
{
	uint32_t s = 0;
	for (uint32_t i = 0; i < n; i++) {
		s += table[i & 63];
		scratch[i & 15] = (uint16_t)s;
	}
	return s + plain_table[n & 7];
}

void _start(void)
{
	volatile uint32_t r = lookup(1000) + (uint32_t)banner[0];
	(void)r;
	for (;;)
		;
}
