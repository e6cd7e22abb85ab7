/* fuzz_rsp.c: libFuzzer target for the RSP parsers (rsp.h): the input is read as a byte stream
 * from a gdbserver (framed, then each packet decoded and read as a stop reply and a register
 * value) and as a target description whose every <xi:include> fetches the input again (so
 * include nesting and its depth limit are exercised). Nothing may crash, hang or read out of
 * bounds; errors are expected. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/rsp.h"

struct input {
	const char *data;
	size_t len;
};

static int fetch_self(void *ctx, const char *href, char **doc, size_t *len, rp_err *err)
{
	const struct input *in = ctx;
	(void)href;
	*doc = malloc(in->len + 1);
	if (!*doc)
		return rp_err_nomem(err, "fuzzing");
	memcpy(*doc, in->data, in->len);
	(*doc)[in->len] = '\0';
	*len = in->len;
	return 0;
}

static void fuzz_stream(const char *data, size_t len)
{
	static char out[RP_RSP_MAX_PACKET + 1];
	size_t pos = 0;
	while (pos < len) {
		rp_rsp_frame fr;
		rp_err err = RP_ERR_INIT;
		int rc = rp_rsp_frame_parse(&fr, data + pos, len - pos, pos, "fuzz:1", &err);
		if (rc <= 0)
			return;
		if (fr.kind == RP_RSP_FRAME_PACKET || fr.kind == RP_RSP_FRAME_NOTIFY) {
			size_t olen;
			if (rp_rsp_decode(out, sizeof(out), &olen, data + pos + fr.payload_off, fr.payload_len,
					  "fuzz:1", &err) == 0) {
				rp_rsp_stop stop;
				uint64_t v;
				rp_rsp_parse_stop(&stop, out, olen, "fuzz:1", &err);
				rp_rsp_parse_reg(&v, out, olen, olen & 1, "fuzz:1", &err);
			}
		}
		pos += fr.consumed;
	}
}

static void fuzz_tdesc(const char *data, size_t len)
{
	struct input in = { data, len };
	rp_rsp_tdesc td;
	rp_err err = RP_ERR_INIT;
	rp_rsp_tdesc_init(&td);
	if (rp_rsp_tdesc_parse(&td, data, len, fetch_self, &in, "fuzz:1", &err) == 0) {
		const rp_rsp_reg *pc = rp_rsp_tdesc_find(&td, "pc");
		if (pc)
			rp_rsp_tdesc_g_offset(&td, pc->regnum);
	}
	rp_rsp_tdesc_release(&td);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size ? size : 1); /* exact-size copy so ASan sees every overread */
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	fuzz_stream(copy, size);
	fuzz_tdesc(copy, size);
	char out[64];
	size_t olen;
	rp_err err = RP_ERR_INIT;
	rp_rsp_decode(out, sizeof(out), &olen, copy, size, "fuzz:1", &err);
	free(copy);
	return 0;
}
