/* plan.c: the placement plan file (see plan.h and docs/plan-format.md): reading it back as
 * hostile input (plan_write.c writes it).
 *
 * Owns every string of an rp_plan it returns (rp_plan_free releases them). The format is one
 * record per line, fields separated by single spaces; a field holding a space, '%', a control
 * character or DEL is percent-encoded (%XX), and a field that is exactly "-" (which means "no
 * file") is written "%2D" when it is a real name. Plans are small (hundreds of units), so the
 * reader keeps it simple: one pass, one line at a time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"
#include "ramplace/plan.h"
#include "ramplace/util.h"

#define MAX_FIELDS 8

typedef struct reader {
	const char *name;
	size_t lineno;
	char *fields[MAX_FIELDS];  /* decoded fields of the current line, owned */
	int is_dash[MAX_FIELDS];   /* the field was written "-" (none), not "%2D" */
	size_t nfields;
	rp_plan *plan;
	size_t cap_units, cap_patterns, cap_funcs, cap_handlers;
	int in_unit;               /* a "unit" line was read and its "end" not yet */
	size_t unit_line;
	unsigned seen;             /* header keys read so far (bit per key) */
	rp_err *err;
} reader;

static int fail(reader *rd, const char *fmt, const char *arg)
{
	char what[768];
	snprintf(what, sizeof(what), fmt, arg);
	return rp_err_set(rd->err, RP_EINPUT, "%s:%zu: %s", rd->name, rd->lineno, what);
}

static void clear_fields(reader *rd)
{
	for (size_t i = 0; i < rd->nfields; i++)
		free(rd->fields[i]);
	rd->nfields = 0;
}

/* Decodes one field of n bytes into a new string; %00 is refused (strings end at NUL). */
static int decode_field(reader *rd, char **out, const char *p, size_t n)
{
	char *s = malloc(n + 1);
	size_t k = 0;
	if (!s)
		return rp_err_nomem(rd->err, "reading a plan");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		if (c == '%') {
			int hi = i + 2 < n ? rp_hex_digit(p[i + 1]) : -1;
			int lo = i + 2 < n ? rp_hex_digit(p[i + 2]) : -1;
			if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
				char bad[4] = { 0 };
				memcpy(bad, p + i, n - i < 3 ? n - i : 3);
				free(s);
				return fail(rd, "bad percent-encoding '%s' (expected %%XX, not %%00)", bad);
			}
			s[k++] = (char)(hi * 16 + lo);
			i += 2;
		} else if (c < 0x20 || c == 0x7f) {
			free(s);
			return fail(rd, "unencoded control character in a field%s", "");
		} else {
			s[k++] = (char)c;
		}
	}
	s[k] = '\0';
	*out = s;
	return 0;
}

/* Splits a line (without its ending) on single spaces into rd->fields. */
static int split_fields(reader *rd, const char *p, size_t n)
{
	size_t start = 0;
	clear_fields(rd);
	for (size_t i = 0; i <= n; i++) {
		if (i < n && p[i] != ' ')
			continue;
		if (i == start)
			return fail(rd, "empty field (fields are separated by single spaces)%s", "");
		if (rd->nfields == MAX_FIELDS)
			return fail(rd, "too many fields%s", "");
		if (decode_field(rd, &rd->fields[rd->nfields], p + start, i - start))
			return rd->err->code;
		rd->is_dash[rd->nfields] = i - start == 1 && p[start] == '-';
		rd->nfields++;
		start = i + 1;
	}
	return 0;
}

static int parse_u64(reader *rd, uint64_t *out, const char *s, const char *what)
{
	uint64_t v = 0;
	if (!*s || (s[0] == '0' && s[1]))
		goto bad;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			goto bad;
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10) {
			char msg[160];
			snprintf(msg, sizeof(msg), "%s '%%s' is too large", what);
			return fail(rd, msg, s);
		}
		v = v * 10 + d;
	}
	*out = v;
	return 0;
bad:
	{
		char msg[160];
		snprintf(msg, sizeof(msg), "%s '%%s' is not a decimal number", what);
		return fail(rd, msg, s);
	}
}

/* "-" means none. */
static int take_optional(reader *rd, char **out, size_t k)
{
	if (rd->is_dash[k]) {
		*out = NULL;
		return 0;
	}
	*out = rd->fields[k];
	rd->fields[k] = NULL;
	return 0;
}

static int take(char **out, reader *rd, size_t k)
{
	*out = rd->fields[k];
	rd->fields[k] = NULL;
	return 0;
}

static int expect_fields(reader *rd, size_t n, const char *usage)
{
	if (rd->nfields != n)
		return fail(rd, rd->nfields < n ? "missing fields: expected '%s'" : "too many fields: expected '%s'", usage);
	return 0;
}

enum { SEEN_BUILD_ID = 1, SEEN_OUTSEC = 2, SEEN_REGION = 4, SEEN_BUDGET = 8, SEEN_VENEER = 16,
       SEEN_USED = 32, SEEN_SAMPLES = 64, SEEN_VENEERS = 128, SEEN_ALIGN = 256, SEEN_KIND = 512,
       SEEN_DATA_PLAN = 1024, SEEN_MODELED = 2048, SEEN_DIALECT = 4096, SEEN_LINKER = 8192,
       SEEN_SIZES = 16384, SEEN_LINK_RESERVE = 32768, SEEN_BOOT_PATH = 65536 };
#define SEEN_REQUIRED (SEEN_BUILD_ID | SEEN_OUTSEC | SEEN_BUDGET | SEEN_VENEER | SEEN_USED | SEEN_SAMPLES)

static int mark_seen(reader *rd, unsigned bit, const char *key)
{
	if (rd->plan->nunits > 0)
		return fail(rd, "'%s' must come before the first unit", key);
	if (rd->seen & bit)
		return fail(rd, "'%s' given twice", key);
	rd->seen |= bit;
	return 0;
}

/* Parses one numeric header value "KEY N" into *out. */
static int header_number(reader *rd, unsigned bit, const char *key, const char *usage, uint64_t *out)
{
	if (mark_seen(rd, bit, key) || expect_fields(rd, 2, usage) || parse_u64(rd, out, rd->fields[1], key))
		return rd->err->code;
	return 0;
}

/* "KEY WORD", once, with WORD its one value: sets *flag; why_none says what its absence means. */
static int header_flag(reader *rd, unsigned bit, const char *key, const char *word, const char *why_none, int *flag)
{
	char usage[64];
	snprintf(usage, sizeof(usage), "%s %s", key, word);
	if (mark_seen(rd, bit, key) || expect_fields(rd, 2, usage))
		return rd->err->code;
	if (strcmp(rd->fields[1], word) != 0)
		return rp_err_set(rd->err, RP_EINPUT, "%s:%zu: unknown %s '%.64s' (only '%s'; %s)", rd->name, rd->lineno, key,
				  rd->fields[1], word, why_none);
	*flag = 1;
	return 0;
}

static int header_string(reader *rd, unsigned bit, const char *key, const char *usage, char **out)
{
	if (mark_seen(rd, bit, key) || expect_fields(rd, 2, usage))
		return rd->err->code;
	if (rd->is_dash[1])
		return fail(rd, "'%s' needs a value", key);
	return take(out, rd, 1);
}

static int parse_region(reader *rd)
{
	rp_plan *plan = rd->plan;
	if (mark_seen(rd, SEEN_REGION, "region") || expect_fields(rd, 4, "region NAME ORIGIN LENGTH") ||
	    parse_u64(rd, &plan->region_origin, rd->fields[2], "region origin") ||
	    parse_u64(rd, &plan->region_length, rd->fields[3], "region length"))
		return rd->err->code;
	char name[96], where[600];
	snprintf(where, sizeof(where), "%s:%zu", rd->name, rd->lineno);
	if (rp_check_region(plan->region_origin, plan->region_length, rp_escape_name(rd->fields[1], name, sizeof(name)),
			    where, rd->err))
		return rd->err->code;
	return take(&plan->region, rd, 1);
}

static int parse_samples(reader *rd)
{
	rp_plan *plan = rd->plan;
	if (mark_seen(rd, SEEN_SAMPLES, "samples") || expect_fields(rd, 3, "samples TOTAL MOVED") ||
	    parse_u64(rd, &plan->total_samples, rd->fields[1], "total samples") ||
	    parse_u64(rd, &plan->moved_samples, rd->fields[2], "moved samples"))
		return rd->err->code;
	if (plan->moved_samples > plan->total_samples)
		return fail(rd, "moved samples exceed the total%s", "");
	return 0;
}

/* "handler NAME FILE": an interrupt handler whose static reach the plan moves (repeatable). */
static int parse_handler(reader *rd)
{
	rp_plan *plan = rd->plan;
	if (expect_fields(rd, 3, "handler NAME FILE"))
		return rd->err->code;
	if (rd->is_dash[1])
		return fail(rd, "handler has no name%s", "");
	if (rp_grow((void **)&plan->handlers, &rd->cap_handlers, plan->nhandlers + 1, sizeof(*plan->handlers), rd->err))
		return rd->err->code;
	rp_plan_func *h = &plan->handlers[plan->nhandlers];
	memset(h, 0, sizeof(*h));
	plan->nhandlers++;
	if (take(&h->name, rd, 1))
		return rd->err->code;
	return take_optional(rd, &h->file, 2);
}

/* "modeled MODEL BEFORE AFTER": the cycles place priced the profiled workload at. */
static int parse_modeled(reader *rd)
{
	rp_plan *plan = rd->plan;
	if (mark_seen(rd, SEEN_MODELED, "modeled") || expect_fields(rd, 4, "modeled MODEL BEFORE AFTER") ||
	    parse_u64(rd, &plan->modeled_before, rd->fields[2], "modeled cycles before") ||
	    parse_u64(rd, &plan->modeled_after, rd->fields[3], "modeled cycles after"))
		return rd->err->code;
	if (rd->is_dash[1])
		return fail(rd, "'modeled' needs a model%s", "");
	if (plan->modeled_after > plan->modeled_before)
		return fail(rd, "modeled cycles after the move exceed those before it%s", "");
	return take(&plan->modeled_model, rd, 1);
}

/* "kind data": a plan of read-only data objects (.ramdata); code plans have no kind line. */
static int parse_kind(reader *rd)
{
	if (mark_seen(rd, SEEN_KIND, "kind") || expect_fields(rd, 2, "kind data"))
		return rd->err->code;
	if (strcmp(rd->fields[1], "data") != 0)
		return fail(rd, "unknown plan kind '%s' (only 'data'; code plans have no kind line)", rd->fields[1]);
	if (rd->plan->data_plan)
		return fail(rd, "'data-plan' in a data plan%s", "");
	rd->plan->is_data = 1;
	return 0;
}

/* "data-plan FILE": the data plan written beside a code plan. A bare file name, so that check
 * looks only in the code plan's own directory, and only a code plan names one. */
static int parse_data_plan(reader *rd)
{
	if (header_string(rd, SEEN_DATA_PLAN, "data-plan", "data-plan FILE", &rd->plan->data_plan))
		return rd->err->code;
	if (rd->plan->is_data)
		return fail(rd, "'data-plan' in a data plan%s", "");
	if (strchr(rd->plan->data_plan, '/') || strcmp(rd->plan->data_plan, ".") == 0 ||
	    strcmp(rd->plan->data_plan, "..") == 0)
		return fail(rd, "data-plan must be a file name beside the plan, not '%.64s'", rd->plan->data_plan);
	return 0;
}

static int parse_header_key(reader *rd, const char *key)
{
	rp_plan *plan = rd->plan;
	if (strcmp(key, "build-id") == 0) {
		/* "-": made without an ELF (place --allow-empty for a first build); moves nothing */
		if (rd->nfields == 2 && rd->is_dash[1])
			return mark_seen(rd, SEEN_BUILD_ID, key);
		if (header_string(rd, SEEN_BUILD_ID, key, "build-id HEX", &plan->build_id))
			return rd->err->code;
		/* compared with the ELF's note byte for byte: anything but hex pairs can never match */
		size_t n = strlen(plan->build_id);
		for (size_t i = 0; i < n; i++)
			if (rp_hex_digit(plan->build_id[i]) < 0)
				return fail(rd, "build-id must be hex digits, not '%.64s'", plan->build_id);
		return n % 2 ? fail(rd, "build-id has an odd number of hex digits%s", "") : 0;
	}
	if (strcmp(key, "output-section") == 0)
		return header_string(rd, SEEN_OUTSEC, key, "output-section NAME", &plan->outsec);
	if (strcmp(key, "region") == 0)
		return parse_region(rd);
	if (strcmp(key, "budget") == 0)
		return header_number(rd, SEEN_BUDGET, key, "budget BYTES", &plan->budget);
	if (strcmp(key, "veneer-reserve") == 0)
		return header_number(rd, SEEN_VENEER, key, "veneer-reserve BYTES", &plan->veneer_reserve);
	if (strcmp(key, "used") == 0)
		return header_number(rd, SEEN_USED, key, "used BYTES", &plan->used);
	if (strcmp(key, "samples") == 0)
		return parse_samples(rd);
	if (strcmp(key, "veneers") == 0)
		return header_number(rd, SEEN_VENEERS, key, "veneers COUNT", &plan->nveneers);
	if (strcmp(key, "align") == 0) {
		if (header_number(rd, SEEN_ALIGN, key, "align BYTES", &plan->align))
			return rd->err->code;
		if (rp_check_align(plan->align, "align", rd->err))
			return rp_err_wrap(rd->err, "%s:%zu", rd->name, rd->lineno);
		return 0;
	}
	if (strcmp(key, "boot-path") == 0)
		return header_flag(rd, SEEN_BOOT_PATH, key, "allowed", "a plan made without --allow-boot-path has no boot-path line",
				   &plan->allow_boot_path);
	if (strcmp(key, "link-reserve") == 0)
		return header_number(rd, SEEN_LINK_RESERVE, key, "link-reserve BYTES", &plan->link_reserve);
	if (strcmp(key, "kind") == 0)
		return parse_kind(rd);
	if (strcmp(key, "data-plan") == 0)
		return parse_data_plan(rd);
	if (strcmp(key, "modeled") == 0)
		return parse_modeled(rd);
	if (strcmp(key, "handler") == 0)
		return parse_handler(rd);
	if (strcmp(key, "linker") == 0)
		return header_flag(rd, SEEN_LINKER, key, "lld", "GNU ld's plans have no linker line", &plan->linker_lld);
	if (strcmp(key, "sizes") == 0)
		return header_flag(rd, SEEN_SIZES, key, "estimated", "a plan made with the map has no sizes line",
				   &plan->sizes_estimated);
	if (strcmp(key, "dialect") == 0) {
		if (header_string(rd, SEEN_DIALECT, key, "dialect NAME", &plan->dialect))
			return rd->err->code;
		return rp_dialect_from_name(plan->dialect) > 0 ? 0
		     : fail(rd, "unknown dialect '%.64s' (zephyr, esp-idf or pico; GNU ld's plans have no dialect line)", plan->dialect);
	}
	return fail(rd, "unknown key '%s'", key);
}

static int start_unit(reader *rd)
{
	rp_plan *plan = rd->plan;
	if (rd->in_unit)
		return fail(rd, "'unit' inside unit '%s' (missing 'end')", plan->units[plan->nunits - 1].name);
	if ((rd->seen & SEEN_REQUIRED) != SEEN_REQUIRED)
		return fail(rd, "'unit' before the header is complete%s", "");
	if (expect_fields(rd, 6, "unit NAME FILE SIZE WEIGHT SAMPLES"))
		return rd->err->code;
	if (rd->is_dash[1])
		return fail(rd, "unit has no name%s", "");
	if (rp_grow((void **)&plan->units, &rd->cap_units, plan->nunits + 1, sizeof(*plan->units), rd->err))
		return rd->err->code;
	rp_plan_unit *u = &plan->units[plan->nunits++];
	memset(u, 0, sizeof(*u));
	rd->cap_patterns = rd->cap_funcs = 0;
	rd->in_unit = 1;
	rd->unit_line = rd->lineno;
	take(&u->name, rd, 1);
	take_optional(rd, &u->file, 2);
	if (parse_u64(rd, &u->size, rd->fields[3], "size") || parse_u64(rd, &u->weight, rd->fields[4], "weight") ||
	    parse_u64(rd, &u->samples, rd->fields[5], "samples"))
		return rd->err->code;
	return 0;
}

static int parse_unit_key(reader *rd, const char *key)
{
	rp_plan_unit *u = &rd->plan->units[rd->plan->nunits - 1];
	if (strcmp(key, "pattern") == 0) {
		if (expect_fields(rd, 2, "pattern PATTERN") ||
		    rp_grow((void **)&u->patterns, &rd->cap_patterns, u->npatterns + 1, sizeof(*u->patterns), rd->err))
			return rd->err->code;
		return take(&u->patterns[u->npatterns++], rd, 1);
	}
	if (strcmp(key, "func") == 0 || strcmp(key, "object") == 0) {
		/* a data plan lists objects, a code plan functions: check must look up the right kind */
		if ((key[0] == 'o') != rd->plan->is_data)
			return fail(rd, rd->plan->is_data ? "'%s' in a data plan (its units list 'object' lines)"
							  : "'%s' in a code plan ('kind data' must come first)", key);
		if (expect_fields(rd, 3, key[0] == 'o' ? "object NAME FILE" : "func NAME FILE") ||
		    rp_grow((void **)&u->funcs, &rd->cap_funcs, u->nfuncs + 1, sizeof(*u->funcs), rd->err))
			return rd->err->code;
		if (rd->is_dash[1])
			return fail(rd, "%s has no name", key[0] == 'o' ? "object" : "function");
		rp_plan_func *f = &u->funcs[u->nfuncs++];
		take(&f->name, rd, 1);
		return take_optional(rd, &f->file, 2);
	}
	if (strcmp(key, "end") == 0) {
		rd->in_unit = 0;
		return expect_fields(rd, 1, "end");
	}
	return fail(rd, "unknown key '%s' inside a unit", key);
}

static int parse_first_line(reader *rd)
{
	if (rd->nfields != 2 || strcmp(rd->fields[0], PLAN_MAGIC) != 0)
		return fail(rd, "not a ramplace plan (the first line must be '%s 1')", PLAN_MAGIC);
	if (strcmp(rd->fields[1], "1") != 0)
		return fail(rd, "unsupported plan version '%s' (this ramplace reads version 1)", rd->fields[1]);
	return 0;
}

static int parse_line(reader *rd, const char *p, size_t n)
{
	if (rd->lineno > 1 && (n == 0 || p[0] == '#'))
		return 0; /* blank lines and comments, for people editing a plan by hand */
	if (split_fields(rd, p, n))
		return rd->err->code;
	if (rd->lineno == 1)
		return parse_first_line(rd);
	const char *key = rd->fields[0];
	if (strcmp(key, "unit") == 0 && (rd->seen & SEEN_BUILD_ID) && !rd->plan->build_id)
		return fail(rd, "a unit in a plan without a build-id (only an empty first-build plan has none)%s", "");
	if (strcmp(key, "unit") == 0)
		return start_unit(rd);
	if (rd->in_unit)
		return parse_unit_key(rd, key);
	if (strcmp(key, "pattern") == 0 || strcmp(key, "func") == 0 || strcmp(key, "object") == 0 ||
	    strcmp(key, "end") == 0)
		return fail(rd, "'%s' outside a unit", key);
	return parse_header_key(rd, key);
}

static int parse_lines(reader *rd, const char *text, size_t len)
{
	if (len == 0)
		return rp_err_set(rd->err, RP_EINPUT, "%s: empty plan file", rd->name);
	rp_lines lines;
	rp_lines_init(&lines, text, len);
	const char *p;
	size_t n;
	while (rp_lines_next(&lines, &p, &n)) {
		rd->lineno = lines.lineno;
		if (memchr(p, '\0', n))
			return fail(rd, "NUL byte in the plan%s", "");
		if (parse_line(rd, p, n))
			return rd->err->code;
	}
	if (rd->in_unit) {
		rd->lineno = rd->unit_line;
		return fail(rd, "unit '%s' has no 'end'", rd->plan->units[rd->plan->nunits - 1].name);
	}
	if ((rd->seen & SEEN_REQUIRED) != SEEN_REQUIRED)
		return rp_err_set(rd->err, RP_EINPUT,
				  "%s: incomplete plan header (needs build-id, output-section, budget, veneer-reserve, used, samples)",
				  rd->name);
	return 0;
}

int rp_plan_parse(rp_plan **out, const char *text, size_t len, const char *name, rp_err *err)
{
	*out = NULL;
	reader rd = { .name = name ? name : "<plan>", .err = err };
	rd.plan = calloc(1, sizeof(*rd.plan));
	if (!rd.plan)
		return rp_err_nomem(err, "reading a plan");
	int rc = parse_lines(&rd, text ? text : "", text ? len : 0);
	clear_fields(&rd);
	if (rc) {
		rp_plan_free(rd.plan);
		return rc;
	}
	*out = rd.plan;
	return 0;
}

int rp_plan_read(rp_plan **out, const char *path, rp_err *err)
{
	char *text = NULL;
	size_t len = 0;
	*out = NULL;
	int rc = rp_read_file(&text, &len, path, err);
	if (rc)
		return rc;
	rc = rp_plan_parse(out, text, len, path, err);
	free(text);
	return rc;
}

static void unit_release(rp_plan_unit *u)
{
	for (size_t k = 0; k < u->npatterns; k++)
		free(u->patterns[k]);
	for (size_t k = 0; k < u->nfuncs; k++) {
		free(u->funcs[k].name);
		free(u->funcs[k].file);
	}
	free(u->name);
	free(u->file);
	free(u->patterns);
	free(u->funcs);
	memset(u, 0, sizeof(*u));
}

void rp_plan_free(rp_plan *plan)
{
	if (!plan)
		return;
	for (size_t i = 0; i < plan->nunits; i++)
		unit_release(&plan->units[i]);
	free(plan->units);
	free(plan->build_id);
	free(plan->outsec);
	free(plan->region);
	free(plan->data_plan);
	free(plan->modeled_model);
	free(plan->dialect);
	for (size_t i = 0; i < plan->nhandlers; i++) {
		free(plan->handlers[i].name);
		free(plan->handlers[i].file);
	}
	free(plan->handlers);
	free(plan);
}

static const rp_dialect_info dialects[] = {
	[RP_DIALECT_GNU] = { .name = "gnu", .emit_format = "gnu" },
	[RP_DIALECT_ZEPHYR] = { .name = "zephyr", .needs_map = 1, .emit_format = "zephyr" },
	/* ESP-IDF's generated script puts noflash_text entries in .iram0.text, which its
	 * second-stage bootloader loads */
	[RP_DIALECT_ESPIDF] = { .name = "esp-idf", .outsec = ".iram0.text", .own_sections = ".text",
				.loader_fills_ram = 1, .needs_map = 1, .emit_format = "esp-idf" },
	/* pico-sdk's script copies the renamed .time_critical.* sections inside .data */
	[RP_DIALECT_PICO] = { .name = "pico", .outsec = ".data", .own_sections = RP_PICO_SECTION_PREFIX,
			      .needs_map = 1, .emit_format = "pico" },
};
#define NDIALECTS (sizeof(dialects) / sizeof(dialects[0]))

const rp_dialect_info *rp_dialect_info_of(int dialect)
{
	return &dialects[dialect >= 0 && (size_t)dialect < NDIALECTS ? (size_t)dialect : RP_DIALECT_GNU];
}

const char *rp_dialect_name(int dialect)
{
	return dialect >= 0 && (size_t)dialect < NDIALECTS ? dialects[dialect].name : "?";
}

int rp_dialect_from_name(const char *name)
{
	for (size_t i = 0; i < NDIALECTS; i++)
		if (strcmp(name, dialects[i].name) == 0)
			return (int)i;
	return -1;
}

const char *rp_dialect_own_sections(int dialect)
{
	return rp_dialect_info_of(dialect)->own_sections;
}

int rp_plan_dialect(const rp_plan *plan)
{
	int d = plan->dialect ? rp_dialect_from_name(plan->dialect) : RP_DIALECT_GNU;
	return d < 0 ? RP_DIALECT_GNU : d;
}
