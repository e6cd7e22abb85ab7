/* fuzz_dialects.c: libFuzzer target for the other dialects: any plan that parses goes through
 * the lld, ESP-IDF, Zephyr and pico-sdk emitters (and so the pattern reader), which must write or refuse
 * it with RP_EINPUT/RP_EUSAGE, never crash. Seeds: tests/fuzz/corpus/dialects/. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ramplace/ldgen/dialects.h"

static void run(int rc, const rp_err *err, const char *path)
{
	if (rc && err->code != RP_EINPUT && err->code != RP_EUSAGE && err->code != RP_ENOMEM)
		abort();
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rp_plan *plan = NULL;
	rp_err err = RP_ERR_INIT;
	char path[64];
	if (rp_plan_parse(&plan, (const char *)data, size, "fuzz.plan", &err))
		return 0;
	snprintf(path, sizeof(path), "/tmp/fuzz_dialects.%ld", (long)getpid());
	run(rp_ldgen_lld_write(plan, path, &err), &err, path);
	size_t dropped = 0;
	run(rp_ldgen_espidf_write(plan, path, &dropped, &err), &err, path);
	rp_ldgen_zephyr_opts zo = RP_LDGEN_ZEPHYR_OPTS_INIT;
	zo.phdr = "ram_phdr";
	zo.nokeep = 1;
	run(rp_ldgen_zephyr_write(plan, NULL, &zo, path, &err), &err, path);
	run(rp_ldgen_pico_write(plan, path, &dropped, &err), &err, path);
	rp_plan_free(plan);
	return 0;
}
