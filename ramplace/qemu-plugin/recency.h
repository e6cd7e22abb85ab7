/* recency.h: the QEMU plugin's record of what a sampled trace's windows start from (recency.c). */
#ifndef RAMPLACE_QEMU_RECENCY_H
#define RAMPLACE_QEMU_RECENCY_H

#include <stdint.h>
#include <stdio.h>

/* One access to flash, the stamp-th of the run; 0, or -1 when out of memory. */
int recency_touch(uint64_t addr, unsigned size, int is_read, uint64_t stamp);
/* Every granule touched so far, oldest first, as "f|r hex-address bytes" lines; 0, or -1 when
 * out of memory (nothing written then). */
int recency_write(FILE *fp);
void recency_free(void);

#endif
