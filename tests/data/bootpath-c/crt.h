/* crt.h: the C startup's copy and clear loops, shared by startup-cm.c and startup-riscv.c and
 * written plainly, so that GCC at -O2 (without -fno-tree-loop-distribute-patterns) turns them
 * into memcpy and memset calls in the function they are inlined into: the case under test. */
#include <stdint.h>

static inline __attribute__((always_inline)) void crt_copy(uint32_t *dst, const uint32_t *src, const uint32_t *end)
{
	while (dst < end)
		*dst++ = *src++;
}

static inline __attribute__((always_inline)) void crt_zero(uint32_t *dst, const uint32_t *end)
{
	while (dst < end)
		*dst++ = 0;
}

/* main's result (tests/data/bootpath/main.c, tests/data/veneers-m0/main.c): printed after main
 * returns, the output that must not change when code moves to RAM */
extern volatile uint32_t sink;
/* in .data, so that there is something to copy: printed with it */
static volatile uint32_t boot_seed = 0x5eedu;   /* volatile: not folded into a constant */
