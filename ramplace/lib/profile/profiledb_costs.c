/* profiledb_costs.c: the flash-model costs of runs in profile.db (schema version 3, profiledb.h):
 * storing a run's fetch stall cycles by function and its data reads and their stall cycles by
 * data object, the conflict misses each function or object caused by evicting others' lines,
 * and reading them back summed over runs. Owns nothing between calls. Workload: a
 * run touches a few thousand code addresses and a few hundred data addresses; the ELF's
 * object symbols are sorted once per store. */
#include <elf.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/elfsyms.h"
#include "ramplace/profiledb.h"
#include "ramplace/util.h"
#include "profiledb_internal.h"

/* Data objects: STT_OBJECT symbols with a size, by address. */
typedef struct objects {
	rp_elfsyms syms;
	const rp_elfsym **by_addr;
	size_t n;
} objects;

static int by_value(const void *a, const void *b)
{
	const rp_elfsym *x = *(const rp_elfsym *const *)a, *y = *(const rp_elfsym *const *)b;
	return x->value < y->value ? -1 : x->value > y->value;
}

static int objects_load(objects *o, const rp_image *img, rp_err *err)
{
	memset(o, 0, sizeof(*o));
	if (rp_elfsyms_load(&o->syms, img, err))
		return err->code;
	o->by_addr = malloc((o->syms.nsyms ? o->syms.nsyms : 1) * sizeof(*o->by_addr));
	if (!o->by_addr)
		return rp_err_nomem(err, "reading data symbols");
	for (size_t i = 0; i < o->syms.nsyms; i++)
		if (o->syms.syms[i].type == STT_OBJECT && o->syms.syms[i].size && !o->syms.syms[i].absolute)
			o->by_addr[o->n++] = &o->syms.syms[i];
	rp_sort(o->by_addr, o->n, sizeof(*o->by_addr), by_value);
	return 0;
}

static void objects_release(objects *o)
{
	free(o->by_addr);
	rp_elfsyms_release(&o->syms);
}

/* The object covering addr (the last starting at or below it, if it reaches), or NULL. */
static const rp_elfsym *object_at(const objects *o, uint64_t addr)
{
	size_t lo = 0, hi = o->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (o->by_addr[mid]->value <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	const rp_elfsym *s = lo ? o->by_addr[lo - 1] : NULL;
	return s && addr - s->value < s->size ? s : NULL;
}

static int insert(rp_db *db, sqlite3_stmt *st, int64_t run_id, const char *kind, const char *object, const char *file,
		  uint64_t offset, uint64_t count, rp_err *err)
{
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, object, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, file, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)offset);
	sqlite3_bind_int64(st, 6, (sqlite3_int64)count);
	return sqlite3_step(st) == SQLITE_DONE ? 0 : rp_dbi_fail(db, err, "storing flash-model costs");
}

static int store_code(rp_db *db, sqlite3_stmt *st, const rp_image *img, int64_t run_id, const rp_samples *h, rp_err *err)
{
	for (size_t i = 0; i < h->pcs_cap; i++) {
		if (!h->pcs[i].count)
			continue;
		uint64_t pc = h->pcs[i].pc, addr = img->machine == EM_ARM ? pc & ~(uint64_t)1 : pc;
		const rp_func *f = rp_image_func_at(img, pc);
		if (insert(db, st, run_id, "fetch-stall", f ? f->name : "<unknown>", f && f->file ? f->file : "",
			   f ? addr - f->addr : addr, h->pcs[i].count, err))
			return err->code;
	}
	return 0;
}

/* Data reads by object. A read inside a function's code that no data object covers is a load
 * from the function's literal pool (ARM's ldr rX, [pc, #n]): with stall cycles (pool_kind
 * set), they are the function's, stored as "fetch-pool", since the pool moves to RAM with it;
 * on an RTOS they were 79.5 M of 80.1 M data stall cycles, filed under <unknown> before. */
static int store_data(rp_db *db, sqlite3_stmt *st, const objects *o, const rp_image *img, int64_t run_id,
		      const char *kind, const char *pool_kind, const rp_samples *h, rp_err *err)
{
	for (size_t i = 0; i < h->pcs_cap; i++) {
		if (!h->pcs[i].count)
			continue;
		uint64_t addr = h->pcs[i].pc;
		const rp_elfsym *s = object_at(o, addr);
		const rp_func *f = !s && pool_kind ? rp_image_func_at(img, addr) : NULL;
		int rc = f ? insert(db, st, run_id, pool_kind, f->name, f->file ? f->file : "", addr - f->addr, h->pcs[i].count, err)
			   : insert(db, st, run_id, kind, s ? s->name : "<unknown>", "", s ? addr - s->value : addr,
				    h->pcs[i].count, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* What an access at addr belongs to: a function (fetches) or a data object (reads). */
static const void *owner(const objects *o, const rp_image *img, uint64_t addr, int data)
{
	return data ? (const void *)object_at(o, addr) : (const void *)rp_image_func_at(img, addr);
}

/* One side of an eviction record: the stall cycles under kind ("fetch-evicted" ...) by the
 * function or data object that access belongs to and its offset there. */
static int store_side(rp_db *db, sqlite3_stmt *st, const rp_image *img, int64_t run_id, const char *kind, const void *who,
		      uint64_t addr, int data, uint64_t stall, rp_err *err)
{
	const char *name = "<unknown>", *file = "";
	uint64_t off = addr;
	if (who && data) {
		name = ((const rp_elfsym *)who)->name;
		off = addr - ((const rp_elfsym *)who)->value;
	} else if (who) {
		const rp_func *f = who;
		name = f->name;
		file = f->file ? f->file : "";
		off = (img->machine == EM_ARM ? addr & ~(uint64_t)1 : addr) - f->addr;
	}
	return insert(db, st, run_id, kind, name, file, off, stall, err);
}

/* The eviction records: each (evictor, victim) pair's stall cycles are stored for the evictor
 * ("fetch-evicted", "data-evicted": misses it caused) and for the victim ("fetch-victim",
 * "data-victim": its misses that another caused), except where both are the same function or
 * object: moving it saves those misses once, and its own stall cycles count them. */
static int store_evict(rp_db *db, sqlite3_stmt *st, const objects *o, const rp_image *img, int64_t run_id,
		       const rp_costs *c, rp_err *err)
{
	for (size_t i = 0; i < c->nevict; i++) {
		const rp_evict *e = &c->evict[i];
		const void *by = owner(o, img, e->by, e->by_data), *victim = owner(o, img, e->victim, e->victim_data);
		if (by && by == victim && e->by_data == e->victim_data)
			continue;
		if (store_side(db, st, img, run_id, e->by_data ? "data-evicted" : "fetch-evicted", by, e->by, e->by_data,
			       e->stall, err) ||
		    store_side(db, st, img, run_id, e->victim_data ? "data-victim" : "fetch-victim", victim, e->victim,
			       e->victim_data, e->stall, err))
			return err->code;
	}
	return 0;
}

/* Each measured handler entry under its function: invocations, the window sum and the returned
 * invocations add up over a run's files, the worsts and the window are the largest (worst_st's
 * ON CONFLICT takes MAX). */
static int store_entries(rp_db *db, sqlite3_stmt *st, sqlite3_stmt *worst_st, const rp_image *img, int64_t run_id,
			 const rp_costs *c, rp_err *err)
{
	for (size_t i = 0; i < c->nentries; i++) {
		const rp_entry_stall *e = &c->entries[i];
		const rp_func *f = rp_image_func_at(img, e->addr);
		const char *name = f ? f->name : "<unknown>", *file = f && f->file ? f->file : "";
		uint64_t off = f ? e->addr - f->addr : e->addr;   /* the plugin cleared a Thumb bit 0 */
		if (insert(db, st, run_id, "entry-invocations", name, file, off, e->invocations, err) ||
		    insert(db, st, run_id, "entry-sum", name, file, off, e->sum, err) ||
		    insert(db, worst_st, run_id, "entry-worst", name, file, off, e->worst, err) ||
		    insert(db, worst_st, run_id, "entry-window", name, file, off, e->window, err) ||
		    insert(db, st, run_id, "entry-returned", name, file, off, e->returned, err) ||
		    insert(db, worst_st, run_id, "entry-invocation-worst", name, file, off, e->inv_worst, err))
			return err->code;
	}
	return 0;
}

int rp_db_store_costs(rp_db *db, const rp_image *img, int64_t run_id, const rp_costs *c, rp_err *err)
{
	if (!rp_costs_have(c))
		return 0;
	sqlite3_stmt *run = NULL, *st = NULL, *worst_st = NULL;
	objects o;
	int rc = objects_load(&o, img, err);
	if (!rc && (sqlite3_prepare_v2(db->sql, "INSERT INTO cost_runs(run_id, model, misses) VALUES(?1, ?2, ?3)", -1, &run,
				       NULL) != SQLITE_OK ||
		    sqlite3_prepare_v2(db->sql, "INSERT INTO costs(run_id, kind, object, file, offset, count) VALUES(?1, ?2, ?3, ?4, ?5, ?6)"
				       /* summed over a run's files, saturating: an int64 past its end would
					  become a REAL */
				       " ON CONFLICT DO UPDATE SET count = CASE WHEN excluded.count > 9223372036854775807 - count"
				       " THEN 9223372036854775807 ELSE count + excluded.count END", -1, &st, NULL) != SQLITE_OK ||
		    sqlite3_prepare_v2(db->sql, "INSERT INTO costs(run_id, kind, object, file, offset, count) VALUES(?1, ?2, ?3, ?4, ?5, ?6)"
				       " ON CONFLICT DO UPDATE SET count = MAX(count, excluded.count)", -1, &worst_st, NULL) != SQLITE_OK))
		rc = rp_dbi_fail(db, err, "storing flash-model costs");
	if (!rc) {
		sqlite3_bind_int64(run, 1, run_id);
		sqlite3_bind_text(run, 2, c->model, -1, SQLITE_STATIC);
		sqlite3_bind_int64(run, 3, (sqlite3_int64)c->misses);
		if (sqlite3_step(run) != SQLITE_DONE)
			rc = rp_dbi_fail(db, err, "storing flash-model costs");
	}
	if (!rc && !(rc = store_code(db, st, img, run_id, &c->fetch_stall, err)) &&
	    !(rc = store_data(db, st, &o, img, run_id, "data-reads", NULL, &c->data_reads, err)))
		rc = store_data(db, st, &o, img, run_id, "data-stall", "fetch-pool", &c->data_stall, err);
	if (!rc)
		rc = store_evict(db, st, &o, img, run_id, c, err);
	if (!rc)
		rc = store_entries(db, st, worst_st, img, run_id, c, err);
	sqlite3_finalize(run);
	sqlite3_finalize(st);
	sqlite3_finalize(worst_st);
	objects_release(&o);
	return rc;
}

static int by_stall(const void *a, const void *b)
{
	const rp_cost_total *x = a, *y = b;
	if (x->stall != y->stall)
		return x->stall > y->stall ? -1 : 1;
	if (x->reads != y->reads)
		return x->reads > y->reads ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The row of name in list (find), or a new one appended. A function's kinds (stall cycles,
 * evicted) arrive one after the other (ordered by the SQL): only the last row is compared; a
 * data object arrives up to three times in any order and is searched: linear, for the few
 * hundred objects a firmware reads from flash. */
static rp_cost_total *row(rp_cost_total **list, size_t *n, size_t *cap, const char *name, const char *file, int find,
			  rp_err *err)
{
	for (size_t i = find ? 0 : *n ? *n - 1 : 0; i < *n; i++)
		if (strcmp((*list)[i].name, name) == 0 && strcmp((*list)[i].file ? (*list)[i].file : "", file) == 0)
			return &(*list)[i];
	if (rp_grow((void **)list, cap, *n + 1, sizeof(rp_cost_total), err))
		return NULL;
	rp_cost_total *r = &(*list)[(*n)++];
	memset(r, 0, sizeof(*r));
	if (rp_strdup(&r->name, name, err) || (*file && rp_strdup(&r->file, file, err)))
		return NULL;
	return r;
}

static int load_rows(rp_db *db, int64_t run, rp_db_costs *out, rp_err *err)
{
	sqlite3_stmt *st;
	size_t fcap = 0, dcap = 0;
	if (sqlite3_prepare_v2(db->sql, "SELECT kind, object, file, SUM(count) FROM costs WHERE (?1 = 0 OR run_id = ?1)"
				       " AND kind NOT LIKE 'entry-%'"
				       " GROUP BY kind, object, file ORDER BY kind LIKE 'fetch-%' DESC, object, file, kind",
			       -1, &st, NULL) != SQLITE_OK)
		return rp_dbi_fail(db, err, "reading flash-model costs");
	sqlite3_bind_int64(st, 1, run);
	int rc = 0, step;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *kind = (const char *)sqlite3_column_text(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 1), *file = (const char *)sqlite3_column_text(st, 2);
		uint64_t v = (uint64_t)sqlite3_column_int64(st, 3);
		int code = kind && strncmp(kind, "fetch-", 6) == 0, reads = kind && strcmp(kind, "data-reads") == 0;
		int evicted = kind && (strcmp(kind, "fetch-evicted") == 0 || strcmp(kind, "data-evicted") == 0);
		int victim = kind && (strcmp(kind, "fetch-victim") == 0 || strcmp(kind, "data-victim") == 0);
		rp_cost_total *r = code ? row(&out->funcs, &out->nfuncs, &fcap, name ? name : "", file ? file : "", 0, err)
					: row(&out->data, &out->ndata, &dcap, name ? name : "", "", 1, err);
		if (!r)
			rc = err->code;
		else if (reads)
			r->reads += v;
		else if (evicted)
			r->evicted += v;
		else if (victim)
			r->victim += v;
		else
			r->stall += v;
	}
	if (!rc && step != SQLITE_DONE)
		rc = rp_dbi_fail(db, err, "reading flash-model costs");
	sqlite3_finalize(st);
	return rc;
}

static int load_runs(rp_db *db, int64_t run, rp_db_costs *out, rp_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->sql, "SELECT c.model, c.misses, r.samples, r.scale FROM cost_runs c JOIN runs r ON r.id = c.run_id"
				       " WHERE ?1 = 0 OR c.run_id = ?1", -1, &st, NULL) != SQLITE_OK)
		return rp_dbi_fail(db, err, "reading flash-model costs");
	sqlite3_bind_int64(st, 1, run);
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *model = (const char *)sqlite3_column_text(st, 0);
		if (!out->nruns++)
			snprintf(out->model, sizeof(out->model), "%s", model ? model : "");
		else if (!model || strcmp(out->model, model) != 0)
			snprintf(out->model, sizeof(out->model), "mixed");
		out->misses += (uint64_t)sqlite3_column_int64(st, 1);
		out->insns += (uint64_t)sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	return step == SQLITE_DONE ? 0 : rp_dbi_fail(db, err, "reading flash-model costs");
}

/* The handler entries: each (function, file, offset)'s kinds arrive together: sums of the counts
 * for the invocations, the window sums and the returned invocations, the largest for the worsts
 * and the window. */
static int load_entries(rp_db *db, int64_t run, rp_db_costs *out, rp_err *err)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	if (sqlite3_prepare_v2(db->sql, "SELECT object, file, offset, kind, SUM(count), MAX(count) FROM costs"
				       " WHERE (?1 = 0 OR run_id = ?1) AND kind LIKE 'entry-%'"
				       " GROUP BY object, file, offset, kind ORDER BY object, file, offset, kind",
			       -1, &st, NULL) != SQLITE_OK)
		return rp_dbi_fail(db, err, "reading handler entry stalls");
	sqlite3_bind_int64(st, 1, run);
	int rc = 0, step;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0), *file = (const char *)sqlite3_column_text(st, 1);
		uint64_t off = (uint64_t)sqlite3_column_int64(st, 2);
		const char *kind = (const char *)sqlite3_column_text(st, 3);
		uint64_t sum = (uint64_t)sqlite3_column_int64(st, 4), max = (uint64_t)sqlite3_column_int64(st, 5);
		rp_entry_total *e = out->nentries ? &out->entries[out->nentries - 1] : NULL;
		if (!e || strcmp(e->name, name ? name : "") != 0 || strcmp(e->file ? e->file : "", file ? file : "") != 0 ||
		    e->offset != off) {
			if (rp_grow((void **)&out->entries, &cap, out->nentries + 1, sizeof(rp_entry_total), err)) {
				rc = err->code;
				break;
			}
			e = &out->entries[out->nentries++];
			memset(e, 0, sizeof(*e));
			e->offset = off;
			if ((rc = rp_strdup(&e->name, name ? name : "", err)) || (file && *file && (rc = rp_strdup(&e->file, file, err))))
				break;
		}
		if (!kind)
			continue;
		if (strcmp(kind, "entry-invocations") == 0)
			e->invocations = sum;
		else if (strcmp(kind, "entry-sum") == 0)
			e->sum = sum;
		else if (strcmp(kind, "entry-worst") == 0)
			e->worst = max;
		else if (strcmp(kind, "entry-returned") == 0)
			e->returned = sum;
		else if (strcmp(kind, "entry-invocation-worst") == 0)
			e->inv_worst = max;
		else if (strcmp(kind, "entry-window") == 0)
			e->window = max > 1000000 ? 1000000 : (unsigned)max;
	}
	if (!rc && step != SQLITE_DONE)
		rc = rp_dbi_fail(db, err, "reading handler entry stalls");
	sqlite3_finalize(st);
	return rc;
}

int rp_db_costs_load(rp_db *db, rp_db_costs *out, rp_err *err)
{
	return rp_db_costs_load_run(db, 0, out, err);
}

int rp_db_costs_load_run(rp_db *db, int64_t run, rp_db_costs *out, rp_err *err)
{
	memset(out, 0, sizeof(*out));
	int rc = load_runs(db, run, out, err);
	if (!rc && out->nruns)
		rc = load_rows(db, run, out, err);
	if (!rc && out->nruns)
		rc = load_entries(db, run, out, err);
	if (rc) {
		rp_db_costs_release(out);
		return rc;
	}
	for (size_t i = 0; i < out->nfuncs; i++) {
		out->fetch_stall += out->funcs[i].stall;
		out->evicted += out->funcs[i].evicted;
	}
	for (size_t i = 0; i < out->ndata; i++) {
		out->read_stall += out->data[i].stall;
		out->evicted += out->data[i].evicted;
	}
	rp_sort(out->funcs, out->nfuncs, sizeof(rp_cost_total), by_stall);
	rp_sort(out->data, out->ndata, sizeof(rp_cost_total), by_stall);
	return 0;
}

void rp_db_costs_release(rp_db_costs *c)
{
	for (size_t i = 0; i < c->nfuncs; i++) {
		free(c->funcs[i].name);
		free(c->funcs[i].file);
	}
	for (size_t i = 0; i < c->ndata; i++) {
		free(c->data[i].name);
		free(c->data[i].file);
	}
	for (size_t i = 0; i < c->nentries; i++) {
		free(c->entries[i].name);
		free(c->entries[i].file);
	}
	free(c->funcs);
	free(c->data);
	free(c->entries);
	memset(c, 0, sizeof(*c));
}
