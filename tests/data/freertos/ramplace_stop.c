/* ramplace_stop.c: what t_freertos adds to the FreeRTOS MPS2 demo beside README's lines: a
 * deterministic end. The demo runs forever; this tick hook ends it through semihosting after
 * RAMPLACE_STOP_TICK ticks (under qemu -icount the run is then the same every time), printing
 * only facts that do not depend on timing: the tick it stopped at and that the register test
 * tasks ran. The demo's own check task reports on the UART. Linked in by the test's copy of
 * the demo's Makefile; called from the demo's vApplicationTickHook (one line added there). */
#include <stdint.h>

#ifndef RAMPLACE_STOP_TICK
#define RAMPLACE_STOP_TICK 5500u
#endif

extern volatile unsigned long ulRegTest1LoopCounter, ulRegTest2LoopCounter;

static void semihost(uint32_t op, const void *arg)
{
	register uint32_t r0 __asm__("r0") = op;
	register const void *r1 __asm__("r1") = arg;
	__asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
}

static void say(const char *s)
{
	semihost(0x04, s);   /* SYS_WRITE0 */
}

static void say_number(uint32_t v)
{
	char buf[12], *p = buf + sizeof(buf) - 1;
	*p = '\0';
	do
		*--p = (char)('0' + v % 10u);
	while ((v /= 10u) != 0);
	say(p);
}

void vRamplaceStopHook(void)
{
	static uint32_t ticks;
	if (++ticks != RAMPLACE_STOP_TICK)
		return;
	say("ramplace-stop: tick ");
	say_number(ticks);
	say(ulRegTest1LoopCounter && ulRegTest2LoopCounter ? "; register tests ran\n" : "; register tests did not run\n");
	semihost(0x18, (const void *)0x20026);   /* SYS_EXIT, ADP_Stopped_ApplicationExit */
}
