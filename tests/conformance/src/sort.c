/* sort.c: insertion sort of pseudo-random 16-bit keys, hashed afterwards. */
#include "work.h"

static uint16_t keys[64];

static void insertion_sort(uint16_t *a, int n)
{
	for (int i = 1; i < n; i++) {
		uint16_t v = a[i];
		int j = i - 1;
		while (j >= 0 && a[j] > v) {
			a[j + 1] = a[j];
			j--;
		}
		a[j + 1] = v;
	}
}

uint32_t sort_run(uint32_t seed)
{
	for (int i = 0; i < 64; i++) {
		seed = seed * 1664525u + 1013904223u;
		keys[i] = (uint16_t)(seed >> 16);
	}
	insertion_sort(keys, 64);
	uint32_t h = 2166136261u;
	for (int i = 0; i < 64; i++)
		h = (h ^ keys[i]) * 16777619u;
	return h;
}
