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
 * "<name>: byte B: <what>". Nothing is added to the histogram on failure. Against an ELF,
 * every reader also says how well the file fits it (rp_import_check, import_check.c), so that
 * a profile of another firmware can be refused. */
#ifndef RAMPLACE_IMPORT_H
#define RAMPLACE_IMPORT_H

#include <stddef.h>
#include <stdint.h>
#include "ramplace/error.h"
#include "ramplace/image.h"
#include "ramplace/costs.h"
#include "ramplace/samples.h"
#include "ramplace/swo.h"

typedef enum rp_import_format {
	RP_IMPORT_AUTO = 0,
	RP_IMPORT_PCLOG,
	RP_IMPORT_PCLIST,
	RP_IMPORT_GMON,
	RP_IMPORT_OPENOCD,
	RP_IMPORT_QEMU,       /* libramplace-qemu.so output: exact per-instruction counts */
	RP_IMPORT_QEMU_LOG,   /* qemu -d exec,nochain[,in_asm] log */
	RP_IMPORT_PROF,       /* "offset count" files (Itsy profd style) */
	RP_IMPORT_SWO,        /* a raw SWO capture: DWT PC samples in ITM packets (swo.h) */
	RP_IMPORT_GMON_TEXT   /* the runtime's text dump of a gmon.out in a console log */
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

/* Whether a profile belongs to the ELF it is imported against. A profile of another firmware
 * still parses and its addresses still land somewhere, so every sample is weighed (by its
 * count) against what the ELF holds at its address: where the file gives the instruction bytes
 * that ran (QEMU plugin files of version 2, -d in_asm logs), those bytes must be the ELF's;
 * otherwise the address must fall inside a function and, for exact PCs (pclog, pclist, prof,
 * QEMU addresses), on an instruction start (decoded with disasm.h for Thumb and RISC-V, else
 * by alignment: Thumb and RISC-V even, ARM a multiple of 4); gmon.out histogram credits only
 * need a function or an executable section. `ramplace import` refuses a file with less than RP_IMPORT_MIN_VERIFIED of
 * its samples verified unless --force (docs/import-formats.md). */
#define RP_IMPORT_MIN_VERIFIED 0.90

typedef struct rp_import_check {
	uint64_t checked;        /* weighted samples looked at, in units of 1/scale sample */
	uint64_t verified;       /* of those, the ones that fit the ELF */
	uint64_t outside;        /* in no function of the ELF (bytes: no file contents there) */
	uint64_t not_insn;       /* in a function, but not where one of its instructions starts */
	uint64_t differ;         /* the instruction bytes that ran are not the ELF's */
	uint64_t other_target;   /* recorded by QEMU for another architecture than the ELF's */
	uint64_t scale;          /* histogram credits: counts in 1/scale sample; 0 means 1 */
	int by_bytes;            /* some samples were checked by their instruction bytes */
	int by_address;          /* some by their address only */
	char target[32];         /* the QEMU target when it is not the ELF's architecture */
	int hist_apart;          /* gmon: no histogram overlaps the ELF's executable sections */
	uint64_t hist_lo, hist_hi;   /* then: the first histogram's range */
	/* the heaviest sample that did not verify, shown as the example */
	unsigned bad_why;
	uint64_t bad_pc, bad_count;
	uint8_t bad_ran[16], bad_elf[16];
	unsigned bad_len;
} rp_import_check;

void rp_import_check_init(rp_import_check *c);
/* Records the QEMU target a file names ("arm", "riscv32"); one that is not img's architecture
 * makes every later sample count as other_target. */
void rp_import_check_target(rp_import_check *c, const rp_image *img, const char *target);
/* Weighs one instruction as it ran: n bytes in memory order at addr, executed weight times. */
void rp_import_check_bytes(rp_import_check *c, const rp_image *img, uint64_t addr, const uint8_t *bytes,
			   size_t n, uint64_t weight);
/* What rp_import_check_pcs asks of an address besides lying in a function. */
#define RP_CHECK_INSN_START 1u  /* an exact PC: on an instruction start */
#define RP_CHECK_IN_CODE 2u     /* a histogram credit: an executable section with no function
				 * symbol there will do (a host program's PLT stubs, which gprof
				 * credits to the symbol below) */

/* Weighs every sample of s by its address (how: RP_CHECK_* flags). Fails only for lack of
 * memory. */
int rp_import_check_pcs(rp_import_check *c, const rp_image *img, const rp_samples *s, unsigned how,
			rp_err *err);
/* verified / checked; 1.0 when nothing was checked. */
double rp_import_check_share(const rp_import_check *c);
/* A weight in samples (divided by the scale). */
double rp_import_check_samples(const rp_import_check *c, uint64_t weight);
/* What did not verify, with figures and the heaviest example, for a message: "120 outside its
 * functions, 40 on instruction bytes other than the ELF's; e.g. at 0x1a2 QEMU ran 0a24, the ELF
 * has 6420". */
void rp_import_check_details(char *buf, size_t size, const rp_import_check *c, const rp_image *img);

/* What a file says about the run it holds, beyond its samples. */
typedef struct rp_import_meta {
	double rate_hz;       /* samples per second from the file (gmon profiling rate), 0 if unknown */
	char method[64];      /* "histogram", "exact", ... ("" when the file does not say) */
	char dimension[16];   /* gmon histogram dimension ("seconds") */
	uint64_t saturated;   /* histogram bins stuck at 65535 (16-bit counters that overflowed) */
	size_t nbb;           /* gmon basic-block counts read but not used */
	size_t blocks_without_insns; /* qemu-log: blocks counted at their start only (no in_asm) */
	int plugin_version;   /* qemu: the file's version (1 has no instruction bytes) */
	rp_import_check check;/* how the samples fit the ELF */
	rp_swo_stats swo;     /* swo: sleeping samples, overflows, errors, bytes skipped */
	size_t text_blocks;   /* gmon-text: the dumps in the log (the last one is imported) */
} rp_import_meta;

/* "auto", "pclog", "pclist" -> format; RP_EUSAGE for another name. */
int rp_import_format_parse(rp_import_format *out, const char *name, rp_err *err);
const char *rp_import_format_name(rp_import_format fmt);

/* Guesses the format: a "gmon" cookie, else from the first lines that are not blank or
 * comments. */
rp_import_format rp_import_detect(const char *text, size_t len);

/* The two QEMU readers (import_qemu.c), used by rp_import_file. With img, they also weigh
 * the samples into *check (instruction bytes where the file has them, else addresses); img
 * NULL: no check. *version is the plugin file's version. A log without in_asm listings counts
 * each block at its start address only: *blocks_without_insns says how many. */
int rp_import_qemu_plugin(rp_samples *s, int *version, rp_import_check *check, const rp_image *img,
			  const char *text, size_t len, const char *name, rp_err *err);
/* A plugin file of version 3 (model=, docs/cost-models.md): its flash model, fetch stall
 * cycles per code address and reads with stall cycles per data address into out (initialised
 * by the caller), the sums checked against its header. Versions 1 and 2 leave out untouched and
 * return 0. Run it on a file rp_import_qemu_plugin accepted. */
int rp_import_qemu_costs(rp_costs *out, const char *text, size_t len, const char *name, rp_err *err);
int rp_import_qemu_log(rp_samples *s, size_t *blocks_without_insns, rp_import_check *check,
		       const rp_image *img, const char *text, size_t len, const char *name, rp_err *err);

/* The runtime's text dump (ramplace/runtime/dump_text.c) in a console log
 * (import_gmon_text.c): whether text holds a line ending in "ramplace-gmon 1"; and the gmon.out
 * bytes of the last block (*out the caller's to free), checked against its byte count and
 * CRC-32, *nblocks the blocks seen, *at the file offset of its begin tag. RP_EINPUT naming name
 * and the byte offset otherwise. */
int rp_gmon_text_detect(const char *text, size_t len);
int rp_gmon_text_decode(unsigned char **out, size_t *outlen, size_t *nblocks, size_t *at, const char *text,
			size_t len, const char *name, rp_err *err);

/* Decodes a raw SWO capture (import_swo.c) into s, one sample per DWT PC sample; *stats gets
 * the decoder's counts. A capture with no PC sample, or mostly skipped, is RP_EINPUT naming
 * name and the byte offset of its first error. */
int rp_import_swo(rp_samples *s, rp_swo_stats *stats, const rp_swo_opts *opts, const char *data, size_t len,
		  const char *name, rp_err *err);

/* Imports one file of any format, read as bytes (text formats need no NUL), against img: byte
 * order and address size come from the ELF, histogram bins are split over its functions.
 * Fills meta (zeroed first), meta->check with how the samples fit img; refusing a profile
 * that does not fit is the caller's choice. s receives the samples only on success. */
int rp_import_file(rp_samples *s, rp_import_meta *meta, rp_import_format fmt, const rp_image *img,
		   const char *data, size_t len, const char *name, rp_err *err);

/* Parses text in the given format (RP_IMPORT_AUTO: detected) into s. An input with no samples
 * is an error. */
int rp_import_parse(rp_samples *s, rp_import_format fmt, const char *text, size_t len,
		    const char *name, rp_err *err);

#endif
