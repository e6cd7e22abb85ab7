/* flashmodel.c: the flash timing models of flashmodel.h (docs/cost-models.md gives the rules
 * and the sources of the presets). Owns one model's state: the buffered word, the line tags of
 * an accelerator or a cache with their LRU ages, a sampled trace's tally of cold misses. Pure
 * C11 with no other ramplace code: the QEMU plugin compiles this file too, so the plugin and
 * the library count the same stalls.
 * Workload: one rp_fm_access per executed instruction and per flash data read, so the access
 * path allocates nothing and touches at most two lines of a set. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/flashmodel.h"

struct rp_fm {
	rp_fm_cfg c;
	rp_fm_stats s;
	uint64_t iword, dword;    /* ws: the word in the fetch buffer and the last data word, +1 (0: none) */
	uint64_t last_fill;       /* ws/art: word or line last read for fetches, +1 (0: none) */
	unsigned served;          /* fetches served since that read: the time the prefetch had */
	size_t nsets, ways;       /* cache: sets x ways; art: 1 x lines */
	size_t nlines;            /* nsets x ways, at least 1 (the arrays' length) */
	uint64_t *tag, *age;      /* instruction (or unified) lines: tag+1, 0 = invalid */
	size_t dways;             /* art: data lines, fully associative */
	uint64_t *dtag, *dage;
	uint64_t clock;           /* LRU time */
	/* eviction records (instruction/unified lines of art and cache): line+1 -> the access that
	 * evicted it, direct-mapped (a collision forgets the older record: that miss is then
	 * charged to the code that missed only) */
	uint64_t *ev_line, *ev_by;
	uint8_t *ev_op;
	size_t ev_mask;
	uint64_t cur_addr;        /* the access being served: the evictor of what it replaces */
	rp_fm_op cur_op;
	rp_fm_evict ev[RP_FM_MAX_UNITS];   /* the last access's misses on evicted lines */
	size_t nev;
	/* rp_fm_window's tally, per set (cache: nsets; art: 1): the stall of its misses (counted
	 * and all) and whether one evicted a line; nothing before the first window */
	int windowed, warm;
	uint64_t window_clock;    /* the clock at the first window: lines not used since (the boot
				     copy's) leave without crowding a set */
	uint64_t *set_counted, *set_all;
	uint8_t *set_evicted;
	int evicting;             /* the last lru() miss replaced a line used since the first window */
	/* rp_fm_first_touch: the lines ever missed (line+1, open addressing, sized up front), and
	 * the stall of each one's first miss, counted and all */
	uint64_t *touched;
	size_t touched_mask, ntouched;
	uint64_t first_counted, first_all;
};

typedef struct preset {
	const char *name;
	unsigned size, ways, line, penalty, dcache;
} preset;

/* docs/cost-models.md: where each figure comes from. */
static const preset presets[] = {
	{ "rp2040", 16384, 2, 8, 56, 1 },   /* RP2040 datasheet 2.6.3.1; 8-byte line over QSPI at clk_sys/2 */
	{ "fe310", 16384, 2, 32, 168, 0 },  /* FE310-G002 manual 3.1.2 (E31 I-cache); loads bypass it */
	{ "esp32", 32768, 2, 32, 164, 1 },  /* ESP32 TRM 3.3.2 (flash cache per CPU), QIO 80 MHz at 160 MHz */
};

static int is_pow2(unsigned v)
{
	return v && !(v & (v - 1));
}

static int say(char *why, size_t len, const char *spec, const char *what)
{
	if (why && len)
		snprintf(why, len, "flash model '%s': %s", spec, what);
	return -1;
}

/* "k=v" or a bare number (the first value of ws: and art:, their wait states). */
static int set_param(rp_fm_cfg *c, const char *k, size_t klen, unsigned long v, char *why, size_t len, const char *spec)
{
#define KEY(s) (klen == sizeof(s) - 1 && memcmp(k, s, klen) == 0)
	if (KEY("ws") && c->kind != RP_FM_CACHE)
		c->ws = (unsigned)v;
	else if (KEY("width") && c->kind == RP_FM_WS)
		c->width = (unsigned)v;
	else if (KEY("prefetch") && c->kind != RP_FM_CACHE && v <= 1)
		c->prefetch = (unsigned)v;
	else if (KEY("line") && c->kind != RP_FM_WS)
		c->line = (unsigned)v;
	else if (KEY("lines") && c->kind == RP_FM_ART)
		c->lines = (unsigned)v;
	else if (KEY("dlines") && c->kind == RP_FM_ART)
		c->dlines = (unsigned)v;
	else if (KEY("size") && c->kind == RP_FM_CACHE)
		c->size = (unsigned)v;
	else if (KEY("ways") && c->kind == RP_FM_CACHE)
		c->ways = (unsigned)v;
	else if (KEY("penalty") && c->kind == RP_FM_CACHE)
		c->penalty = (unsigned)v;
	else if (KEY("dcache") && c->kind == RP_FM_CACHE && v <= 1)
		c->dcache = (unsigned)v;
	else {
		char w[96];
		snprintf(w, sizeof(w), "'%.*s' is not a parameter of this model (or out of range)", (int)klen, k);
		return say(why, len, spec, w);
	}
	return 0;
#undef KEY
}

static int check(const rp_fm_cfg *c, char *why, size_t len, const char *spec)
{
	if (c->ws > 1000 || c->penalty > 100000)
		return say(why, len, spec, "wait states above 1000 or a penalty above 100000 cycles");
	if (c->kind == RP_FM_WS && (!is_pow2(c->width) || c->width > 64))
		return say(why, len, spec, "width must be a power of two from 1 to 64 bytes");
	if (c->kind != RP_FM_WS && (!is_pow2(c->line) || c->line < 2 || c->line > 256))
		return say(why, len, spec, "line must be a power of two from 2 to 256 bytes");
	if (c->kind == RP_FM_ART && (c->lines < 1 || c->lines > 4096 || c->dlines < 1 || c->dlines > 4096))
		return say(why, len, spec, "lines and dlines must be from 1 to 4096");
	if (c->kind == RP_FM_CACHE && (c->ways < 1 || c->ways > 64 || !c->size || c->size > (64u << 20) ||
				       c->size % (c->line * c->ways)))
		return say(why, len, spec, "size must be a multiple of line x ways (at most 64 MiB), ways from 1 to 64");
	return 0;
}

static int parse_params(rp_fm_cfg *c, const char *p, char *why, size_t len, const char *spec)
{
	int first = 1;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		const char *eq = memchr(p, '=', n);
		const char *val = eq ? eq + 1 : p;
		size_t klen = eq ? (size_t)(eq - p) : 0;
		int bare_preset = 0;
		if (!eq && first && c->kind == RP_FM_CACHE) {
			for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
				if (strlen(presets[i].name) == n && memcmp(presets[i].name, p, n) == 0) {
					const preset *s = &presets[i];
					c->size = s->size, c->ways = s->ways, c->line = s->line;
					c->penalty = s->penalty, c->dcache = s->dcache;
					bare_preset = 1;
				}
			if (!bare_preset)
				return say(why, len, spec, "unknown cache preset (rp2040, fe310, esp32) or missing '='");
		} else {
			char *e;
			if (!eq && !(first && c->kind != RP_FM_CACHE))
				return say(why, len, spec, "expected key=value");
			if (val == p + n || *val < '0' || *val > '9')
				return say(why, len, spec, "a value is not a number");
			unsigned long v = strtoul(val, &e, 10);
			if (e != p + n || v > 1000000000ul)
				return say(why, len, spec, "a value is not a whole number up to 1e9");
			if (set_param(c, eq ? p : "ws", eq ? klen : 2, v, why, len, spec))
				return -1;
		}
		first = 0;
		p += n + (end != NULL);
		if (end && !*p)
			return say(why, len, spec, "trailing comma");
	}
	return 0;
}

int rp_fm_parse(rp_fm_cfg *out, const char *spec, char *why, size_t whylen)
{
	rp_fm_cfg c;
	memset(&c, 0, sizeof(c));
	c.width = 4;
	c.prefetch = 1;
	c.line = 16;
	c.lines = 64;
	c.dlines = 8;
	const char *colon = strchr(spec, ':');
	size_t klen = colon ? (size_t)(colon - spec) : strlen(spec);
	if (klen == 2 && memcmp(spec, "ws", 2) == 0)
		c.kind = RP_FM_WS;
	else if (klen == 3 && memcmp(spec, "art", 3) == 0)
		c.kind = RP_FM_ART;
	else if (klen == 5 && memcmp(spec, "cache", 5) == 0)
		c.kind = RP_FM_CACHE, c.line = 0, c.dcache = 1;
	else
		return say(why, whylen, spec, "unknown kind (ws:N, art:ws=N,..., cache:PRESET or cache:size=..,ways=..,line=..,penalty=..)");
	if (!colon || !colon[1])
		return say(why, whylen, spec, "parameters missing after the kind (e.g. ws:5, cache:rp2040)");
	if (parse_params(&c, colon + 1, why, whylen, spec) || check(&c, why, whylen, spec))
		return -1;
	if (strlen(spec) >= sizeof(c.name))
		return say(why, whylen, spec, "longer than 95 characters");
	snprintf(c.name, sizeof(c.name), "%s", spec);
	*out = c;
	return 0;
}

double rp_fm_fetch_estimate(const rp_fm_cfg *c)
{
	if (c->kind == RP_FM_CACHE)
		return (double)c->penalty / ((double)c->line / 4.0 > 1 ? (double)c->line / 4.0 : 1.0);
	return (double)c->ws;
}

void rp_fm_describe(const rp_fm_cfg *c, char *buf, size_t len)
{
	if (c->kind == RP_FM_WS)
		snprintf(buf, len, "%u wait states", c->ws);
	else if (c->kind == RP_FM_ART)
		snprintf(buf, len, "%u wait states behind a %u x %u-byte accelerator", c->ws, c->lines, c->line);
	else
		snprintf(buf, len, "a %u KiB %u-way XIP cache of %u-byte lines, %u cycles a miss", c->size / 1024, c->ways,
			 c->line, c->penalty);
}

/* The sets the per-set arrays hold: nsets, and one for the ws model (no lines). */
static size_t sets_held(const rp_fm *m)
{
	return m->nsets ? m->nsets : 1;
}

rp_fm *rp_fm_new(const rp_fm_cfg *cfg)
{
	rp_fm *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->c = *cfg;
	if (cfg->kind == RP_FM_CACHE) {
		m->ways = cfg->ways;
		m->nsets = cfg->size / (cfg->line * cfg->ways);
	} else if (cfg->kind == RP_FM_ART) {
		m->ways = cfg->lines;
		m->nsets = 1;
		m->dways = cfg->dlines;
	}
	m->nlines = m->nsets * m->ways > 0 ? m->nsets * m->ways : 1;
	size_t n = m->nlines, dn = m->dways ? m->dways : 1;
	/* 64 records per line held (at most 2^20, 16 MiB): the lines a loop evicts come back
	 * while their records are still there */
	size_t ev = 4096;
	while (ev < (1u << 20) && ev < 64 * n)
		ev *= 2;
	m->ev_mask = ev - 1;
	m->tag = calloc(n, sizeof(uint64_t));
	m->age = calloc(n, sizeof(uint64_t));
	m->dtag = calloc(dn, sizeof(uint64_t));
	m->dage = calloc(dn, sizeof(uint64_t));
	m->ev_line = calloc(ev, sizeof(uint64_t));
	m->ev_by = calloc(ev, sizeof(uint64_t));
	m->ev_op = calloc(ev, 1);
	size_t sets = sets_held(m);
	m->set_counted = calloc(sets, sizeof(uint64_t));
	m->set_all = calloc(sets, sizeof(uint64_t));
	m->set_evicted = calloc(sets, 1);
	if (!m->tag || !m->age || !m->dtag || !m->dage || !m->ev_line || !m->ev_by || !m->ev_op || !m->set_counted ||
	    !m->set_all || !m->set_evicted) {
		rp_fm_free(m);
		return NULL;
	}
	return m;
}

void rp_fm_free(rp_fm *m)
{
	if (!m)
		return;
	free(m->tag);
	free(m->age);
	free(m->dtag);
	free(m->dage);
	free(m->ev_line);
	free(m->ev_by);
	free(m->ev_op);
	free(m->set_counted);
	free(m->set_all);
	free(m->set_evicted);
	free(m->touched);
	free(m);
}

void rp_fm_reset(rp_fm *m)
{
	memset(m->tag, 0, m->nlines * sizeof(uint64_t));
	memset(m->age, 0, m->nlines * sizeof(uint64_t));
	memset(m->dtag, 0, (m->dways ? m->dways : 1) * sizeof(uint64_t));
	memset(m->dage, 0, (m->dways ? m->dways : 1) * sizeof(uint64_t));
	memset(m->ev_line, 0, (m->ev_mask + 1) * sizeof(uint64_t));
	m->nev = 0;
	size_t sets = sets_held(m);
	memset(m->set_counted, 0, sets * sizeof(uint64_t));
	memset(m->set_all, 0, sets * sizeof(uint64_t));
	memset(m->set_evicted, 0, sets);
	if (m->touched)
		memset(m->touched, 0, (m->touched_mask + 1) * sizeof(uint64_t));
	m->ntouched = 0;
	m->first_counted = m->first_all = 0;
	m->windowed = m->warm = 0;
	m->window_clock = 0;
	m->iword = m->dword = m->last_fill = 0;
	m->served = 0;
	m->clock = 0;
	memset(&m->s, 0, sizeof(m->s));
}

static size_t ev_slot(const rp_fm *m, uint64_t line)
{
	return (size_t)((line * 0x9e3779b97f4a7c15ull) >> 32) & m->ev_mask;
}

/* LRU lookup of key in one set of `ways` entries; a miss replaces the invalid or oldest entry,
 * and with record a valid line replaced is recorded as evicted by the access being served
 * (instruction or unified lines; the art's few data lines are not tracked). Returns 1 on a hit. */
static int lru(rp_fm *m, uint64_t *tag, uint64_t *age, size_t ways, uint64_t key, int record)
{
	size_t victim = 0;
	for (size_t w = 0; w < ways; w++) {
		if (tag[w] == key + 1) {
			age[w] = m->clock;
			return 1;
		}
		if (!tag[w] || (tag[victim] && age[w] < age[victim]))
			victim = w;
	}
	m->evicting = tag[victim] && age[victim] >= m->window_clock;
	if (tag[victim] && record) {
		size_t e = ev_slot(m, tag[victim] - 1);
		m->ev_line[e] = tag[victim];
		m->ev_by[e] = m->cur_addr;
		m->ev_op[e] = (uint8_t)m->cur_op;
	}
	tag[victim] = key + 1;
	age[victim] = m->clock;
	return 0;
}

/* A miss of line `key` costing stall: when an access evicted the line earlier, the miss is one
 * that access caused (it would have hit otherwise); the record is used up. */
static uint64_t blame(rp_fm *m, uint64_t key, uint64_t stall)
{
	size_t e = ev_slot(m, key);
	if (m->ev_line[e] != key + 1)
		return stall;
	m->ev_line[e] = 0;
	if (stall && m->nev < RP_FM_MAX_UNITS)
		m->ev[m->nev++] = (rp_fm_evict){ m->ev_by[e], (rp_fm_op)m->ev_op[e], m->cur_addr, m->cur_op, stall };
	return stall;
}

/* A read of fetch word/line `unit` that missed: on demand it costs ws; the unit right after the
 * last one read was being prefetched since then, while `served` fetches ran at one cycle each,
 * so it costs only what is left of its read. */
static uint64_t fetch_read(rp_fm *m, uint64_t unit)
{
	uint64_t stall;
	if (m->c.prefetch && m->last_fill && unit == m->last_fill) {   /* last_fill holds unit+1 of the previous */
		stall = m->c.ws > m->served ? m->c.ws - m->served : 0;
	} else {
		stall = m->c.ws;
		m->s.misses++;
	}
	m->last_fill = unit + 1;
	m->served = 0;
	return stall;
}

/* Whether line key misses for the first time (rp_fm_first_touch), and records that it did. A
 * full table says no: the miss is then scaled like any other. */
static int first_miss(rp_fm *m, uint64_t key)
{
	size_t k = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 24) & m->touched_mask;
	while (m->touched[k] && m->touched[k] != key + 1)
		k = (k + 1) & m->touched_mask;
	if (m->touched[k] || (m->ntouched + 1) * 2 > m->touched_mask + 1)
		return 0;
	m->touched[k] = key + 1;
	m->ntouched++;
	return 1;
}

/* rp_fm_window's tally of a miss of line key in set that lru() has just served. */
static uint64_t tally(rp_fm *m, size_t set, uint64_t key, uint64_t stall)
{
	if (m->touched && first_miss(m, key) && m->windowed) {
		m->first_all += stall;
		if (!m->warm)
			m->first_counted += stall;
	}
	if (m->windowed) {
		m->set_evicted[set] |= (uint8_t)m->evicting;
		m->set_all[set] += stall;
		if (!m->warm)
			m->set_counted[set] += stall;
	}
	return stall;
}

static uint64_t access_unit(rp_fm *m, uint64_t unit, rp_fm_op op)
{
	m->clock++;
	switch (m->c.kind) {
	case RP_FM_WS:
		if (op == RP_FM_READ) {
			if (m->dword == unit + 1)
				return 0;
			m->dword = unit + 1;
			m->s.misses++;
			return m->c.ws;
		}
		if (m->iword == unit + 1)
			return 0;
		m->iword = unit + 1;
		return fetch_read(m, unit);
	case RP_FM_ART:
		if (op == RP_FM_READ) {
			if (lru(m, m->dtag, m->dage, m->dways, unit, 0))
				return 0;
			m->s.misses++;
			return m->c.ws;
		}
		return lru(m, m->tag, m->age, m->ways, unit, 1) ? 0 : tally(m, 0, unit, blame(m, unit, fetch_read(m, unit)));
	default:
		if (op == RP_FM_READ && !m->c.dcache) {
			m->s.misses++;
			return m->c.penalty;
		}
		size_t set = (size_t)(unit % m->nsets);
		if (lru(m, m->tag + set * m->ways, m->age + set * m->ways, m->ways, unit, 1))
			return 0;
		m->s.misses++;
		return tally(m, set, unit, blame(m, unit, m->c.penalty));
	}
}

uint64_t rp_fm_access(rp_fm *m, uint64_t addr, unsigned size, rp_fm_op op)
{
	unsigned gran = m->c.kind == RP_FM_WS ? m->c.width : m->c.line;
	uint64_t first = addr / gran, last = (addr + (size ? size : 1) - 1) / gran, stall = 0;
	m->cur_addr = addr;
	m->cur_op = op;
	m->nev = 0;
	for (uint64_t u = first; u <= last; u++)
		stall += access_unit(m, u, op);
	if (op == RP_FM_FETCH) {
		m->served++;
		m->s.fetches++;
	} else {
		m->s.reads++;
	}
	m->s.stall += stall;
	return stall;
}

/* A run's fetches with their starts known: each fetch reads the units from the first it touches
 * that the run has not touched yet, then counts as served (what rp_fm_access does, less the
 * hits on the unit just read). */
static uint64_t run_by_starts(rp_fm *m, uint64_t addr, uint64_t len, uint64_t starts, unsigned gran)
{
	uint64_t stall = 0, next = addr / gran;
	while (starts) {
		unsigned i = (unsigned)__builtin_ctzll(starts);
		starts &= starts - 1;
		uint64_t end = starts ? 2u * (unsigned)__builtin_ctzll(starts) : len;
		uint64_t last = (addr + (end > 2u * i ? end : 2u * i + 1) - 1) / gran;
		for (uint64_t u = (addr + 2u * i) / gran > next ? (addr + 2u * i) / gran : next; u <= last; u++)
			stall += access_unit(m, u, RP_FM_FETCH);
		next = last + 1 > next ? last + 1 : next;
		m->served++;
	}
	return stall;
}

/* Without the starts: the fetches spread over the units by bytes. */
static uint64_t run_by_bytes(rp_fm *m, uint64_t addr, uint64_t len, uint64_t n, rp_fm_op op, unsigned gran)
{
	uint64_t first = addr / gran, last = (addr + (len ? len : 1) - 1) / gran, stall = 0, counted = 0;
	for (uint64_t u = first; u <= last; u++) {
		stall += access_unit(m, u, op);
		if (op != RP_FM_FETCH)
			continue;
		uint64_t upto = u == last ? len : (u + 1) * gran - addr;
		uint64_t starts = u == last || !len ? n : (uint64_t)((double)n * (double)upto / (double)len);
		m->served += (unsigned)(starts - counted);
		counted = starts;
	}
	return stall;
}

uint64_t rp_fm_access_run(rp_fm *m, uint64_t addr, uint64_t len, uint64_t n, uint64_t starts, rp_fm_op op)
{
	unsigned gran = m->c.kind == RP_FM_WS ? m->c.width : m->c.line;
	if (!n)
		n = 1;
	m->cur_addr = addr;
	m->cur_op = op;
	m->nev = 0;
	uint64_t stall = op == RP_FM_FETCH && starts && len <= RP_FM_RUN_STARTS_BYTES
				 ? run_by_starts(m, addr, len, starts, gran)
				 : run_by_bytes(m, addr, len, n, op, gran);
	*(op == RP_FM_FETCH ? &m->s.fetches : &m->s.reads) += n;
	m->s.stall += stall;
	return stall;
}

void rp_fm_get_stats(const rp_fm *m, rp_fm_stats *out)
{
	*out = m->s;
}

void rp_fm_window(rp_fm *m)
{
	if (!m->windowed)
		m->window_clock = m->clock + 1;   /* the next access's */
	m->windowed = 1;
}

void rp_fm_set_warm(rp_fm *m, int warm)
{
	m->warm = warm;
}

int rp_fm_first_touch(rp_fm *m, size_t lines)
{
	size_t n = 1024;
	while (n < 2 * lines + 2 && n < ((size_t)1 << 26))
		n *= 2;
	free(m->touched);
	if (!(m->touched = calloc(n, sizeof(uint64_t))))
		return -1;
	m->touched_mask = n - 1;
	m->ntouched = 0;
	m->first_counted = m->first_all = 0;
	return 0;
}

void rp_fm_cold(const rp_fm *m, uint64_t *counted, uint64_t *all)
{
	if (m->touched) {
		*counted = m->first_counted;
		*all = m->first_all;
		return;
	}
	*counted = *all = 0;
	for (size_t s = 0; s < sets_held(m); s++) {
		if (!m->set_evicted[s]) {
			*counted += m->set_counted[s];
			*all += m->set_all[s];
		}
	}
}

size_t rp_fm_last_evictions(const rp_fm *m, const rp_fm_evict **out)
{
	*out = m->ev;
	return m->nev;
}
