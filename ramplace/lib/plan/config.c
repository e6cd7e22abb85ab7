/* config.c: ramplace.yaml reader (see config.h). libyaml builds the document tree (with line
 * and column marks on every node); this file walks it against the schema and owns the
 * resulting rp_config. The file is hostile input: every refusal names file:line:column, and
 * nothing but a complete, consistent config is returned. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "ramplace/config.h"
#include "ramplace/flashmap.h"
#include "ramplace/util.h"

typedef struct parse {
	yaml_document_t *doc;
	const char *name;
	rp_config *cfg;
	rp_err *err;
} parse;

static int fail(parse *p, const yaml_node_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(parse *p, const yaml_node_t *n, const char *fmt, ...)
{
	char what[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return rp_err_set(p->err, RP_EINPUT, "%s:%zu:%zu: %s", p->name, n ? n->start_mark.line + 1 : 1,
			  n ? n->start_mark.column + 1 : 1, what);
}

static const char *kind_name(const yaml_node_t *n)
{
	return n->type == YAML_SCALAR_NODE ? "a scalar" : n->type == YAML_SEQUENCE_NODE ? "a list" : "a mapping";
}

static const char *scalar(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

static int want_scalar(parse *p, const yaml_node_t *n, const char *key)
{
	if (n->type != YAML_SCALAR_NODE)
		return fail(p, n, "'%s' must be a single value, not %s", key, kind_name(n));
	if (strlen(scalar(n)) != n->data.scalar.length)
		return fail(p, n, "'%s' holds a NUL byte", key);
	return 0;
}

static int get_string(parse *p, const yaml_node_t *n, const char *key, char **out)
{
	if (want_scalar(p, n, key))
		return p->err->code;
	if (!*scalar(n))
		return fail(p, n, "'%s' is empty", key);
	free(*out);
	*out = NULL;
	return rp_strdup(out, scalar(n), p->err);
}

static int get_size(parse *p, const yaml_node_t *n, const char *key, uint64_t *out)
{
	if (want_scalar(p, n, key))
		return p->err->code;
	rp_err e = RP_ERR_INIT;
	if (rp_parse_size(out, scalar(n), key, &e))
		return fail(p, n, "%s", e.msg);
	return 0;
}

static int get_number(parse *p, const yaml_node_t *n, const char *key, double lo, double hi, double *out)
{
	if (want_scalar(p, n, key))
		return p->err->code;
	char *end;
	const char *s = scalar(n);
	double v = strtod(s, &end);
	if (!*s || *end || !isfinite(v) || v < lo || v > hi)
		return fail(p, n, "'%s' must be a number from %g to %g, not '%s'", key, lo, hi, s);
	*out = v;
	return 0;
}

/* A list of names or globs (a single scalar is a list of one). */
static int get_names(parse *p, const yaml_node_t *n, const char *key, char ***out, size_t *count)
{
	if (*count)
		return fail(p, n, "'%s' given twice", key);
	const yaml_node_item_t *items = NULL;
	size_t nitems = 1;
	if (n->type == YAML_SEQUENCE_NODE) {
		items = n->data.sequence.items.start;
		nitems = (size_t)(n->data.sequence.items.top - items);
	} else if (n->type != YAML_SCALAR_NODE) {
		return fail(p, n, "'%s' must be a list of function names or globs", key);
	}
	*out = calloc(nitems ? nitems : 1, sizeof(char *));
	if (!*out)
		return rp_err_nomem(p->err, "reading the config");
	for (size_t i = 0; i < nitems; i++) {
		const yaml_node_t *item = items ? yaml_document_get_node(p->doc, items[i]) : n;
		if (!item || get_string(p, item, key, &(*out)[i]))
			return item ? p->err->code : fail(p, n, "'%s': broken list", key);
		(*count)++;
	}
	return 0;
}

typedef int (*field_fn)(parse *p, const yaml_node_t *key, const yaml_node_t *val, void *obj);

/* Walks a mapping: every key must be one of `keys` (comma separated, for messages) and appear
 * once; fn handles each. */
static int walk_mapping(parse *p, const yaml_node_t *n, const char *what, const char *const *keys,
			field_fn fn, void *obj)
{
	if (n->type != YAML_MAPPING_NODE)
		return fail(p, n, "%s must be a mapping of keys to values, not %s", what, kind_name(n));
	unsigned seen = 0;
	for (yaml_node_pair_t *pair = n->data.mapping.pairs.start; pair < n->data.mapping.pairs.top; pair++) {
		const yaml_node_t *k = yaml_document_get_node(p->doc, pair->key);
		const yaml_node_t *v = yaml_document_get_node(p->doc, pair->value);
		if (!k || !v || k->type != YAML_SCALAR_NODE)
			return fail(p, k ? k : n, "%s: keys must be plain names", what);
		size_t i = 0;
		while (keys[i] && strcmp(keys[i], scalar(k)) != 0)
			i++;
		if (!keys[i]) {
			char list[256] = "";
			for (size_t j = 0; keys[j]; j++)
				snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", j ? ", " : "", keys[j]);
			return fail(p, k, "unknown key '%s' in %s (expected one of: %s)", scalar(k), what, list);
		}
		if (seen & (1u << i))
			return fail(p, k, "'%s' given twice in %s", scalar(k), what);
		seen |= 1u << i;
		if (fn(p, k, v, obj))
			return p->err->code;
	}
	return 0;
}

void rp_region_cfg_defaults(rp_region_cfg *r)
{
	memset(r, 0, sizeof(*r));
	r->align = 4;
	r->speed = 1.0;
}

static const char *const region_keys[] = { "name", "memory", "budget", "reserve", "align", "output-section",
					   "fragment", "speed", NULL };

static int region_field(parse *p, const yaml_node_t *k, const yaml_node_t *v, void *obj)
{
	rp_region_cfg *r = obj;
	const char *key = scalar(k);
	if (strcmp(key, "name") == 0)
		return get_string(p, v, key, &r->name);
	if (strcmp(key, "memory") == 0)
		return get_string(p, v, key, &r->memory);
	if (strcmp(key, "output-section") == 0)
		return get_string(p, v, key, &r->outsec);
	if (strcmp(key, "fragment") == 0)
		return get_string(p, v, key, &r->fragment);
	if (strcmp(key, "speed") == 0)
		return get_number(p, v, key, 1e-3, 1.0, &r->speed);
	if (strcmp(key, "reserve") == 0)
		return get_size(p, v, key, &r->reserve);
	if (strcmp(key, "budget") == 0) {
		if (want_scalar(p, v, key))
			return p->err->code;
		if (strcmp(scalar(v), "auto") == 0) {
			r->budget_auto = 1;
			return 0;
		}
		if (get_size(p, v, key, &r->budget))
			return p->err->code;
		return r->budget ? 0 : fail(p, v, "'budget' of 0 bytes leaves no room to move anything");
	}
	/* align: the same limits as --align and the plan reader */
	rp_err e = RP_ERR_INIT;
	if (get_size(p, v, key, &r->align))
		return p->err->code;
	return rp_check_align(r->align, "'align'", &e) ? fail(p, v, "%s", e.msg) : 0;
}

static int check_region(parse *p, const yaml_node_t *n, const rp_region_cfg *r, size_t index)
{
	if (!r->name)
		return fail(p, n, "region %zu has no 'name'", index + 1);
	if (!r->budget && !r->budget_auto)
		return fail(p, n, "region '%s' has no 'budget' (a size such as 96K, or auto)", r->name);
	if (r->reserve && !r->budget_auto)
		return fail(p, n, "region '%s': 'reserve' only applies to 'budget: auto'", r->name);
	for (size_t j = 0; j < index; j++) {
		const rp_region_cfg *o = &p->cfg->regions[j];
		if (strcmp(o->name, r->name) == 0)
			return fail(p, n, "region name '%s' is used twice", r->name);
		if (strcmp(o->outsec, r->outsec) == 0)
			return fail(p, n, "regions '%s' and '%s' both use output section '%s'", o->name, r->name, r->outsec);
		if (o->fragment && r->fragment && strcmp(o->fragment, r->fragment) == 0)
			return fail(p, n, "regions '%s' and '%s' both write fragment '%s'", o->name, r->name, r->fragment);
		if (o->memory && r->memory && strcmp(o->memory, r->memory) == 0 && (o->budget_auto || r->budget_auto))
			return fail(p, n, "regions '%s' and '%s' share memory '%s': 'budget: auto' cannot split it", o->name,
				    r->name, r->memory);
	}
	return 0;
}

static int get_regions(parse *p, const yaml_node_t *n)
{
	if (n->type != YAML_SEQUENCE_NODE)
		return fail(p, n, "'regions' must be a list of regions, not %s", kind_name(n));
	size_t count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	if (count == 0)
		return fail(p, n, "'regions' is empty");
	if (count > 16)
		return fail(p, n, "'regions' lists %zu regions; at most 16", count);
	p->cfg->regions = calloc(count, sizeof(rp_region_cfg));
	if (!p->cfg->regions)
		return rp_err_nomem(p->err, "reading the config");
	for (size_t i = 0; i < count; i++) {
		const yaml_node_t *item = yaml_document_get_node(p->doc, n->data.sequence.items.start[i]);
		rp_region_cfg *r = &p->cfg->regions[i];
		rp_region_cfg_defaults(r);
		p->cfg->nregions++;
		if (!item || walk_mapping(p, item, "a region", region_keys, region_field, r))
			return item ? p->err->code : fail(p, n, "broken region list");
		if (!r->outsec && rp_strdup(&r->outsec, i == 0 ? ".ramtext" : NULL, p->err))
			return p->err->code;
		if (!r->outsec)
			return fail(p, item, "region '%s' needs an 'output-section' (only the first defaults to .ramtext)",
				    r->name ? r->name : "?");
		if (check_region(p, item, r, i))
			return p->err->code;
	}
	return 0;
}

static const char *const cost_keys[] = { "flash-wait-states", "cycles-per-flash-fetch", "veneer-bytes",
					 "veneer-cycles", "model", "flash", NULL };

/* cost.model: a flash model spelled as for --flash-model (flashmodel.h, docs/cost-models.md). */
static int get_model(parse *p, const yaml_node_t *v, rp_cost_model *c)
{
	char why[200];
	if (want_scalar(p, v, "model"))
		return p->err->code;
	if (rp_fm_parse(&c->model, scalar(v), why, sizeof(why)) != 0)
		return fail(p, v, "%s", why);
	c->have_model = 1;
	return 0;
}

static const char *const flash_keys[] = { "memory", "range", "model", NULL };

/* cost.flash[].range: "LO-HI", hex or decimal as sizes are (0x8000000-0x8100000), end exclusive. */
static int get_range(parse *p, const yaml_node_t *v, rp_flash_cfg *f)
{
	if (want_scalar(p, v, "range"))
		return p->err->code;
	const char *s = scalar(v), *dash = strchr(s, '-');
	char lo[64];
	rp_err e = RP_ERR_INIT;
	if (!dash || (size_t)(dash - s) >= sizeof(lo))
		return fail(p, v, "'range' must be LO-HI (e.g. 0x8000000-0x8100000), not '%s'", s);
	snprintf(lo, sizeof(lo), "%.*s", (int)(dash - s), s);
	if (rp_parse_size(&f->lo, lo, "range", &e) || rp_parse_size(&f->hi, dash + 1, "range", &e))
		return fail(p, v, "%s", e.msg);
	if (f->lo >= f->hi)
		return fail(p, v, "'range' %s: the start must be below the end", s);
	return 0;
}

static int flash_field(parse *p, const yaml_node_t *k, const yaml_node_t *v, void *obj)
{
	rp_flash_cfg *f = obj;
	const char *key = scalar(k);
	char why[200];
	if (strcmp(key, "memory") == 0)
		return get_string(p, v, key, &f->memory);
	if (strcmp(key, "range") == 0)
		return get_range(p, v, f);
	if (want_scalar(p, v, key))
		return p->err->code;
	f->model.name[0] = '\0';
	if (rp_fm_parse(&f->model, scalar(v), why, sizeof(why)) != 0)
		return fail(p, v, "%s", why);
	return 0;
}

/* One cost.flash entry: exactly one of memory and range, and a model. */
static int get_flash_entry(parse *p, const yaml_node_t *n, rp_flash_cfg *f, rp_fm_map *ranges)
{
	char where[300], why[200];
	snprintf(where, sizeof(where), "%s:%zu:%zu", p->name, n->start_mark.line + 1, n->start_mark.column + 1);
	if (rp_strdup(&f->where, where, p->err) || walk_mapping(p, n, "a 'cost.flash' entry", flash_keys, flash_field, f))
		return p->err->code;
	if (!f->model.name[0] || !f->memory == !f->hi)
		return fail(p, n, "a 'cost.flash' entry needs 'model' and one of 'memory' (a MEMORY region of the map) "
			    "or 'range' (LO-HI)");
	if (f->hi && rp_fm_map_add(ranges, &f->model, f->lo, f->hi, why, sizeof(why)) != 0)
		return fail(p, n, "%s", why);
	for (size_t i = 0; f->memory && i < p->cfg->cost.nflash; i++)
		if (&p->cfg->cost.flash[i] != f && p->cfg->cost.flash[i].memory &&
		    strcmp(p->cfg->cost.flash[i].memory, f->memory) == 0)
			return fail(p, n, "memory '%s' has a flash model already", f->memory);
	return 0;
}

/* cost.flash: a list of {memory: NAME | range: LO-HI, model: SPEC}, ranges apart. */
static int get_flash(parse *p, const yaml_node_t *v, rp_cost_model *c)
{
	if (v->type != YAML_SEQUENCE_NODE || v->data.sequence.items.top == v->data.sequence.items.start)
		return fail(p, v, "'flash' must be a list of {memory: NAME or range: LO-HI, model: SPEC}");
	size_t n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
	if (n > RP_FM_MAX_RANGES)
		return fail(p, v, "'flash' lists %zu models; at most %d", n, RP_FM_MAX_RANGES);
	if (!(c->flash = calloc(n, sizeof(rp_flash_cfg))))
		return rp_err_nomem(p->err, "reading the config");
	rp_fm_map ranges = { 0 };
	for (size_t i = 0; i < n; i++) {
		const yaml_node_t *item = yaml_document_get_node(p->doc, v->data.sequence.items.start[i]);
		if (!item)
			return fail(p, v, "'flash': broken list");
		c->nflash++;   /* counted before it is filled, so that a failure frees what it holds */
		if (get_flash_entry(p, item, &c->flash[i], &ranges))
			return p->err->code;
	}
	return 0;
}

static int cost_field(parse *p, const yaml_node_t *k, const yaml_node_t *v, void *obj)
{
	rp_cost_model *c = obj;
	const char *key = scalar(k);
	/* set whenever get_number/get_size return 0; GCC -O2 cannot see that their failure codes
	 * are never 0, and warns that they may be used unset */
	double d = 0;
	uint64_t u = 0;
	if (strcmp(key, "flash-wait-states") == 0 || strcmp(key, "cycles-per-flash-fetch") == 0) {
		if (c->flash_fetch_cycles != 1.0 || p->cfg->have_cost > 1)
			return fail(p, k, "give either 'flash-wait-states' or 'cycles-per-flash-fetch', not both");
		p->cfg->have_cost = 2;
		int ws = key[0] == 'f';
		if (get_number(p, v, key, ws ? 0 : 1, 1000, &d))
			return p->err->code;
		c->flash_fetch_cycles = ws ? 1 + d : d;
		return 0;
	}
	if ((strcmp(key, "model") == 0 && c->nflash) || (strcmp(key, "flash") == 0 && c->have_model))
		return fail(p, k, "give either 'model' (one flash) or 'flash' (a model per flash), not both");
	if (strcmp(key, "model") == 0)
		return get_model(p, v, c);
	if (strcmp(key, "flash") == 0)
		return get_flash(p, v, c);
	if (strcmp(key, "veneer-bytes") == 0) {
		if (get_size(p, v, key, &u))
			return p->err->code;
		rp_err e = RP_ERR_INIT;
		if (rp_check_veneer_size(u, "'veneer-bytes'", &e))
			return fail(p, v, "%s", e.msg);
		c->veneer_bytes = (int64_t)u;
		return 0;
	}
	return get_number(p, v, key, 0, 1000, &c->veneer_cycles);
}

static const char *const runs_keys[] = { "weighting", NULL };

static int runs_field(parse *p, const yaml_node_t *k, const yaml_node_t *v, void *obj)
{
	(void)k;
	rp_config *cfg = obj;
	if (want_scalar(p, v, "weighting"))
		return p->err->code;
	if (strcmp(scalar(v), "samples") == 0)
		cfg->weighting = RP_WEIGHT_SAMPLES;
	else if (strcmp(scalar(v), "equal") == 0)
		cfg->weighting = RP_WEIGHT_EQUAL;
	else
		return fail(p, v, "'weighting' must be 'samples' or 'equal', not '%s'", scalar(v));
	return 0;
}

static const char *const solver_keys[] = { "time-limit", NULL };

static int solver_field(parse *p, const yaml_node_t *k, const yaml_node_t *v, void *obj)
{
	(void)k;
	return get_number(p, v, "time-limit", 0.01, 86400, &((rp_config *)obj)->time_limit_s);
}

static const char *const top_keys[] = { "regions", "pin", "exclude", "closure", "cost", "runs", "solver", "data",
					"pin-data", "allow-boot-path", "ram-handlers", NULL };

/* `data: on|off`: read-only data placement (place --data, --no-data). */
static int get_data(parse *p, const yaml_node_t *v, rp_config *cfg)
{
	if (want_scalar(p, v, "data"))
		return p->err->code;
	if (strcmp(scalar(v), "on") == 0)
		cfg->data = 1;
	else if (strcmp(scalar(v), "off") == 0)
		cfg->data = 0;
	else
		return fail(p, v, "'data' must be 'on' or 'off', not '%s'", scalar(v));
	return 0;
}

static int top_field(parse *p, const yaml_node_t *k, const yaml_node_t *v, void *obj)
{
	rp_config *cfg = obj;
	const char *key = scalar(k);
	if (strcmp(key, "regions") == 0)
		return get_regions(p, v);
	if (strcmp(key, "pin") == 0)
		return get_names(p, v, key, &cfg->pin, &cfg->npin);
	if (strcmp(key, "exclude") == 0)
		return get_names(p, v, key, &cfg->exclude, &cfg->nexclude);
	if (strcmp(key, "closure") == 0)
		return get_names(p, v, key, &cfg->closure, &cfg->nclosure);
	if (strcmp(key, "ram-handlers") == 0) {   /* `all`, or the handlers' names or globs */
		if (v->type == YAML_SCALAR_NODE && strcmp(scalar(v), "all") == 0) {
			cfg->all_handlers = 1;
			return 0;
		}
		return get_names(p, v, key, &cfg->handlers, &cfg->nhandlers);
	}
	if (strcmp(key, "cost") == 0) {
		cfg->have_cost = 1;
		return walk_mapping(p, v, "'cost'", cost_keys, cost_field, &cfg->cost);
	}
	if (strcmp(key, "runs") == 0)
		return walk_mapping(p, v, "'runs'", runs_keys, runs_field, cfg);
	if (strcmp(key, "data") == 0)
		return get_data(p, v, cfg);
	if (strcmp(key, "pin-data") == 0)
		return get_names(p, v, key, &cfg->pin_data, &cfg->npin_data);
	if (strcmp(key, "allow-boot-path") == 0) {
		/* the user knows better than the reset-path analysis; check trusts the plan then */
		if (want_scalar(p, v, key))
			return p->err->code;
		if (strcmp(scalar(v), "yes") == 0 || strcmp(scalar(v), "no") == 0) {
			cfg->allow_boot_path = strcmp(scalar(v), "yes") == 0;
			return 0;
		}
		return fail(p, v, "'allow-boot-path' must be 'yes' or 'no', not '%s'", scalar(v));
	}
	return walk_mapping(p, v, "'solver'", solver_keys, solver_field, cfg);
}

/* A name both pinned (or in a closure) and excluded cannot be satisfied. */
static int check_conflicts(parse *p, const yaml_node_t *root)
{
	const rp_config *cfg = p->cfg;
	for (size_t i = 0; i < cfg->nexclude; i++) {
		for (size_t j = 0; j < cfg->npin; j++)
			if (strcmp(cfg->exclude[i], cfg->pin[j]) == 0)
				return fail(p, root, "'%s' is both pinned and excluded", cfg->pin[j]);
		for (size_t j = 0; j < cfg->nclosure; j++)
			if (strcmp(cfg->exclude[i], cfg->closure[j]) == 0)
				return fail(p, root, "'%s' is both a closure root and excluded", cfg->closure[j]);
	}
	return 0;
}

static int parse_document(parse *p, yaml_parser_t *parser)
{
	yaml_document_t doc;
	if (!yaml_parser_load(parser, &doc))
		return rp_err_set(p->err, RP_EINPUT, "%s:%zu:%zu: %s%s%s", p->name, parser->problem_mark.line + 1,
				  parser->problem_mark.column + 1, parser->problem ? parser->problem : "malformed YAML",
				  parser->context ? " " : "", parser->context ? parser->context : "");
	p->doc = &doc;
	const yaml_node_t *root = yaml_document_get_root_node(&doc);
	int rc = 0;
	if (!root)
		rc = rp_err_set(p->err, RP_EINPUT, "%s:1:1: empty config (expected at least 'regions')", p->name);
	else if (!(rc = walk_mapping(p, root, "the config", top_keys, top_field, p->cfg)) && !p->cfg->nregions)
		rc = fail(p, root, "no 'regions': at least one RAM region with a budget is needed");
	if (!rc)
		rc = check_conflicts(p, root);
	if (!rc) {
		yaml_document_t extra;
		if (!yaml_parser_load(parser, &extra))
			rc = rp_err_set(p->err, RP_EINPUT, "%s:%zu:%zu: %s", p->name, parser->problem_mark.line + 1,
					parser->problem_mark.column + 1, parser->problem ? parser->problem : "malformed YAML");
		else {
			const yaml_node_t *second = yaml_document_get_root_node(&extra);
			if (second)
				rc = fail(p, second, "a second YAML document; the config is one document");
			yaml_document_delete(&extra);
		}
	}
	yaml_document_delete(&doc);
	p->doc = NULL;
	return rc;
}

/* Limits on the file before libyaml builds its tree: a config is a few dozen lines two or
 * three levels deep, while flow lists nested 30,000 deep (60 KB) kept libyaml's loader busy
 * for seconds. The events are read first, so a deep file is refused at the level that passes
 * the limit, after scanning only that far. */
enum { CONFIG_MAX_BYTES = 1 << 20, CONFIG_MAX_DEPTH = 64 };

static int check_limits(const char *text, size_t len, const char *name, rp_err *err)
{
	if (len > CONFIG_MAX_BYTES)
		return rp_err_set(err, RP_EINPUT, "%s: %zu bytes, more than the %d bytes (1 MiB) a config may have", name,
				  len, CONFIG_MAX_BYTES);
	yaml_parser_t parser;
	if (!yaml_parser_initialize(&parser))
		return rp_err_nomem(err, "reading the config");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	int depth = 0, rc = 0, done = 0;
	while (!rc && !done) {
		yaml_event_t ev;
		if (!yaml_parser_parse(&parser, &ev))
			break;  /* a syntax error: the loader reports it, at the same place */
		if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT) {
			if (++depth > CONFIG_MAX_DEPTH)
				rc = rp_err_set(err, RP_EINPUT, "%s:%zu:%zu: nested more than %d levels deep (the limit for a config)",
						name, ev.start_mark.line + 1, ev.start_mark.column + 1, CONFIG_MAX_DEPTH);
		} else if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT) {
			depth--;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return rc;
}

int rp_config_parse(rp_config **out, const char *text, size_t len, const char *name, rp_err *err)
{
	*out = NULL;
	if (check_limits(text, len, name, err))
		return err->code;
	rp_config *cfg = calloc(1, sizeof(*cfg));
	if (!cfg)
		return rp_err_nomem(err, "reading the config");
	cfg->cost = (rp_cost_model)RP_COST_MODEL_INIT;
	cfg->time_limit_s = 10.0;
	cfg->data = -1;
	if (rp_strdup(&cfg->path, name, err)) {
		rp_config_free(cfg);
		return err->code;
	}
	yaml_parser_t parser;
	if (!yaml_parser_initialize(&parser)) {
		rp_config_free(cfg);
		return rp_err_nomem(err, "reading the config");
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	parse p = { NULL, name, cfg, err };
	int rc = parse_document(&p, &parser);
	yaml_parser_delete(&parser);
	if (rc) {
		rp_config_free(cfg);
		return rc;
	}
	*out = cfg;
	return 0;
}

int rp_config_load(rp_config **out, const char *path, rp_err *err)
{
	char *text;
	size_t len;
	*out = NULL;
	int rc = rp_read_file(&text, &len, path, err);
	if (rc)
		return rc;
	rc = rp_config_parse(out, text, len, path, err);
	free(text);
	return rc;
}

static void free_names(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

void rp_config_free(rp_config *cfg)
{
	if (!cfg)
		return;
	for (size_t i = 0; i < cfg->nregions; i++) {
		free(cfg->regions[i].name);
		free(cfg->regions[i].memory);
		free(cfg->regions[i].outsec);
		free(cfg->regions[i].fragment);
	}
	free(cfg->regions);
	for (size_t i = 0; i < cfg->cost.nflash; i++) {
		free(cfg->cost.flash[i].memory);
		free(cfg->cost.flash[i].where);
	}
	free(cfg->cost.flash);
	free_names(cfg->pin, cfg->npin);
	free_names(cfg->exclude, cfg->nexclude);
	free_names(cfg->closure, cfg->nclosure);
	free_names(cfg->handlers, cfg->nhandlers);
	free_names(cfg->pin_data, cfg->npin_data);
	free(cfg->path);
	free(cfg);
}
