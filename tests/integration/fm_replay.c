/* fm_replay.c: replays an access trace the QEMU plugin wrote with trace=FILE ("F|R hex-addr
 * size" per line) through flashmodel.c, and prints the totals the plugin's header states
 * ("stall-fetch N stall-read N misses N stall-evicted N"), so t_flash_model_plugin.sh can compare them exactly.
 * With several SPEC@LO-HI arguments (flashmap.h) each access goes to the model of the range
 * holding its address, and a line per range comes first, as the plugin's "# range" lines:
 * "range LO-HI SPEC stall-fetch N stall-read N misses N stall-evicted N".
 * Built by that test with the host compiler from the library's own flashmodel.c and
 * flashmap.c. Owns nothing beyond its models; the trace is trusted test output (a malformed
 * line is an error, exit 2). */
#include <inttypes.h>
#include <stdio.h>

#include "ramplace/flashmap.h"

int main(int argc, char **argv)
{
	rp_fm_map map = { 0 };
	rp_fm *m[RP_FM_MAX_RANGES] = { 0 };
	char why[200], op;
	uint64_t addr, fetch[RP_FM_MAX_RANGES] = { 0 }, read[RP_FM_MAX_RANGES] = { 0 }, evicted[RP_FM_MAX_RANGES] = { 0 };
	unsigned size;
	for (int i = 1; i < argc; i++) {
		rp_fm_map one;
		if (rp_fm_map_parse(&one, argv[i], why, sizeof(why)) || (argc > 2 && one.r[0].hi == 0) ||
		    rp_fm_map_add(&map, &one.r[0].cfg, one.r[0].lo, one.r[0].hi, why, sizeof(why))) {
			fprintf(stderr, "usage: fm_replay SPEC | SPEC@LO-HI... < trace (%s)\n", argv[i]);
			return 2;
		}
		if (!(m[i - 1] = rp_fm_new(&one.r[0].cfg)))
			return 2;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: fm_replay SPEC | SPEC@LO-HI... < trace (no model)\n");
		return 2;
	}
	unsigned long line = 0;
	int n;
	while ((n = scanf(" %c %" SCNx64 " %u", &op, &addr, &size)) == 3) {
		line++;
		int r = rp_fm_map_find(&map, addr);
		if ((op != 'F' && op != 'R') || r < 0) {
			fprintf(stderr, "fm_replay: line %lu: '%c' is neither F nor R, or the address is in no range\n", line, op);
			return 2;
		}
		uint64_t s = rp_fm_access(m[r], addr, size, op == 'F' ? RP_FM_FETCH : RP_FM_READ);
		*(op == 'F' ? &fetch[r] : &read[r]) += s;
		const rp_fm_evict *ev;
		size_t ne = rp_fm_last_evictions(m[r], &ev);
		for (size_t k = 0; k < ne; k++)
			evicted[r] += ev[k].stall;
	}
	if (n != EOF) {
		fprintf(stderr, "fm_replay: line %lu: malformed\n", line + 1);
		return 2;
	}
	uint64_t tf = 0, tr = 0, tm = 0, te = 0;
	for (size_t r = 0; r < map.n; r++) {
		rp_fm_stats st;
		rp_fm_get_stats(m[r], &st);
		if (map.n > 1)
			printf("range %" PRIx64 "-%" PRIx64 " %s stall-fetch %" PRIu64 " stall-read %" PRIu64 " misses %" PRIu64
			       " stall-evicted %" PRIu64 "\n", map.r[r].lo, map.r[r].hi, map.r[r].cfg.name, fetch[r], read[r],
			       st.misses, evicted[r]);
		tf += fetch[r], tr += read[r], tm += st.misses, te += evicted[r];
		rp_fm_free(m[r]);
	}
	printf("stall-fetch %" PRIu64 " stall-read %" PRIu64 " misses %" PRIu64 " stall-evicted %" PRIu64 "\n", tf, tr, tm,
	       te);
	return 0;
}
