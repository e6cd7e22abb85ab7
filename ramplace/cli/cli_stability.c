/* cli_stability.c: the stability lines the commands print beside their work (cli_stability.h):
 * the text is rp_stab_text_* (stability_text.h); a failure here never fails the command whose
 * outputs are already written, and is printed as a note. */
#include "cli.h"
#include "cli_stability.h"
#include "ramplace/stability_text.h"

void cli_stability_line(FILE *out, const rp_image *img, const rp_db_totals *t, uint64_t budget)
{
	rp_err err = RP_ERR_INIT;
	char line[768];
	if (rp_stab_text_verdict(line, sizeof(line), img, t, budget, &err))
		cli_note("ramplace: note: no stability estimate: %s", err.msg);
	else
		fprintf(out, "stability: %s\n", line);
}

void cli_stability_after_store(const char *db_path, const rp_image *img)
{
	rp_err err = RP_ERR_INIT;
	if (rp_stab_text_after_store(stdout, db_path, img, &err))
		cli_note("ramplace: note: no stability estimate: %s", err.msg);
}
