/* bench_share.c: the share of the exact profile's optimum that a placement chosen from another
 * profile reaches. For each budget, `place`'s own solver (rp_place, default options, with the
 * link map when given) chooses once from the exact profile and once from the other; each choice
 * is valued under the EXACT counts (the samples of every function its units move), and the
 * share is value(other's choice) / value(exact choice). Used by bench/bench_methods.sh for every
 * collection method; 100 % means the profile led to a placement as good as exact counts give.
 *   bench_share exact.db other.db fw.elf [fw.map] BUDGET...   prints "share BUDGET PCT" lines
 * Workload: a few hundred functions, a handful of budgets; each placement is milliseconds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/map.h"
#include "ramplace/placement.h"
#include "ramplace/profiledb.h"
#include "ramplace/util.h"

static int load(rp_db_totals *t, const char *path, rp_err *err)
{
	rp_db *db = NULL;
	int rc = rp_db_open_existing(&db, path, err);
	if (!rc)
		rc = rp_db_totals_load(db, t, err);
	rp_db_close(db);
	return rc;
}

static uint64_t exact_count(const rp_db_totals *t, const char *name, const char *file)
{
	for (size_t i = 0; i < t->nfuncs; i++)
		if (strcmp(t->funcs[i].func, name) == 0 &&
		    (t->funcs[i].file == file || (t->funcs[i].file && file && strcmp(t->funcs[i].file, file) == 0)))
			return t->funcs[i].count;
	return 0;
}

/* What the plan moves, counted in exact samples: every function of every unit. */
static uint64_t value_under(const rp_placement *p, const rp_db_totals *exact)
{
	uint64_t v = 0;
	for (size_t r = 0; r < p->nplans; r++)
		for (size_t u = 0; u < p->plans[r]->nunits; u++) {
			const rp_plan_unit *un = &p->plans[r]->units[u];
			for (size_t f = 0; f < un->nfuncs; f++)
				v += exact_count(exact, un->funcs[f].name, un->funcs[f].file);
		}
	return v;
}

static int share_at(const rp_image *img, const rp_map *map, const rp_db_totals *exact, const rp_db_totals *other,
		    uint64_t budget, rp_err *err)
{
	rp_place_opts o = RP_PLACE_OPTS_INIT;
	rp_placement pe, po;
	o.budget = budget;
	int rc = rp_place(img, map, exact, &o, &pe, err);
	if (rc)
		return rc;
	if ((rc = rp_place(img, map, other, &o, &po, err))) {
		rp_placement_release(&pe);
		return rc;
	}
	uint64_t ve = value_under(&pe, exact), vo = value_under(&po, exact);
	printf("share %llu %.2f  (exact choice %llu of %llu samples, this profile's %llu)\n", (unsigned long long)budget,
	       ve ? 100.0 * (double)vo / (double)ve : 100.0, (unsigned long long)ve, (unsigned long long)exact->total,
	       (unsigned long long)vo);
	rp_placement_release(&pe);
	rp_placement_release(&po);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: bench_share exact.db other.db fw.elf [fw.map] BUDGET...\n");
		return 2;
	}
	rp_err err = RP_ERR_INIT;
	rp_db_totals exact = { 0 }, other = { 0 };
	rp_image *img = NULL;
	rp_map *map = NULL;
	int first = 4;
	int rc = load(&exact, argv[1], &err);
	if (!rc)
		rc = load(&other, argv[2], &err);
	if (!rc)
		rc = rp_image_load(&img, argv[3], &err);
	if (!rc && strstr(argv[4], ".map")) {
		first = 5;
		rc = rp_map_load(&map, argv[4], &err);
		if (!rc)
			rc = rp_map_read_alignments(map, 4, &err);
	}
	for (int i = first; !rc && i < argc; i++) {
		uint64_t budget;
		rc = rp_parse_size(&budget, argv[i], "BUDGET", &err);
		if (!rc)
			rc = share_at(img, map, &exact, &other, budget, &err);
	}
	if (rc)
		fprintf(stderr, "bench_share: %s\n", err.msg);
	rp_map_free(map);
	rp_image_free(img);
	rp_db_totals_release(&exact);
	rp_db_totals_release(&other);
	return rc ? 2 : 0;
}
