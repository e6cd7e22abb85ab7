/* elfsyms.h: every symbol of an ELF's symbol table (not only functions, which image.h keeps):
 * linker-script symbols such as __ramtext_start, _estack, __stack_size, section and object
 * symbols. Read with libelf from the image's bytes. */
#ifndef RAMPLACE_ELFSYMS_H
#define RAMPLACE_ELFSYMS_H

#include <stdint.h>
#include <stddef.h>
#include "ramplace/error.h"
#include "ramplace/image.h"

typedef struct rp_elfsym {
	char *name;
	uint64_t value;
	uint64_t size;
	int type;        /* STT_* */
	int absolute;    /* SHN_ABS: a number (e.g. a size) rather than an address */
} rp_elfsym;

typedef struct rp_elfsyms {
	rp_elfsym *syms;
	size_t nsyms;
	char *names;       /* owned: the string tables the names point into */
} rp_elfsyms;

int rp_elfsyms_load(rp_elfsyms *out, const rp_image *img, rp_err *err);
void rp_elfsyms_release(rp_elfsyms *s);

/* img's symbols, read on the first call and kept with the image (rp_image_free releases them):
 * the reset path, the free-RAM figure and check each ask, and a load per question read 50,000
 * symbols three times in one `place`. Not for images shared between threads. */
int rp_image_syms(const rp_image *img, const rp_elfsyms **out, rp_err *err);

/* The first symbol with this exact name, or NULL. */
const rp_elfsym *rp_elfsyms_find(const rp_elfsyms *s, const char *name);

#endif
