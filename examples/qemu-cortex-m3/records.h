/* records.h: fixed-size records that are generated, sorted with newlib's qsort and checksummed. */
#ifndef FW_RECORDS_H
#define FW_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RECORD_TAG_SIZE 10

/* 16 bytes; tag is NUL-terminated and zero-padded so it can be compared with memcmp. */
struct record {
	uint32_t key;
	uint16_t group;
	char tag[RECORD_TAG_SIZE];
};

/* Fills recs[0..n) from *rng (groups 0..7, tags of 3..9 lowercase letters). */
void records_fill(struct record *recs, size_t n, uint32_t *rng);

/* Sorts by group, then tag, then key. */
void records_sort(struct record *recs, size_t n);

/* Returns true if recs[0..n) is in records_sort order. */
bool records_sorted(const struct record *recs, size_t n);

/* An order-dependent checksum of every field. */
uint32_t records_checksum(const struct record *recs, size_t n);

#endif
