/* ilp_search.h: private interface of the placement ILP's primal heuristics (ilp_search.c), used
 * by ilp.c and ilp_model.c: an incremental assignment state whose moves keep the exact byte
 * count of every region (veneers shared per callee and region) and the objective, and a local
 * search over moves and swaps on it. It needs the problem (ilp_problem.h), never the solver.
 * Not installed. */
#ifndef RAMPLACE_ILP_SEARCH_H
#define RAMPLACE_ILP_SEARCH_H

#include <stddef.h>
#include <stdint.h>
#include "ramplace/ilp_problem.h"

typedef struct rp_ils rp_ils;

/* A state for pb with every item in flash (musts too: the state may be infeasible). */
rp_ils *rp_ils_new(const rp_ilp_problem *pb, rp_err *err);
void rp_ils_free(rp_ils *s);

/* Loads an assignment (region per item, -1 flash); returns its objective. */
double rp_ils_load(rp_ils *s, const int *region);

/* Moves item i to location to (-1: flash); returns the change of the objective. */
double rp_ils_move(rp_ils *s, size_t i, int to);

/* Whether every region holds its bytes and every must-item is in RAM. */
int rp_ils_feasible(const rp_ils *s);

double rp_ils_objective(const rp_ils *s);
uint64_t rp_ils_used(const rp_ils *s, size_t r);   /* bytes in region r, veneers included */
const int *rp_ils_region(const rp_ils *s);

/* Improves a feasible state by single moves and pair swaps until none helps or the clock passes
 * deadline (CLOCK_MONOTONIC seconds); returns the objective. */
double rp_ils_improve(rp_ils *s, double deadline);

/* Fills the state: start, when given, is loaded whole and each region over its budget sheds the
 * items that lose least per byte freed; then, from flash, must-items first and the rest by value
 * density, each in the fastest region it fits (with its veneers). Returns the objective, -inf
 * when a must-item fits nowhere. */
double rp_ils_greedy(rp_ils *s, const int *start);

/* The calls item i makes (indices into pb->calls; none when the problem has no veneers). */
const size_t *rp_ils_calls_of(const rp_ils *s, size_t i, size_t *count);

/* Items by value per byte, densest first, must-items ahead of all; caller frees; NULL: no memory. */
size_t *rp_ils_density_order(const rp_ils *s);

double rp_ils_now(void);

#endif
