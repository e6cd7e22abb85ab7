/* port_cortexm.c: the Cortex-M timer part of ramplace's sampling runtime: SysTick as the
 * sampling interrupt, the exception-entry code that finds the interrupted pc and lr in the
 * stacked frame, and semihosting through BKPT 0xAB. ARMv6-M, ARMv7-M and ARMv8-M (Thumb-1
 * instructions only in the handler). Owns SysTick while profiling: a firmware whose RTOS ticks
 * on SysTick calls ramplace_profile_timer_interrupt from another timer's handler instead.
 *
 * The firmware puts ramplace_profile_systick_handler into its vector table's SysTick slot
 * (entry 15), or builds with -DRAMPLACE_PROFILE_DEFINE_SYSTICK_HANDLER to get a strong
 * SysTick_Handler that overrides a CMSIS startup's weak default (or
 * -DRAMPLACE_PROFILE_SYSTICK_ALIAS=isr_systick for pico-sdk's name). */
#include "ramplace_profile.h"

/* A platform header that defines the clock RAMPLACE_PROFILE_CLOCK_HZ names (pico-sdk's
 * <hardware/platform_defs.h> and its SYS_CLK_HZ: 125 or 150 MHz, 200 with
 * PICO_USE_FASTEST_SUPPORTED_CLOCK, or the board's). */
#ifdef RAMPLACE_PROFILE_PLATFORM_HEADER
#include RAMPLACE_PROFILE_PLATFORM_HEADER
#endif

#ifndef RAMPLACE_PROFILE_CLOCK_HZ
#error "define RAMPLACE_PROFILE_CLOCK_HZ: the SysTick clock (the core clock, CLKSOURCE=1) in Hz"
#endif

#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)
#define SHPR3 (*(volatile uint32_t *)0xE000ED20u)
#define SYST_CSR_ENABLE 1u
#define SYST_CSR_TICKINT 2u
#define SYST_CSR_CLKSOURCE 4u
#define SYST_MAX 0x1000000u
/* Fewer cycles than this between interrupts would leave the firmware little time to run. */
#define MIN_PERIOD 200u

int ramplace_profile_port_period(unsigned interval_us, uint32_t *ticks, uint32_t *rate_hz)
{
	uint64_t t = (uint64_t)RAMPLACE_PROFILE_CLOCK_HZ * interval_us / 1000000u;

	if (t < MIN_PERIOD || t + t / 2 > SYST_MAX)
		return -1;
	*ticks = (uint32_t)t;
	*rate_hz = (uint32_t)((RAMPLACE_PROFILE_CLOCK_HZ + t / 2) / t);
	return 0;
}

void ramplace_profile_port_start(uint32_t ticks)
{
	SYST_CSR = 0;
	SYST_RVR = ticks - 1;
	SYST_CVR = 0;	/* any write clears it; the count restarts from RVR */
	/* highest configurable priority, so that other handlers are sampled too */
	SHPR3 &= 0x00ffffffu;
	SYST_CSR = SYST_CSR_CLKSOURCE | SYST_CSR_TICKINT | SYST_CSR_ENABLE;
}

void ramplace_profile_port_stop(void)
{
	SYST_CSR = 0;
}

/* Called by the handler below with the stacked pc and lr. The counter has already reloaded
 * when this runs, so the new RVR sets the period after the current one: still a random
 * sequence with the same mean. */
void __attribute__((used)) ramplace_profile_timer_interrupt(uint32_t pc, uint32_t from)
{
	ramplace_profile_tick(pc, from);
	SYST_RVR = ramplace_profile_next_period() - 1;
}

/* Exception entry: bit 2 of EXC_RETURN (in lr) says which stack the hardware pushed the frame
 * r0, r1, r2, r3, r12, lr, pc, xPSR on: 0 main (MSP), 1 process (PSP). Naked, so nothing has
 * been pushed since; it tail-calls the C part with lr still holding EXC_RETURN. */
__attribute__((naked)) void ramplace_profile_systick_handler(void)
{
	__asm__ volatile(
		"movs r0, #4\n\t"
		"mov r1, lr\n\t"
		"tst r0, r1\n\t"
		"beq 1f\n\t"
		"mrs r0, psp\n\t"
		"b 2f\n"
		"1:\n\t"
		"mrs r0, msp\n"
		"2:\n\t"
		"ldr r1, [r0, #20]\n\t"	/* stacked lr: the interrupted code's return address */
		"ldr r0, [r0, #24]\n\t"	/* stacked pc: the interrupted instruction */
		"ldr r2, =ramplace_profile_timer_interrupt\n\t"
		"bx r2\n\t"
		".ltorg\n");
}

#ifdef RAMPLACE_PROFILE_DEFINE_SYSTICK_HANDLER
void SysTick_Handler(void) __attribute__((alias("ramplace_profile_systick_handler")));
#endif
/* The name another startup gives entry 15 (pico-sdk's crt0: isr_systick), overriding its weak
 * default the same way. */
#ifdef RAMPLACE_PROFILE_SYSTICK_ALIAS
void RAMPLACE_PROFILE_SYSTICK_ALIAS(void) __attribute__((alias("ramplace_profile_systick_handler")));
#endif

long ramplace_profile_port_semihost(unsigned op, void *arg)
{
	register unsigned r0 __asm__("r0") = op;
	register void *r1 __asm__("r1") = arg;

	__asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
	return (long)(int32_t)r0;
}
