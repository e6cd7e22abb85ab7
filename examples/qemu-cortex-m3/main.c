/* main.c: drives the demo workload for ITERATIONS rounds and prints deterministic results over
 * semihosting. Each round generates text (corpus.c), CRCs it (crc32.c), round-trips it through
 * the LZ codec (lz.c), sorts and checksums records with qsort (records.c) and runs three
 * bytecode programs on the VM (interp.c), checking each against a C reference. The exit status
 * is 0 only if every check passed, so QEMU's exit status tells a test whether the (relinked)
 * firmware still computes the same thing. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "crc32.h"
#include "interp.h"
#include "lz.h"
#include "programs.h"
#include "records.h"

#ifdef PROFILE_RUNTIME
/* make PROFILE_RUNTIME=1: ramplace's sampling runtime covers .text while main runs */
#include "ramplace_profile.h"
extern char __text_start[], __text_end[];
#endif

/* Rounds to run: about 2 s under plain qemu-system-arm at the default. Override with
 * -DITERATIONS=n (make ITERATIONS=n, cmake -DFW_ITERATIONS=n). */
#ifndef ITERATIONS
#define ITERATIONS 2000
#endif

/* Buffer sizes: a board with less RAM passes smaller ones (the RISC-V example's 16 KiB DTIM). */
#ifndef CORPUS_SIZE
#define CORPUS_SIZE 4096
#endif
#ifndef RECORD_COUNT
#define RECORD_COUNT 400
#endif
#ifndef FW_BOARD
#define FW_BOARD "mps2-an385 (Cortex-M3)"
#endif
#define HASH_COUNT 300
#define COLLATZ_N 20
#define DIGITS_N 60
#define VM_MAX_STEPS 10000000u

/* A variable, not the macro, in comparisons: ITERATIONS=0 (boot only) must compile warning-free. */
static const unsigned rounds = ITERATIONS;

/* librdimon: opens the semihosting stdin/stdout/stderr; rdimon-crt0 would call it, but we
 * bring our own startup code (-nostartfiles). */
void initialise_monitor_handles(void);

struct totals {
	uint32_t text_bytes, packed_bytes;
	uint32_t text_crc, records_sum, vm_sum;
	unsigned round_trips, sorted_rounds, vm_checks, vm_runs;
	unsigned failures;
};

/* Static, not on the stack: the 4 KiB stack could not hold them. */
static char corpus[CORPUS_SIZE];
static uint8_t packed[LZ_BOUND(CORPUS_SIZE)];
static uint8_t unpacked[CORPUS_SIZE];
static struct record records[RECORD_COUNT];

/* noinline: records.c has another static fold(); see the comment there. */
__attribute__((noinline)) static uint32_t fold(uint32_t acc, uint32_t value)
{
	return (acc ^ value) * 0x01000193u;	/* FNV-1a step on a whole word */
}

static void fail(struct totals *t, unsigned round, const char *what)
{
	printf("round %u: %s\n", round, what);
	t->failures++;
}

static void stage_text(struct totals *t, unsigned round, uint32_t *rng)
{
	size_t len = corpus_fill(corpus, sizeof corpus, rng), plen, ulen;
	uint32_t crc = crc32_update(0, corpus, len);

	t->text_bytes += len;
	t->text_crc = fold(t->text_crc, crc);
	if (lz_compress(&plen, packed, sizeof packed, (const uint8_t *)corpus, len) != 0) {
		fail(t, round, "lz_compress refused its input");
		return;
	}
	t->packed_bytes += plen;
	if (lz_decompress(&ulen, unpacked, sizeof unpacked, packed, plen) != 0 || ulen != len ||
	    memcmp(unpacked, corpus, len) != 0 || crc32_update(0, unpacked, ulen) != crc) {
		fail(t, round, "lz round trip changed the text");
		return;
	}
	t->round_trips++;
}

static void stage_records(struct totals *t, unsigned round, uint32_t *rng)
{
	records_fill(records, RECORD_COUNT, rng);
	records_sort(records, RECORD_COUNT);
	if (!records_sorted(records, RECORD_COUNT)) {
		fail(t, round, "qsort left the records unsorted");
		return;
	}
	t->sorted_rounds++;
	t->records_sum = fold(t->records_sum, records_checksum(records, RECORD_COUNT));
}

static uint32_t hash_reference(uint32_t count, uint32_t acc)
{
	for (; count; count--) {
		uint32_t x = acc * 33 ^ count;

		acc = x + (x >> 5);
	}
	return acc;
}

static uint32_t collatz_reference(uint32_t n)
{
	uint32_t steps = 0;

	for (; n; n--)
		for (uint32_t x = n; x != 1; steps++)
			x = x & 1 ? 3 * x + 1 : x >> 1;
	return steps;
}

static uint32_t digits_reference(uint32_t n)
{
	uint32_t sum = 0;

	for (; n; n--)
		for (uint32_t x = n; x; x /= 10)
			sum += x % 10;
	return sum;
}

/* Runs prog with vars[0] = v0, vars[1] = v1 and checks vars[result_var] against expected. */
static void run_program(struct totals *t, unsigned round, const struct vm_program *prog,
			uint32_t v0, uint32_t v1, unsigned result_var, uint32_t expected)
{
	struct vm vm;
	int status;

	vm_init(&vm, prog->code, prog->len);
	vm.vars[0] = v0;
	vm.vars[1] = v1;
	status = vm_run(&vm, VM_MAX_STEPS);
	t->vm_runs++;
	if (status != VM_HALTED) {
		printf("round %u: vm %s: %s at pc %" PRIu32 "\n", round, prog->name,
		       vm_status_name(status), vm.pc);
		t->failures++;
		return;
	}
	if (vm.vars[result_var] != expected) {
		printf("round %u: vm %s: got %" PRIu32 ", expected %" PRIu32 "\n", round,
		       prog->name, vm.vars[result_var], expected);
		t->failures++;
		return;
	}
	t->vm_checks++;
	t->vm_sum = fold(t->vm_sum, expected);
}

static void stage_vm(struct totals *t, unsigned round)
{
	uint32_t collatz_n = COLLATZ_N + round % 8, digits_n = DIGITS_N + round % 16;

	run_program(t, round, &prog_hash, HASH_COUNT, round, 1, hash_reference(HASH_COUNT, round));
	run_program(t, round, &prog_collatz, collatz_n, 0, 2, collatz_reference(collatz_n));
	run_program(t, round, &prog_digits, digits_n, 0, 1, digits_reference(digits_n));
}

static void print_report(const struct totals *t)
{
	uint32_t permille = t->text_bytes ? (uint32_t)((uint64_t)t->packed_bytes * 1000 / t->text_bytes) : 0;

	printf("text:    %" PRIu32 " bytes, crc32 digest 0x%08" PRIx32 "\n", t->text_bytes, t->text_crc);
	printf("lz:      %" PRIu32 " -> %" PRIu32 " bytes (%" PRIu32 ".%" PRIu32 "%%), %u/%u round trips ok\n",
	       t->text_bytes, t->packed_bytes, permille / 10, permille % 10, t->round_trips, rounds);
	printf("records: %u/%u rounds sorted, checksum 0x%08" PRIx32 "\n", t->sorted_rounds,
	       rounds, t->records_sum);
	printf("vm:      %u/%u runs matched the C reference, digest 0x%08" PRIx32 "\n", t->vm_checks,
	       t->vm_runs, t->vm_sum);
	printf("digest:  0x%08" PRIx32 "\n", fold(fold(t->text_crc, t->records_sum), t->vm_sum));
	if (t->failures)
		printf("result:  FAILED (%u checks)\n", t->failures);
	else
		printf("result:  ok\n");
}

int main(void)
{
	struct totals t = { 0 };
	uint32_t rng = 0x2545f491u;

#ifdef PROFILE_RUNTIME
	int bucket = profile_on(__text_start, __text_end, PROFILE_BUCKET, PROFILE_INTERVAL_US);
#endif
	initialise_monitor_handles();
	printf("ramplace demo firmware: " FW_BOARD ", %u rounds\n", rounds);
	crc32_init();
	if (crc32_selftest() != 0)
		fail(&t, 0, "crc32 self-test failed");
	for (unsigned round = 0; round < rounds; round++) {
		stage_text(&t, round, &rng);
		stage_records(&t, round, &rng);
		stage_vm(&t, round);
	}
	print_report(&t);
#ifdef PROFILE_RUNTIME
	profile_off();
	if (bucket < 0)
		fail(&t, rounds, "profile_on refused its arguments");
	printf("profile: %" PRIu32 " samples (%" PRIu32 " outside, %" PRIu32 " lost), %d-byte buckets, %" PRIu32 " Hz\n",
	       ramplace_profile.ticks, ramplace_profile.outside, ramplace_profile.saturated, bucket,
	       ramplace_profile.rate_hz);
	ramplace_profile_ready();	/* `ramplace record --runtime` reads the histogram here */
	if (PROFILE_GMON[0] && profile_dump_semihosting(PROFILE_GMON) != 0)
		fail(&t, rounds, "could not write " PROFILE_GMON " over semihosting");
#ifdef PROFILE_STDOUT
	/* make PROFILE_STDOUT=1: the same histogram as text on the console, as a board without a
	 * probe sends it (`ramplace import` finds the block in the whole output) */
	if (profile_dump_stdout() != 0)
		fail(&t, rounds, "could not write the profile on stdout");
#endif
#endif
	return t.failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
