/* cli_print.c: the notes and warnings the commands print on standard error beside the one error
 * line main prints (cli.h). What they name comes from input (symbols, sections, the paths of a
 * profile directory's files), so the whole line passes through rp_escape_name as main's error
 * line does: a control byte in a file name cannot move the cursor or recolour the terminal, and
 * a name shows the same here as in an error. Owns nothing past one call; a line is a few hundred
 * bytes, a command prints a few dozen at most (longer ones end in "..."). */
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"
#include "ramplace/util.h"

#define CLI_LINE_MAX 8192

void cli_note(const char *fmt, ...)
{
	char line[CLI_LINE_MAX], shown[CLI_LINE_MAX];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	fprintf(stderr, "%s\n", rp_escape_name(line, shown, sizeof(shown)));
}
