/* place_layout.c: the layout lines of `ramplace place --trace` (place_layout.h): the cycles the
 * trace's replay gives the flash-only build, the placement as the solver made it, and the
 * choice (units kept, sections ordered, alignments), with how many layouts were priced. Owns
 * nothing. */
#include <stdio.h>

#include "place_layout.h"

void place_layout_print(const rp_pipe_layout *L)
{
	if (!L->done)
		return;
	const rp_layout_choice *c = &L->choice;
	/* a sampled trace's runs include the replay of what the flash held before each window,
	 * which are no accesses of the run: "3700000 accesses in 4719099 runs" read as a bug */
	size_t warm = 0;
	for (size_t i = 0; i < L->trace->nruns; i++)
		warm += L->trace->runs[i].warm != 0;
	char shape[160] = "";
	if (L->trace->windows)
		snprintf(shape, sizeof(shape), " in %llu sampled windows of the run's %llu", (unsigned long long)L->trace->windows,
			 (unsigned long long)L->trace->total);
	printf("layout (%s, trace %s: %llu accesses%s, %zu runs of them and %zu replaying what the flash held): "
	       "stall and veneer/copy cycles: flash only %llu, as placed %llu, chosen %llu (%.3fx of flash only)\n",
	       L->model_name, L->trace_path, (unsigned long long)L->trace->accesses, shape, L->trace->nruns - warm, warm,
	       (unsigned long long)c->flash_only.cycles, (unsigned long long)c->as_placed.cycles,
	       (unsigned long long)c->chosen.cycles,
	       c->flash_only.cycles ? (double)c->chosen.cycles / (double)c->flash_only.cycles : 1.0);
	printf("layout: %zu of the %s placement's %zu unit(s) moved (the rest do not pay for their copy and veneers "
	       "under this model); %zu hot section(s) ordered in %s", c->nunits_kept,
	       L->by_layout ? "by-layout" : L->by_samples ? "by-samples" : "solver's", L->nunits_before,
	       c->norder - L->nunnamed, L->fragment_path ? L->fragment_path : "flashtext.ld");
	if (c->text_align > 1)
		printf(", the text aligned to %llu", (unsigned long long)c->text_align);
	if (c->order_align > 1)
		printf(", each ordered section to %llu", (unsigned long long)c->order_align);
	if (c->tail_pad)
		printf(", %llu byte(s) after them so that what follows the text keeps its offset in a %llu-byte line",
		       (unsigned long long)c->tail_pad, (unsigned long long)c->tail_line);
	if (L->nunnamed)
		printf(", %zu left in place (no pattern names them)", L->nunnamed);
	printf("; %zu layouts priced in %.2f s\n", c->evaluations, c->seconds);
	if (L->by_samples)
		printf("layout: the placement by samples priced %llu, the solver's %llu: taken\n",
		       (unsigned long long)L->by_samples_cycles, (unsigned long long)L->solver_cycles);
	if (L->tried_by_samples && !L->by_samples)   /* pipe_layout.c: try_by_samples */
		printf("layout: the placement by samples priced %llu (%.3fx of flash only): not lower than the solver's %llu "
		       "by the margin%s, not taken\n",
		       (unsigned long long)L->by_samples_cycles,
		       c->flash_only.cycles ? (double)L->by_samples_cycles / (double)c->flash_only.cycles : 1.0,
		       (unsigned long long)L->solver_cycles, L->by_samples_margin ? "" : " between placements");
	if (L->by_layout)   /* pipe_layout.c: try_by_layout */
		printf("layout: the placement weighed by the stall under the chosen order priced %llu, the choice before "
		       "it %llu: taken\n", (unsigned long long)L->by_layout_cycles, (unsigned long long)L->before_by_layout);
	else if (L->tried_by_layout)
		printf("layout: the placement weighed by the stall under the chosen order priced %llu: not lower than the "
		       "chosen %llu by the margin, not taken\n",
		       (unsigned long long)L->by_layout_cycles, (unsigned long long)c->chosen.cycles);
}
