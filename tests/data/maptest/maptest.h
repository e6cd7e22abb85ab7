/* maptest.h: the functions of the maptest program and the results main() expects. */
#ifndef MAPTEST_H
#define MAPTEST_H

unsigned crc32_bitwise_reference_implementation(const unsigned char *p, unsigned n);
int filt_a_run(int n);
int filt_b_run(int n);

#define MAPTEST_CRC 0x0eaab849u
#define MAPTEST_A 121
#define MAPTEST_B 4687

#endif
