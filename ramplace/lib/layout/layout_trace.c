/* layout_trace.c: the QEMU plugin's access trace (trace=FILE, "F|R hex-addr size" per access)
 * read against a link map and compressed into runs (layout.h). Owns the trace's runs and
 * per-section counts. Workload: a trace of tens of millions of accesses, read once as a stream
 * (never whole into memory); the runs are about a fifth of the accesses (basic blocks and the
 * data reads between them). Every line is outside input: a bad one fails naming file and line. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "layout_internal.h"
#include "ramplace/util.h"

/* The hex address and decimal size of "F 2b4c 2" (an access, size 1 to 16) or "f 2b4c 64" (what
 * the flash held before a window: granules of a fetch or read, up to 4,096 bytes, *warm set);
 * 0, or -1 when the line is not one. */
static int parse_line(const char *p, size_t n, rp_fm_op *op, uint64_t *addr, unsigned *size, int *warm)
{
	if (n < 5 || (p[0] != 'F' && p[0] != 'R' && p[0] != 'f' && p[0] != 'r') || p[1] != ' ')
		return -1;
	*warm = p[0] == 'f' || p[0] == 'r';
	*op = p[0] == 'F' || p[0] == 'f' ? RP_FM_FETCH : RP_FM_READ;
	size_t i = 2, digits = 0;
	uint64_t a = 0;
	for (int d; i < n && (d = rp_hex_digit(p[i])) >= 0; i++, digits++)
		a = a << 4 | (uint64_t)d;
	if (!digits || digits > 16 || i >= n || p[i] != ' ')
		return -1;
	unsigned s = 0;
	for (i++, digits = 0; i < n && p[i] >= '0' && p[i] <= '9' && digits < 5; i++, digits++)
		s = s * 10 + (unsigned)(p[i] - '0');
	if (!digits || i != n || s < 1 || s > (*warm ? 4096u : 16u))
		return -1;
	*addr = a, *size = s;
	return 0;
}

/* The input section holding addr: the last one found first (a run stays in one), else the map's
 * binary search; map->ninsecs when none. */
static size_t piece_of(const rp_map *map, uint64_t addr, size_t last)
{
	if (last < map->ninsecs && addr - map->insecs[last].addr < map->insecs[last].size)
		return last;
	const rp_map_insec *s = rp_map_insec_at(map, addr);
	return s ? (size_t)(s - map->insecs) : map->ninsecs;
}

/* A function starts at addr (a call lands there; a return never does). */
static int is_entry(const rp_image *img, uint64_t addr)
{
	const rp_func *f = img ? rp_image_func_at(img, addr) : NULL;
	return f && f->addr == addr;
}

/* The decimal count after prefix in text (all of it), or -1. */
static int comment_count(const char *p, size_t n, const char *prefix, uint64_t *out)
{
	size_t k = strlen(prefix), digits = 0;
	uint64_t v = 0;
	if (n <= k || memcmp(p, prefix, k) != 0)
		return -1;
	for (size_t i = k; i < n; i++, digits++) {
		if (p[i] < '0' || p[i] > '9' || v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(p[i] - '0');
	}
	*out = v;
	return digits ? 0 : -1;
}

/* "# window at N", "# footprint" or "# accesses N" into *meta; -1 for any other comment.
 * *snapshot: what the flash held may follow (the first two). */
static int parse_comment(const char *p, size_t n, lt_meta *meta, int *window, int *snapshot)
{
	uint64_t v;
	if (comment_count(p, n, "# window at ", &v) == 0) {
		meta->windows++;
		*window = *snapshot = 1;
		return 0;
	}
	if (n == 11 && memcmp(p, "# footprint", 11) == 0) {
		*snapshot = 1;
		meta->footprint = 1;
		return 0;
	}
	if (comment_count(p, n, "# accesses ", &v) == 0) {
		meta->total = v;
		return 0;
	}
	return -1;
}

/* A warm line's granules, one access per input section they lie in: the plugin merges what
 * follows in flash and in time, which can run from one section into the next (a block that
 * calls the function after it), and the sections may part in the layout priced. */
static int visit_warm(const rp_map *map, lt_access *a, uint64_t addr, size_t *last, lt_visit visit, void *ctx,
		      rp_err *err)
{
	uint64_t end = addr + a->size;
	int window = a->window;
	while (addr < end) {
		size_t i = piece_of(map, addr, *last);
		uint64_t upto = end;
		if (i < map->ninsecs) {
			uint64_t piece_end = map->insecs[i].addr + map->insecs[i].size;
			upto = piece_end < end ? piece_end : end;
		} else {   /* outside the map: up to the next section */
			const rp_map_insec *next = rp_map_insec_after(map, addr);
			if (next && next->addr < end)
				upto = next->addr;
		}
		*last = i;
		lt_access part = *a;
		part.window = window;
		part.piece = (uint32_t)i;
		part.off = (uint32_t)(i < map->ninsecs ? addr - map->insecs[i].addr : addr);
		part.size = (uint32_t)(upto - addr);
		int rc = visit(ctx, &part, err);
		if (rc)
			return rc;
		window = 0;
		addr = upto;
	}
	return 0;
}

int lt_walk(FILE *f, const char *name, const rp_map *map, const rp_image *img, lt_visit visit, void *ctx,
	    lt_meta *meta, rp_err *err)
{
	int window = 0, snapshot = 0;   /* snapshot: warm lines may come (right after the comment) */
	memset(meta, 0, sizeof(*meta));
	char *buf = NULL;
	size_t cap = 0, lineno = 0, last = SIZE_MAX;
	uint32_t last_fetch_piece = UINT32_MAX;
	ssize_t got;
	int rc = 0;
	errno = 0;
	while (!rc && (got = getline(&buf, &cap, f)) >= 0) {
		size_t n = (size_t)got;
		lineno++;
		while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
			n--;
		if (n && buf[0] == '#') {
			snapshot = 0;
			if (parse_comment(buf, n, meta, &window, &snapshot) == 0) {
				last_fetch_piece = UINT32_MAX;   /* no call is seen across a gap */
				continue;
			}
			rc = rp_err_set(err, RP_EINPUT, "%s:%zu: a comment the plugin does not write (\"# window at N\", "
					"\"# footprint\", \"# accesses N\")", name, lineno);
			break;
		}
		lt_access a = { .from = UINT32_MAX, .window = window };
		window = 0;
		uint64_t addr;
		if (parse_line(buf, n, &a.op, &addr, &a.size, &a.warm) || addr > UINT32_MAX - (a.warm ? 4096u : 16u)) {
			rc = rp_err_set(err, RP_EINPUT, "%s:%zu: not an access of the plugin's trace (\"F|R hex-address size\", "
					"a 32-bit address, size 1 to 16; \"f|r hex-address bytes\" up to 4096)", name, lineno);
			break;
		}
		if (a.warm && !snapshot) {
			rc = rp_err_set(err, RP_EINPUT, "%s:%zu: what the flash held (\"f|r\" lines) comes only right after "
					"\"# window at N\" or \"# footprint\"", name, lineno);
			break;
		}
		if (!a.warm && meta->footprint) {
			rc = rp_err_set(err, RP_EINPUT, "%s:%zu: an access after \"# footprint\" (the plugin writes only what "
					"the flash held there, then \"# accesses N\")", name, lineno);
			break;
		}
		snapshot = a.warm;
		meta->warm_lines += (uint64_t)a.warm;
		if (a.warm) {
			rc = visit_warm(map, &a, addr, &last, visit, ctx, err);
			continue;
		}
		last = piece_of(map, addr, last);
		a.piece = (uint32_t)last;
		a.off = (uint32_t)(last < map->ninsecs ? addr - map->insecs[last].addr : addr);
		if (a.op == RP_FM_FETCH) {
			if (last < map->ninsecs && last_fetch_piece != a.piece && (a.off == 0 || is_entry(img, addr)))
				a.from = last_fetch_piece;
			last_fetch_piece = a.piece;
		}
		rc = visit(ctx, &a, err);
	}
	if (!rc && ferror(f))
		rc = rp_err_set(err, RP_EIO, "%s: read error after line %zu: %s", name, lineno, strerror(errno));
	free(buf);
	return rc;
}

/* The loader's visitor: merges an access into the current run or starts the next. */
typedef struct loader {
	rp_layout_trace *t;
	size_t cap;
	rp_layout_run cur;
	int have;
	size_t *window_first;  /* the first run of each window */
	size_t nwindows, wcap;
} loader;

static int push_run(loader *l, rp_err *err)
{
	rp_layout_trace *t = l->t;
	if (!l->have)
		return 0;
	if (rp_grow((void **)&t->runs, &l->cap, t->nruns + 1, sizeof(*t->runs), err))
		return err->code;
	t->runs[t->nruns++] = l->cur;
	l->have = 0;
	return 0;
}

static int load_visit(void *ctx, const lt_access *a, rp_err *err)
{
	loader *l = ctx;
	rp_layout_trace *t = l->t;
	rp_layout_run *c = &l->cur;
	if (!a->warm) {   /* what the flash held is replayed, not counted */
		t->accesses++;
		*(a->op == RP_FM_FETCH ? &t->fetches : &t->reads) += 1;
		if (a->piece < t->npieces)
			*(a->op == RP_FM_FETCH ? &t->piece_fetches[a->piece] : &t->piece_reads[a->piece]) += 1;
		else
			t->outside++;
	}
	/* a warm line stays a run of its own: the full replay feeds it, and its calls' veneers,
	 * line by line */
	if (l->have && !a->window && !a->warm && !c->warm && c->op == a->op && c->piece == a->piece &&
	    a->from == UINT32_MAX && c->n < UINT32_MAX && a->off == c->off + c->len && c->len <= UINT32_MAX - a->size) {
		if (c->op == RP_FM_FETCH)   /* where each fetch starts, while the mask holds the run (once
					       lost, lost for good) */
			c->starts = c->starts && c->len + a->size <= RP_FM_RUN_STARTS_BYTES && c->len % 2 == 0
					    ? c->starts | 1ull << (c->len / 2) : 0;
		c->len += a->size;
		c->n++;
		return 0;
	}
	if (push_run(l, err))
		return err->code;
	if (a->window) {
		if (rp_grow((void **)&l->window_first, &l->wcap, l->nwindows + 1, sizeof(size_t), err))
			return err->code;
		l->window_first[l->nwindows++] = t->nruns;
	}
	/* a warm line's bytes are granules, not fetches: spread by bytes (starts 0) */
	*c = (rp_layout_run){ a->piece, a->off, a->size, 1, a->op == RP_FM_FETCH && !a->warm, a->from, (uint8_t)a->op,
			      (uint8_t)(a->warm != 0), (uint8_t)(a->window != 0) };
	l->have = 1;
	return 0;
}

/* Marks each window's warm-up (at most RP_LAYOUT_WARMUP of its accesses, in whole runs) and
 * returns the accesses left to count. */
static uint64_t mark_warmup(rp_layout_trace *t, const loader *l)
{
	uint64_t warm_all = 0;
	for (size_t w = 0; w < l->nwindows; w++) {
		size_t end = w + 1 < l->nwindows ? l->window_first[w + 1] : t->nruns;
		uint64_t n = 0, warm = 0;
		for (size_t r = l->window_first[w]; r < end; r++)
			n += t->runs[r].n;
		for (size_t r = l->window_first[w]; r < end && (double)(warm + t->runs[r].n) <= RP_LAYOUT_WARMUP * (double)n;
		     r++) {
			t->runs[r].warm = 1;
			warm += t->runs[r].n;
		}
		t->window_warm[w] = warm;
		warm_all += warm;
	}
	return t->accesses - warm_all;
}

static int load_stream(rp_layout_trace **out, const rp_map *map, const rp_image *img, FILE *f, const char *name,
		       rp_err *err)
{
	rp_layout_trace *t = calloc(1, sizeof(*t));
	if (!t)
		return rp_err_nomem(err, "reading a trace");
	t->map = map;
	t->npieces = map->ninsecs;
	t->piece_fetches = calloc(t->npieces + 1, sizeof(uint64_t));
	t->piece_reads = calloc(t->npieces + 1, sizeof(uint64_t));
	loader l = { .t = t };
	lt_meta meta;
	int rc = !t->piece_fetches || !t->piece_reads ? rp_err_nomem(err, "reading a trace") : 0;
	if (!rc)
		rc = lt_walk(f, name, map, img, load_visit, &l, &meta, err);
	if (!rc)
		rc = push_run(&l, err);
	if (!rc && !t->accesses)
		rc = rp_err_set(err, RP_EINPUT, "%s: the trace holds no access (the plugin's trace=FILE with model=SPEC)", name);
	if (!rc && meta.windows && meta.total < t->accesses)
		rc = rp_err_set(err, RP_EINPUT, "%s: a sampled trace (\"# window\" lines) that does not end with \"# accesses N\" "
				"for at least its %llu accesses: cut short?", name, (unsigned long long)t->accesses);
	/* a window of one access in 2^20 is already far sparser than any trace worth pricing */
	if (!rc && meta.windows && meta.total / t->accesses > (1u << 20))
		rc = rp_err_set(err, RP_EINPUT, "%s: \"# accesses %llu\" is more than 2^20 times the %llu accesses the trace "
				"holds", name, (unsigned long long)meta.total, (unsigned long long)t->accesses);
	if (!rc && l.nwindows && !(t->window_warm = calloc(l.nwindows, sizeof(uint64_t))))
		rc = rp_err_nomem(err, "reading a trace");
	t->nwindow_warm = t->window_warm ? l.nwindows : 0;
	if (!rc && meta.warm_lines && !meta.windows)
		rc = rp_err_set(err, RP_EINPUT, "%s: what the flash held (\"f|r\" lines) in a trace without windows", name);
	if (!rc) {
		/* windows that start from what the flash held need no warm-up of their own */
		t->warmed = meta.warm_lines > 0;
		uint64_t counted = l.nwindows && !t->warmed ? mark_warmup(t, &l) : t->accesses;
		t->windows = meta.windows;
		t->total = meta.windows ? meta.total : t->accesses;
		t->scale = meta.windows && counted ? (double)meta.total / (double)counted : 1.0;
	}
	free(l.window_first);
	if (rc) {
		rp_layout_trace_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

int rp_layout_trace_load(rp_layout_trace **out, const rp_map *map, const rp_image *img, const char *path,
			 rp_err *err)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return rp_err_set(err, RP_EINPUT, "%s: %s", path, strerror(errno));
	int rc = load_stream(out, map, img, f, path, err);
	fclose(f);
	return rc;
}

int rp_layout_trace_parse(rp_layout_trace **out, const rp_map *map, const rp_image *img, const char *text, size_t len,
			  const char *name, rp_err *err)
{
	if (!len)
		return rp_err_set(err, RP_EINPUT, "%s: the trace holds no access", name);
	FILE *f = fmemopen((void *)text, len, "r");
	if (!f)
		return rp_err_nomem(err, "reading a trace");
	int rc = load_stream(out, map, img, f, name, err);
	fclose(f);
	return rc;
}

void rp_layout_trace_free(rp_layout_trace *t)
{
	if (!t)
		return;
	free(t->runs);
	free(t->piece_fetches);
	free(t->piece_reads);
	free(t->window_warm);
	free(t);
}
