/* fm_replay.c: replays an access trace the QEMU plugin wrote with trace=FILE ("F|R hex-addr
 * size" per line) through flashmodel.c, and prints the totals the plugin's header states
 * ("stall-fetch N stall-read N misses N stall-evicted N"), so t_flash_model_plugin.sh can compare them exactly.
 * Built by that test with the host compiler from the library's own flashmodel.c. Owns nothing
 * beyond one model; the trace is trusted test output (a malformed line is an error, exit 2). */
#include <inttypes.h>
#include <stdio.h>

#include "ramplace/flashmodel.h"

int main(int argc, char **argv)
{
	rp_fm_cfg cfg;
	char why[200], op;
	uint64_t addr, fetch = 0, read = 0, evicted = 0;
	unsigned size;
	if (argc != 2 || rp_fm_parse(&cfg, argv[1], why, sizeof(why))) {
		fprintf(stderr, "usage: fm_replay SPEC < trace (%s)\n", argc == 2 ? why : "no model");
		return 2;
	}
	rp_fm *m = rp_fm_new(&cfg);
	if (!m)
		return 2;
	unsigned long line = 0;
	int n;
	while ((n = scanf(" %c %" SCNx64 " %u", &op, &addr, &size)) == 3) {
		line++;
		if (op != 'F' && op != 'R') {
			fprintf(stderr, "fm_replay: line %lu: '%c' is neither F nor R\n", line, op);
			return 2;
		}
		uint64_t s = rp_fm_access(m, addr, size, op == 'F' ? RP_FM_FETCH : RP_FM_READ);
		*(op == 'F' ? &fetch : &read) += s;
		const rp_fm_evict *ev;
		size_t ne = rp_fm_last_evictions(m, &ev);
		for (size_t k = 0; k < ne; k++)
			evicted += ev[k].stall;
	}
	if (n != EOF) {
		fprintf(stderr, "fm_replay: line %lu: malformed\n", line + 1);
		return 2;
	}
	rp_fm_stats st;
	rp_fm_get_stats(m, &st);
	printf("stall-fetch %" PRIu64 " stall-read %" PRIu64 " misses %" PRIu64 " stall-evicted %" PRIu64 "\n", fetch, read,
	       st.misses, evicted);
	rp_fm_free(m);
	return 0;
}
