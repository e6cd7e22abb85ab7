/* import.h: readers for profile files other tools write, into an rp_samples histogram.
 *
 * Formats: "pclog", a gdb log of `p $pc` lines as gdb prints them
 * (`$1 = (void (*)()) 0x2000f1c4 <run_repl+12>`; other gdb chatter is skipped), and
 * "pclist", one hex PC per line, optionally followed by a decimal count; "gmon", gprof's
 * gmon.out (gmon.h), and "openocd", the same as OpenOCD's `profile` writes it (bins always
 * little-endian). The input is hostile: errors say "<name>: line N (byte B): <what>" or
 * "<name>: byte B: <what>". Nothing is added to the histogram on failure. */
#ifndef RAMPLACE_IMPORT_H
#define RAMPLACE_IMPORT_H

#include <stddef.h>
#include <stdint.h>
#include "ramplace/error.h"
#include "ramplace/image.h"
#include "ramplace/samples.h"

typedef enum rp_import_format {
	RP_IMPORT_AUTO = 0,
	RP_IMPORT_PCLOG,
	RP_IMPORT_PCLIST,
	RP_IMPORT_GMON,
	RP_IMPORT_OPENOCD
} rp_import_format;

/* What a file says about the run it holds, beyond its samples. */
typedef struct rp_import_meta {
	double rate_hz;       /* samples per second from the file (gmon profiling rate), 0 if unknown */
	char method[64];      /* "histogram", "exact", ... ("" when the file does not say) */
	char dimension[16];   /* gmon histogram dimension ("seconds") */
	uint64_t saturated;   /* histogram bins stuck at 65535 (16-bit counters that overflowed) */
	size_t nbb;           /* gmon basic-block counts read but not used */
} rp_import_meta;

/* "auto", "pclog", "pclist" -> format; RP_EUSAGE for another name. */
int rp_import_format_parse(rp_import_format *out, const char *name, rp_err *err);
const char *rp_import_format_name(rp_import_format fmt);

/* Guesses the format: a "gmon" cookie, else from the first lines that are not blank or
 * comments. */
rp_import_format rp_import_detect(const char *text, size_t len);

/* Imports one file of any format, read as bytes (text formats need no NUL), against img: byte
 * order and address size come from the ELF, histogram bins are split over its functions.
 * Fills meta (zeroed first). s receives the samples only on success. */
int rp_import_file(rp_samples *s, rp_import_meta *meta, rp_import_format fmt, const rp_image *img,
		   const char *data, size_t len, const char *name, rp_err *err);

/* Parses text in the given format (RP_IMPORT_AUTO: detected) into s. An input with no samples
 * is an error. */
int rp_import_parse(rp_samples *s, rp_import_format fmt, const char *text, size_t len,
		    const char *name, rp_err *err);

#endif
