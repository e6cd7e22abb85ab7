/* place_cycles.c: the modeled-cycles line of `ramplace place` (place_cycles.h), printed from the
 * figures the pipeline computed (lib/pipeline/pipe_cycles.c): the same numbers the HTML page,
 * the JSON and `check --profile` are to show. Owns nothing. */
#include <stdio.h>

#include "place_cycles.h"

void place_cycles_print(const rp_pipe_figures *f)
{
	if (!f->have)
		return;
	printf("modeled cycles (%s%s): %.3g -> %.3g, %.2fx fewer; flash: %s; %s\n", f->name, f->qualifier, f->before,
	       f->after, f->after > 0 ? f->before / f->after : 0.0, f->what, f->basis);
	if (f->cache_note)
		printf("cache model: %zu function(s) with %.1f%% of the instructions miss the cache too rarely to be worth "
		       "RAM (their stall cycles do not pay for their copy at boot): they stay in flash however hot\n",
		       f->nnot_worth, f->not_worth_share);
	else if (f->nnot_worth)
		printf("kept in flash: %zu function(s) whose stall cycles do not pay for their copy to RAM at boot\n",
		       f->nnot_worth);
}
