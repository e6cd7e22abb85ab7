/* work.h: the conformance firmware's workload (tests/conformance). Each phase takes a seed and
 * returns a hash of what it computed, so the printed output changes when any phase misbehaves.
 * The phases are called through a table (main.c), so no link-time optimisation inlines them
 * into main: they stay functions that a placement can move. */
#ifndef CONFORMANCE_WORK_H
#define CONFORMANCE_WORK_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n); /* crc.c: bitwise CRC-32 */
uint32_t crc_run(uint32_t seed);
uint32_t filt_a_run(uint32_t seed);	/* filt_a.c and filt_b.c each have a static step() */
uint32_t filt_b_run(uint32_t seed);
uint32_t sort_run(uint32_t seed);	/* sort.c: insertion sort */
uint32_t vm_run(uint32_t seed);		/* vm.c: a small register bytecode interpreter */
uint32_t mem_run(uint32_t seed);	/* mem.c: memcpy/memset with run-time sizes (libc calls) */
uint32_t math_run(uint32_t seed);	/* math.c: division and float (libgcc helpers or the FPU) */
void console_init(void);		/* sys.c: the C library's semihosting console */

#ifdef __cplusplus
}
#endif
#endif
