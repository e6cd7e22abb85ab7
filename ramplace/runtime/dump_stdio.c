/* dump_stdio.c: profile_dump_stdout, the text dump (dump_text.c) on the C library's stdout:
 * pico-sdk's stdio (UART or USB), a newlib retarget, semihosting's stdout. Kept apart from
 * profile.c so that a firmware without stdio does not link it. */
#include <stdio.h>

#include "ramplace_profile.h"

static int put_stdout(void *ctx, const char *text, size_t len)
{
	(void)ctx;
	return fwrite(text, 1, len, stdout) == len ? 0 : -1;
}

int profile_dump_stdout(void)
{
	int rc = profile_gmon_write_text(put_stdout, NULL);
	return fflush(stdout) != 0 ? -1 : rc;
}
