/* image_arch.h: private to image/ (not installed): fills the architecture fields of a loaded
 * rp_image (arm_arch, arm_profile, veneer_size, veneer_cycles, veneer_linked; see image.h).
 * image.c calls it once its sections and functions are loaded. */
#ifndef RAMPLACE_IMAGE_ARCH_H
#define RAMPLACE_IMAGE_ARCH_H

#include "ramplace/image.h"

/* Never fails: a missing or malformed .ARM.attributes leaves the defaults (8-byte veneers). */
void rp_image_arch_init(rp_image *img);

#endif
