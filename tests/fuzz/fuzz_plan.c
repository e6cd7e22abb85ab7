/* fuzz_plan.c: libFuzzer target for the plan reader: any bytes must parse or fail with
 * RP_EINPUT; a plan that parses must survive a write/read round trip unchanged in its counts,
 * and the GNU ld emitter must accept or refuse it cleanly. Seeds: tests/fuzz/corpus/plan/. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ramplace/ldgen/ldgen.h"
#include "ramplace/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rp_plan *plan = NULL, *back = NULL;
	rp_err err = RP_ERR_INIT;
	char path[64], frag[80];
	if (rp_plan_parse(&plan, (const char *)data, size, "fuzz.plan", &err)) {
		if (err.code != RP_EINPUT && err.code != RP_ENOMEM)
			abort();
		return 0;
	}
	snprintf(path, sizeof(path), "/tmp/fuzz_plan.%ld.plan", (long)getpid());
	snprintf(frag, sizeof(frag), "%s.ld", path);
	if (rp_plan_write(plan, path, &err) == 0) {
		if (rp_plan_read(&back, path, &err) != 0 || back->nunits != plan->nunits ||
		    back->budget != plan->budget || strcmp(back->outsec, plan->outsec) != 0)
			abort();
		for (size_t i = 0; i < plan->nunits; i++)
			if (strcmp(back->units[i].name, plan->units[i].name) != 0 ||
			    back->units[i].nfuncs != plan->units[i].nfuncs)
				abort();
		rp_plan_free(back);
		unlink(path);
	}
	if (rp_ldgen_gnu_write(plan, frag, &err) == 0)
		unlink(frag);
	rp_plan_free(plan);
	return 0;
}
