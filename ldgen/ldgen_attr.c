/* ldgen_attr.c: the attribute emitter (see attr.h): plan -> definitions found by the locator ->
 * a unified diff over the source tree plus a generated header.
 *
 * Owns, while it runs, the list of definitions to mark and each source file's lines. A patch is
 * built in memory and handed back whole; nothing is written here. Where a definition starts:
 * DWARF gives the line of the function's name; a definition in GNU style (`static int` on the
 * line before `foo (void)`) starts earlier, so the emitter walks up over lines that cannot end a
 * previous declaration, and puts the macro first on the declaration, where a GNU attribute
 * always applies to the function (after a `*` it would apply to the pointer type). */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ramplace/ldgen/attr.h"
#include "ramplace/util.h"

#define CONTEXT 3
#define MAX_WALK_UP 4

typedef struct target {
	char *rel;      /* path relative to the root */
	char *abs;
	int line;       /* DW_AT_decl_line, 1-based */
	char *name;     /* subprogram name: the macro's argument */
} target;

typedef struct targets {
	target *v;
	size_t n, cap;
} targets;

typedef struct lines {
	char *text;     /* the file, NUL-separated in place */
	char **v;
	size_t n, cap;
	int final_newline;
} lines;

/* One line of the aligned old/new sequence: ' ' kept, '-' removed, '+' added. */
typedef struct op {
	char kind;
	const char *text;
} op;

typedef struct ops {
	op *v;
	size_t n, cap;
	char **owned;   /* new texts made for '+' ops */
	size_t nowned, owned_cap;
} ops;

void rp_attr_result_release(rp_attr_result *res)
{
	for (size_t i = 0; i < res->nannotated; i++)
		free(res->annotated[i]);
	for (size_t i = 0; i < res->nskipped; i++)
		free(res->skipped[i]);
	free(res->annotated);
	free(res->skipped);
	memset(res, 0, sizeof(*res));
}

static void targets_release(targets *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].rel);
		free(t->v[i].abs);
		free(t->v[i].name);
	}
	free(t->v);
}

static int valid_identifier(const char *s)
{
	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

static int add_target(targets *t, const char *rel, const char *abs, int line, const char *name, rp_err *err)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].line == line && strcmp(t->v[i].abs, abs) == 0)
			return 0; /* a clone of a function already listed */
	if (rp_grow((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v), err))
		return err->code;
	target *g = &t->v[t->n++];
	memset(g, 0, sizeof(*g));
	g->line = line;
	if (rp_strdup(&g->rel, rel, err) || rp_strdup(&g->abs, abs, err) || rp_strdup(&g->name, name, err))
		return err->code;
	return 0;
}

/* One planned function -> a target, or a note saying why not. */
static int locate_func(targets *t, rp_attr_result *res, const rp_plan_func *pf, const rp_ldgen_locator *lc,
		       const char *root, rp_err *err)
{
	const char *label = pf->name;
	rp_ldgen_loc loc;
	int rc = lc->locate(lc->ctx, pf->name, pf->file, &loc, err);
	if (rc < 0)
		return rc;
	if (rc == RP_LDGEN_LOC_NO_FUNC)
		return rp_strlist_pushf(&res->skipped, &res->nskipped, err, "%s: not in the ELF", label);
	if (rc > 0)
		return rp_strlist_pushf(&res->skipped, &res->nskipped, err, "%s: no debug information (library code?)", label);
	size_t rl = strlen(root);
	if (!loc.decl_file || loc.decl_line <= 0)
		return rp_strlist_pushf(&res->skipped, &res->nskipped, err, "%s: DWARF gives no declaration line", label);
	if (strncmp(loc.decl_file, root, rl) != 0 || loc.decl_file[rl] != '/')
		return rp_strlist_pushf(&res->skipped, &res->nskipped, err, "%s: defined in %s, outside %s", label,
					loc.decl_file, root);
	if (!valid_identifier(loc.name))
		return rp_strlist_pushf(&res->skipped, &res->nskipped, err, "%s: '%s' is not a C identifier", label, loc.name);
	return add_target(t, loc.decl_file + rl + 1, loc.decl_file, loc.decl_line, loc.name, err);
}

static int by_file_line(const void *a, const void *b)
{
	const target *x = a, *y = b;
	int c = strcmp(x->rel, y->rel);
	return c ? c : (x->line > y->line) - (x->line < y->line);
}

static int collect_targets(targets *t, rp_attr_result *res, const rp_plan *plan, const rp_ldgen_locator *lc,
			   const char *root, rp_err *err)
{
	for (size_t i = 0; i < plan->nunits; i++)
		for (size_t k = 0; k < plan->units[i].nfuncs; k++) {
			int rc = locate_func(t, res, &plan->units[i].funcs[k], lc, root, err);
			if (rc)
				return rc;
		}
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), by_file_line);
	return 0;
}

/* ---------------------------------------------------------------- source lines */

static int lines_load(lines *l, const char *path, rp_err *err)
{
	size_t len;
	memset(l, 0, sizeof(*l));
	int rc = rp_read_file(&l->text, &len, path, err);
	if (rc)
		return rc;
	if (memchr(l->text, '\0', len))
		return rp_err_set(err, RP_EINPUT, "%s: holds a NUL byte, not C source", path);
	l->final_newline = len == 0 || l->text[len - 1] == '\n';
	char *p = l->text;
	while (*p) {
		if (rp_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v), err))
			return err->code;
		l->v[l->n++] = p;
		char *nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	return 0;
}

static void lines_release(lines *l)
{
	free(l->text);
	free(l->v);
}

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	return s;
}

/* 1 when a line ends a previous declaration or is not part of one (the definition starts below). */
static int ends_previous(const char *line)
{
	const char *s = skip_space(line);
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	if (n == 0 || s[0] == '#' || (s[0] == '/' && (s[1] == '/' || s[1] == '*')) || s[0] == '*')
		return 1;
	char last = s[n - 1];
	return last == ';' || last == '}' || last == '{' || last == ':' || (n >= 2 && s[n - 2] == '*' && last == '/');
}

/* Index of the line where the definition whose name is on line `idx` starts. */
static size_t definition_start(const lines *l, size_t idx)
{
	size_t start = idx;
	for (int k = 0; k < MAX_WALK_UP && start > 0 && !ends_previous(l->v[start - 1]); k++)
		start--;
	return start;
}

/* ---------------------------------------------------------------- diff */

static int ops_push(ops *o, char kind, const char *text, rp_err *err)
{
	if (rp_grow((void **)&o->v, &o->cap, o->n + 1, sizeof(*o->v), err))
		return err->code;
	o->v[o->n].kind = kind;
	o->v[o->n].text = text;
	o->n++;
	return 0;
}

static int ops_push_new(ops *o, char *owned_text, rp_err *err)
{
	if (!owned_text)
		return rp_err_nomem(err, "building the patch");
	if (rp_grow((void **)&o->owned, &o->owned_cap, o->nowned + 1, sizeof(char *), err)) {
		free(owned_text);
		return err->code;
	}
	o->owned[o->nowned++] = owned_text;
	return ops_push(o, '+', owned_text, err);
}

static void ops_release(ops *o)
{
	for (size_t i = 0; i < o->nowned; i++)
		free(o->owned[i]);
	free(o->owned);
	free(o->v);
}

static char *strdupf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *strdupf(const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

/* Writes the hunks of o (old lines counted by ' ' and '-', new by ' ' and '+'). */
static void write_hunks(FILE *fp, const ops *o, const lines *l)
{
	size_t i = 0;
	while (i < o->n) {
		while (i < o->n && o->v[i].kind == ' ')
			i++;
		if (i == o->n)
			break;
		size_t begin = i > CONTEXT ? i - CONTEXT : 0, end = i, quiet = 0;
		for (size_t j = i; j < o->n; j++) { /* extend while changes are closer than 2*CONTEXT */
			if (o->v[j].kind != ' ') {
				end = j;
				quiet = 0;
			} else if (++quiet > 2 * CONTEXT) {
				break;
			}
		}
		end = end + CONTEXT + 1 < o->n ? end + CONTEXT + 1 : o->n;
		size_t old_start = 1, new_start = 1, old_n = 0, new_n = 0;
		for (size_t j = 0; j < begin; j++) {
			old_start += o->v[j].kind != '+';
			new_start += o->v[j].kind != '-';
		}
		for (size_t j = begin; j < end; j++) {
			old_n += o->v[j].kind != '+';
			new_n += o->v[j].kind != '-';
		}
		fprintf(fp, "@@ -%zu,%zu +%zu,%zu @@\n", old_n ? old_start : old_start - 1, old_n,
			new_n ? new_start : new_start - 1, new_n);
		for (size_t j = begin; j < end; j++) {
			fprintf(fp, "%c%s\n", o->v[j].kind, o->v[j].text);
			if (j + 1 == o->n && !l->final_newline && o->v[j].kind == ' ')
				fputs("\\ No newline at end of file\n", fp);
		}
		i = end;
	}
}

/* The path of `to` relative to the directory of `from`; both relative to the same root. */
static char *relative_include(const char *from, const char *to)
{
	size_t common = 0;
	for (size_t i = 0; from[i] && from[i] == to[i]; i++)
		if (from[i] == '/')
			common = i + 1;
	size_t ups = 0;
	for (const char *p = from + common; *p; p++)
		ups += *p == '/';
	size_t n = ups * 3 + strlen(to + common) + 1;
	char *s = malloc(n);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (size_t k = 0; k < ups; k++)
		strcat(s, "../");
	strcat(s, to + common);
	return s;
}

/* The aligned old/new lines of one file with the macro and the include added. */
static int file_ops(ops *o, rp_attr_result *res, const lines *l, const target *t, size_t nt,
		    const char *include, const rp_attr_opts *opts, rp_err *err)
{
	size_t *mark = calloc(l->n + 1, sizeof(size_t)); /* target index + 1 starting at a line */
	if (!mark)
		return rp_err_nomem(err, "building the patch");
	int rc = 0, have_include = 0;
	size_t first = SIZE_MAX, inc_at = 0, nmarked = 0;
	for (size_t k = 0; !rc && k < nt; k++) {
		if ((size_t)t[k].line > l->n) {
			rc = rp_strlist_pushf(&res->skipped, &res->nskipped, err, "%s: %s has no line %d (sources changed since the build?)",
				       t[k].name, t[k].rel, t[k].line);
			continue;
		}
		size_t start = definition_start(l, (size_t)t[k].line - 1);
		int already = mark[start] != 0;
		for (size_t j = start; j < (size_t)t[k].line; j++)
			already |= strstr(l->v[j], opts->macro) != NULL;
		if (!strstr(l->v[t[k].line - 1], t[k].name)) {
			rc = rp_strlist_pushf(&res->skipped, &res->nskipped, err, "%s: %s:%d does not name it (sources changed since the build?)",
				       t[k].name, t[k].rel, t[k].line);
		} else if (already) {
			rc = rp_strlist_pushf(&res->skipped, &res->nskipped, err, "%s: %s:%d is already annotated",
				       t[k].name, t[k].rel, t[k].line);
		} else {
			mark[start] = k + 1;
			nmarked++;
			first = start < first ? start : first;
			rc = rp_strlist_pushf(&res->annotated, &res->nannotated, err, "%s %s:%d", t[k].name, t[k].rel, t[k].line);
		}
	}
	/* after the last unconditional #include: one inside #ifdef FEATURE would vanish with it */
	int depth = 0;
	for (size_t j = 0; j < l->n && j < first; j++) {
		const char *s = skip_space(l->v[j]);
		if (*s != '#')
			continue;
		s = skip_space(s + 1);
		if (strncmp(s, "if", 2) == 0)
			depth++;
		else if (strncmp(s, "endif", 5) == 0 && depth > 0)
			depth--;
		else if (strncmp(s, "include", 7) == 0 && depth == 0)
			inc_at = j + 1;
	}
	for (size_t j = 0; j < l->n; j++)
		if (strstr(l->v[j], "#include") && strstr(l->v[j], include))
			have_include = 1;
	for (size_t j = 0; !rc && nmarked && j <= l->n; j++) {
		if (j == inc_at && !have_include)
			rc = ops_push_new(o, strdupf("#include \"%s\"", include), err);
		if (rc || j == l->n)
			break;
		if (mark[j]) {
			const char *s = skip_space(l->v[j]);
			rc = ops_push(o, '-', l->v[j], err);
			if (!rc)
				rc = ops_push_new(o, strdupf("%.*s%s(%s) %s", (int)(s - l->v[j]), l->v[j], opts->macro,
							     t[mark[j] - 1].name, s), err);
		} else {
			rc = ops_push(o, ' ', l->v[j], err);
		}
	}
	free(mark);
	return rc;
}

static int write_file_patch(FILE *fp, rp_attr_result *res, const target *t, size_t nt, const char *header,
			    const rp_attr_opts *opts, rp_err *err)
{
	lines l;
	ops o = { 0 };
	int rc = lines_load(&l, t[0].abs, err);
	if (rc) {
		lines_release(&l);
		for (size_t k = 0; k < nt && rc != RP_ENOMEM; k++)
			rc = rp_strlist_pushf(&res->skipped, &res->nskipped, err, "%s: %s cannot be read", t[k].name, t[k].rel);
		return rc == RP_ENOMEM ? rc : 0;
	}
	char *include = relative_include(t[0].rel, header);
	rc = include ? file_ops(&o, res, &l, t, nt, include, opts, err) : rp_err_nomem(err, "building the patch");
	if (!rc && o.n) {
		fprintf(fp, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n", t[0].rel, t[0].rel, t[0].rel, t[0].rel);
		write_hunks(fp, &o, &l);
	}
	free(include);
	ops_release(&o);
	lines_release(&l);
	return rc;
}

int rp_attr_header_text(char **out, const rp_attr_opts *opts, const char *outsec, const char *path,
			rp_err *err)
{
	char extra[64] = "";
	if (opts->noinline)
		strcat(extra, ", noinline");
	const char *guard_base = opts->macro;
	char *s = strdupf(
		"/* %s: generated by `ramplace annotate`; regenerate rather than edit.\n"
		" * %s(name) puts a function in its own input section inside %s, which the linker\n"
		" * script collects with *(%s %s.*) and copies to RAM at boot, and keeps the compiler\n"
		" * from inlining or cloning it back into flash. */\n"
		"#ifndef %s_H\n#define %s_H\n\n"
		"#if defined(__clang__)\n"
		"#define %s(name) __attribute__((section(\"%s.\" #name)%s))\n"
		"#else\n"
		"#define %s(name) __attribute__((section(\"%s.\" #name)%s%s))\n"
		"#endif\n\n#endif\n",
		path, opts->macro, outsec, outsec, outsec, guard_base, guard_base, opts->macro, outsec, extra,
		opts->macro, outsec, extra, opts->noclone ? ", noclone" : "");
	if (!s)
		return rp_err_nomem(err, "writing the header");
	*out = s;
	return 0;
}

/* The header as a new file in the patch, or as a replacement when one with other text exists. */
static int write_header_patch(FILE *fp, const char *rel, const char *outsec, const rp_attr_opts *opts,
			      const char *root, rp_err *err)
{
	char *text, *old = NULL, abs[PATH_MAX];
	size_t oldlen = 0, nnew = 0, nold = 0;
	struct stat st;
	int rc = rp_attr_header_text(&text, opts, outsec, rel, err);
	if (rc)
		return rc;
	if ((size_t)snprintf(abs, sizeof(abs), "%s/%s", root, rel) >= sizeof(abs)) {
		free(text);
		return rp_err_set(err, RP_EINPUT, "%s/%s: path too long", root, rel);
	}
	if (stat(abs, &st) == 0 && (rc = rp_read_file(&old, &oldlen, abs, err)) != 0) {
		free(text);
		return rc;
	}
	if (old && strcmp(old, text) == 0)
		goto done;
	for (const char *p = text; *p; p++)
		nnew += *p == '\n';
	for (size_t i = 0; old && i < oldlen; i++)
		nold += old[i] == '\n';
	if (old)
		fprintf(fp, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -1,%zu +1,%zu @@\n", rel, rel, rel, rel, nold, nnew);
	else
		fprintf(fp, "diff --git a/%s b/%s\nnew file mode 100644\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%zu @@\n",
			rel, rel, rel, nnew);
	for (char *line = old; line && *line;) {
		char *nl = strchr(line, '\n');
		fprintf(fp, "-%.*s\n", nl ? (int)(nl - line) : (int)strlen(line), line);
		line = nl ? nl + 1 : line + strlen(line);
	}
	for (char *line = text; *line;) {
		char *nl = strchr(line, '\n');
		fprintf(fp, "+%.*s\n", (int)(nl - line), line);
		line = nl + 1;
	}
done:
	free(old);
	free(text);
	return 0;
}

static int header_path(char **out, const rp_attr_opts *opts, const targets *t, rp_err *err)
{
	if (opts->header)
		return rp_strdup(out, opts->header, err);
	const char *slash = strrchr(t->v[0].rel, '/');
	*out = slash ? strdupf("%.*s/ramplace_ramfunc.h", (int)(slash - t->v[0].rel), t->v[0].rel)
		     : strdupf("ramplace_ramfunc.h");
	return *out ? 0 : rp_err_nomem(err, "naming the header");
}

static int check_opts(const rp_attr_opts *opts, char *root, rp_err *err)
{
	if (!valid_identifier(opts->macro))
		return rp_err_set(err, RP_EUSAGE, "--macro: '%s' is not a C identifier", opts->macro);
	if (opts->header && (opts->header[0] == '/' || strstr(opts->header, "..") || strpbrk(opts->header, " \t\n\"\\")))
		return rp_err_set(err, RP_EUSAGE, "--header: '%s' must be a plain path inside the source root", opts->header);
	if (!realpath(opts->root, root))
		return rp_err_set(err, RP_EINPUT, "%s: cannot resolve the source root: %m", opts->root);
	return 0;
}

int rp_attr_make_patch(char **patch, size_t *len, rp_attr_result *res, const rp_plan *plan,
		       const rp_ldgen_locator *loc, const rp_attr_opts *opts, rp_err *err)
{
	char root[PATH_MAX], *header = NULL;
	targets t = { 0 };
	*patch = NULL;
	*len = 0;
	memset(res, 0, sizeof(*res));
	if (plan && plan->is_data)   /* the attribute marks function definitions; objects need section("...") on a const */
		return rp_err_set(err, RP_EUSAGE, "a data plan (.ramdata) has no function attributes: link with ramdata.ld");
	int rc = check_opts(opts, root, err);
	if (!rc)
		rc = collect_targets(&t, res, plan, loc, root, err);
	FILE *fp = rc ? NULL : open_memstream(patch, len);
	if (!rc && !fp)
		rc = rp_err_nomem(err, "building the patch");
	if (!rc && t.n)
		rc = header_path(&header, opts, &t, err);
	size_t before = res->nannotated;
	for (size_t i = 0; !rc && i < t.n;) {
		size_t j = i;
		while (j < t.n && strcmp(t.v[j].rel, t.v[i].rel) == 0)
			j++;
		rc = write_file_patch(fp, res, &t.v[i], j - i, header, opts, err);
		i = j;
	}
	if (!rc && res->nannotated > before)
		rc = write_header_patch(fp, header, plan->outsec, opts, root, err);
	if (fp && fclose(fp) != 0 && !rc)
		rc = rp_err_nomem(err, "building the patch");
	if (rc) {
		free(*patch);
		*patch = NULL;
		*len = 0;
		rp_attr_result_release(res);
	}
	free(header);
	targets_release(&t);
	return rc;
}
