/* corpus.h: generates the text that the CRC and compression stages work on. */
#ifndef FW_CORPUS_H
#define FW_CORPUS_H

#include <stddef.h>
#include <stdint.h>

/* Fills buf with space/newline separated words drawn by *rng, zero-pads the rest of the
 * buffer and returns the text length (always < cap). */
size_t corpus_fill(char *buf, size_t cap, uint32_t *rng);

#endif
