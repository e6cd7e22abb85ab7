/* sample_filter.h: private interface of sample_filter.c, the halting sampler's check for halts
 * that stopped on an exception or trap entry (Cortex-M vector table, RISC-V mtvec). Not
 * installed: only sampler.c includes it. The struct lives in the sampler's loop state; it owns
 * no memory. */
#ifndef RAMPLACE_SAMPLE_FILTER_H
#define RAMPLACE_SAMPLE_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "ramplace/error.h"
#include "ramplace/rsp.h"
#include "ramplace/sampler.h"

#define RP_SFILTER_NVECTORS 64

typedef struct rp_sfilter {
	uint32_t entries[RP_SFILTER_NVECTORS]; /* Cortex-M exception handler entries (thumb bit clear) */
	size_t nentries;
	int riscv_traps;         /* mtvec is read and trap entries dropped (RISC-V) */
	uint64_t mtvec;          /* its last value */
	int64_t mtvec_next, mtvec_every; /* when to read it again (host ns), and the interval after that */
} rp_sfilter;

/* Sets the check up on the halted target at host time now_ns: the vector table on an
 * M-profile target, the first read of mtvec otherwise. Where it cannot be made,
 * res->exc_note says why and nothing is dropped. Returns 0, or a negative code (the
 * connection failed, err set). */
int rp_sfilter_start(rp_sfilter *f, rp_rsp *rsp, int64_t now_ns, rp_sampler_result *res, rp_err *err);

/* Re-reads mtvec of the halted target when due. Returns 0, or a negative code (the connection
 * failed); a gdbserver that stops serving mtvec ends the check (res->exc_note), not the run. */
int rp_sfilter_refresh(rp_sfilter *f, rp_rsp *rsp, int64_t now_ns, rp_sampler_result *res, rp_err *err);

/* Whether a halting sample (pc, and ra as rp_rsp_read_pc gives it) stopped on an exception or
 * trap entry and is to be dropped. */
int rp_sfilter_drops(const rp_sfilter *f, const rp_rsp *rsp, uint64_t pc, uint64_t ra);

#endif
