/* check_handlers.c: interrupt handlers kept off flash (check.h: rp_check_handlers). On the
 * relinked ELF, from each named handler through every direct call and tail branch (veneers seen
 * through to their targets), the first function that runs from flash is reported with the path
 * to it: a handler that misses the XIP cache waits on flash however hot it is. Owns the call
 * graph and the walk's marks for one call. Workload: a few handlers over an ELF of up to a few
 * thousand functions; a breadth-first walk per handler gives the shortest path. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/boot.h"
#include "ramplace/callgraph.h"
#include "ramplace/check.h"
#include "ramplace/util.h"

/* "H -> a -> b" from via[] (the function each was reached from; SIZE_MAX at the root). */
static void path_to(const rp_image *img, const size_t *via, size_t f, char *buf, size_t cap)
{
	size_t chain[64], n = 0;
	for (size_t k = f; k != SIZE_MAX && n < 64; k = via[k])
		chain[n++] = k;
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = n; i-- > 0 && len < cap;) {
		int w = snprintf(buf + len, cap - len, "%s%s", i + 1 < n ? " -> " : "", img->funcs[chain[i]].name);
		len += w > 0 ? (size_t)w : 0;
	}
}

/* Breadth-first over root's whole reach (seen[]); the first function in flash (the nearest),
 * or SIZE_MAX when none is. */
static size_t first_in_flash(const rp_callgraph *cg, const rp_image *img, size_t root, const char *const *outsecs,
			     size_t n, size_t *via, size_t *queue, unsigned char *seen)
{
	memset(seen, 0, img->nfuncs);
	size_t head = 0, tail = 0, bad = SIZE_MAX;
	queue[tail++] = root;
	seen[root] = 1;
	via[root] = SIZE_MAX;
	while (head < tail) {
		size_t f = queue[head++];
		if (bad == SIZE_MAX && !rp_check_runs_from_ram(img, &img->funcs[f], outsecs, n))
			bad = f;
		for (size_t e = cg->first[f]; e < cg->first[f + 1]; e++) {
			size_t t = cg->edges[e].to;
			if (!seen[t]) {
				seen[t] = 1;
				via[t] = f;
				queue[tail++] = t;
			}
		}
	}
	return bad;
}

int rp_check_handlers(const rp_image *relinked, const rp_plan_func *handlers, size_t nhandlers,
		      const char *const *outsecs, size_t noutsecs, rp_check_result *res, size_t *nreached, rp_err *err)
{
	*nreached = 0;
	if (!nhandlers)
		return 0;
	rp_callgraph *cg = NULL;
	int rc = rp_callgraph_build(&cg, relinked, err);
	size_t nf = relinked->nfuncs ? relinked->nfuncs : 1;
	size_t *via = rc ? NULL : malloc(nf * sizeof(size_t)), *queue = rc ? NULL : malloc(nf * sizeof(size_t));
	unsigned char *seen = rc ? NULL : calloc(nf, 1), *all = rc ? NULL : calloc(nf, 1);
	if (!rc && (!via || !queue || !seen || !all))
		rc = rp_err_nomem(err, "checking the interrupt handlers");
	for (size_t h = 0; !rc && h < nhandlers; h++) {
		const rp_func *f = rp_image_func_by_name(relinked, handlers[h].name, handlers[h].file);
		if (!f) {
			rc = rp_check_add_failure(res, err, "interrupt handler '%s' is not in the relinked ELF", handlers[h].name);
			continue;
		}
		size_t bad = first_in_flash(cg, relinked, (size_t)(f - relinked->funcs), outsecs, noutsecs, via, queue, seen);
		for (size_t i = 0; i < relinked->nfuncs; i++)
			all[i] |= seen[i];
		if (bad == SIZE_MAX)
			continue;
		char path[768];
		path_to(relinked, via, bad, path, sizeof(path));
		rc = rp_check_add_failure(res, err, "interrupt handler '%s' reaches flash: %s ('%s' at 0x%llx runs from flash)",
					  handlers[h].name, path, relinked->funcs[bad].name,
					  (unsigned long long)relinked->funcs[bad].addr);
	}
	for (size_t i = 0; !rc && all && i < relinked->nfuncs; i++)
		*nreached += all[i];
	free(via);
	free(queue);
	free(seen);
	free(all);
	rp_callgraph_free(cg);
	return rc;
}

/* Appends f as a handler unless it is one already. */
static int push_handler(const rp_func *f, rp_plan_func **out, size_t *n, size_t *cap, rp_err *err)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*out)[i].name, f->name) == 0 && !(*out)[i].file == !f->file &&
		    (!f->file || strcmp((*out)[i].file, f->file) == 0))
			return 0;
	if (rp_grow((void **)out, cap, *n + 1, sizeof(**out), err))
		return err->code;
	(*out)[(*n)++] = (rp_plan_func){ f->name, f->file };
	return 0;
}

int rp_check_find_handlers(const rp_image *img, const char *const *globs, size_t nglobs, int all, rp_plan_func **out,
			   size_t *nout, rp_err *err)
{
	size_t cap = *nout;
	int rc = 0;
	for (size_t k = 0; !rc && k < nglobs; k++) {
		size_t matched = 0;   /* a match already in the list (the plan's own handler) counts */
		for (size_t i = 0; !rc && i < img->nfuncs; i++)
			if (fnmatch(globs[k], img->funcs[i].name, 0) == 0) {
				matched++;
				rc = push_handler(&img->funcs[i], out, nout, &cap, err);
			}
		if (!rc && !matched)
			rc = rp_err_set(err, RP_EUSAGE, "--ram-handler: no function in %s matches '%s'", img->path, globs[k]);
	}
	size_t *vec = NULL, nvec = 0;
	if (!rc && all)
		rc = rp_boot_vector_handlers(img, &vec, &nvec, err);
	for (size_t k = 0; !rc && k < nvec; k++)
		rc = push_handler(&img->funcs[vec[k]], out, nout, &cap, err);
	free(vec);
	return rc;
}
