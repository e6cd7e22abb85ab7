/* evictions.h: the QEMU plugin's table of conflict misses by cause (evictions.c). */
#ifndef RAMPLACE_QEMU_EVICTIONS_H
#define RAMPLACE_QEMU_EVICTIONS_H

#include <stdint.h>
#include <stdio.h>

#include "ramplace/flashmodel.h"

/* Adds n records of one access (rp_fm_last_evictions); 0, or -1 when out of memory. */
int evictions_record(const rp_fm_evict *ev, size_t n);
/* The stall cycles recorded so far ("# stall-evicted"). */
uint64_t evictions_stall(void);
/* "# evictions K" and the "e" lines, sorted; reorders the table (call once, at exit). */
void evictions_write(FILE *fp);
void evictions_free(void);

#endif
