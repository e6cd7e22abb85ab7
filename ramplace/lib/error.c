/* error.c: the rp_err value that every fallible function fills (see error.h), and the
 * library's version (rp_version). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ramplace/error.h"

int rp_err_set(rp_err *err, int code, const char *fmt, ...)
{
	va_list ap;
	if (!err)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

int rp_err_wrap(rp_err *err, const char *fmt, ...)
{
	char prefix[sizeof(err->msg)], old[sizeof(err->msg)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	/* truncation keeps the beginning, which names the subject */
	size_t n = strnlen(prefix, sizeof(err->msg) - 3);
	memcpy(err->msg, prefix, n);
	memcpy(err->msg + n, ": ", 2);
	size_t room = sizeof(err->msg) - n - 3;
	size_t m = strnlen(old, room);
	memcpy(err->msg + n + 2, old, m);
	err->msg[n + 2 + m] = '\0';
	return err->code;
}

int rp_err_nomem(rp_err *err, const char *what)
{
	return rp_err_set(err, RP_ENOMEM, "out of memory while %s", what);
}

int rp_err_exit_status(int code)
{
	switch (code) {
	case RP_OK:
		return 0;
	case RP_ECHECK:
		return 1;
	case RP_EINTERRUPT:
		return 130;
	default:
		return 2;
	}
}

const char *rp_version(void)
{
#ifdef RAMPLACE_VERSION
	return RAMPLACE_VERSION;
#else
	return "unknown";
#endif
}
