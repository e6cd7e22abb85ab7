/* disasm_thumb.h: the Thumb prefilter of the decoder (disasm_thumb.c). Private to lib/image.
 * Little-endian code (BE8) only; p holds avail bytes at address pc. */
#ifndef RAMPLACE_IMAGE_DISASM_THUMB_H
#define RAMPLACE_IMAGE_DISASM_THUMB_H

#include <stdint.h>
#include "ramplace/disasm.h"

/* 2 or 4: the length of an instruction with nothing for libopcodes to add; 0 otherwise. */
unsigned rp_thumb_plain(const uint8_t *p, uint64_t avail);
/* b, b<cond>, bl decoded into in: 1, else 0. */
int rp_thumb_branch(const uint8_t *p, uint64_t avail, uint64_t pc, rp_insn *in);
/* pop {..., pc}, bx Rm into in: 1, else 0. */
int rp_thumb_return(const uint8_t *p, uint64_t avail, rp_insn *in);

#endif
