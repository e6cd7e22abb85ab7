/* startup.c: entry point and boot code of the sifive_e (RISC-V 32) demo firmware, linked with
 * -nostartfiles instead of picolibc's crt0.
 *
 * QEMU's mask ROM jumps to 0x20400000, the start of .boot (see sifive-e.ld), where _start sets
 * gp, tp and sp, copies .data/.tdata, .ramtext and .ramdata from flash into the DTIM, clears .tbss/.bss,
 * makes the copied code visible to instruction fetch (fence.i) and only then calls into C.
 * It is written in assembly so that no compiler can turn the copy and clear loops into
 * memcpy/memset calls: a placement may move those into .ramtext, which the boot code would
 * then call before copying it. _start is the ELF entry, so `ramplace place` keeps everything it
 * calls directly (__libc_init_array, main, exit) in flash as well.
 *
 * Semihosting (picolibc's libsemihost, QEMU -semihosting-config enable=on,target=native)
 * carries the output and the exit status; the machine has no other way out. */
#include <stdint.h>

#define BOOT_TEXT __attribute__((section(".boot.text")))

/* The copy/clear loops; a0 = destination, a1 = source, a2 = destination end. */
#define COPY_WORDS(dst, src, end) \
	"la a0, " dst "\n\tla a1, " src "\n\tla a2, " end "\n" \
	"1:\n\tbgeu a0, a2, 2f\n\tlw t0, 0(a1)\n\tsw t0, 0(a0)\n\taddi a0, a0, 4\n\taddi a1, a1, 4\n\tj 1b\n2:\n\t"
#define ZERO_WORDS(dst, end) \
	"la a0, " dst "\n\tla a2, " end "\n" \
	"3:\n\tbgeu a0, a2, 4f\n\tsw zero, 0(a0)\n\taddi a0, a0, 4\n\tj 3b\n4:\n\t"

BOOT_TEXT __attribute__((naked, noreturn)) void _start(void)
{
	__asm__ volatile(
		/* the -march string of the ABI (rv32imac) predates the Zicsr/Zifencei split */
		".option push\n\t.option arch, +zicsr, +zifencei\n\t.option norelax\n\t"
		"la gp, __global_pointer$\n\t"
		"la sp, _estack\n\t"
		"la tp, __tls_base\n\t"
		/* no interrupt handler exists: a trap is a bug, reported by trap_entry */
		"la t0, trap_entry\n\tcsrw mtvec, t0\n\t"
		COPY_WORDS("__data_start", "__data_load", "__data_end")
		COPY_WORDS("__ramtext_start", "__ramtext_load", "__ramtext_end")
		COPY_WORDS("__ramdata_start", "__ramdata_load", "__ramdata_end")	/* hot const data */
		ZERO_WORDS("__bss_start", "__bss_end")
		"fence.i\n\t"
		/* from here on RAM is set up, so library code may run wherever a placement put it */
		"call __libc_init_array\n\t"
		"call main\n\t"
		"tail exit\n\t"
		".option pop\n\t");
}

/* picolibc's semihosting exit: reports the status to QEMU, which exits with it. */
void _exit(int status) __attribute__((noreturn));

/* Every trap: nothing here expects one (no interrupts are enabled), so report it and stop QEMU
 * with a failure status instead of hanging or running on with a broken state. mtvec needs
 * 4-byte alignment. */
BOOT_TEXT __attribute__((naked, aligned(4), noreturn)) void trap_entry(void)
{
	__asm__ volatile("la sp, _estack\n\tcall trap_report");
}

int puts(const char *s);

__attribute__((noreturn, used)) void trap_report(void)
{
	puts("fw: unexpected trap (fault?), stopping");
	_exit(1);
}

#ifdef PROFILE_RUNTIME
/* make PROFILE_RUNTIME=1: profile_on points mtvec at the runtime's trap entry, which hands every
 * trap but its timer interrupt here. */
void ramplace_profile_other_trap(unsigned mcause, unsigned mepc)
{
	(void)mcause;
	(void)mepc;
	trap_report();
}
#endif

/* main.c (shared with the Cortex-M3 example) calls newlib's rdimon hook; picolibc's
 * semihosting stdio needs no setup. */
void initialise_monitor_handles(void)
{
}
