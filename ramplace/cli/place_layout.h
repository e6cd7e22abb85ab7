/* place_layout.h: what `ramplace place --trace` prints about the flash layout (place_layout.c),
 * from the choice the pipeline made (lib/pipeline/pipe_layout.c). Private to the CLI. */
#ifndef RAMPLACE_CLI_PLACE_LAYOUT_H
#define RAMPLACE_CLI_PLACE_LAYOUT_H

#include "ramplace/pipeline.h"

/* "layout (MODEL, trace ...): ..." lines; nothing without a layout. */
void place_layout_print(const rp_pipe_layout *L);

#endif
