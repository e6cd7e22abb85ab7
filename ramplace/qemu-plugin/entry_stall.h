/* entry_stall.h: the stall cycles of interrupt handlers' entries, measured by libramplace-qemu.so
 * on request (entry_stall.c): for each entry=ADDR, the stall cycles the flash model charges over
 * the first entry-window=N instructions (16) of each invocation (worst, sum and count) and over
 * each whole invocation, entry to exception return (worst, and how many were seen to return),
 * printed at exit and written into the counts file (version 5's "h" lines), so import stores
 * them. What a handler that misses in flash costs in latency (issue 26: RP2350's ~12 cycles
 * grow to ~300); with its whole reach in RAM only the vector's read is left. The window ends
 * with its invocation at the latest. ramplace_qemu.c hands it the
 * options it does not know, each instruction translated, every stall charged and the exit. */
#ifndef RAMPLACE_ENTRY_STALL_H
#define RAMPLACE_ENTRY_STALL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct qemu_plugin_insn;

/* What an instruction is to an invocation: a call (its return address is pushed), a return
 * (judged by where execution goes on), an exception return (RISC-V's mret: always one); ES_IT:
 * a Thumb IT instruction (classify only), whose block's instructions are ES_COND. */
enum { ES_CALL = 1, ES_RETURN = 2, ES_EXC_RETURN = 4, ES_IT = 8, ES_COND = 16 };

/* One translated instruction, as its callback sees it. */
typedef struct es_insn {
	uint64_t vaddr;          /* bit 0 clear */
	uint8_t len;
	int entry;               /* the entry= it starts, index + 1; 0: none */
	unsigned kind;           /* ES_* */
	uint64_t target;         /* a Thumb bl's callee (bit 0 clear); 0: not known */
} es_insn;

/* The kind of the instruction of len bytes at b (Thumb, or RISC-V when riscv). */
unsigned entry_stall_classify(const uint8_t *b, size_t len, int riscv);
/* The callee of the Thumb bl at vaddr (its 4 bytes at b); 0 when b is no bl. */
uint64_t entry_stall_bl_target(const uint8_t *b, size_t len, uint64_t vaddr);
/* One instruction about to execute (the callback's work; tests drive it directly). */
void entry_stall_step(const es_insn *in);
/* The target's name from QEMU ("arm", "riscv32"): which returns are read. */
void entry_stall_target(const char *target_name);
/* How an entry=ADDR@SLOT's vector read is charged: a data read of size bytes at addr through
 * the flash model (ramplace_qemu.c), whose stall comes back through entry_stall_add. */
void entry_stall_reader(void (*read)(uint64_t addr, unsigned size));
/* entry=HEX[@SLOT] (repeatable, at most 16; SLOT: the vector table word the core reads on that
 * entry, charged as a data read) or entry-window=N: 1 when it was one of these (and valid), 0
 * when it is not, -1 (message printed) for a bad value. */
int entry_stall_option(const char *arg);
/* Whether entry= was given (needs model=). */
int entry_stall_on(void);
/* A translated instruction at vaddr: counted into an open window; an entry opens one. Register
 * before the instruction's model callbacks, so that the entry's own fetch is in its window. */
void entry_stall_translate(struct qemu_plugin_insn *insn, uint64_t vaddr, const uint8_t *bytes, size_t len);
/* Stall cycles the model just charged (a fetch or a data read). */
void entry_stall_add(uint64_t stall);
/* At exit: one line per entry on stderr, "ramplace-qemu: entry 0xADDR: worst N stall cycles
 * in its first W instructions (W = 16 unless entry-window= says), K invocations". */
void entry_stall_report(void);
/* Version 5's lines, after the evictions: "# entries N window W", then per entry "h ADDR
 * INVOCATIONS WORST SUM RETURNED INVOCATION-WORST" (hex address, decimals). */
void entry_stall_write(FILE *fp);

#endif
