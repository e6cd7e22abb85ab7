/* profile.c: the portable core of ramplace's target-side sampling runtime: the histogram and
 * arc table in static RAM, the per-sample work the timer interrupt does, and the gmon.out image
 * (glibc's format, in the target's own byte order and address size) streamed out through a
 * callback or semihosting. Owns `ramplace_profile` (the descriptor the host reads) and the
 * storage it points to; the timer itself belongs to the port (port_cortexm.c, port_riscv.c).
 *
 * Workload: ramplace_profile_tick runs in interrupt context thousands of times a second, so it
 * does a subtraction, a compare, a shift and a saturating increment, plus a short probe when
 * arcs are on; everything else runs rarely, in thread context. Must not be built with -pg. */
#include "ramplace_profile.h"

#include <string.h>

_Static_assert(sizeof(void *) == 4, "the ramplace runtime supports 32-bit targets only");
_Static_assert(RAMPLACE_PROFILE_BINS > 0, "RAMPLACE_PROFILE_BINS must be positive");

volatile struct ramplace_profile_state ramplace_profile;

static uint16_t bins[RAMPLACE_PROFILE_BINS];
#if RAMPLACE_PROFILE_ARCS > 0
static struct ramplace_profile_arc arcs[RAMPLACE_PROFILE_ARCS];
#endif
static uint32_t base_period; /* mean timer period in timer ticks */

/* gmon.out (glibc gmon/sys/gmon_out.h): a 20-byte header, then tagged records. */
#define GMON_TAG_TIME_HIST 0
#define GMON_TAG_CG_ARC 1
#define GMON_HDR_SIZE 20
#define GMON_HIST_HDR_SIZE (1 + 4 + 4 + 4 + 4 + 15 + 1)
#define GMON_ARC_SIZE (1 + 4 + 4 + 4)

/* Semihosting operations (ARM "Semihosting for AArch32 and AArch64", shared by RISC-V). */
#define SYS_OPEN 0x01u
#define SYS_CLOSE 0x02u
#define SYS_WRITE 0x05u
#define SYS_OPEN_MODE_WB 5u

static void clear_counts(void)
{
	/* volatile stores: a zeroing loop must not become a memset call that a placement could
	 * have moved, and the interrupt may run in between (a lost sample or two is harmless). */
	for (volatile uint16_t *b = bins; b < bins + RAMPLACE_PROFILE_BINS; b++)
		*b = 0;
#if RAMPLACE_PROFILE_ARCS > 0
	for (volatile struct ramplace_profile_arc *a = arcs; a < arcs + RAMPLACE_PROFILE_ARCS; a++)
		a->count = 0;
#endif
	ramplace_profile.ticks = 0;
	ramplace_profile.outside = 0;
	ramplace_profile.saturated = 0;
	ramplace_profile.arcs_lost = 0;
}

int profile_on(void *start, void *end, unsigned bucket, unsigned interval_us)
{
	uint32_t lo = (uint32_t)(uintptr_t)start, hi = (uint32_t)(uintptr_t)end;
	uint32_t shift = 1, rate = 0;

	profile_off();
	if (hi <= lo)
		return -1;
	while (shift < 31 && ((1u << shift) < bucket || ((hi - lo - 1) >> shift) >= RAMPLACE_PROFILE_BINS))
		shift++;
	ramplace_profile.magic = RAMPLACE_PROFILE_MAGIC;
	ramplace_profile.version = RAMPLACE_PROFILE_VERSION;
	ramplace_profile.low_pc = lo;
	ramplace_profile.nbins = ((hi - lo - 1) >> shift) + 1;
	ramplace_profile.high_pc = lo + (ramplace_profile.nbins << shift);
	ramplace_profile.shift = shift;
	ramplace_profile.bins_addr = (uint32_t)(uintptr_t)bins;
#if RAMPLACE_PROFILE_ARCS > 0
	ramplace_profile.arcs_addr = (uint32_t)(uintptr_t)arcs;
	ramplace_profile.narcs = RAMPLACE_PROFILE_ARCS;
#endif
	if (ramplace_profile.prng == 0)
		ramplace_profile.prng = 0x9e3779b9u ^ lo;
	clear_counts();
	if (ramplace_profile_port_period(interval_us, &base_period, &rate) != 0)
		return -1;
	ramplace_profile.rate_hz = rate;
	ramplace_profile_port_start(ramplace_profile_next_period());
	ramplace_profile.running = 1;
	return (int)(1u << shift);
}

void profile_off(void)
{
	if (ramplace_profile.running)
		ramplace_profile_port_stop();
	ramplace_profile.running = 0;
}

void profile_reset(void)
{
	clear_counts();
}

uint32_t ramplace_profile_next_period(void)
{
	/* xorshift32, then a multiply-shift to scale into [0, base): no division in the ISR */
	uint32_t x = ramplace_profile.prng;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	ramplace_profile.prng = x;
	return base_period / 2 + (uint32_t)(((uint64_t)x * base_period) >> 32);
}

#if RAMPLACE_PROFILE_ARCS > 0
/* Open addressing over at most 8 slots from the hash; a full neighbourhood drops the arc. */
static void record_arc(uint32_t from, uint32_t self)
{
	uint32_t h = ((from >> 1) * 0x9e3779b1u ^ (self >> 1)) % RAMPLACE_PROFILE_ARCS;

	for (unsigned probe = 0; probe < 8; probe++) {
		struct ramplace_profile_arc *a = &arcs[h];

		if (a->count == 0) {
			a->from_pc = from;
			a->self_pc = self;
			a->count = 1;
			return;
		}
		if (a->from_pc == from && a->self_pc == self) {
			if (a->count != UINT32_MAX)
				a->count++;
			else
				ramplace_profile.arcs_lost++;
			return;
		}
		h = h + 1 == RAMPLACE_PROFILE_ARCS ? 0 : h + 1;
	}
	ramplace_profile.arcs_lost++;
}
#endif

void ramplace_profile_tick(uint32_t pc, uint32_t from)
{
	uint32_t lo = ramplace_profile.low_pc;
	uint32_t off = pc - lo, range = ramplace_profile.high_pc - lo;

	ramplace_profile.ticks++;
	/* one unsigned compare covers pc below low_pc too */
	if (off >= range) {
		ramplace_profile.outside++;
		return;
	}
	uint16_t *b = &bins[off >> ramplace_profile.shift];
	if (*b != UINT16_MAX)
		(*b)++;
	else
		ramplace_profile.saturated++;
#if RAMPLACE_PROFILE_ARCS > 0
	/* callers outside the range (EXC_RETURN values, stale lr) are not arcs worth a slot */
	if (from - lo < range)
		record_arc(from & ~1u, pc & ~((1u << ramplace_profile.shift) - 1));
#else
	(void)from;
#endif
}

void __attribute__((noinline)) ramplace_profile_ready(void)
{
	/* the asm keeps the call and the function from being optimized away */
	__asm__ volatile("" ::: "memory");
}

static size_t used_arcs(void)
{
	size_t n = 0;
#if RAMPLACE_PROFILE_ARCS > 0
	for (size_t i = 0; i < RAMPLACE_PROFILE_ARCS; i++)
		n += arcs[i].count != 0;
#endif
	return n;
}

size_t profile_gmon_size(void)
{
	return GMON_HDR_SIZE + GMON_HIST_HDR_SIZE + 2 * (size_t)ramplace_profile.nbins +
	       GMON_ARC_SIZE * used_arcs();
}

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4); /* the target's own byte order is gmon.out's */
}

static int write_headers(int (*write)(void *, const void *, size_t), void *ctx)
{
	unsigned char h[GMON_HDR_SIZE + GMON_HIST_HDR_SIZE];

	memset(h, 0, sizeof h);
	memcpy(h, "gmon", 4);
	put32(h + 4, 1);	/* GMON_VERSION; then 12 spare bytes */
	unsigned char *r = h + GMON_HDR_SIZE;
	r[0] = GMON_TAG_TIME_HIST;
	put32(r + 1, ramplace_profile.low_pc);
	put32(r + 5, ramplace_profile.high_pc);
	put32(r + 9, ramplace_profile.nbins);
	put32(r + 13, ramplace_profile.rate_hz);
	memcpy(r + 17, "seconds", 7);	/* dimen[15], NUL padded */
	r[32] = 's';
	return write(ctx, h, sizeof h);
}

static int write_arcs(int (*write)(void *, const void *, size_t), void *ctx)
{
#if RAMPLACE_PROFILE_ARCS > 0
	unsigned char buf[8 * GMON_ARC_SIZE];
	size_t n = 0;

	for (size_t i = 0; i < RAMPLACE_PROFILE_ARCS; i++) {
		if (arcs[i].count == 0)
			continue;
		unsigned char *r = buf + n * GMON_ARC_SIZE;
		r[0] = GMON_TAG_CG_ARC;
		put32(r + 1, arcs[i].from_pc);
		put32(r + 5, arcs[i].self_pc);
		put32(r + 9, arcs[i].count);
		if (++n == 8) {
			if (write(ctx, buf, sizeof buf))
				return -1;
			n = 0;
		}
	}
	if (n && write(ctx, buf, n * GMON_ARC_SIZE))
		return -1;
#else
	(void)write;
	(void)ctx;
#endif
	return 0;
}

int profile_gmon_write(int (*write)(void *ctx, const void *buf, size_t len), void *ctx)
{
	if (ramplace_profile.magic != RAMPLACE_PROFILE_MAGIC)
		return -1;
	int was_running = ramplace_profile.running != 0;
	if (was_running)
		ramplace_profile_port_stop();
	int rc = write_headers(write, ctx) ? -1 : 0;
	/* the bins are u16 in target order already: out in one piece */
	if (rc == 0 && write(ctx, bins, 2 * (size_t)ramplace_profile.nbins))
		rc = -1;
	if (rc == 0)
		rc = write_arcs(write, ctx);
	if (was_running)
		ramplace_profile_port_start(ramplace_profile_next_period());
	return rc;
}

static int semihost_write(void *ctx, const void *buf, size_t len)
{
	uint32_t block[3] = { *(uint32_t *)ctx, (uint32_t)(uintptr_t)buf, (uint32_t)len };

	/* returns the number of bytes NOT written */
	return ramplace_profile_port_semihost(SYS_WRITE, block) != 0;
}

int profile_dump_semihosting(const char *path)
{
	uint32_t open_block[3] = { (uint32_t)(uintptr_t)path, SYS_OPEN_MODE_WB, (uint32_t)strlen(path) };
	long fd = ramplace_profile_port_semihost(SYS_OPEN, open_block);

	if (fd == -1)
		return -1;
	uint32_t handle = (uint32_t)fd;
	int rc = profile_gmon_write(semihost_write, &handle);
	uint32_t close_block[1] = { handle };
	if (ramplace_profile_port_semihost(SYS_CLOSE, close_block) != 0)
		rc = -1;
	return rc;
}
