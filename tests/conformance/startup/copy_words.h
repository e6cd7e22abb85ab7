/* copy_words.h: the .data/.ramtext copy and .bss clear loops of the conformance startups
 * (arm.c, riscv.c), in the two forms users write them: COPY_VOLATILE, a volatile loop the
 * compiler keeps (built with -fno-tree-loop-distribute-patterns), and COPY_PLAIN, which GCC
 * turns into memcpy/memset calls at -O2 (as picolibc's and many vendors' start files do: the
 * reset path then runs library code before the copy). Included once, by the startup file. */
#ifndef CONFORMANCE_COPY_WORDS_H
#define CONFORMANCE_COPY_WORDS_H

#include <stdint.h>

#if defined(COPY_VOLATILE)
static void copy_words(volatile uint32_t *dst, const uint32_t *src, const uint32_t *end)
{
	while (dst < end)
		*dst++ = *src++;
}

static void zero_words(volatile uint32_t *dst, const uint32_t *end)
{
	while (dst < end)
		*dst++ = 0;
}
#elif defined(COPY_PLAIN)
static void copy_words(uint32_t *dst, const uint32_t *src, const uint32_t *end)
{
	while (dst < end)
		*dst++ = *src++;
}

static void zero_words(uint32_t *dst, const uint32_t *end)
{
	while (dst < end)
		*dst++ = 0;
}
#else
#error "define COPY_VOLATILE or COPY_PLAIN"
#endif

#endif
