/* pipe_curve.c: the budget curve of a placement (pipeline.h): what the exact knapsack moves at
 * every budget step of the plan's first region, over the placement's own candidates and
 * weights, up to the free RAM the map leaves. The HTML page, `report --budget-curve` and the
 * JSON export draw it. Owns nothing beyond the curve it returns. Workload: a few hundred steps
 * over up to a few thousand candidates. */
#include "ramplace/budget.h"
#include "ramplace/plan.h"
#include "ramplace/pipeline.h"
#include "ramplace/util.h"

/* The free RAM of the plan's region: what .data, .bss, heap and stack leave (budget.h). */
static uint64_t free_ram(const rp_image *img, const rp_map *map, const rp_plan *plan)
{
	const rp_map_region *mr = map && plan->region ? rp_map_region_find(map, plan->region, 0) : NULL;
	if (!mr)
		return 0;
	const char *outsec = plan->outsec;
	rp_ram_map rm = { 0 };
	rp_err ignored = RP_ERR_INIT;
	uint64_t align = plan->align ? plan->align : 4;
	const char *own = rp_dialect_own_sections(rp_plan_dialect(plan));
	int rc = own ? rp_budget_auto_shared(img, map, mr, outsec, own, 0, align, &rm, &ignored)
		     : rp_budget_auto(img, mr, &outsec, 1, 0, align, &rm, &ignored);
	uint64_t room = rc ? 0 : rm.budget;
	rp_ram_map_release(&rm);
	return room;
}

int rp_pipe_curve(rp_curve *out, const rp_image *img, const rp_map *map, const rp_placement *p, rp_err *err)
{
	const rp_plan *plan = p->plan;
	uint64_t align = plan->align ? plan->align : 4, max = free_ram(img, map, plan);
	if (!max) {   /* no map: up to where every candidate fits */
		for (size_t i = 0; i < p->nitems; i++)
			if (rp_count_add(&max, p->items[i].weight))
				return rp_err_set(err, RP_EINPUT, "budget curve: the candidates' sizes overflow");
		max = (max + align - 1) / align * align;
	}
	if (max < plan->budget)
		max = plan->budget;
	return rp_curve_compute(out, p->items, p->nitems, max, rp_curve_step(max, align, 256), plan->budget, err);
}
