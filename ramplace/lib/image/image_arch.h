/* image_arch.h: private to image/ (not installed): fills the architecture fields of a loaded
 * rp_image (arm_arch, arm_profile, veneer_size, veneer_cycles, veneer_linked; see image.h).
 * image.c calls it once its sections and functions are loaded. */
#ifndef RAMPLACE_IMAGE_ARCH_H
#define RAMPLACE_IMAGE_ARCH_H

#include "ramplace/image.h"

/* Never fails: a missing or malformed .ARM.attributes leaves the defaults (8-byte veneers). */
void rp_image_arch_init(rp_image *img);

/* Refuses an ELF whose e_flags, attributes sections or class contradict its e_machine (a
 * patched header), naming the file; needs the sections loaded. */
int rp_image_arch_check(const rp_image *img, uint32_t e_flags, rp_err *err);

#endif
