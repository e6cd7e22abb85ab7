/* ldgen_zephyr.c: the Zephyr dialect (dialects.h): zephyr_code_relocate() lines for the
 * application's CMakeLists.txt, one per source file, each with a FILTER that selects exactly the
 * planned functions' sections. Zephyr relocates by source file: the application's objects, also
 * as members of the static libraries Zephyr builds (libapp.a's interp.c.obj), map to their
 * sources; a toolchain library's code (newlib's memcpy) cannot be expressed and is listed in a
 * comment. Source files come from the locator when given (the compiled file of the first of the
 * unit's functions whose file name matches), else from the object name (CMake's interp.c.obj ->
 * interp.c). Owns the per-file grouping while it runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/ldgen/dialects.h"
#include "ramplace/util.h"

typedef struct reloc {
	char src[1024];
	char section[256];
} reloc;

static int by_source(const void *a, const void *b)
{
	const reloc *x = a, *y = b;
	int c = strcmp(x->src, y->src);
	return c ? c : strcmp(x->section, y->section);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* interp.c.obj -> interp.c; interp.o -> interp.c (a guess: C is the common case). */
static void source_from_object(char *out, size_t cap, const char *obj)
{
	size_t n = strlen(obj);
	if (n > 4 && strcmp(obj + n - 4, ".obj") == 0)
		snprintf(out, cap, "%.*s", (int)(n - 4), obj);
	else if (n > 2 && strcmp(obj + n - 2, ".o") == 0)
		snprintf(out, cap, "%.*s.c", (int)(n - 2), obj);
	else
		snprintf(out, cap, "%s", obj);
}

/* The located source of the unit's functions whose file name is `want`, if any. A function
 * the locator cannot place (or fails on) is passed over: the object name is still a guess. */
static void source_from_locator(char *out, size_t cap, const rp_plan_unit *u, const rp_ldgen_locator *lc,
				const char *want)
{
	for (size_t k = 0; lc && k < u->nfuncs; k++) {
		rp_ldgen_loc loc;
		rp_err ignored = RP_ERR_INIT;
		if (lc->locate(lc->ctx, u->funcs[k].name, u->funcs[k].file, &loc, &ignored) != 0)
			continue;
		if (strcmp(base_name(loc.cu_file), want) == 0 && !strpbrk(loc.cu_file, " \"\\;()$")) {
			snprintf(out, cap, "%s", loc.cu_file);
			return;
		}
	}
}

/* Writes "^[.]text[.](a|b)$" style: '.' and '$' in brackets so nothing needs a backslash. */
static void put_regex_name(FILE *fp, const char *s)
{
	for (; *s; s++) {
		if (*s == '.' || *s == '$' || *s == '+' || *s == '?' || *s == '*')
			fprintf(fp, "[%c]", *s);
		else
			fputc(*s, fp);
	}
}

/* v is sorted by source file, then section. */
static void write_lines(FILE *fp, const reloc *v, size_t n, const rp_ldgen_zephyr_opts *o)
{
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && strcmp(v[j].src, v[i].src) == 0)
			j++;
		fprintf(fp, "zephyr_code_relocate(FILES %s\n  FILTER \"^(", v[i].src);
		for (size_t k = i; k < j; k++) {
			if (k > i && strcmp(v[k].section, v[k - 1].section) == 0)
				continue;
			if (k > i)
				fputc('|', fp);
			put_regex_name(fp, v[k].section);
		}
		fprintf(fp, ")$\"\n  LOCATION %s", o->location);
		if (o->phdr)
			fprintf(fp, " PHDR %s", o->phdr);
		fprintf(fp, "%s)\n", o->nokeep ? " NOKEEP" : "");
		i = j;
	}
}

static int valid_location(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

typedef struct relocs_ctx {
	FILE *fp;
	const rp_ldgen_locator *loc;
	size_t dropped;
} relocs_ctx;

/* rp_ld_collect_fn: the relocation of one pattern, or a comment in the output (ctx->fp) naming
 * a pattern that names no source file. */
static int add_reloc(void *ctx, void *slot, const rp_plan_unit *u, const char *text, const rp_ld_pattern *p,
		     rp_err *err)
{
	relocs_ctx *c = ctx;
	reloc *r = slot;
	(void)err;
	/* Zephyr builds the application into static libraries (app/libapp.a), CMake naming each
	 * member after its source (interp.c.obj); a toolchain library's members (lib_a-memcpy.o)
	 * name no source of the build */
	if (strcmp(p->file, "*") == 0 || (p->member[0] && !rp_str_ends_with(p->member, ".obj"))) {
		fprintf(c->fp, "# not relocatable by source file: %s\n", text);
		c->dropped++;
		return 0;
	}
	source_from_object(r->src, sizeof(r->src), p->member[0] ? p->member : p->file);
	source_from_locator(r->src, sizeof(r->src), u, c->loc, r->src);
	snprintf(r->section, sizeof(r->section), "%s", p->section);
	return 1;
}

int rp_ldgen_zephyr_write(const rp_plan *plan, const rp_ldgen_locator *loc, const rp_ldgen_zephyr_opts *o,
			  const char *path, rp_err *err)
{
	reloc *v = NULL;
	size_t n = 0;
	rp_afile af;
	if (!valid_location(o->location))
		return rp_err_set(err, RP_EUSAGE, "--location: '%s' is not a Zephyr memory location name", o->location);
	if (o->phdr && !valid_location(o->phdr))
		return rp_err_set(err, RP_EUSAGE, "--phdr: '%s' is not a program header name", o->phdr);
	/* the relocation lines filter .text sections; rodata would need its own FILTER: not emitted yet */
	if (plan->is_data)
		return rp_err_set(err, RP_EUSAGE, "%s: data plans (.ramdata) are emitted for GNU ld and ld.lld only", path);
	int rc = rp_afile_open(&af, path, err);
	if (rc)
		return rc;
	fprintf(af.fp, "# Generated by 'ramplace emit --format zephyr': include() it from the application's\n"
		       "# CMakeLists.txt, with CONFIG_CODE_DATA_RELOCATION=y (and, on Arm with the MPU,\n"
		       "# CONFIG_CODE_DATA_RELOCATION_SRAM=y, which makes the relocated code executable).\n"
		       "# %zu unit(s), %llu bytes.\n", plan->nunits, (unsigned long long)plan->used);
	if (!loc)
		fputs("# Without --elf the files are the objects' names: zephyr_code_relocate() looks for them\n"
		      "# beside the CMakeLists.txt that includes this (pass --elf for the sources' paths).\n", af.fp);
	relocs_ctx ctx = { af.fp, loc, 0 };
	rc = rp_ld_pattern_collect((void **)&v, &n, plan, sizeof(*v), add_reloc, &ctx, by_source, err);
	if (o->ndropped)
		*o->ndropped = ctx.dropped;
	if (!rc)
		write_lines(af.fp, v, n, o);
	free(v);
	if (rc) {
		rp_afile_abort(&af);
		return rp_err_wrap(err, "%s", path);
	}
	return rp_afile_commit(&af, err);
}
