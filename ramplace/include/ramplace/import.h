/* import.h: readers for profile files other tools write, into an rp_samples histogram.
 *
 * Formats: "pclog", a gdb log of `p $pc` lines as gdb prints them
 * (`$1 = (void (*)()) 0x2000f1c4 <run_repl+12>`; other gdb chatter is skipped), and
 * "pclist", one hex PC per line, optionally followed by a decimal count; "gmon", gprof's
 * gmon.out (gmon.h), and "openocd", the same as OpenOCD's `profile` writes it (bins always
 * little-endian); "qemu", the output of the project's TCG plugin libramplace-qemu.so, and
 * "qemu-log", a log of `qemu-system-* -d exec,nochain,in_asm` (both: executed instructions per
 * address); "prof", "offset count" files as the Itsy profiler's profd writes them. The input
 * is hostile: errors say "<name>: line N (byte B): <what>" or
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
	RP_IMPORT_OPENOCD,
	RP_IMPORT_QEMU,       /* libramplace-qemu.so output: exact per-instruction counts */
	RP_IMPORT_QEMU_LOG,   /* qemu -d exec,nochain[,in_asm] log */
	RP_IMPORT_PROF        /* "offset count" files (Itsy profd style) */
} rp_import_format;

/* The `key value` header of an "offset count" file (the keys ramplace understands). */
typedef struct rp_prof_header {
	char image[256];      /* key "image" or "path": the image's path on the target */
	char image_id[64];    /* key "imageid" or "signature" */
	char version[32];     /* key "version": the profiler's */
} rp_prof_header;

/* Reads an "offset count" file: header lines `key value`, then `hex-offset decimal-count`
 * lines; offsets are mapped to addresses through img's program headers (img NULL or without
 * segments: offsets are kept as they are). */
int rp_import_prof(rp_samples *s, rp_prof_header *h, const rp_image *img, const char *text, size_t len,
		   const char *name, rp_err *err);
/* 1 when the first meaningful line is a `key value` header line. */
int rp_prof_detect(const char *text, size_t len);
/* Splits ".../name-imageid[-pid].prof" (imageid: 8 hex digits); -1 for another name. */
int rp_prof_name_parse(const char *path, char *image, size_t image_size, char *image_id, size_t id_size);

/* What a file says about the run it holds, beyond its samples. */
typedef struct rp_import_meta {
	double rate_hz;       /* samples per second from the file (gmon profiling rate), 0 if unknown */
	char method[64];      /* "histogram", "exact", ... ("" when the file does not say) */
	char dimension[16];   /* gmon histogram dimension ("seconds") */
	uint64_t saturated;   /* histogram bins stuck at 65535 (16-bit counters that overflowed) */
	size_t nbb;           /* gmon basic-block counts read but not used */
	size_t blocks_without_insns; /* qemu-log: blocks counted at their start only (no in_asm) */
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
/* The two QEMU readers (import_qemu.c), used by rp_import_file. A log without in_asm listings
 * counts each block at its start address only: *blocks_without_insns says how many. */
int rp_import_qemu_plugin(rp_samples *s, const char *text, size_t len, const char *name, rp_err *err);
int rp_import_qemu_log(rp_samples *s, size_t *blocks_without_insns, const char *text, size_t len,
		       const char *name, rp_err *err);

int rp_import_file(rp_samples *s, rp_import_meta *meta, rp_import_format fmt, const rp_image *img,
		   const char *data, size_t len, const char *name, rp_err *err);

/* Parses text in the given format (RP_IMPORT_AUTO: detected) into s. An input with no samples
 * is an error. */
int rp_import_parse(rp_samples *s, rp_import_format fmt, const char *text, size_t len,
		    const char *name, rp_err *err);

#endif
