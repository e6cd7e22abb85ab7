/* import.h: readers for profile files other tools write, into an rp_samples histogram.
 *
 * Formats: "pclog", a gdb log of `p $pc` lines as gdb prints them
 * (`$1 = (void (*)()) 0x2000f1c4 <run_repl+12>`; other gdb chatter is skipped), and
 * "pclist", one hex PC per line, optionally followed by a decimal count. The input is hostile:
 * errors say "<name>: line N (byte B): <what>". Nothing is added to the histogram on failure. */
#ifndef RAMPLACE_IMPORT_H
#define RAMPLACE_IMPORT_H

#include <stddef.h>
#include "ramplace/error.h"
#include "ramplace/samples.h"

typedef enum rp_import_format {
	RP_IMPORT_AUTO = 0,
	RP_IMPORT_PCLOG,
	RP_IMPORT_PCLIST
} rp_import_format;

/* "auto", "pclog", "pclist" -> format; RP_EUSAGE for another name. */
int rp_import_format_parse(rp_import_format *out, const char *name, rp_err *err);
const char *rp_import_format_name(rp_import_format fmt);

/* Guesses the format from the first lines that are not blank or comments. */
rp_import_format rp_import_detect(const char *text, size_t len);

/* Parses text in the given format (RP_IMPORT_AUTO: detected) into s. An input with no samples
 * is an error. */
int rp_import_parse(rp_samples *s, rp_import_format fmt, const char *text, size_t len,
		    const char *name, rp_err *err);

#endif
