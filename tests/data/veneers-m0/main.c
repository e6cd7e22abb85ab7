/* main.c: a Cortex-M0+ workload made of many small hot functions, each calling its own cold
 * helper. A profile that samples only the hot ones moves them to RAM and leaves every helper in
 * flash, so each moved function costs one RAM->flash long-branch veneer: on ARMv6-M GNU ld's
 * 16-byte push/ldr/mov/pop/bx form, not ARMv7-M's 8-byte ldr.w pc. Its result (sink, printed by
 * the startup code) must be the same before and after relinking. Fixture for
 * tests/integration/t_veneer_m0.sh. */
#include <stdint.h>

volatile uint32_t sink;

#define PAIR(i)                                                                                  \
	__attribute__((noinline)) uint32_t cold##i(uint32_t x) { return x * (2u * i + 3u) + i; }      \
	__attribute__((noinline)) uint32_t hot##i(uint32_t x)                                        \
	{                                                                                            \
		uint32_t s = 0;                                                                      \
		for (uint32_t k = 0; k < 4; k++)                                                     \
			s += cold##i(x + k) ^ (s >> 3);                                              \
		return s;                                                                            \
	}
/* cold0 under a second name (an alias in assembly, which GCC cannot see through): GNU ld makes
 * a veneer per symbol called, not per address, so hot0, calling it by both names, costs two.
 * Plans counted one per address (pico-sdk's __wrap___aeabi_uidiv and _uidivmod) until the
 * objects' relocations told the names apart. */
__attribute__((noinline)) uint32_t cold0(uint32_t x) { return x * 3u; }
__asm__(".globl cold0_twin\n\t.thumb_set cold0_twin, cold0");
uint32_t cold0_twin(uint32_t x);
__attribute__((noinline)) uint32_t hot0(uint32_t x)
{
	uint32_t s = 0;
	for (uint32_t k = 0; k < 4; k++)
		s += cold0(x + k) ^ (s >> 3);
	return s + cold0_twin(s);
}
PAIR(1) PAIR(2) PAIR(3) PAIR(4) PAIR(5) PAIR(6) PAIR(7) PAIR(8) PAIR(9)
PAIR(10) PAIR(11) PAIR(12) PAIR(13) PAIR(14) PAIR(15) PAIR(16) PAIR(17) PAIR(18) PAIR(19)
PAIR(20) PAIR(21) PAIR(22) PAIR(23)

typedef uint32_t (*stage)(uint32_t);
static const stage stages[] = {
	hot0, hot1, hot2, hot3, hot4, hot5, hot6, hot7, hot8, hot9, hot10, hot11,
	hot12, hot13, hot14, hot15, hot16, hot17, hot18, hot19, hot20, hot21, hot22, hot23,
};

int main(void)
{
	uint32_t sum = 1;
	for (uint32_t round = 0; round < 50; round++)
		for (uint32_t i = 0; i < sizeof(stages) / sizeof(stages[0]); i++)
			sum = sum * 31u + stages[i](sum + round);
	sink = sum;
	return 0;
}
