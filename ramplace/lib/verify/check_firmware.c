/* check_firmware.c: `ramplace check` as a library call (check_firmware.h). Owns the list of
 * plan files (the given ones and the data plans they name), the plans read, the relinked
 * image, and the handler list (the plans' own handlers, then those the options name). The
 * checks themselves are check.c (one plan) and check_handlers.c (reset path, handlers).
 * Workload: one relinked ELF and a few plans per call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/check_firmware.h"
#include "ramplace/util.h"

typedef struct run {
	const rp_check_opts *o;
	rp_check_report *out;
	char **paths;                /* every plan file to check (owned) */
	size_t npaths;
	rp_plan_func *handlers;      /* the plans' handlers (owned strings), then the options' */
	size_t nhandlers, nplan_handlers;
	size_t nloader_loaded;       /* plans whose RAM a bootloader fills (ESP-IDF) */
	const char **outsecs;        /* per plan checked: its output section (owned) */
	int plan_allows_boot_path;
} run;

static int add_path(run *r, const char *path, rp_err *err)
{
	for (size_t i = 0; i < r->npaths; i++)
		if (strcmp(r->paths[i], path) == 0)
			return 0;
	char **bigger = realloc(r->paths, (r->npaths + 1) * sizeof(char *));
	if (!bigger)
		return rp_err_nomem(err, "checking");
	r->paths = bigger;
	return rp_strdup(&r->paths[r->npaths++], path, err);
}

/* The data plans the code plans name ("data-plan", written by place --data), resolved beside
 * each code plan and added once, so `check fw.elf` verifies .ramdata too. A code plan that does
 * not read fails here as it would when checked. */
static int add_data_plans(run *r, rp_err *err)
{
	size_t ngiven = r->npaths;
	int rc = 0;
	for (size_t i = 0; !rc && i < ngiven; i++) {
		rp_plan *plan = NULL;
		if ((rc = rp_plan_read(&plan, r->paths[i], err)))
			break;
		if (plan->data_plan) {
			const char *slash = strrchr(r->paths[i], '/');
			int dirlen = slash ? (int)(slash - r->paths[i] + 1) : 0;
			char path[4096];
			if (snprintf(path, sizeof(path), "%.*s%s", dirlen, r->paths[i], plan->data_plan) >= (int)sizeof(path))
				rc = rp_err_set(err, RP_EINPUT, "%s: data-plan path too long", r->paths[i]);
			else
				rc = add_path(r, path, err);
		}
		rp_plan_free(plan);
	}
	return rc;
}

/* Keeps a copy of the plan's interrupt handlers for the proof after every plan is checked. */
static int keep_plan_handlers(run *r, const rp_plan *plan, rp_err *err)
{
	if (!plan->nhandlers)
		return 0;
	rp_plan_func *bigger = realloc(r->handlers, (r->nhandlers + plan->nhandlers) * sizeof(*bigger));
	if (!bigger)
		return rp_err_nomem(err, "checking");
	r->handlers = bigger;
	for (size_t i = 0; i < plan->nhandlers; i++) {
		rp_plan_func *h = &r->handlers[r->nhandlers];
		*h = (rp_plan_func){ NULL, NULL };
		r->nhandlers++;
		r->nplan_handlers++;
		if (rp_strdup(&h->name, plan->handlers[i].name, err) || rp_strdup(&h->file, plan->handlers[i].file, err))
			return err->code;
	}
	return 0;
}

static int check_plan(run *r, size_t i, rp_err *err)
{
	rp_check_report *out = r->out;
	rp_check_plan_report *p = &out->plans[out->nplans];
	memset(p, 0, sizeof(*p));
	int rc = rp_strdup(&p->path, r->paths[i], err);
	if (!rc)
		rc = rp_plan_read(&p->plan, r->paths[i], err);
	if (rc) {
		free(p->path);
		rp_plan_free(p->plan);
		return rc;
	}
	out->nplans++;   /* from here on the report owns it */
	const rp_plan *plan = p->plan;
	if (plan->allow_boot_path)
		r->plan_allows_boot_path = 1;
	/* everything passes trivially on an empty plan: in CI that is a loop that did nothing; a
	 * data plan may move nothing: the code plan beside it shows the loop did something */
	p->empty_fails = plan->nunits == 0 && !r->o->allow_empty && !plan->is_data;
	out->failures += (size_t)p->empty_fails;
	if ((rc = keep_plan_handlers(r, plan, err)))
		return rc;
	if (rp_dialect_info_of(rp_plan_dialect(plan))->loader_fills_ram)
		r->nloader_loaded++;
	if ((rc = rp_check_run(out->img, plan, &p->res, err)))
		return rc;
	p->checked = 1;
	out->failures += p->res.nfailures;
	if (plan->outsec && !(r->outsecs[i] = strdup(plan->outsec)))
		return rp_err_nomem(err, "checking");
	return 0;
}

static int check_reset_path(run *r, rp_err *err)
{
	rp_check_report *out = r->out;
	out->boot_allowed_by_option = r->o->allow_boot_path;
	out->boot_allowed = r->o->allow_boot_path || r->plan_allows_boot_path;
	if (out->nplans && r->nloader_loaded == out->nplans) {
		out->reset_loader = 1;
		return 0;
	}
	int rc = rp_check_reset_path(out->img, r->outsecs, out->nplans, &out->reset, &out->nreset, err);
	out->reset_checked = !rc;
	if (!rc && !out->boot_allowed)   /* allowed: the user vouched for the boot path */
		out->failures += out->reset.nfailures;
	return rc;
}

/* Interrupt handlers kept off flash: the plans' own and the options' (found in the relinked
 * ELF), each walked to the first function in flash. */
static int check_handlers(run *r, rp_err *err)
{
	rp_check_report *out = r->out;
	int rc = rp_check_find_handlers(out->img, r->o->handler_globs, r->o->nhandler_globs, r->o->all_handlers,
					&r->handlers, &r->nhandlers, err);
	if (rc || !r->nhandlers)
		return rc;
	out->nhandlers = r->nhandlers;
	rc = rp_check_handlers(out->img, r->handlers, r->nhandlers, r->outsecs, out->nplans, &out->handlers,
			       &out->nreached, err);
	out->handlers_checked = !rc;
	if (!rc)
		out->failures += out->handlers.nfailures;
	return rc;
}

static int check_all(run *r, rp_err *err)
{
	int rc = 0;
	for (size_t i = 0; !rc && i < r->o->nplans; i++)
		rc = add_path(r, r->o->plans[i], err);
	if (!rc)
		rc = add_data_plans(r, err);
	if (!rc) {
		r->out->plans = calloc(r->npaths ? r->npaths : 1, sizeof(rp_check_plan_report));
		r->outsecs = calloc(r->npaths ? r->npaths : 1, sizeof(char *));
		if (!r->out->plans || !r->outsecs)
			rc = rp_err_nomem(err, "checking");
	}
	if (!rc)
		rc = rp_image_load(&r->out->img, r->o->elf_path, err);
	for (size_t i = 0; !rc && i < r->npaths; i++)
		rc = check_plan(r, i, err);
	if (!rc)
		rc = check_reset_path(r, err);
	if (!rc)
		rc = check_handlers(r, err);
	return rc;
}

int rp_check_firmware(const rp_check_opts *opts, rp_check_report *out, rp_err *err)
{
	memset(out, 0, sizeof(*out));
	run r = { .o = opts, .out = out };
	int rc = check_all(&r, err);
	for (size_t i = 0; i < r.npaths; i++) {
		free(r.paths[i]);
		if (r.outsecs)
			free((char *)r.outsecs[i]);
	}
	free(r.paths);
	free(r.outsecs);
	for (size_t i = 0; i < r.nplan_handlers; i++) {   /* the options' names are the image's */
		free(r.handlers[i].name);
		free(r.handlers[i].file);
	}
	free(r.handlers);
	return rc;
}

void rp_check_report_release(rp_check_report *r)
{
	for (size_t i = 0; i < r->nplans; i++) {
		free(r->plans[i].path);
		rp_plan_free(r->plans[i].plan);
		rp_check_result_release(&r->plans[i].res);
	}
	free(r->plans);
	rp_check_result_release(&r->reset);
	rp_check_result_release(&r->handlers);
	rp_image_free(r->img);
	memset(r, 0, sizeof(*r));
}
