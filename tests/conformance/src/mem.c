/* mem.c: moves bytes around with memcpy and memset of sizes known only at run time, so the C
 * library's memcpy and memset are real calls, and hot. */
#include <string.h>

#include "work.h"

static uint8_t a[256], b[256];

uint32_t mem_run(uint32_t seed)
{
	uint32_t h = seed;
	for (int i = 0; i < 48; i++) {
		size_t n = 16 + ((h >> 3) & 127u);
		memcpy(b + ((h >> 11) & 63u), a + ((h >> 17) & 63u), n);
		memset(a + ((h >> 7) & 63u), (int)(h & 0xffu), n / 2);
		a[(h >> 23) & 255u] ^= (uint8_t)i;
		h = h * 2654435761u + b[(h >> 5) & 255u] + a[(h >> 13) & 255u];
	}
	return h;
}
