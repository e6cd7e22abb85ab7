/* plan_write.c: the placement plan file written atomically (plan.h, docs/plan-format.md): one
 * record per line, fields separated by single spaces, a field holding a space, '%', a control
 * character or DEL percent-encoded (%XX), and a real name that is exactly "-" written "%2D".
 * A plan whose names cannot be written is refused rather than written wrong. Owns nothing.
 * Workload: once per place, hundreds of units. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"
#include "ramplace/plan.h"
#include "ramplace/util.h"

static int needs_escape(unsigned char c)
{
	return c <= 0x20 || c == '%' || c == 0x7f;
}

/* Writes one field, percent-encoded; NULL or "" (no file) is written "-". */
static void put_field(FILE *fp, const char *s)
{
	if (!s || !*s) {
		fputc('-', fp);
		return;
	}
	if (strcmp(s, "-") == 0) {
		fputs("%2D", fp);
		return;
	}
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (needs_escape(*p))
			fprintf(fp, "%%%02X", *p);
		else
			fputc(*p, fp);
	}
}

static int check_name(const char *s, const char *what, size_t unit, rp_err *err)
{
	if (!s || !*s)
		return rp_err_set(err, RP_EINPUT, "plan unit %zu: empty %s", unit + 1, what);
	return 0;
}

static int check_writable(const rp_plan *plan, rp_err *err)
{
	/* only the first build's empty plan is made without an ELF, so without a build-id */
	if ((!plan->build_id || !*plan->build_id) && plan->nunits)
		return rp_err_set(err, RP_EINPUT, "plan has no build-id");
	if (!plan->outsec || !*plan->outsec)
		return rp_err_set(err, RP_EINPUT, "plan has no output section");
	for (size_t i = 0; i < plan->nunits; i++) {
		const rp_plan_unit *u = &plan->units[i];
		if (check_name(u->name, "unit name", i, err))
			return err->code;
		for (size_t k = 0; k < u->npatterns; k++)
			if (check_name(u->patterns[k], "pattern", i, err))
				return err->code;
		for (size_t k = 0; k < u->nfuncs; k++)
			if (check_name(u->funcs[k].name, "function name", i, err))
				return err->code;
	}
	return 0;
}

static void write_header(FILE *fp, const rp_plan *plan)
{
	fprintf(fp, "%s %d\n", PLAN_MAGIC, PLAN_VERSION);
	fputs("build-id ", fp);
	put_field(fp, plan->build_id);   /* none ("-"): the first build's empty plan */
	fputs("\noutput-section ", fp);
	put_field(fp, plan->outsec);
	fputc('\n', fp);
	if (plan->region && *plan->region) {
		fputs("region ", fp);
		put_field(fp, plan->region);
		fprintf(fp, " %llu %llu\n", (unsigned long long)plan->region_origin,
			(unsigned long long)plan->region_length);
	}
	fprintf(fp, "budget %llu\nveneer-reserve %llu\nused %llu\nsamples %llu %llu\n",
		(unsigned long long)plan->budget, (unsigned long long)plan->veneer_reserve,
		(unsigned long long)plan->used, (unsigned long long)plan->total_samples,
		(unsigned long long)plan->moved_samples);
	if (plan->nveneers)
		fprintf(fp, "veneers %llu\n", (unsigned long long)plan->nveneers);
	if (plan->align)
		fprintf(fp, "align %llu\n", (unsigned long long)plan->align);
	if (plan->link_reserve)
		fprintf(fp, "link-reserve %llu\n", (unsigned long long)plan->link_reserve);
	if (plan->allow_boot_path)
		fputs("boot-path allowed\n", fp);
	if (plan->is_data)
		fputs("kind data\n", fp);
	if (plan->data_plan) {
		fputs("data-plan ", fp);
		put_field(fp, plan->data_plan);
		fputc('\n', fp);
	}
	if (plan->linker_lld)
		fputs("linker lld\n", fp);
	if (plan->sizes_estimated)
		fputs("sizes estimated\n", fp);
	for (size_t i = 0; i < plan->nhandlers; i++) {
		fputs("handler ", fp);
		put_field(fp, plan->handlers[i].name);
		fputc(' ', fp);
		put_field(fp, plan->handlers[i].file);
		fputc('\n', fp);
	}
	if (plan->dialect) {
		fputs("dialect ", fp);
		put_field(fp, plan->dialect);
		fputc('\n', fp);
	}
	if (plan->modeled_model) {
		fputs("modeled ", fp);
		put_field(fp, plan->modeled_model);
		fprintf(fp, " %llu %llu\n", (unsigned long long)plan->modeled_before, (unsigned long long)plan->modeled_after);
	}
}

static void write_unit(FILE *fp, const rp_plan_unit *u, int is_data)
{
	fputs("unit ", fp);
	put_field(fp, u->name);
	fputc(' ', fp);
	put_field(fp, u->file);
	fprintf(fp, " %llu %llu %llu\n", (unsigned long long)u->size, (unsigned long long)u->weight,
		(unsigned long long)u->samples);
	for (size_t k = 0; k < u->npatterns; k++) {
		fputs("pattern ", fp);
		put_field(fp, u->patterns[k]);
		fputc('\n', fp);
	}
	for (size_t k = 0; k < u->nfuncs; k++) {
		fputs(is_data ? "object " : "func ", fp);
		put_field(fp, u->funcs[k].name);
		fputc(' ', fp);
		put_field(fp, u->funcs[k].file);
		fputc('\n', fp);
	}
	fputs("end\n", fp);
}

int rp_plan_write(const rp_plan *plan, const char *path, rp_err *err)
{
	if (!plan)
		return rp_err_set(err, RP_EINPUT, "%s: no plan to write", path);
	if (check_writable(plan, err))
		return rp_err_wrap(err, "%s", path);
	rp_afile af;
	int rc = rp_afile_open(&af, path, err);
	if (rc)
		return rc;
	write_header(af.fp, plan);
	for (size_t i = 0; i < plan->nunits; i++)
		write_unit(af.fp, &plan->units[i], plan->is_data);
	return rp_afile_commit(&af, err);
}

