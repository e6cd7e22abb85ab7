/* boot.h: the reset path. Code that runs before the RAM code sections are copied from flash
 * must stay in flash. This finds the reset handler (vector table, else the ELF entry, else a
 * Reset_Handler/_start symbol) and walks what it runs, in order, through calls and tail jumps
 * at any depth, until it finds the function that copies the code section(s) (the copier: one
 * that refers both to where a section runs and to where it loads from, through
 * __ramtext_start/__ramtext_load-style symbols or the section's addresses; its last reference
 * to the load address is where it copies). Everything called before the copy is done, at every
 * level of the way down to the copier, and the call that does the copy (a
 * memcpy(__ramtext_start, ...)), is boot-path code: it stays in flash with its whole static
 * call closure, as do the functions on the way (reset handler ... copier) themselves. What
 * those call after the copy is free to move.
 *
 * When no copier is found the rule is conservative: if the walk reaches main, everything that
 * runs before main is called (the static call closure of every call made before it, at every
 * level, and the functions on the way) stays in flash; without a main, the whole static call
 * closure of the reset handler. */
#ifndef RAMPLACE_BOOT_H
#define RAMPLACE_BOOT_H

#include <stdint.h>
#include <stddef.h>
#include "ramplace/callgraph.h"
#include "ramplace/error.h"
#include "ramplace/image.h"

/* A call the walk judged (place --reset-path prints them): at addr, caller calls callee. */
typedef enum rp_boot_site_kind {
	RP_BOOT_SITE_BEFORE = 0,  /* may run before the copy: a path reaches it without the copy */
	RP_BOOT_SITE_AFTER,       /* every path to it passes the copy (or the call on the way to it) */
	RP_BOOT_SITE_WAY,         /* the call on the way down to the copier */
	RP_BOOT_SITE_MAIN         /* main, where the walk stopped without finding the copy */
} rp_boot_site_kind;

typedef struct rp_boot_site {
	uint64_t addr;
	size_t caller, callee;
	rp_boot_site_kind kind;
} rp_boot_site;

typedef struct rp_boot {
	size_t reset;             /* function index, SIZE_MAX when there is none */
	char found_by[64];        /* "the vector table (.vectors)", "the ELF entry point", ... */
	int copy_found;
	uint64_t copy_site;       /* address of the copier's last reference to the code section's bounds */
	size_t copier;            /* the function that copies, SIZE_MAX when not found */
	size_t main_func;         /* copy not found: the main the walk stopped at, SIZE_MAX when none */
	size_t *pre, npre;        /* called before the copy is done (or before main), at any level of
				     the way, the copying call included: kept with their closure */
	size_t *path, npath;      /* the way down: the reset handler's callee ... the copier (or the
				     function calling main); kept themselves */
	size_t *post, npost;      /* called on the way after the copy (or main and after): free */
	unsigned char *keep;      /* per function: must stay in flash */
	size_t *via;              /* per kept function: the function it is reached from (SIZE_MAX for
				     the reset handler), for rp_boot_chain */
	size_t nkeep;
	rp_boot_site *sites;      /* every call the walk judged, in the order it judged them */
	size_t nsites;
	size_t *unreached, nunreached; /* copiers the walk did not reach (called through a pointer:
				     a constructor in .init_array, a table): each kept with its
				     closure, in .pre too */
} rp_boot;

/* outsecs: the output sections holding code that the reset handler copies (".ramtext"...).
 * Fails only on memory, or RP_EINPUT when the architecture cannot be disassembled. */
int rp_boot_analyze(rp_boot *out, const rp_image *img, const rp_callgraph *cg, const char *const *outsecs,
		    size_t noutsecs, rp_err *err);
void rp_boot_release(rp_boot *b);

/* The functions a Cortex-M vector table names past the reset handler (each once, in table
 * order): the interrupt and exception handlers; on RISC-V, rp_riscv_trap_handlers's. *out is the
 * caller's to free. RP_EINPUT when the image has no vector table (RISC-V: no mtvec write). */
int rp_boot_vector_handlers(const rp_image *img, size_t **out, size_t *n, rp_err *err);
/* The same, and on Cortex-M the address of the first vector table word naming each handler
 * (*slots, the caller's; NULL on RISC-V, whose trap entry reads no vector). */
int rp_boot_vector_slots(const rp_image *img, size_t **out, uint64_t **slots, size_t *n, rp_err *err);
/* A RISC-V image's trap handlers (riscv_traps.c): each function whose address the code writes
 * into mtvec, or, for a vectored mtvec (address | 1), each `j` target of the table there; each
 * once. *out is the caller's to free; none found is no error (*n = 0). */
int rp_riscv_trap_handlers(const rp_image *img, size_t **out, size_t *n, rp_err *err);

/* Writes "Reset_Handler -> _cstart -> memcpy": how the reset path reaches kept function f
 * (truncated with "..." to fit buf). */
void rp_boot_chain(const rp_boot *b, const rp_image *img, size_t f, char *buf, size_t n);

#endif
