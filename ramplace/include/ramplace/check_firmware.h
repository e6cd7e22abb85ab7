/* check_firmware.h: `ramplace check` as a library call (check_firmware.c): the relinked ELF
 * loaded once, every plan given (and the data plans they name) checked on it (check.h:
 * rp_check_run), then the reset path and the interrupt handlers kept off flash, each result
 * kept for the caller to print. What the CLI, the CMake and make integrations and a library
 * user share; the CLI only parses options and prints the report. */
#ifndef RAMPLACE_CHECK_FIRMWARE_H
#define RAMPLACE_CHECK_FIRMWARE_H

#include <stddef.h>
#include "ramplace/check.h"
#include "ramplace/error.h"
#include "ramplace/image.h"
#include "ramplace/plan.h"

typedef struct rp_check_opts {
	const char *elf_path;              /* the relinked firmware */
	const char *const *plans;          /* plan files; the data plans they name are added */
	size_t nplans;
	int allow_empty;                   /* a plan that moves nothing is not a failure */
	int allow_boot_path;               /* reset-path findings are listed, not failed */
	const char *const *handler_globs;  /* --ram-handler: handlers proved off flash */
	size_t nhandler_globs;
	int all_handlers;                  /* --ram-handlers: every vector-table handler */
} rp_check_opts;

typedef struct rp_check_plan_report {
	char *path;                        /* owned */
	rp_plan *plan;                     /* owned */
	int empty_fails;                   /* moves nothing, and that counts as a failure */
	int checked;                       /* res holds the check (else an error stopped it) */
	rp_check_result res;
} rp_check_plan_report;

typedef struct rp_check_report {
	rp_image *img;                     /* the relinked ELF (owned) */
	rp_check_plan_report *plans;       /* checked so far, in order: also after a failure */
	size_t nplans;
	int reset_loader;                  /* every plan's RAM is loaded by a bootloader (ESP-IDF):
					      the reset path is no constraint, and not checked */
	int reset_checked;
	rp_check_result reset;             /* functions run before the copy that sit in RAM */
	size_t nreset;                     /* reset-path functions looked at */
	int boot_allowed;                  /* reset findings are notes: by option or by a plan */
	int boot_allowed_by_option;
	int handlers_checked;
	rp_check_result handlers;          /* paths from the handlers to flash */
	size_t nhandlers, nreached;
	size_t failures;                   /* every failure that fails the check */
} rp_check_report;

/* Fills out (zeroed first); returns 0 when every check could be done, failures or not (see
 * out->failures), else an error, with what was checked before it kept in out. */
int rp_check_firmware(const rp_check_opts *opts, rp_check_report *out, rp_err *err);
void rp_check_report_release(rp_check_report *r);

#endif
