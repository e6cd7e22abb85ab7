/* main.c: a minimal sifive_e (RV32) firmware for the RISC-V port of ramplace's sampling runtime
 * (tests/integration/t_runtime_riscv.sh): two loops whose instruction counts are in a known
 * ratio run with sampling on, then the histogram goes out over semihosting and the firmware
 * ends QEMU through semihosting SYS_EXIT (picolibc's exit does not stop sifive_e). */
#include <stdint.h>
#include <stdio.h>

#include "ramplace_profile.h"

extern char _start[], __text_end[];	/* picolibc.ld */

volatile uint32_t sink;

/* Each iteration is the same few instructions; heavy runs three times the iterations. */
__attribute__((noinline)) void heavy(void)
{
	for (uint32_t i = 0; i < 3000; i++)
		sink += i;
}

__attribute__((noinline)) void light(void)
{
	for (uint32_t i = 0; i < 1000; i++)
		sink += i;
}

#define SYS_EXIT 0x18u
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u
#define ADP_STOPPED_RUNTIME_ERROR 0x20023u

int main(void)
{
	int bucket = profile_on(_start, __text_end, 4, 5);
	for (int r = 0; r < 1000; r++) {
		heavy();
		light();
	}
	profile_off();
	printf("profile: %lu samples (%lu outside, %lu lost), %d-byte buckets, %lu Hz\n",
	       (unsigned long)ramplace_profile.ticks, (unsigned long)ramplace_profile.outside,
	       (unsigned long)ramplace_profile.saturated, bucket, (unsigned long)ramplace_profile.rate_hz);
	ramplace_profile_ready();
	int ok = bucket > 0 && profile_dump_semihosting("gmon.out") == 0;
	/* RV32 semihosting: SYS_EXIT takes the reason itself */
	ramplace_profile_port_semihost(SYS_EXIT, (void *)(uintptr_t)(ok ? ADP_STOPPED_APPLICATION_EXIT
									: ADP_STOPPED_RUNTIME_ERROR));
	return 0;
}
