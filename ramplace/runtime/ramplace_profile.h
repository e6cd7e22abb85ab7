/* ramplace_profile.h: ramplace's target-side sampling runtime, the API a firmware calls.
 *
 * A timer interrupt (SysTick on Cortex-M, the CLINT machine timer on RISC-V) records the
 * interrupted program counter into 16-bit saturating bins in RAM, one bin per `bucket` bytes of
 * code, and optionally (interrupted return address -> pc) arcs. The histogram leaves the target
 * as a gmon.out file (the format glibc writes and gprof reads): over semihosting
 * (profile_dump_semihosting), through any byte stream (profile_gmon_write), or read from RAM by
 * `ramplace record --runtime` through a gdbserver, which finds the descriptor `ramplace_profile`
 * below by its symbol. After eCos' CYGPKG_PROFILE_GPROF (profile_on/profile_off), with static
 * storage instead of malloc.
 *
 * Build-time settings (-D...):
 *   RAMPLACE_PROFILE_BINS      bins of static storage (default 4096 = 8 KiB of RAM)
 *   RAMPLACE_PROFILE_ARCS      arc slots, 12 bytes each (default 0: no arcs)
 *   RAMPLACE_PROFILE_CLOCK_HZ  the timer's input clock (required): the core clock for SysTick on
 *                              Cortex-M, the mtime frequency on RISC-V
 * 32-bit targets only: the descriptor's addresses are 32-bit. See docs/runtime.md. */
#ifndef RAMPLACE_PROFILE_H
#define RAMPLACE_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef RAMPLACE_PROFILE_BINS
#define RAMPLACE_PROFILE_BINS 4096
#endif
#ifndef RAMPLACE_PROFILE_ARCS
#define RAMPLACE_PROFILE_ARCS 0
#endif

#define RAMPLACE_PROFILE_MAGIC 0x46505052u /* "RPPF" in a little-endian word */
#define RAMPLACE_PROFILE_VERSION 1u

/* The descriptor the host reads from target memory: the layout is an interface (version 1),
 * 16 words in target byte order. Fields only grow at the end, with a new version. */
struct ramplace_profile_state {
	uint32_t magic;      /* RAMPLACE_PROFILE_MAGIC once profile_on has run */
	uint32_t version;    /* RAMPLACE_PROFILE_VERSION */
	uint32_t low_pc;     /* first code address covered */
	uint32_t high_pc;    /* low_pc + (nbins << shift) */
	uint32_t nbins;      /* bins in use */
	uint32_t shift;      /* log2 of the bucket size in bytes */
	uint32_t rate_hz;    /* mean timer interrupts per second (gmon prof_rate) */
	uint32_t running;    /* 1 while the timer samples */
	uint32_t ticks;      /* timer interrupts since profile_on or profile_reset */
	uint32_t outside;    /* of those, pcs outside [low_pc, high_pc) */
	uint32_t saturated;  /* of those, in a bin already at 65535 (lost) */
	uint32_t bins_addr;  /* address of the uint16_t bins */
	uint32_t arcs_addr;  /* address of the arc table, 0 when built without */
	uint32_t narcs;      /* slots in the arc table */
	uint32_t arcs_lost;  /* arcs not recorded: table full or count saturated */
	uint32_t prng;       /* state of the interval jitter */
};

/* One arc slot: the interrupted return address (lr/ra, caller side) and the sampled pc rounded
 * down to its bucket; count 0 marks a free slot. */
struct ramplace_profile_arc {
	uint32_t from_pc;
	uint32_t self_pc;
	uint32_t count;
};

extern volatile struct ramplace_profile_state ramplace_profile;

/* Starts sampling the code in [start, end): clears the histogram, picks the bucket size (bucket
 * rounded up to a power of two, at least 2, and doubled until the range fits in
 * RAMPLACE_PROFILE_BINS) and starts the timer with a mean period of interval_us microseconds;
 * each period is drawn uniformly from [0.5, 1.5] x the mean so that sampling cannot lock onto a
 * loop. Calling it again restarts from zero. Returns the bucket size used, or -1 when the
 * range is empty or the interval does not fit the timer. */
int profile_on(void *start, void *end, unsigned bucket, unsigned interval_us);

/* Stops the timer; unlike eCos, the histogram is kept so that it can be dumped. */
void profile_off(void);

/* Zeroes the bins, arcs and counters; sampling goes on if it was on. */
void profile_reset(void);

/* Bytes of the gmon.out image of the histogram as it is now. */
size_t profile_gmon_size(void);

/* Streams the gmon.out image through write(ctx, buf, len), which returns 0 or nonzero to stop.
 * Sampling pauses meanwhile so that the file is consistent. Returns 0 or -1. */
int profile_gmon_write(int (*write)(void *ctx, const void *buf, size_t len), void *ctx);

/* Writes the gmon.out image to `path` on the host over semihosting (SYS_OPEN "wb", SYS_WRITE,
 * SYS_CLOSE; QEMU resolves relative paths against its working directory). Needs a debugger or
 * emulator that serves semihosting. Returns 0 or -1. */
int profile_dump_semihosting(const char *path);

/* The same image as text through put(ctx, text, len) (0, or nonzero to stop), for a board
 * whose only way out is its console: "ramplace-gmon 1", hex lines, "ramplace-gmon end BYTES
 * CRC32" (dump_text.c); `ramplace import` finds the block in a whole console log. Returns 0 or
 * -1. */
int profile_gmon_write_text(int (*put)(void *ctx, const char *text, size_t len), void *ctx);

/* profile_gmon_write_text on stdout (dump_stdio.c: pico-sdk's stdio, a newlib retarget), then
 * fflush. Returns 0 or -1. */
int profile_dump_stdout(void);

/* Does nothing, never inlined: the firmware calls it where the profile is complete (say before
 * exit) and `ramplace record --runtime` stops the target on it to read the histogram. */
void ramplace_profile_ready(void);

/* Records one sample; the timer port calls it with the interrupted pc and return address
 * (from = 0: no arc). A firmware with its own timer interrupt may call it instead. */
void ramplace_profile_tick(uint32_t pc, uint32_t from);

/* The timer interrupt's work: samples (pc, from) and re-arms the timer with the next random
 * period. The port's own entry calls it; a firmware that routes the timer interrupt itself
 * calls it with the interrupted pc and lr/ra. */
void ramplace_profile_timer_interrupt(uint32_t pc, uint32_t from);

#if defined(__arm__)
/* The SysTick exception handler: put it in vector table entry 15. */
void ramplace_profile_systick_handler(void);
#elif defined(__riscv)
/* The mtvec trap entry profile_on installs (direct mode). */
void ramplace_profile_trap_entry(void);
/* Every trap but the machine timer interrupt goes here; weak (the default stops in a wfi loop),
 * the firmware overrides it. It may write mepc before returning (to skip an ecall, say). */
void ramplace_profile_other_trap(uint32_t mcause, uint32_t mepc);
#endif

/* Port interface, implemented once per architecture (port_cortexm.c, port_riscv.c). */
/* The mean period of interval_us in timer ticks, and the mean rate it gives. Returns 0, or -1
 * when 1.5 x the period does not fit the timer or is too short to leave the firmware time. */
int ramplace_profile_port_period(unsigned interval_us, uint32_t *ticks, uint32_t *rate_hz);
/* Starts the timer interrupt, the first one `ticks` from now; each interrupt then re-arms it
 * with ramplace_profile_next_period(). */
void ramplace_profile_port_start(uint32_t ticks);
void ramplace_profile_port_stop(void);
/* A semihosting call: operation op with parameter block arg; returns the host's r0/a0. */
long ramplace_profile_port_semihost(unsigned op, void *arg);
/* Next period in timer ticks, uniform in [base/2, base/2 + base) (for ports). */
uint32_t ramplace_profile_next_period(void);

#ifdef __cplusplus
}
#endif

#endif
