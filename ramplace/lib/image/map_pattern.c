/* map_pattern.c: the exact ld input-section pattern of a link map's input section (see map.h,
 * rp_map_insec_pattern), split from the map reader (map.c). Owns the pattern strings it returns,
 * nothing else. Workload: one call per placed input section. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/map.h"
#include "ramplace/util.h"

/* Characters that mean themselves in an ld script file or section pattern (no wildcards,
 * no ':' archive separator, nothing the script lexer splits on). */
static const char *pattern_unsafe(const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      strchr("_.$~+-", c)))
			return s;
	}
	return NULL;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static int check_pattern_part(const char *part, const char *what, const rp_map_insec *sec, rp_err *err)
{
	const char *bad = pattern_unsafe(part);
	if (!*part)
		return rp_err_set(err, RP_EINPUT, "section '%s' of '%s': empty %s name", sec->name, sec->file, what);
	if (bad)
		return rp_err_set(err, RP_EINPUT,
				  "section '%s' of '%s': no exact ld pattern for %s '%s' (character '%c')",
				  sec->name, sec->file, what, part, *bad);
	return 0;
}

/* ld matches a file pattern against the path it opened (archives, objects) or the member name
 * (archive members). "*" then "/basename" pins the basename ("*a.o" would also match "data.o");
 * a path without a directory is matched whole, with ":" so that it means an object outside any
 * archive and so that ld does not try to open a file of that name. */
int rp_map_insec_pattern(char **out, const rp_map_insec *sec, rp_err *err)
{
	*out = NULL;
	if (!sec || !sec->name || !sec->file)
		return rp_err_set(err, RP_EINPUT, "no input section to make a pattern for");
	if (strcmp(sec->file, "linker stubs") == 0)
		return rp_err_set(err, RP_EINPUT, "section '%s' is made by the linker ('linker stubs'): no pattern moves it",
				  sec->name);
	if (sec->temporary && !sec->name_unique)
		return rp_err_set(err, RP_EINPUT, "section '%s' of '%s', a compiler temporary (a one-step compile-and-link), "
				  "has a name other sections share: no pattern survives the next build; compile its "
				  "source file to an object of its own (or with -ffunction-sections)", sec->name, sec->file);
	if (sec->temporary) {   /* the object's name changes with every build, the section's does not */
		if (check_pattern_part(sec->name, "section", sec, err))
			return err->code;
		return rp_asprintf(out, err, "*(%s)", sec->name);
	}
	const char *container = sec->archive ? sec->archive : sec->file;
	const char *base = base_name(container);
	const char *lead = base == container ? (sec->archive ? "" : ":") : "*/";
	if (check_pattern_part(base, sec->archive ? "archive" : "object", sec, err) ||
	    (sec->member && check_pattern_part(sec->member, "archive member", sec, err)) ||
	    check_pattern_part(sec->name, "section", sec, err))
		return err->code;
	size_t n = strlen(lead) + strlen(base) + (sec->member ? strlen(sec->member) + 1 : 0) + strlen(sec->name) + 3;
	char *p = malloc(n);
	if (!p)
		return rp_err_nomem(err, "making an ld pattern");
	if (sec->member)
		snprintf(p, n, "%s%s:%s(%s)", lead, base, sec->member, sec->name);
	else
		snprintf(p, n, "%s%s(%s)", lead, base, sec->name);
	*out = p;
	return 0;
}
