/* sample_filter.c: drops halting samples that stopped on an exception or trap entry (see
 * sample_filter.h), for sampler.c.
 *
 * Exception entries (Cortex-M): a halt that finds an interrupt pending takes it first and stops
 * on the handler's first instruction (QEMU's stub does, and the architecture allows a probe's
 * halt request to do the same), so halting samples pile up on handler entries that never ran:
 * SysTick_Handler got 4 % of the samples of a firmware where it ran 0.0002 % of the
 * instructions. The vector table is read once (VTOR, 64 entries); a sample whose pc is an
 * entry of it while lr holds an EXC_RETURN value is such a halt and is dropped (counted in
 * res->exc_entry by the sampler): the halt came at a random moment, so what is dropped is an
 * unbiased subset.
 *
 * RISC-V has no table to read once: the trap vector (mtvec, direct or vectored) is whatever the
 * firmware wrote last, often at boot or when a profiler starts. It is read while halted, again
 * after 5 ms, then at doubling intervals up to every 500 ms (a dozen reads in a 3 s run, each a
 * round trip), and a halting sample on a trap entry (mtvec's base; vectored: base + 4 * cause) is
 * dropped the same way. Nothing marks a trap's first instruction as on Cortex-M (ra is not
 * changed by a trap), so a trap entry that really was running is dropped too: one instruction.
 * Measured on QEMU's sifive_e with a 1 kHz timer interrupt: 30 % of the samples at --rate 0 and
 * 4.5 % at the default rate landed on the trap entry, which ran 0.004 % of the instructions.
 *
 * Owns nothing: the rsp is the caller's, the state lives in the caller's rp_sfilter. The
 * workload: one read of 256 bytes (Cortex-M) or a dozen register reads (RISC-V) per run, and a
 * scan of at most 64 entries per sample. */
#include <stdio.h>

#include "sample_filter.h"

#define VTOR 0xE000ED08u
#define NVECTORS RP_SFILTER_NVECTORS
#define MTVEC_FIRST_NS 5000000    /* the first re-read of mtvec after the start */
#define MTVEC_MAX_NS 500000000    /* the longest interval between reads of mtvec */

/* Whether a halting sample stopped on an exception handler's first instruction (see the top):
 * lr is an EXC_RETURN value there, which rp_rsp_read_pc gives as 0 (no caller). */
static int at_exception_entry(const rp_sfilter *f, const rp_rsp *rsp, uint64_t pc, uint64_t ra)
{
	if (rp_rsp_has_ra(rsp) && ra != 0)
		return 0;
	for (size_t i = 0; i < f->nentries; i++)
		if (f->entries[i] == pc)
			return 1;
	return 0;
}

/* Whether a halting sample on RISC-V stopped on a trap's entry: mtvec's base in direct mode
 * (MODE 0), base + 4 * cause for the NVECTORS first causes in vectored mode (MODE 1). */
static int at_trap_entry(const rp_sfilter *f, uint64_t pc)
{
	uint64_t base = f->mtvec & ~(uint64_t)3;
	if (base == 0)
		return 0; /* not set yet: reset value */
	if ((f->mtvec & 3) == 1)
		return pc >= base && pc < base + 4 * NVECTORS && (pc - base) % 4 == 0;
	return pc == base;
}

int rp_sfilter_drops(const rp_sfilter *f, const rp_rsp *rsp, uint64_t pc, uint64_t ra)
{
	return (f->nentries && at_exception_entry(f, rsp, pc, ra)) || (f->riscv_traps && at_trap_entry(f, pc));
}

int rp_sfilter_refresh(rp_sfilter *f, rp_rsp *rsp, int64_t now_ns, rp_sampler_result *res, rp_err *err)
{
	if (!f->riscv_traps || now_ns < f->mtvec_next)
		return 0;
	int rc = rp_rsp_read_trap_vector(rsp, &f->mtvec, err);
	if (rc < 0)
		return rc;
	if (rc == 1) {
		f->riscv_traps = 0;
		snprintf(res->exc_note, sizeof(res->exc_note), "mtvec stopped being readable");
		return 0;
	}
	f->mtvec_next = now_ns + f->mtvec_every;
	f->mtvec_every = f->mtvec_every * 2 > MTVEC_MAX_NS ? MTVEC_MAX_NS : f->mtvec_every * 2;
	return 0;
}

/* Sets up the RISC-V trap entry check: the first read of mtvec, while halted at the start. */
static int start_trap_check(rp_sfilter *f, rp_rsp *rsp, int64_t now_ns, rp_sampler_result *res, rp_err *err)
{
	int rc = rp_rsp_read_trap_vector(rsp, &f->mtvec, err);
	if (rc < 0)
		return rc;
	if (rc == 1) {
		snprintf(res->exc_note, sizeof(res->exc_note), "no vector table (not a Cortex-M) and no mtvec read");
		return 0;
	}
	f->riscv_traps = 1;
	f->mtvec_every = MTVEC_FIRST_NS;
	f->mtvec_next = now_ns + f->mtvec_every;
	return 0;
}

/* Reads the vector table of a halted Cortex-M (VTOR; 0 where VTOR reads as zero or not at all,
 * as on ARMv6-M) into f->entries: the handlers of exceptions 2 and up. */
static void read_vectors(rp_sfilter *f, rp_rsp *rsp, rp_sampler_result *res)
{
	unsigned char b[4 * NVECTORS];
	rp_err ignored = RP_ERR_INIT;
	uint32_t vtor = 0;
	if (rp_rsp_read_mem(rsp, VTOR, b, 4, &ignored) == 0)
		vtor = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	if (rp_rsp_read_mem(rsp, vtor & ~0x7fu, b, sizeof(b), &ignored) < 0) {
		snprintf(res->exc_note, sizeof(res->exc_note), "the vector table at 0x%08x is not readable",
			 vtor & ~0x7fu);
		return;
	}
	for (size_t i = 2; i < NVECTORS; i++) {
		const unsigned char *v = b + 4 * i;
		uint32_t e = ((uint32_t)v[0] | (uint32_t)v[1] << 8 | (uint32_t)v[2] << 16 | (uint32_t)v[3] << 24);
		if ((e & 1) && e != 0xffffffffu)  /* Thumb handlers only: anything else is no vector */
			f->entries[f->nentries++] = e & ~1u;
	}
}

int rp_sfilter_start(rp_sfilter *f, rp_rsp *rsp, int64_t now_ns, rp_sampler_result *res, rp_err *err)
{
	if (rp_rsp_is_m_profile(rsp)) {
		read_vectors(f, rsp, res);
		return 0;
	}
	return start_trap_check(f, rsp, now_ns, res, err);
}
