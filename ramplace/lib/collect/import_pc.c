/* import_pc.c: the "pclog" (gdb `p $pc` output) and "pclist" (hex PC [count]) importers
 * (see import.h). Parses into a scratch histogram and merges only on success, so a bad line
 * leaves the caller's samples untouched. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/import.h"
#include "ramplace/util.h"

typedef struct line_iter {
	rp_lines lines;     /* lineno and offset: the current line's */
	char buf[512];      /* the current line, NUL-terminated (longer lines are refused) */
} line_iter;

static void line_iter_init(line_iter *it, const char *text, size_t len)
{
	rp_lines_init(&it->lines, text, len);
	it->buf[0] = '\0';
}

static int next_line(line_iter *it, const char *name, int *has_line, rp_err *err)
{
	const char *p;
	size_t len;
	*has_line = 0;
	if (!rp_lines_next(&it->lines, &p, &len))
		return 0;
	if (len >= sizeof(it->buf))
		return rp_err_set(err, RP_EINPUT, "%s: line %zu (byte %zu): line longer than %zu bytes",
				  name, it->lines.lineno, it->lines.offset, sizeof(it->buf) - 1);
	if (memchr(p, '\0', len))
		return rp_err_set(err, RP_EINPUT, "%s: line %zu (byte %zu): NUL byte in a text file",
				  name, it->lines.lineno, it->lines.offset);
	memcpy(it->buf, p, len);
	it->buf[len] = '\0';
	*has_line = 1;
	return 0;
}

static const char *skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* A hex number with optional 0x; at most 16 digits. Returns the end, or NULL. */
static const char *parse_hex(const char *p, uint64_t *out)
{
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	uint64_t v = 0;
	int digits = 0;
	for (; isxdigit((unsigned char)*p); p++, digits++) {
		if (digits == 16)
			return NULL;
		v = v << 4 | (uint64_t)(isdigit((unsigned char)*p) ? *p - '0' : (tolower((unsigned char)*p) - 'a' + 10));
	}
	if (!digits)
		return NULL;
	*out = v;
	return p;
}

static int bad_line(const line_iter *it, const char *name, const char *what, rp_err *err)
{
	/* quote at most 60 bytes of the line: enough to recognise it */
	int shown = (int)strnlen(it->buf, 60);
	return rp_err_set(err, RP_EINPUT, "%s: line %zu (byte %zu): %s: '%.*s%s'", name, it->lines.lineno,
			  it->lines.offset, what, shown, it->buf, it->buf[shown] ? "..." : "");
}

/* Adds the line's samples; a refusal (a total past what profile.db can count) names the line. */
static int add_at(const line_iter *it, const char *name, rp_samples *s, uint64_t pc, uint64_t count, rp_err *err)
{
	if (rp_samples_add(s, pc, count, err))
		return rp_err_wrap(err, "%s: line %zu (byte %zu)", name, it->lines.lineno, it->lines.offset);
	return 0;
}

/* `$N = ` with N a decimal value-history number */
static const char *after_history_prefix(const char *p)
{
	if (*p != '$' || !isdigit((unsigned char)p[1]))
		return NULL;
	for (p++; isdigit((unsigned char)*p); p++)
		;
	p = skip_space(p);
	if (*p != '=')
		return NULL;
	return skip_space(p + 1);
}

/* gdb prints a pointer value with its type first: `(void (*)()) 0x...` */
static const char *skip_type_cast(const char *p)
{
	if (*p != '(')
		return p;
	int depth = 0;
	for (; *p; p++) {
		depth += *p == '(';
		depth -= *p == ')';
		if (depth == 0)
			return skip_space(p + 1);
	}
	return NULL;
}

static int parse_pclog_line(line_iter *it, const char *name, rp_samples *s, rp_err *err)
{
	const char *p = after_history_prefix(skip_space(it->buf));
	uint64_t pc;
	if (!p)
		return 0;   /* gdb chatter: "Program received signal SIGINT", stop locations, ... */
	const char *q = skip_type_cast(p);
	if (!q || !(q = parse_hex(q, &pc)))
		return bad_line(it, name, "expected a `p $pc` value like '$1 = (void (*)()) 0x2000f1c4 <run_repl+12>'", err);
	q = skip_space(q);
	if (*q && *q != '<')
		return bad_line(it, name, "unexpected text after the address", err);
	return add_at(it, name, s, pc, 1, err);
}

static int parse_pclist_line(line_iter *it, const char *name, rp_samples *s, rp_err *err)
{
	const char *p = skip_space(it->buf);
	uint64_t pc, count = 1;
	if (!*p || *p == '#')
		return 0;
	const char *q = parse_hex(p, &pc);
	if (!q || (*q && *q != ' ' && *q != '\t'))
		return bad_line(it, name, "expected a hex address", err);
	q = skip_space(q);
	if (*q && *q != '#') {
		char *end;
		errno = 0;
		if (!isdigit((unsigned char)*q))
			return bad_line(it, name, "expected a decimal count after the address", err);
		unsigned long long c = strtoull(q, &end, 10);
		end = (char *)skip_space(end);
		if (errno || (*end && *end != '#'))
			return bad_line(it, name, "expected a decimal count after the address", err);
		if (c > RP_COUNT_MAX)
			return bad_line(it, name, "count larger than 9223372036854775807 (the most profile.db can count)", err);
		count = c;
	}
	return add_at(it, name, s, pc, count, err);
}

/* A gdb log is recognised by its value-history lines anywhere in the first few hundred
 * lines (its stop-location lines also start with a hex address); otherwise a PC list. */
rp_import_format rp_import_detect(const char *text, size_t len)
{
	line_iter it;
	line_iter_init(&it, text, len);
	int has;
	rp_err scratch;
	if (len >= 4 && memcmp(text, "gmon", 4) == 0)
		return RP_IMPORT_GMON;
	if (len >= 16 && memcmp(text, "# ramplace-qemu ", 16) == 0)
		return RP_IMPORT_QEMU;
	if (rp_gmon_text_detect(text, len))   /* anywhere in a console log */
		return RP_IMPORT_GMON_TEXT;
	while (it.lines.lineno < 500 && next_line(&it, "", &has, &scratch) == 0 && has) {
		if (after_history_prefix(skip_space(it.buf)))
			return RP_IMPORT_PCLOG;
		if (strncmp(it.buf, "Trace ", 6) == 0 || strncmp(it.buf, "IN:", 3) == 0)
			return RP_IMPORT_QEMU_LOG;
	}
	if (rp_prof_detect(text, len))
		return RP_IMPORT_PROF;
	return RP_IMPORT_PCLIST;
}

static int merge(rp_samples *dst, const rp_samples *src, rp_err *err)
{
	for (size_t i = 0; i < src->pcs_cap; i++)
		if (src->pcs[i].count && rp_samples_add(dst, src->pcs[i].pc, src->pcs[i].count, err))
			return err->code;
	return 0;
}

int rp_import_parse(rp_samples *s, rp_import_format fmt, const char *text, size_t len,
		    const char *name, rp_err *err)
{
	rp_samples scratch;
	line_iter it;
	line_iter_init(&it, text, len);
	int has, rc = 0;
	if (fmt == RP_IMPORT_AUTO)
		fmt = rp_import_detect(text, len);
	if (fmt != RP_IMPORT_PCLOG && fmt != RP_IMPORT_PCLIST)
		return rp_err_set(err, RP_EUSAGE, "%s: format %s needs the ELF (rp_import_file)", name,
				  rp_import_format_name(fmt));
	rp_samples_init(&scratch);
	while (!rc && !(rc = next_line(&it, name, &has, err)) && has)
		rc = fmt == RP_IMPORT_PCLIST ? parse_pclist_line(&it, name, &scratch, err)
					     : parse_pclog_line(&it, name, &scratch, err);
	if (!rc && scratch.total == 0)
		rc = rp_err_set(err, RP_EINPUT, "%s: no samples found (format %s)", name, rp_import_format_name(fmt));
	if (!rc)
		rc = merge(s, &scratch, err);
	rp_samples_release(&scratch);
	return rc;
}

int rp_import_format_parse(rp_import_format *out, const char *name, rp_err *err)
{
	if (strcmp(name, "auto") == 0)
		*out = RP_IMPORT_AUTO;
	else if (strcmp(name, "pclog") == 0)
		*out = RP_IMPORT_PCLOG;
	else if (strcmp(name, "pclist") == 0)
		*out = RP_IMPORT_PCLIST;
	else if (strcmp(name, "gmon") == 0)
		*out = RP_IMPORT_GMON;
	else if (strcmp(name, "openocd") == 0)
		*out = RP_IMPORT_OPENOCD;
	else if (strcmp(name, "qemu") == 0)
		*out = RP_IMPORT_QEMU;
	else if (strcmp(name, "qemu-log") == 0)
		*out = RP_IMPORT_QEMU_LOG;
	else if (strcmp(name, "prof") == 0)
		*out = RP_IMPORT_PROF;
	else if (strcmp(name, "swo") == 0)
		*out = RP_IMPORT_SWO;
	else if (strcmp(name, "gmon-text") == 0)
		*out = RP_IMPORT_GMON_TEXT;
	else
		return rp_err_set(err, RP_EUSAGE, "--format: unknown format '%s' (auto, gmon, gmon-text, openocd, qemu, qemu-log, prof, swo, pclog, pclist)", name);
	return 0;
}

const char *rp_import_format_name(rp_import_format fmt)
{
	switch (fmt) {
	case RP_IMPORT_PCLOG:
		return "pclog";
	case RP_IMPORT_PCLIST:
		return "pclist";
	case RP_IMPORT_GMON:
		return "gmon";
	case RP_IMPORT_OPENOCD:
		return "openocd";
	case RP_IMPORT_QEMU:
		return "qemu";
	case RP_IMPORT_QEMU_LOG:
		return "qemu-log";
	case RP_IMPORT_PROF:
		return "prof";
	case RP_IMPORT_SWO:
		return "swo";
	case RP_IMPORT_GMON_TEXT:
		return "gmon-text";
	default:
		return "auto";
	}
}
