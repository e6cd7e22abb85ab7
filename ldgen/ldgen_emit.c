/* ldgen_emit.c: one table of the fragment formats `emit` writes (ldgen.h: rp_ldgen_emit): each
 * format's name, the plan dialect it is the native form of, and its writer; and the warnings
 * a plan made for another dialect earns in it. Owns nothing. Workload: one fragment per call. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "ramplace/ldgen/dialects.h"
#include "ramplace/ldgen/ldgen.h"

typedef int (*writer_fn)(const rp_plan *plan, const rp_ldgen_emit_opts *o, const char *path, size_t *ndropped,
			 rp_err *err);

static int write_gnu(const rp_plan *plan, const rp_ldgen_emit_opts *o, const char *path, size_t *ndropped, rp_err *err)
{
	(void)o;
	(void)ndropped;
	return rp_ldgen_gnu_write(plan, path, err);
}

static int write_lld(const rp_plan *plan, const rp_ldgen_emit_opts *o, const char *path, size_t *ndropped, rp_err *err)
{
	(void)o;
	(void)ndropped;
	return rp_ldgen_lld_write(plan, path, err);
}

/* -o DIR/ or an existing directory: esp-idf writes a whole component there. */
static int is_folder(const char *path)
{
	struct stat st;
	size_t n = strlen(path);
	return (n && path[n - 1] == '/') || (stat(path, &st) == 0 && S_ISDIR(st.st_mode));
}

static int write_espidf(const rp_plan *plan, const rp_ldgen_emit_opts *o, const char *path, size_t *ndropped,
			rp_err *err)
{
	(void)o;
	return is_folder(path) ? rp_ldgen_espidf_component(plan, path, ndropped, err)
			       : rp_ldgen_espidf_write(plan, path, ndropped, err);
}

static int write_zephyr(const rp_plan *plan, const rp_ldgen_emit_opts *o, const char *path, size_t *ndropped,
			rp_err *err)
{
	rp_ldgen_zephyr_opts zo = o->zephyr;
	zo.ndropped = ndropped;
	return rp_ldgen_zephyr_write(plan, o->locator, &zo, path, err);
}

static int write_pico(const rp_plan *plan, const rp_ldgen_emit_opts *o, const char *path, size_t *ndropped,
		      rp_err *err)
{
	(void)o;
	return rp_ldgen_pico_write(plan, path, ndropped, err);
}

static const struct format {
	const char *name;
	int dialect;            /* the plan dialect this is the native form of */
	const char *form;       /* what a dropped section has no form in, for the warning */
	writer_fn write;
} formats[] = {
	{ "gnu", RP_DIALECT_GNU, NULL, write_gnu },
	{ "lld", RP_DIALECT_GNU, NULL, write_lld },   /* GNU ld's dialect written for ld.lld */
	{ "esp-idf", RP_DIALECT_ESPIDF, "ESP-IDF", write_espidf },
	{ "zephyr", RP_DIALECT_ZEPHYR, "Zephyr", write_zephyr },
	{ "pico", RP_DIALECT_PICO, NULL, write_pico },
};

static const struct format *format_of(const char *name)
{
	for (size_t i = 0; name && i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(formats[i].name, name) == 0)
			return &formats[i];
	return NULL;
}

int rp_ldgen_format_known(const char *name)
{
	return format_of(name) != NULL;
}

static void warn(rp_ldgen_emit_result *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warn(rp_ldgen_emit_result *out, const char *fmt, ...)
{
	if (out->nwarnings >= sizeof(out->warnings) / sizeof(out->warnings[0]))
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(out->warnings[out->nwarnings++], sizeof(out->warnings[0]), fmt, ap);
	va_end(ap);
}

/* What a plan earns in the format: sections left as comments, a plan for another dialect. */
static void warnings(const struct format *f, const rp_plan *plan, const char *path, rp_ldgen_emit_result *out)
{
	int native = rp_plan_dialect(plan) == f->dialect;
	if (f->dialect == RP_DIALECT_PICO && out->ndropped)
		warn(out, "%s: %zu input section(s) of the plan cannot be renamed (listed as comments, with the reason: a plan "
		     "made without --map names no object), so 'check' fails on them: place with --map --dialect pico",
		     path, out->ndropped);
	if (f->dialect == RP_DIALECT_PICO && !native)
		warn(out, "%s: the plan was made for %s: its output section is %s, where pico-sdk's renamed sections do not go "
		     "('check' fails); place with --dialect pico", path, plan->dialect ? plan->dialect : "GNU ld", plan->outsec);
	if (f->form && out->ndropped)
		warn(out, "%s: %zu input section(s) of the plan have no %s form (listed as comments, with the reason)%s", path,
		     out->ndropped, f->form,
		     native ? ""
		     : f->dialect == RP_DIALECT_ZEPHYR ? ": the plan was made for GNU ld, so their budget is lost and 'check' fails on "
							"them; 'place --dialect zephyr' leaves them in flash and gives their budget to code it can move"
		     : ": the plan was made for GNU ld, so their budget is lost and 'check' fails on them; 'place --dialect esp-idf' "
		       "leaves them in flash and gives their budget to code it can move");
}

int rp_ldgen_emit(const char *format, const rp_plan *plan, const rp_ldgen_emit_opts *o, const char *path,
		  rp_ldgen_emit_result *out, rp_err *err)
{
	memset(out, 0, sizeof(*out));
	const struct format *f = format_of(format);
	if (!f)
		return rp_err_set(err, RP_EUSAGE, "emit: --format is gnu, lld, esp-idf, zephyr or pico, not '%s'",
				  format ? format : "");
	int rc = f->write(plan, o, path, &out->ndropped, err);
	if (!rc)
		warnings(f, plan, path, out);
	return rc;
}
