/* calls.h: direct calls and tail branches out of a function, decoded from its machine code.
 *
 * Thumb-2 (BL, B.W, conditional B.W) and RISC-V (JAL, C.JAL, C.J, AUIPC+JALR pairs). Indirect
 * calls are not seen. The placement uses it to reserve room for Cortex-M veneers and to keep
 * what the reset handler calls in flash. */
#ifndef RAMPLACE_CALLS_H
#define RAMPLACE_CALLS_H

#include <stdint.h>
#include "ramplace/error.h"
#include "ramplace/image.h"

/* Called once per decoded branch whose target lies outside f; return non-zero to stop. */
typedef int (*rp_call_fn)(void *ctx, uint64_t site, uint64_t target);

/* Decodes f's code from the image and reports each direct call or branch leaving f.
 * Returns 0, RP_EINPUT when f's bytes are not in the file, or the callback's non-zero value. */
int rp_calls_scan(const rp_image *img, const rp_func *f, rp_call_fn fn, void *ctx, rp_err *err);

/* Decoders on raw bytes, for tests and fuzzing. `addr` is the address of code[0]. */
int rp_calls_scan_thumb(const uint8_t *code, uint64_t len, uint64_t addr, int big_endian,
			rp_call_fn fn, void *ctx);
int rp_calls_scan_riscv(const uint8_t *code, uint64_t len, uint64_t addr, rp_call_fn fn, void *ctx);

#endif
