/* plain.c: compiled without -fdata-sections: its consts share one .rodata input section. */
#include <stdint.h>

const uint32_t plain_table[8] = { 1, 2, 4, 8, 16, 32, 64, 128 };
const uint32_t plain_other[4] = { 3, 5, 7, 9 };
