/* sys.c: what the C library needs from a firmware linked with -nostartfiles, for every C
 * library of the matrix: the semihosting console (newlib's librdimon wants
 * initialise_monitor_handles(); picolibc's libsemihost needs nothing) and the _init/_fini hooks
 * that newlib's __libc_init_array/__libc_fini_array call (crti.o/crtn.o are not linked). */
#include "work.h"

#if defined(FW_NEWLIB)
void initialise_monitor_handles(void);
#endif

void console_init(void)
{
#if defined(FW_NEWLIB)
	initialise_monitor_handles();
#endif
}

/* used: with -flto, a definition only a library refers to would be dropped before the link */
__attribute__((used)) void _init(void)
{
}

__attribute__((used)) void _fini(void)
{
}
