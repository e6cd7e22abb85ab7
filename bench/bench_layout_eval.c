/* bench_layout_eval.c: the layout pricing's error and speed (layout.h). For a flash-only
 * build's trace, four layouts (as linked; FUNC... moved to RAM; the hot sections ordered by
 * fetches per byte; both, the text aligned to a line) are priced twice, from the compressed runs
 * (rp_layout_price) and by replaying the whole trace access by access (rp_layout_price_full),
 * and the stall cycles, the relative error and the seconds of each are printed.
 *   bench_layout_eval ELF MAP TRACE MODEL [FUNC...]
 * Prints "runs N accesses M (X per run)", then one line per layout, then "max-error E %".
 * With BENCH_LAYOUT_REFERENCE=WHOLE-TRACE (TRACE then a sampled one: the plugin's trace-window=,
 * trace-period=), each layout is also priced from the whole trace's runs, and the sampled
 * trace's error against it printed ("sampled-error E %", the largest).
 *   bench_layout_eval --relinked RELINKED.ELF ELF MAP TRACE MODEL
 * prices the layout the relink made (its addresses read back, those of sections without a
 * function from RELINKED.map when it is there) from the flash-only trace, both ways, and prints
 * "relinked runs C full C": what the trace predicts for the relinked firmware, to compare with
 * the plugin's own count on it (the link model's error left out). With
 * BENCH_LAYOUT_FRAGMENTS=DIR (the relink's flashtext.ld and ramtext.ld) the link model lays out
 * the relink's whole plan, order and alignments included, and its "link model" line compares
 * that with the relink (BENCH_LAYOUT_DEBUG lists the sections it puts elsewhere). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ramplace/image.h"
#include "ramplace/layout.h"
#include "layout/layout_link.h"
#include "ramplace/map.h"
#include "ramplace/util.h"

static int fail(const rp_err *err)
{
	fprintf(stderr, "bench_layout_eval: %s\n", err->msg);
	return 2;
}

static rp_layout_trace *reference;   /* BENCH_LAYOUT_REFERENCE's runs, or NULL */
static double sampled_worst;

/* The same layout priced from the whole trace: the sampled trace's error against it. */
static int against_reference(const rp_layout_link *link, const rp_layout_plan *lp, const rp_fm_cfg *cfg,
			     const rp_layout_cost *sampled, rp_err *err)
{
	rp_layout_addrs a;
	rp_layout_cost whole;
	if (rp_layout_arrange(reference, link, lp, &a, err) || rp_layout_price(reference, link, lp, &a, cfg, &whole, err))
		return -1;
	rp_layout_addrs_release(&a);
	double e = whole.cycles ? 100.0 * ((double)sampled->cycles - (double)whole.cycles) / (double)whole.cycles : 0;
	printf("%34s whole trace %12llu cycles, sampled %+.3f %%\n", "", (unsigned long long)whole.cycles, e);
	sampled_worst = (e < 0 ? -e : e) > sampled_worst ? (e < 0 ? -e : e) : sampled_worst;
	return 0;
}

static double price_both(const rp_image *img, const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
			 const rp_fm_cfg *cfg, const char *trace, const char *what, rp_err *err)
{
	rp_layout_addrs a;
	rp_layout_cost runs, full;
	if (rp_layout_arrange(t, link, lp, &a, err))
		return -1;
	double t0 = rp_seconds();
	if (rp_layout_price(t, link, lp, &a, cfg, &runs, err))
		return -1;
	double t1 = rp_seconds();
	if (rp_layout_price_full(trace, img, t, link, lp, &a, cfg, &full, err))
		return -1;
	double t2 = rp_seconds();
	rp_layout_addrs_release(&a);
	double e = full.cycles ? 100.0 * ((double)runs.cycles - (double)full.cycles) / (double)full.cycles : 0.0;
	printf("%-34s runs %12llu cycles %8.4fs  full %12llu cycles %8.4fs  error %+.4f %%  speed-up %.0fx\n", what,
	       (unsigned long long)runs.cycles, t1 - t0, (unsigned long long)full.cycles, t2 - t1, e,
	       (t2 - t1) / (t1 - t0 > 1e-9 ? t1 - t0 : 1e-9));
	if (reference && against_reference(link, lp, cfg, &runs, err))
		return -1;
	return e < 0 ? -e : e;
}

/* The input sections a fragment the relink used lists, in its order (flashtext.ld or
 * ramtext.ld, matched by the patterns place writes), into *order; from flashtext.ld also the
 * alignments and whether it pads its tail. 0 when the file is absent or lists none. */
typedef struct fragment {
	size_t *order, n;
	uint64_t each_align, text_align;
	int tail;
} fragment;

static int read_fragment(const char *path, const rp_map *map, fragment *fr, rp_err *err)
{
	memset(fr, 0, sizeof(*fr));
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	char **pats = calloc(map->ninsecs + 1, sizeof(char *));
	fr->order = malloc((map->ninsecs + 1) * sizeof(size_t));
	if (!pats || !fr->order) {
		fclose(f);
		free(pats);
		return rp_err_nomem(err, "reading a fragment");
	}
	for (size_t i = 0; i < map->ninsecs; i++) {
		rp_err perr = RP_ERR_INIT;
		if (rp_map_insec_pattern(&pats[i], &map->insecs[i], &perr))
			pats[i] = NULL;
	}
	char line[1024];
	unsigned long long al;
	while (fgets(line, sizeof(line), f)) {
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		p[strcspn(p, "\n")] = '\0';
		int n = 0;
		if (sscanf(p, ". = ALIGN(%llu);%n", &al, &n) == 1 && n > 0) {
			p += n;
			while (*p == ' ')
				p++;
			if (!*p) {
				fr->text_align = al;
				continue;
			}
			fr->each_align = al;
		}
		if (strncmp(p, ". +=", 4) == 0)
			fr->tail = 1;
		for (size_t i = 0; *p && i < map->ninsecs; i++)
			if (pats[i] && strcmp(pats[i], p) == 0) {
				fr->order[fr->n++] = i;
				break;
			}
	}
	fclose(f);
	for (size_t i = 0; i < map->ninsecs; i++)
		free(pats[i]);
	free(pats);
	return 0;
}

static int relinked_main(int argc, char **argv)
{
	rp_err err = RP_ERR_INIT;
	rp_image *img = NULL, *rel = NULL;
	rp_map *map = NULL;
	rp_layout_trace *t = NULL;
	rp_fm_cfg cfg;
	char why[200];
	if (argc != 7 || rp_fm_parse(&cfg, argv[6], why, sizeof(why))) {
		fprintf(stderr, "usage: bench_layout_eval --relinked RELINKED.ELF ELF MAP TRACE MODEL\n");
		return 2;
	}
	if (rp_image_load(&rel, argv[2], &err) || rp_image_load(&img, argv[3], &err) ||
	    rp_map_load(&map, argv[4], &err) || rp_map_read_alignments(map, 4, &err) || rp_map_read_ids(map, &err) ||
	    rp_layout_trace_load(&t, map, img, argv[5], &err))
		return fail(&err);
	/* the relink's map, beside its ELF (fw.elf: fw.map), places what has no function (strings) */
	rp_map *rel_map = NULL;
	char *rel_map_path = NULL;
	const char *dot = strrchr(argv[2], '.');
	int stem = (int)(dot && !strchr(dot, '/') ? dot - argv[2] : (ptrdiff_t)strlen(argv[2]));
	if (rp_asprintf(&rel_map_path, &err, "%.*s.map", stem, argv[2]))
		return fail(&err);
	if (access(rel_map_path, R_OK) != 0) {   /* CMake's and pico-sdk's fw.elf.map */
		free(rel_map_path);
		if (rp_asprintf(&rel_map_path, &err, "%s.map", argv[2]))
			return fail(&err);
	}
	rp_err map_err = RP_ERR_INIT;
	if (access(rel_map_path, R_OK) == 0 && rp_map_load(&rel_map, rel_map_path, &map_err))
		return fail(&map_err);
	printf("relinked map: %s\n", rel_map ? rel_map_path : "none (sections without a function moved with their output section)");
	free(rel_map_path);
	rp_layout_link *link = NULL;
	rp_layout_addrs a;
	unsigned char *in_ram = calloc(t->npieces + 1, 1);
	if (rp_layout_link_new(&link, img, map, t, ".ramtext", &err) ||
	    rp_layout_addrs_relinked(t, link, img, rel, rel_map, in_ram, &a, &err))
		return fail(&err);
	/* BENCH_LAYOUT_FRAGMENTS=DIR: the relink's flashtext.ld and ramtext.ld, so that the link
	 * model lays out the same plan (its order and alignments; the moved sections in the
	 * fragment's order) and the addresses it gives can be compared with the relink's */
	fragment ft = { 0 }, rt = { 0 };
	const char *frags = getenv("BENCH_LAYOUT_FRAGMENTS");
	if (frags) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/flashtext.ld", frags);
		if (read_fragment(path, map, &ft, &err))
			return fail(&err);
		snprintf(path, sizeof(path), "%s/ramtext.ld", frags);
		if (read_fragment(path, map, &rt, &err))
			return fail(&err);
		printf("fragments: %zu ordered section(s) (aligned to %llu, the text to %llu%s), %zu moved\n", ft.n,
		       (unsigned long long)ft.each_align, (unsigned long long)ft.text_align, ft.tail ? ", a tail pad" : "",
		       rt.n);
	}
	rp_layout_plan lp = { in_ram, ft.order, ft.n, ft.each_align, ft.text_align, ft.tail ? cfg.line : 0,
			      rt.n ? rt.order : NULL, rt.n };
	rp_layout_cost runs, full;
	if (rp_layout_price(t, link, &lp, &a, &cfg, &runs, &err) ||
	    rp_layout_price_full(argv[5], img, t, link, &lp, &a, &cfg, &full, &err))
		return fail(&err);
	rp_layout_addrs model;   /* the link model's addresses for the same RAM set */
	rp_layout_cost modeled;
	if (rp_layout_arrange(t, link, &lp, &model, &err) || rp_layout_price(t, link, &lp, &model, &cfg, &modeled, &err))
		return fail(&err);
	/* veneers elsewhere, and those in another slot of their block (ld's stub order; a block
	 * shifted whole by a section before it counts only in the first) */
	size_t wrong = 0, hot_wrong = 0, veneers_wrong = 0, slots_wrong = 0;
	if (model.nveneers != a.nveneers)   /* one side's extras, each wrong */
		veneers_wrong = slots_wrong = model.nveneers > a.nveneers ? model.nveneers - a.nveneers : a.nveneers - model.nveneers;
	for (size_t k = 0, from = 0; k < model.nveneers && k < a.nveneers; k++) {
		veneers_wrong += model.veneer_addr[k] != a.veneer_addr[k] || model.veneer_key[k] != a.veneer_key[k];
		if (k && model.veneer_key[k] >> 32 != model.veneer_key[k - 1] >> 32)
			from = k;   /* the first of its group */
		uint64_t model_base = UINT64_MAX, relinked_base = UINT64_MAX;
		for (size_t j = from; j < model.nveneers && j < a.nveneers && model.veneer_key[j] >> 32 == model.veneer_key[k] >> 32; j++) {
			model_base = model.veneer_addr[j] < model_base ? model.veneer_addr[j] : model_base;
			relinked_base = a.veneer_addr[j] < relinked_base ? a.veneer_addr[j] : relinked_base;
		}
		slots_wrong += model.veneer_addr[k] - model_base != a.veneer_addr[k] - relinked_base ||
			       model.veneer_key[k] != a.veneer_key[k];
	}
	for (size_t k = 0; getenv("BENCH_LAYOUT_DEBUG") && k < model.nveneers; k++) {
		uint32_t callee = (uint32_t)model.veneer_key[k];
		size_t g = (size_t)(model.veneer_key[k] >> 32), to = (size_t)(link->callees[callee].at >> 32);
		fprintf(stderr, "veneer: from %s's group (%s) to %s+0x%x: model %llx relinked %llx\n", map->insecs[g].name,
			map->insecs[g].outsec ? map->insecs[g].outsec : "?", map->insecs[to].name,
			(unsigned)link->callees[callee].at, (unsigned long long)model.veneer_addr[k],
			(unsigned long long)a.veneer_addr[k]);
	}
	const char *debug = getenv("BENCH_LAYOUT_DEBUG");   /* "all": every section, accessed or not */
	size_t shown = debug && strcmp(debug, "all") == 0 ? SIZE_MAX : 10;
	for (size_t i = 0; i < t->npieces; i++)
		if (!in_ram[i] && model.addr[i] != a.addr[i] && (t->piece_fetches[i] || t->piece_reads[i])) {
			wrong++;
			if (debug && hot_wrong++ < shown)
				fprintf(stderr, "%s %s: model %llx relinked %llx\n", map->insecs[i].file, map->insecs[i].name,
					(unsigned long long)model.addr[i], (unsigned long long)a.addr[i]);
		} else if (!in_ram[i] && model.addr[i] != a.addr[i] && debug && strcmp(debug, "all") == 0) {
			if (hot_wrong++ < shown)
				fprintf(stderr, "%s %s: model %llx relinked %llx\n", map->insecs[i].file, map->insecs[i].name,
					(unsigned long long)model.addr[i], (unsigned long long)a.addr[i]);
		}
	const char *around = getenv("BENCH_LAYOUT_AROUND");   /* LO-HI (hex): every section the model lays there */
	unsigned long long lo = 0, hi = 0;
	if (around && sscanf(around, "%llx-%llx", &lo, &hi) == 2)
		for (size_t i = 0; i < t->npieces; i++)
			if (!in_ram[i] && model.addr[i] >= lo && model.addr[i] < hi)
				fprintf(stderr, "around: %s %s size %llu: model %llx relinked %llx\n", map->insecs[i].file,
					map->insecs[i].name, (unsigned long long)map->insecs[i].size,
					(unsigned long long)model.addr[i], (unsigned long long)a.addr[i]);
	printf("link model: %llu cycles (stall %llu), %zu accessed section(s) and %zu of %zu veneer(s) at another "
	       "address than the relink's, %zu in another slot of their block; load image 0x%llx+%llu (relink 0x%llx+%llu)\n",
	       (unsigned long long)modeled.cycles, (unsigned long long)modeled.stall, wrong, veneers_wrong, model.nveneers,
	       slots_wrong, (unsigned long long)model.load_addr,
	       (unsigned long long)model.load_size, (unsigned long long)a.load_addr, (unsigned long long)a.load_size);
	rp_layout_addrs_release(&model);
	printf("relinked runs %llu full %llu (stall %llu, veneer and copy instructions %llu)\n",
	       (unsigned long long)runs.cycles, (unsigned long long)full.cycles, (unsigned long long)full.stall,
	       (unsigned long long)full.extra_insns);
	rp_layout_addrs_release(&a);
	rp_layout_link_free(link);
	free(ft.order);
	free(rt.order);
	free(in_ram);
	rp_layout_trace_free(t);
	rp_map_free(map);
	rp_map_free(rel_map);
	rp_image_free(img);
	rp_image_free(rel);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--relinked") == 0)
		return relinked_main(argc, argv);
	if (argc < 5) {
		fprintf(stderr, "usage: bench_layout_eval ELF MAP TRACE MODEL [FUNC...]\n");
		return 2;
	}
	rp_err err = RP_ERR_INIT;
	rp_image *img = NULL;
	rp_map *map = NULL;
	rp_layout_trace *t = NULL;
	rp_fm_cfg cfg;
	char why[200];
	if (rp_fm_parse(&cfg, argv[4], why, sizeof(why))) {
		fprintf(stderr, "bench_layout_eval: %s\n", why);
		return 2;
	}
	if (rp_image_load(&img, argv[1], &err) || rp_map_load(&map, argv[2], &err) ||
	    rp_map_read_alignments(map, 4, &err) || rp_map_read_ids(map, &err) || rp_layout_trace_load(&t, map, img, argv[3], &err))
		return fail(&err);
	const char *ref = getenv("BENCH_LAYOUT_REFERENCE");
	if (ref && *ref && rp_layout_trace_load(&reference, map, img, ref, &err))
		return fail(&err);
	rp_layout_link *link = NULL;
	if (rp_layout_link_new(&link, img, map, t, ".ramtext", &err))
		return fail(&err);
	if (t->windows)
		printf("sampled: %llu windows, %.1f %% of the accesses (%.1f %% counted, the rest warm-up)\n",
		       (unsigned long long)t->windows, 100.0 * (double)t->accesses / (double)t->total, 100.0 / t->scale);
	printf("runs %zu accesses %llu (%.1f per run), text %s, load image %s%llx\n", t->nruns,
	       (unsigned long long)t->accesses, (double)t->accesses / (double)(t->nruns ? t->nruns : 1), link->text_outsec,
	       link->ram_lma_known ? "at 0x" : "after flash, ", (unsigned long long)link->ram_lma);
	size_t rvc_wrong, rvc_checked;
	rp_layout_rvc_check(link, &rvc_wrong, &rvc_checked);
	if (rvc_checked)
		printf("rvc: %zu of %zu narrowable calls sized otherwise than the linker did\n", rvc_wrong, rvc_checked);
	unsigned char *in_ram = calloc(t->npieces + 1, 1);
	size_t *hot = malloc((t->npieces + 1) * sizeof(size_t)), nhot = 0;
	for (int i = 5; i < argc; i++) {
		const rp_func *f = rp_image_func_by_name(img, argv[i], NULL);
		const rp_map_insec *s = f ? rp_map_insec_at(map, f->addr) : NULL;
		if (s)
			in_ram[s - map->insecs] = 1;
		else
			fprintf(stderr, "bench_layout_eval: %s: no such function in a section of the map\n", argv[i]);
	}
	for (size_t i = 0; i < t->npieces; i++)   /* hottest first: a plain ranking is enough here */
		if (t->piece_fetches[i] && !in_ram[i] && strcmp(map->insecs[i].outsec, link->text_outsec) == 0)
			hot[nhot++] = i;
	for (size_t i = 1; i < nhot; i++)
		for (size_t j = i; j > 0 && t->piece_fetches[hot[j]] * map->insecs[hot[j - 1]].size >
						t->piece_fetches[hot[j - 1]] * map->insecs[hot[j]].size; j--) {
			size_t x = hot[j];
			hot[j] = hot[j - 1], hot[j - 1] = x;
		}
	unsigned line = cfg.kind == RP_FM_WS ? cfg.width : cfg.line;
	rp_layout_plan plans[4] = { { NULL, NULL, 0, 0, 0, 0, NULL, 0 }, { in_ram, NULL, 0, 0, 0, 0, NULL, 0 },
				    { NULL, hot, nhot, 0, 0, 0, NULL, 0 }, { in_ram, hot, nhot, 0, line, line, NULL, 0 } };
	const char *names[4] = { "as linked", "functions moved to RAM", "hot sections ordered", "moved, ordered, aligned" };
	double worst = 0;
	for (int k = 0; k < 4; k++) {
		double e = price_both(img, t, link, &plans[k], &cfg, argv[3], names[k], &err);
		if (e < 0)
			return fail(&err);
		worst = e > worst ? e : worst;
	}
	printf("max-error %.4f %%\n", worst);
	if (reference)
		printf("sampled-error %.3f %%\n", sampled_worst);
	rp_layout_trace_free(reference);
	free(in_ram);
	free(hot);
	rp_layout_link_free(link);
	rp_layout_trace_free(t);
	rp_map_free(map);
	rp_image_free(img);
	return 0;
}
