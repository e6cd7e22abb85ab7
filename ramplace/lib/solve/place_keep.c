/* place_keep.c: what must stay in flash and what must go to RAM (place.h). The reset
 * handler and what it runs before .ramtext is copied stay in flash (boot.h), as do --exclude
 * matches; --pin matches and the static call closure of closure roots must be in RAM. Owns the
 * reasons (kept_why, must_why) a unit carries into the plan's report, and the check that the
 * required units can move and fit. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/util.h"
#include "place.h"

static void keep(ctx *c, size_t fi, const char *why)
{
	unit *u = &c->units[c->unit_of[fi]];
	if (!u->kept_why) {
		u->kept_why = why;
		u->kept_func = fi;
	}
}

/* place --reset-path: each call the walk judged, where, and why it runs before or after the copy. */
static int site_notes(ctx *c, rp_err *err)
{
	const rp_boot *b = &c->boot;
	const rp_func *f = c->img->funcs;
	int rc = 0;
	for (size_t i = 0; !rc && c->opts->explain_reset && i < b->nsites; i++) {
		const rp_boot_site *s = &b->sites[i];
		const char *why = s->kind == RP_BOOT_SITE_WAY ? (b->copy_found ? "on the way to the copy: kept in flash itself, what it calls judged below"
								: "on the way to main: kept in flash itself, what it calls judged below")
				: s->kind == RP_BOOT_SITE_MAIN ? "main, and no copy was found before it: what runs before main stays in flash"
				: !b->copy_found && s->kind == RP_BOOT_SITE_AFTER ? "after main: free to move"
				: !b->copy_found ? "before main, with no copy found: kept in flash with its closure"
				: s->kind == RP_BOOT_SITE_AFTER ? "after the copy: every path to this call passes the copy (or the call on the way to it) first; free to move"
				: "before the copy: a path reaches this call without passing the copy; kept in flash with its closure";
		rc = pl_note(c, err, "reset path: 0x%llx: %s calls %s: %s", (unsigned long long)s->addr, f[s->caller].name,
			     f[s->callee].name, why);
	}
	return rc;
}

static int boot_summary(ctx *c, rp_err *err)
{
	int rc;
	const rp_boot *b = &c->boot;
	const rp_func *f = c->img->funcs;
	char list[400] = "";
	if (b->reset == SIZE_MAX)
		return pl_note(c, err, "reset path: no reset handler found (no vector table, entry point or Reset_Handler)");
	for (size_t i = 0; i < b->nunreached; i++)
		if ((rc = pl_note(c, err, "reset path: %s copies %s but is called through a pointer (a constructor, a table), "
				  "which the walk does not follow: kept in flash with its closure", f[b->unreached[i]].name,
				  c->regions[0].outsec)))
			return rc;
	if (!b->copy_found && b->main_func != SIZE_MAX)
		return pl_note(c, err, "reset path: %s (found by %s); where it copies %s was not found, so everything it may run before calling main stays in flash: %zu call(s) made before main with their closure, and the %zu function(s) on the way (%zu functions)",
			    f[b->reset].name, b->found_by, c->regions[0].outsec, b->npre, b->npath, b->nkeep - 1);
	if (!b->copy_found)
		return pl_note(c, err, "reset path: %s (found by %s); where it copies %s was not found and it calls no main, so everything it reaches stays in flash (%zu functions)",
			    f[b->reset].name, b->found_by, c->regions[0].outsec, b->nkeep - 1);
	char where[300] = "";
	if (b->copier != b->reset) {   /* the copy is deeper: say how the reset handler gets there */
		char chain[256];
		rp_boot_chain(b, c->img, b->copier, chain, sizeof(chain));
		snprintf(where, sizeof(where), " in %s (%s)", f[b->copier].name, chain);
	}
	for (size_t i = 0; i < b->npost; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "", f[b->post[i]].name);
	rc = pl_note(c, err, "reset path: %s (found by %s) copies the code at 0x%llx%s; %zu function(s) called before that stay in flash with their closure (%zu functions)",
		      f[b->reset].name, b->found_by, (unsigned long long)b->copy_site, where, b->npre, b->nkeep - 1);
	if (!rc && b->npost)
		rc = pl_note(c, err, "reset path: called after the copy, free to move: %s", list);
	return rc;
}

/* The summary, then (--reset-path) each call judged. */
static int boot_notes(ctx *c, rp_err *err)
{
	int rc = boot_summary(c, err);
	return rc ? rc : site_notes(c, err);
}

static int keep_boot_path(ctx *c, rp_err *err)
{
	if (rp_dialect_info_of(c->opts->dialect)->loader_fills_ram)   /* nothing of the application runs before IRAM is there */
		return pl_note(c, err, "reset path: not a constraint under ESP-IDF: its second-stage bootloader loads IRAM "
			       "before the application starts");
	const char **outsecs = malloc(c->nregions * sizeof(char *));
	if (!outsecs)
		return rp_err_nomem(err, "analysing the reset path");
	for (size_t r = 0; r < c->nregions; r++)
		outsecs[r] = c->regions[r].outsec;
	int rc = c->cg ? rp_boot_analyze(&c->boot, c->img, c->cg, outsecs, c->nregions, err) : 0;
	free(outsecs);
	if (rc || !c->cg)
		return rc;
	c->have_boot = 1;
	const rp_boot *b = &c->boot;
	if (b->reset == SIZE_MAX)
		return boot_notes(c, err);
	keep(c, b->reset, "the reset handler (or shares its input section): runs before .ramtext is copied");
	for (size_t i = 0; i < b->nunreached; i++)
		keep(c, b->unreached[i], "copies .ramtext and is called through a pointer (a constructor, a table), which the "
		     "reset path's walk does not follow: moved, it would run from RAM it has not filled yet");
	for (size_t i = 0; i < b->npre; i++)
		keep(c, b->pre[i], b->copy_found ? "called by the reset handler before the code is copied to RAM"
						 : "called by the reset handler, which may run it before .ramtext is copied");
	for (size_t i = 0; i < c->img->nfuncs; i++)
		if (b->keep[i])
			keep(c, i, "reached from a call the reset handler makes before the code is copied to RAM");
	return boot_notes(c, err);
}

/* The first function of unit ui matching one of the globs, or SIZE_MAX. */
static size_t unit_matches(const ctx *c, size_t ui, const char *const *globs, size_t n)
{
	for (size_t j = c->ufirst[ui]; n && j < c->ufirst[ui + 1]; j++) {   /* in address order */
		size_t i = c->ufuncs[j];
		for (size_t k = 0; k < n; k++)
			if (fnmatch(globs[k], c->img->funcs[i].name, 0) == 0)
				return i;
	}
	return SIZE_MAX;
}

static void must(ctx *c, size_t ui, size_t fi, const char *why)
{
	if (!c->units[ui].must_why) {
		c->units[ui].must_why = why;
		c->units[ui].must_func = fi;
	}
}

/* Adds every function matching glob to roots, each once (taken[] marks the ones in roots, so
 * roots never holds more than every function); RP_EINPUT naming what when none matches. */
static int add_roots(ctx *c, const char *glob, const char *what, size_t *roots, size_t *nroots, unsigned char *taken,
		     rp_err *err)
{
	size_t matched = 0;
	for (size_t i = 0; i < c->img->nfuncs; i++) {
		if (fnmatch(glob, c->img->funcs[i].name, 0) != 0)
			continue;
		matched++;
		if (!taken[i]) {
			taken[i] = 1;
			roots[(*nroots)++] = i;
		}
	}
	return matched ? 0 : rp_err_set(err, RP_EINPUT, "%s: no function in %s matches '%s'", what, c->img->path, glob);
}

/* The interrupt handlers whose reach must run from RAM: --ram-handler globs, and with
 * --ram-handlers every vector-table handler but the reset handler. Kept in c->handler_roots for
 * the plan, which records them so that check proves no path from them reaches flash. */
static int find_handlers(ctx *c, rp_err *err)
{
	const rp_place_opts *o = c->opts;
	if (!o->nhandlers && !o->all_handlers)
		return 0;
	unsigned char *taken = calloc(c->img->nfuncs + 1, 1);
	if (!taken || !(c->handler_roots = malloc((c->img->nfuncs + 1) * sizeof(size_t)))) {
		free(taken);
		return rp_err_nomem(err, "finding the interrupt handlers");
	}
	int rc = 0;
	for (size_t k = 0; !rc && k < o->nhandlers; k++)
		rc = add_roots(c, o->handlers[k], "--ram-handler", c->handler_roots, &c->nhandler_roots, taken, err);
	size_t *vec = NULL, nvec = 0;
	if (!rc && o->all_handlers && !(rc = rp_boot_vector_handlers(c->img, &vec, &nvec, err)))
		for (size_t k = 0; k < nvec; k++)
			if (!taken[vec[k]]) {   /* a glob may have named it already */
				taken[vec[k]] = 1;
				c->handler_roots[c->nhandler_roots++] = vec[k];
			}
	free(vec);
	free(taken);
	return rc;
}

/* Marks must(reason) on every function the static call graph reaches from roots. */
static int must_reach(ctx *c, const size_t *roots, size_t nroots, const char *reason, rp_err *err)
{
	unsigned char *mark = calloc(c->img->nfuncs + 1, 1);
	int rc = mark ? rp_callgraph_reach(c->cg, roots, nroots, mark, err) : rp_err_nomem(err, "walking closures");
	for (size_t i = 0; !rc && i < c->img->nfuncs; i++)
		if (mark[i])
			must(c, c->unit_of[i], i, reason);
	free(mark);
	return rc;
}

/* The static call closure of every function matching the closure globs must be in RAM, and the
 * whole reach of the interrupt handlers kept off flash. */
static int mark_closures(ctx *c, rp_err *err)
{
	const rp_place_opts *o = c->opts;
	if (!o->nclosure && !o->nhandlers && !o->all_handlers)
		return 0;
	if (!c->cg)
		return rp_err_set(err, RP_EUSAGE, "closure: needs the call graph, which only ARM and RISC-V images have");
	size_t *roots = malloc((c->img->nfuncs + 1) * sizeof(size_t));
	unsigned char *taken = calloc(c->img->nfuncs + 1, 1);
	size_t nroots = 0;
	int rc = roots && taken ? 0 : rp_err_nomem(err, "walking closures");
	for (size_t k = 0; !rc && k < o->nclosure; k++)
		rc = add_roots(c, o->closure[k], "closure", roots, &nroots, taken, err);
	if (!rc && nroots)
		rc = must_reach(c, roots, nroots, "in the static call closure of a closure root", err);
	free(roots);
	free(taken);
	if (!rc)
		rc = find_handlers(c, err);
	if (!rc && c->nhandler_roots)
		rc = must_reach(c, c->handler_roots, c->nhandler_roots,
				"reached from an interrupt handler that must run from RAM (--ram-handler)", err);
	return rc;
}

/* A unit that must be in RAM but cannot move is a contradiction: say which and why. */
static int check_musts(ctx *c, rp_err *err)
{
	uint64_t bytes = 0, room = 0;
	size_t n = 0;
	char names[300] = "";
	for (size_t u = 0; u < c->nunits; u++) {
		const unit *un = &c->units[u];
		if (!un->must_why)
			continue;
		const rp_func *f = &c->img->funcs[un->must_func];
		if (un->kept_why || !un->movable)
			return rp_err_set(err, RP_EINPUT, "'%s' must be in RAM (%s) but cannot move: %s", f->name, un->must_why,
					  un->kept_why ? un->kept_why : "it is not in a .text input section the map can move");
		bytes += un->size;
		if (n++ < 8)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", n > 1 ? ", " : "", f->name);
	}
	for (size_t r = 0; r < c->nregions; r++)
		room += c->regions[r].budget;
	char roots[200] = "";
	for (size_t k = 0; k < c->opts->nclosure; k++)
		snprintf(roots + strlen(roots), sizeof(roots) - strlen(roots), "%s'%s'", k ? ", " : "; closure of ",
			 c->opts->closure[k]);
	if (bytes > room)
		return rp_err_set(err, RP_EINPUT, "infeasible: pinned and closure functions need %llu bytes in %zu unit(s) (%s%s%s), over the %llu-byte budget by %llu",
				  (unsigned long long)bytes, n, names, n > 8 ? ", ..." : "", roots, (unsigned long long)room,
				  (unsigned long long)(bytes - room));
	return 0;
}

const char pl_why_below_share[] = "below --min-share of the samples: not worth its copy and its veneers";

/* A unit below --min-share of the samples is not worth its copy at boot and the veneers back to
 * flash that its calls add (the cold fillers a knapsack would pack into left-over bytes). */
static void keep_below_min_share(ctx *c)
{
	double floor = c->opts->min_share * (double)c->total_samples;
	for (size_t u = 0; u < c->nunits; u++) {
		unit *un = &c->units[u];
		if (!un->kept_why && !un->must_why && un->samples && (double)un->samples < floor) {
			un->kept_why = pl_why_below_share;
			un->kept_func = un->root;
			c->out->nbelow_share++;
			c->out->below_share_samples += un->samples;
		}
	}
}

/* ESP-IDF ldgen's grammar: an object [A-Za-z_][A-Za-z0-9_-]*, a symbol without the dash. */
static int ldgen_ident(const char *s, size_t n, int dash)
{
	if (!n || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
		      s[i] == '_' || (dash && s[i] == '-')))
			return 0;
	return 1;
}

/* Why the plan's dialect cannot move input section s (NULL: it can). pico-sdk's link renames
 * sections of any object or archive member it is given. Zephyr and ESP-IDF move what their
 * build compiled: objects, or members CMake named NAME.c.obj in the libraries it made, never a
 * toolchain library's (libc.a's lib_a-memcpy.o); ESP-IDF's ldgen takes the components'
 * archives only, and names in its grammar. */
static const char *inexpressible(int dialect, const rp_map_insec *s)
{
	if (dialect == RP_DIALECT_GNU)
		return NULL;
	if (dialect == RP_DIALECT_PICO)   /* renamed in a copy of its object or archive member */
		return s->temporary ? "pico-sdk's link gets copies of its objects with the sections renamed, and this one is a "
				      "compiler temporary made inside the link (-flto, or a one-step compile-and-link)"
				    : NULL;
	if (s->member && !rp_str_ends_with(s->member, ".obj"))
		return dialect == RP_DIALECT_ZEPHYR
			       ? "Zephyr relocates by source file, and it is in a library the build did not compile (a toolchain library's)"
			       : "ESP-IDF's ldgen maps component archives, and it is in a library the build did not compile (a toolchain library's)";
	if (dialect == RP_DIALECT_ESPIDF && !s->member)
		return "ESP-IDF's ldgen maps component archives, and it is in an object linked directly";
	if (dialect == RP_DIALECT_ESPIDF) {
		const char *obj = s->member;
		int ok = ldgen_ident(obj, strcspn(obj, "."), 1) &&
			 (strcmp(s->name, ".text") == 0 ||
			  (strncmp(s->name, ".text.", 6) == 0 && ldgen_ident(s->name + 6, strlen(s->name + 6), 0)));
		if (!ok)
			return "ESP-IDF's ldgen has no entry for its object or section name (outside its grammar, or a compiler clone)";
	}
	return NULL;
}

/* Units the plan's dialect cannot express stay in flash with the reason, before solving, so that
 * their budget goes to units it can move. */
static void keep_inexpressible(ctx *c)
{
	if (c->opts->dialect == RP_DIALECT_GNU || !c->map)
		return;
	for (size_t u = 0; u < c->nunits; u++)
		for (size_t j = c->ufirst[u]; !c->units[u].kept_why && j < c->ufirst[u + 1]; j++) {
			size_t i = c->ufuncs[j], k = c->insec_of[i];
			const char *why = k == SIZE_MAX ? NULL : inexpressible(c->opts->dialect, &c->map->insecs[k]);
			if (why) {
				c->units[u].kept_why = why;
				c->units[u].kept_func = i;
			}
		}
}

int pl_apply_exclusions(ctx *c, rp_err *err)
{
	const rp_place_opts *o = c->opts;
	int rc = o->keep_boot_path ? keep_boot_path(c, err) : 0;
	keep_inexpressible(c);
	for (size_t u = 0; !rc && u < c->nunits; u++) {
		size_t fi;
		if (!c->units[u].kept_why && (fi = unit_matches(c, u, o->exclude, o->nexclude)) != SIZE_MAX) {
			c->units[u].kept_why = "excluded by --exclude";
			c->units[u].kept_func = fi;
		}
		if ((fi = unit_matches(c, u, o->pin, o->npin)) != SIZE_MAX)
			must(c, u, fi, "pinned");
	}
	if (!rc)
		rc = mark_closures(c, err);
	if (!rc)
		keep_below_min_share(c);
	for (size_t u = 0; !rc && u < c->nunits; u++) {
		const unit *un = &c->units[u];
		if (!un->kept_why || !un->samples)
			continue;
		if (un->kept_why == pl_why_below_share)
			continue;   /* summarised, like the unguessable ones */
		const rp_func *f = &c->img->funcs[un->kept_func];
		if (un->kept_why == pl_why_shared_text || un->kept_why == pl_why_no_debug) {
			rp_placement *out = c->out;   /* summarised: without a map they can be most of libc */
			if (un->samples > out->unguessed_top_samples) {
				out->unguessed_top = f->name;
				out->unguessed_top_samples = un->samples;
			}
			out->nunguessed++;
			out->unguessed_samples += un->samples;
		} else if (rp_strlist_pushf(&c->out->kept, &c->out->nkept, err, "%s: %s", f->name, un->kept_why)) {
			return err->code;
		}
	}
	return rc ? rc : check_musts(c, err);
}

const char pl_why_unmovable[] = "not in an input section of its own that the fragment can move";

/* Every function gets its unit's reason, so that a report can say why a sampled clone or alias
 * stays in flash as `place` says it for the unit (one "name: why" line about one of them). */
int pl_record_reasons(ctx *c, rp_err *err)
{
	rp_placement *out = c->out;
	if (!c->img->nfuncs)
		return 0;
	if (!(out->func_why = calloc(c->img->nfuncs, sizeof(char *))))
		return rp_err_nomem(err, "recording why functions stay in flash");
	out->nfunc_why = c->img->nfuncs;
	for (size_t u = 0; u < c->nunits; u++) {
		const unit *un = &c->units[u];
		const char *why = un->kept_why ? un->kept_why : !un->movable ? pl_why_unmovable : NULL;
		for (size_t j = c->ufirst[u]; why && j < c->ufirst[u + 1]; j++)
			out->func_why[c->ufuncs[j]] = why;
	}
	return 0;
}
