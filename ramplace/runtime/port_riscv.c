/* port_riscv.c: the RISC-V timer part of ramplace's sampling runtime: the CLINT machine timer
 * (mtime/mtimecmp, as on SiFive cores and QEMU's sifive_e and virt) as the sampling interrupt,
 * a trap entry that passes the interrupted pc (mepc) and ra to the sampler, and semihosting.
 * RV32 only. Owns mtimecmp of hart 0 and, unless built with -DRAMPLACE_PROFILE_KEEP_MTVEC,
 * mtvec while profiling:
 *  - by default profile_on points mtvec (direct mode) at ramplace_profile_trap_entry, which
 *    handles the machine timer interrupt and hands every other trap to the weak C function
 *    ramplace_profile_other_trap(mcause, mepc), which the firmware overrides;
 *  - with RAMPLACE_PROFILE_KEEP_MTVEC the firmware's own trap code calls
 *    ramplace_profile_timer_interrupt(mepc, interrupted ra) on a machine timer interrupt.
 *
 * Settings: RAMPLACE_PROFILE_CLOCK_HZ (the mtime frequency, required: 32768 on a HiFive1,
 * 10000000 on QEMU 7.2's sifive_e), RAMPLACE_PROFILE_CLINT (CLINT base, default 0x02000000). */
#include "ramplace_profile.h"

#ifndef RAMPLACE_PROFILE_CLOCK_HZ
/* No default: a HiFive1's FE310 counts mtime at 32768 Hz, QEMU 7.2's sifive_e at 10 MHz. */
#error "define RAMPLACE_PROFILE_CLOCK_HZ: the mtime frequency in Hz"
#endif
#ifndef RAMPLACE_PROFILE_CLINT
#define RAMPLACE_PROFILE_CLINT 0x02000000u
#endif

#define MTIMECMP_LO (*(volatile uint32_t *)(RAMPLACE_PROFILE_CLINT + 0x4000u))
#define MTIMECMP_HI (*(volatile uint32_t *)(RAMPLACE_PROFILE_CLINT + 0x4004u))
#define MTIME_LO (*(volatile uint32_t *)(RAMPLACE_PROFILE_CLINT + 0xBFF8u))
#define MTIME_HI (*(volatile uint32_t *)(RAMPLACE_PROFILE_CLINT + 0xBFFCu))
#define MIE_MTIE (1u << 7)
#define MSTATUS_MIE (1u << 3)
#define MCAUSE_MTI 0x80000007u
/* Two ticks at least, so that the jitter in [base/2, 3 base/2) has room. */
#define MIN_PERIOD 2u
/* CSR instructions whatever -march says (GCC 12 wants _zicsr spelled out, older ones refuse it). */
#define CSR_ASM(insn) ".option push\n\t.option arch, +zicsr\n\t" insn "\n\t.option pop"

int ramplace_profile_port_period(unsigned interval_us, uint32_t *ticks, uint32_t *rate_hz)
{
	uint64_t t = (uint64_t)RAMPLACE_PROFILE_CLOCK_HZ * interval_us / 1000000u;

	if (t < MIN_PERIOD || t > UINT32_MAX / 2)
		return -1;
	*ticks = (uint32_t)t;
	*rate_hz = (uint32_t)((RAMPLACE_PROFILE_CLOCK_HZ + t / 2) / t);
	if (*rate_hz == 0)
		*rate_hz = 1;
	return 0;
}

static uint64_t mtime(void)
{
	uint32_t hi, lo;

	do {
		hi = MTIME_HI;
		lo = MTIME_LO;
	} while (hi != MTIME_HI);
	return (uint64_t)hi << 32 | lo;
}

/* Writes the compare value without passing through a smaller one (an early interrupt). */
static void set_mtimecmp(uint64_t when)
{
	MTIMECMP_HI = UINT32_MAX;
	MTIMECMP_LO = (uint32_t)when;
	MTIMECMP_HI = (uint32_t)(when >> 32);
}

void ramplace_profile_port_start(uint32_t ticks)
{
#ifndef RAMPLACE_PROFILE_KEEP_MTVEC
	__asm__ volatile(CSR_ASM("csrw mtvec, %0") ::"r"((uintptr_t)ramplace_profile_trap_entry));
#endif
	set_mtimecmp(mtime() + ticks);
	__asm__ volatile(CSR_ASM("csrs mie, %0") ::"r"(MIE_MTIE));
	__asm__ volatile(CSR_ASM("csrs mstatus, %0") ::"r"(MSTATUS_MIE));
}

void ramplace_profile_port_stop(void)
{
	__asm__ volatile(CSR_ASM("csrc mie, %0") ::"r"(MIE_MTIE));
	set_mtimecmp(UINT64_MAX);
}

/* Samples and re-arms relative to now, so that a late interrupt cannot cause a burst. */
void ramplace_profile_timer_interrupt(uint32_t pc, uint32_t from)
{
	ramplace_profile_tick(pc, from);
	set_mtimecmp(mtime() + ramplace_profile_next_period());
}

/* Default for every trap but the timer: nothing sensible to return to, so stop here where a
 * debugger sees it. Firmware with its own trap handling overrides this. */
__attribute__((weak)) void ramplace_profile_other_trap(uint32_t mcause, uint32_t mepc)
{
	(void)mcause;
	(void)mepc;
	for (;;)
		__asm__ volatile("wfi");
}

void __attribute__((used)) ramplace_profile_trap(uint32_t mcause, uint32_t mepc, uint32_t ra)
{
	if (mcause == MCAUSE_MTI)
		ramplace_profile_timer_interrupt(mepc, ra);
	else
		ramplace_profile_other_trap(mcause, mepc);
}

/* Saves the caller-saved registers (the C code preserves the rest), passes mcause, mepc and the
 * interrupted ra, restores and returns with mret. 64 bytes keep sp 16-byte aligned. */
__asm__(".section .text.ramplace_profile_trap_entry,\"ax\",@progbits\n"
	".balign 4\n"
	".globl ramplace_profile_trap_entry\n"
	".type ramplace_profile_trap_entry, @function\n"
	"ramplace_profile_trap_entry:\n"
	".option push\n"
	".option arch, +zicsr\n"
	"\taddi sp, sp, -64\n"
	"\tsw ra, 0(sp)\n\tsw t0, 4(sp)\n\tsw t1, 8(sp)\n\tsw t2, 12(sp)\n"
	"\tsw a0, 16(sp)\n\tsw a1, 20(sp)\n\tsw a2, 24(sp)\n\tsw a3, 28(sp)\n"
	"\tsw a4, 32(sp)\n\tsw a5, 36(sp)\n\tsw a6, 40(sp)\n\tsw a7, 44(sp)\n"
	"\tsw t3, 48(sp)\n\tsw t4, 52(sp)\n\tsw t5, 56(sp)\n\tsw t6, 60(sp)\n"
	"\tcsrr a0, mcause\n"
	"\tcsrr a1, mepc\n"
	"\tmv a2, ra\n"
	"\tcall ramplace_profile_trap\n"
	"\tlw ra, 0(sp)\n\tlw t0, 4(sp)\n\tlw t1, 8(sp)\n\tlw t2, 12(sp)\n"
	"\tlw a0, 16(sp)\n\tlw a1, 20(sp)\n\tlw a2, 24(sp)\n\tlw a3, 28(sp)\n"
	"\tlw a4, 32(sp)\n\tlw a5, 36(sp)\n\tlw a6, 40(sp)\n\tlw a7, 44(sp)\n"
	"\tlw t3, 48(sp)\n\tlw t4, 52(sp)\n\tlw t5, 56(sp)\n\tlw t6, 60(sp)\n"
	"\taddi sp, sp, 64\n"
	"\tmret\n"
	".option pop\n"
	".size ramplace_profile_trap_entry, . - ramplace_profile_trap_entry\n"
	".text\n");

/* RISC-V semihosting: the magic sequence must be uncompressed and inside one page. */
long ramplace_profile_port_semihost(unsigned op, void *arg)
{
	register uintptr_t a0 __asm__("a0") = op;
	register void *a1 __asm__("a1") = arg;

	__asm__ volatile(".option push\n\t"
			 ".option norvc\n\t"
			 ".balign 16\n\t"
			 "slli x0, x0, 0x1f\n\t"
			 "ebreak\n\t"
			 "srai x0, x0, 7\n\t"
			 ".option pop"
			 : "+r"(a0)
			 : "r"(a1)
			 : "memory");
	return (long)(int32_t)a0;
}
