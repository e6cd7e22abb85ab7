/* main.c: a workload whose hottest function is memcpy, so a profile-guided placement wants to
 * move memcpy to RAM, which the reset handler in startup.c calls before the copy. */
#include <stdint.h>
#include <string.h>

static uint8_t a[256], b[256];
volatile uint32_t sink;

__attribute__((noinline)) uint32_t mix(const uint8_t *p, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

int main(void)
{
	for (int i = 0; i < 256; i++)
		a[i] = (uint8_t)i;
	for (int k = 0; k < 2000; k++) {
		memcpy(b, a, sizeof(b) - (size_t)(k & 7));
		sink += mix(b, 16);
	}
	return sink == 0;
}
