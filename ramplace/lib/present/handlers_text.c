/* handlers_text.c: `callgraph --handlers` (present.h): the interrupt and exception handlers an
 * image's vector table (or RISC-V's mtvec writes) names, with their addresses, and the QEMU
 * plugin's options that measure their entries and invocations, the vector slot each entry reads
 * included. Owns nothing past the call. Workload: one image, tens of handlers. */
#include <stdlib.h>

#include "ramplace/boot.h"
#include "ramplace/costs.h"
#include "ramplace/present.h"

int rp_present_handlers(FILE *out, const rp_image *img, rp_err *err)
{
	size_t *h = NULL, n = 0;
	uint64_t *slots = NULL;
	int rc = rp_boot_vector_slots(img, &h, &slots, &n, err);
	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%08llx %s\n", (unsigned long long)img->funcs[h[i]].addr, img->funcs[h[i]].name);
	fprintf(out, "plugin:");
	for (size_t i = 0; i < n && i < RP_PLUGIN_ENTRIES; i++) {
		fprintf(out, "%sentry=%llx", i ? "," : " ", (unsigned long long)img->funcs[h[i]].addr);
		if (slots)
			fprintf(out, "@%llx", (unsigned long long)slots[i]);
	}
	fprintf(out, "%s\n", n ? "" : " (no handlers found)");
	if (n > RP_PLUGIN_ENTRIES)
		fprintf(out, "(%zu handlers: the plugin measures %d at a time; the first %d above)\n", n, RP_PLUGIN_ENTRIES,
			RP_PLUGIN_ENTRIES);
	free(slots);
	free(h);
	return 0;
}
