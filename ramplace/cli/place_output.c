/* place_output.c: the lines `ramplace place` prints (place_output.h): on stdout the table of
 * the functions moved per region and the report under it (notes, what stayed in flash and why,
 * the solver and its gap, samples in RAM, cycles saved, files written); on stderr the notes on
 * guessed input sections and the profiled functions the ELF lost. Owns nothing and decides
 * nothing: it prints a finished placement. The workload: tens to a few hundred moved functions,
 * printed in the plan's order. */
#include <math.h>
#include <stdio.h>

#include "cli.h"
#include "place_output.h"

void place_print_vanished(const rp_staleness *st, const place_args *a)
{
	char names[4096] = "";
	size_t len = 0;
	for (size_t i = 0; i < st->nvanished && i < 20 && len < sizeof(names); i++) {
		const rp_stale_func *v = &st->vanished[i];
		int n = snprintf(names + len, sizeof(names) - len, "%s %s%s%s%s (%llu)%s%s%s", i ? "," : "", v->name,
				 v->file ? " (" : "", v->file ? v->file : "", v->file ? ")" : "",
				 (unsigned long long)v->samples, v->now ? " now " : "", v->now ? v->now : "", v->now ? "?" : "");
		len += n > 0 ? (size_t)n : 0;
	}
	cli_note("ramplace: warning: %zu profiled function(s) with %llu samples are not in %s (removed, inlined or "
		 "renamed since):%s%s", st->nvanished, (unsigned long long)(st->profiled - st->mapped), a->elf_path, names,
		 st->nvanished > 20 ? ", ..." : "");
}

/* Profiled functions missing from the ELF are named by assess_profile, before placing. */
void place_print_warnings(const rp_placement *p)
{
	if (!p->guessed_patterns)
		return;
	uint64_t total = p->plan->total_samples;
	fprintf(stderr, "ramplace: note: no --map: input sections are guessed from function names (*(.text.NAME), "
			"*(.text.*.NAME)) and sizes from symbols. The link map (-Wl,-Map=fw.map, then --map fw.map) "
			"gives exact archive members (libc.a:lib_a-memcpy.o), sections such as .text.startup.main, "
			"sizes with each section's alignment, and tells statics of the same name in two files apart "
			"(without it they move together)\n");
	if (p->nunguessed)
		cli_note("ramplace: note: %zu sampled function(s) with %.1f%% of the samples stay in flash: "
				"no name pattern can move them (compiled without -ffunction-sections, e.g. library code; "
				"the hottest: %s); --map moves them",
			p->nunguessed, total ? 100.0 * (double)p->unguessed_samples / (double)total : 0.0, p->unguessed_top);
	if (p->guess_unverified && p->plan->nunits && !p->nunverified)
		fprintf(stderr, "ramplace: warning: no --map, and no debug information for some moved functions: nothing tells whether they have "
				"a section of their own; 'ramplace check' after linking names those that did not move\n");
	if (p->nunverified) {
		size_t shown = p->nunverified < sizeof(p->unverified) / sizeof(p->unverified[0])
				       ? p->nunverified : sizeof(p->unverified) / sizeof(p->unverified[0]);
		fprintf(stderr, "ramplace: warning: no --map, and no debug information for %zu moved function(s): nothing tells whether they have "
				"a section of their own; 'ramplace check' after linking names those that did not move:", p->nunverified);
		for (size_t i = 0; i < shown; i++)
			fprintf(stderr, " %s", p->unverified[i]);
		fprintf(stderr, "%s\n", shown < p->nunverified ? " ..." : "");
	}
}

static void print_plan(const rp_placement *p, const rp_plan *plan)
{
	printf("moved %zu of %zu candidate function(s) to %s: %llu of %llu bytes (%llu code + %llu veneer(s))\n",
	       plan->nunits, p->ncandidates, plan->outsec,
	       (unsigned long long)(plan->used + plan->veneer_reserve), (unsigned long long)plan->budget,
	       (unsigned long long)plan->used, (unsigned long long)plan->nveneers);
	printf("%10s %7s %7s  %s\n", "samples", "share", "bytes", "function");
	for (size_t i = 0; i < plan->nunits; i++) {
		const rp_plan_unit *u = &plan->units[i];
		printf("%10llu %6.2f%% %7llu  %s%s%s%s\n", (unsigned long long)u->samples,
		       plan->total_samples ? 100.0 * (double)u->samples / (double)plan->total_samples : 0.0,
		       (unsigned long long)u->size, u->name, u->file ? " (" : "", u->file ? u->file : "",
		       u->file ? ")" : "");
	}
}

void place_print_report(const rp_placement *p, const place_args *a, int have_profile)
{
	if (!have_profile) {
		printf("no profile yet (%s does not exist): wrote empty fragment(s)", a->db_path);
		for (size_t r = 0; r < p->nplans; r++)
			printf(" %s", a->fragments[r]);
		putchar('\n');
		return;
	}
	uint64_t moved = 0, total = p->plan->total_samples;
	for (size_t r = 0; r < p->nplans; r++) {
		print_plan(p, p->plans[r]);
		moved += p->plans[r]->moved_samples;
	}
	for (size_t i = 0; i < p->nnotes; i++)
		printf("%s\n", p->notes[i]);
	for (size_t i = 0; i < p->nkept; i++)
		printf("kept in flash: %s\n", p->kept[i]);
	if (p->nbelow_share)
		printf("kept in flash: %zu function(s) with %.3f%% of the samples, each below --min-share %g%%: not worth "
		       "a copy at boot and veneers back to flash\n",
		       p->nbelow_share, total ? 100.0 * (double)p->below_share_samples / (double)total : 0.0,
		       100.0 * a->pipe.opts.min_share);
	if (p->solver) {
		if (p->optimal)
			printf("solver: %s, optimal\n", p->solver);
		else if (isinf(p->gap))
			printf("solver: %s, stopped by the %.1f s time limit before the LP bound: the best heuristic placement, no optimality gap known\n",
			       p->solver, a->pipe.opts.time_limit_s);
		else if (p->gap > 0)
			printf("solver: %s, stopped by the %.1f s time limit with an optimality gap of %.3f%%\n", p->solver,
			       a->pipe.opts.time_limit_s, 100.0 * p->gap);
		else
			printf("solver: %s\n", p->solver);
	}
	printf("samples in RAM: %.1f%% of %llu\n", total ? 100.0 * (double)moved / (double)total : 0.0,
	       (unsigned long long)total);
	if (p->have_cycles && !a->pipe.cycles.weigh_cycles)   /* in cycles: place_cycles_print says it */
		printf("expected cycles saved: %.0f of %.0f (%.1f%%) at %g cycles per flash fetch, counting one fetch per sample\n",
		       p->cycles_saved, p->cycles_flash, p->cycles_flash > 0 ? 100.0 * p->cycles_saved / p->cycles_flash : 0.0,
		       a->pipe.opts.cost.flash_fetch_cycles);
	for (size_t r = 0; r < p->nplans; r++)
		printf("wrote %s and %s\n", a->fragments[r], a->plans[r]);
}
