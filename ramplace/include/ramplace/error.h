/* error.h: errors as values.
 *
 * Every fallible function returns 0 on success or a negative rp_code, and fills the caller's
 * rp_err with one line of context ("<file or host>: <what is wrong>"). Only main() prints it,
 * as "ramplace: <msg>", and turns the code into an exit status. */
#ifndef RAMPLACE_ERROR_H
#define RAMPLACE_ERROR_H

#include <stddef.h>

typedef enum rp_code {
	RP_OK = 0,
	RP_EINPUT = -1,    /* bad outside input: file, option value, remote reply (exit 2) */
	RP_EUSAGE = -2,    /* bad command line (exit 2) */
	RP_EIO = -3,       /* I/O or system failure (exit 2) */
	RP_ENOMEM = -4,    /* allocation failure (exit 2) */
	RP_ECHECK = -5,    /* verification found failures (exit 1) */
	RP_EINTERRUPT = -6 /* stopped by the user; what was gathered is kept (exit 130) */
} rp_code;

typedef struct rp_err {
	int code;
	char msg[1024];
} rp_err;

#define RP_ERR_INIT { 0, { 0 } }

/* Sets code and message; returns code so callers can `return rp_err_set(...)`. */
int rp_err_set(rp_err *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Prefixes the existing message with "prefix: " (adds context on the way up); returns err->code. */
int rp_err_wrap(rp_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Shorthand for an allocation failure while doing `what`. */
int rp_err_nomem(rp_err *err, const char *what);

/* Process exit status for a code: 0, 1 for RP_ECHECK, 130 for RP_EINTERRUPT, 2 otherwise. */
int rp_err_exit_status(int code);

/* The library's version (the project's), as --version and the HTML page give it. */
const char *rp_version(void);

#endif
