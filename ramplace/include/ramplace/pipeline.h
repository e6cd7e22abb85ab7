/* pipeline.h: one placement from files to a result (ramplace/lib/pipeline/): the ELF, the map
 * and profile.db loaded once, the profile's staleness judged, the weights in the chosen
 * currency (samples, or stall cycles under a flash model), code and read-only data placed
 * together, and the modeled cycles of the profiled workload before and after. `ramplace place`
 * is this plus option parsing and printing; a test or a build-system module calling the library
 * gets the same plan as the command. Writing the fragments and plans is rp_pipeline_write. */
#ifndef RAMPLACE_PIPELINE_H
#define RAMPLACE_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "ramplace/config.h"
#include "ramplace/curve.h"
#include "ramplace/cycles.h"
#include "ramplace/dataobjs.h"
#include "ramplace/error.h"
#include "ramplace/image.h"
#include "ramplace/layout.h"
#include "ramplace/map.h"
#include "ramplace/place_data.h"
#include "ramplace/placement.h"
#include "ramplace/profiledb.h"
#include "ramplace/staleness.h"

/* Placing in cycles: --flash-model or cost.model, or the stall cycles the profile holds. */
typedef struct rp_pipe_cycles {
	rp_fm_cfg model;          /* the model given, else cost.model (with ranges: the first one's) */
	int have_model;
	int option_given;         /* a model came from the caller's options (it wins over the config) */
	rp_flash_cfg opt_flash[RP_FM_MAX_RANGES];   /* SPEC@LO-HI | SPEC@MEMORY options (owned) */
	size_t nopt_flash;
	const rp_flash_cfg *cfg_flash;   /* cost.flash (the config's), unless options name models */
	size_t ncfg_flash;
	const rp_map *map;        /* the link map, to resolve MEMORY names; NULL without one */
	rp_fm_map models;         /* the models by range, resolved when the weights are made */
	rp_db_costs costs;        /* the profile's stall cycles (owned) */
	rp_cycles cy;             /* owned */
	int weigh_cycles;         /* the solver maximises cycles saved (weights), not samples */
	int prepared;
	double data_saved;        /* placing in cycles with data: stall cycles the moved data saves */
	double data_stall;        /* its estimated stall cycles, when the profile's stall does not hold them */
} rp_pipe_cycles;

/* A flash model option: SPEC, or repeated SPEC@LO-HI / SPEC@MEMORY (a model per flash).
 * RP_EUSAGE naming --flash-model when SPEC is no model or plain and ranged forms are mixed. */
int rp_pipe_cycles_option(rp_pipe_cycles *pc, const char *spec, rp_err *err);
/* The config's cost.model or cost.flash, unless an option gave a model. */
void rp_pipe_cycles_config(rp_pipe_cycles *pc, const rp_cost_model *cost);

/* What the modeled-cycles line says: the model, the workload's cycles from flash and with the
 * plan, and where the figures come from. */
typedef struct rp_pipe_figures {
	int have;                 /* 0: no profile, nothing modeled */
	char name[128];           /* the model's name */
	const char *qualifier;    /* "", ", the profile's" or ", default" */
	double before, after;     /* cycles of the profiled workload */
	char what[600];           /* the flash: "5 wait states", or each model with its range */
	const char *basis;        /* "stall cycles measured by the QEMU plugin under this model", ... */
	int cache_note;           /* 1: cache models, functions whose misses do not pay for RAM */
	size_t nnot_worth;        /* functions whose stall cycles do not pay for their copy */
	double not_worth_share;   /* their share of the instructions (cache note) */
} rp_pipe_figures;

/* Read-only data placed beside the code (--data): its objects, weights and plan. */
typedef struct rp_pipe_data {
	int enabled;                 /* off by default: see docs/config.md */
	int option_given;            /* --data or --no-data (they win over the config) */
	const char **pin;            /* globs (owned array, borrowed strings) */
	size_t npin;
	char *fragment, *plan;       /* ramdata.ld and its plan beside the first fragment (owned) */
	rp_dataobjs objs;
	double *weights;             /* one per object */
	size_t nweighted;
	const char *db_path;         /* profile.db, for its flash reads per object (borrowed) */
	int64_t run;                 /* of this run only (> 0), or of every run */
	const rp_db_totals *samples; /* the profile's samples, for the proxy (borrowed) */
	char weights_from[160];      /* what the weights are, for the report */
	char weights_in[160];        /* placing in cycles by estimate: the conversion, before that */
	uint64_t read_stall;         /* stall cycles of the profile's data reads, when it has them */
	rp_pipe_cycles *cycles;      /* placing in cycles: data weighs in stall cycles too (borrowed) */
	int in_cycles;               /* the weights are stall cycles saved, not reads */
	rp_data_placement placed;
} rp_pipe_data;

/* Adds a --pin-data glob (borrowed) and turns data placement on. */
int rp_pipe_data_pin(rp_pipe_data *d, const char *glob, rp_err *err);
/* ramplace.yaml's `data: on|off` and `pin-data` under the options: pins add to the options';
 * --data/--no-data win, then `data:`, and pins alone turn data placement on. */
int rp_pipe_data_config(rp_pipe_data *d, const rp_config *cfg, rp_err *err);

/* --trace: the RAM set and the flash order chosen together on the plugin's access trace. */
typedef struct rp_pipe_layout {
	const char *trace_path;      /* in: the trace of the flash-only build (NULL: no layout) */
	int no_order;                /* in: the RAM set only, the link's order kept (--no-order) */
	int done;                    /* out: */
	rp_layout_trace *trace;      /* owned */
	char *ram_outsec;            /* owned: the plan's output section (link borrows it) */
	rp_layout_link *link;
	rp_layout_choice choice;     /* the plan holds choice.nunits_kept units (placed again with
					only theirs weighed when the layout kept fewer) */
	size_t nunits_before;        /* the placement's units before */
	int by_samples;              /* placing in cycles, the placement by samples priced lower */
	int tried_by_samples;        /* placing in cycles, the placement by samples was priced: */
	uint64_t by_samples_cycles;  /*   its best layout's stall and veneer/copy cycles */
	int by_samples_margin;       /*   it had to price lower by the margin (else: lower) */
	uint64_t solver_cycles;      /*   the solver's placement's best layout, which it replaced */
	int tried_by_layout;         /* placing in cycles on a whole trace, the placement weighed by
					the stall under the chosen order was priced: */
	int by_layout;               /*   it priced lower by the margin and replaced the choice */
	uint64_t by_layout_cycles;   /*   its best layout's stall and veneer/copy cycles */
	uint64_t before_by_layout;   /*   the choice it was weighed against */
	rp_db_totals layout_weights; /* its weights (funcs owned; their names borrowed from the
					weights it was made from) */
	size_t nunnamed;             /* ordered sections no pattern names (left where they were) */
	char model_name[96];
	char *fragment_path;         /* flashtext.ld as written (owned) */
} rp_pipe_layout;

/* Under a cache or an accelerator without --trace (pipe_guard.c): a plan that promises less
 * than floor of the modeled cycles is not worth the layout change of its relink. */
typedef struct rp_pipe_guard {
	double share;             /* the plan's modeled gain, of the cycles before */
	double floor;             /* what it had to reach */
	int held_back;            /* 1: below it, nothing moved */
} rp_pipe_guard;

/* --timings: seconds of each stage. */
typedef struct rp_pipe_times {
	double elf, map, profile, place, write;
} rp_pipe_times;

typedef struct rp_pipeline {
	/* in: set by the caller */
	const char *elf_path, *map_path, *db_path;
	int linker;               /* 0 GNU ld, 1 ld.lld, -1 as the ELF's .comment (or the map) says */
	int weighting_equal;      /* weighting: equal (each run counts the same) */
	int64_t run;              /* > 0: only this run of profile.db (report --run), as it is */
	int allow_empty;          /* no profile.db: place nothing instead of failing */
	int force;                /* place from a stale profile anyway */
	double min_mapped;        /* refuse below this share of profiled samples mapping */
	const char *first_fragment;  /* where the data fragment goes (its directory) */
	rp_place_opts opts;
	rp_pipe_cycles cycles;
	rp_pipe_data data;
	rp_pipe_layout layout;
	/* out: what rp_pipeline_run made (owned) */
	rp_image *img;
	rp_map *map;
	int have_profile;
	rp_db_totals totals;      /* the profile's samples */
	rp_arc_total *arcs;       /* with a cost model: sampled arcs, for crossing costs */
	size_t narcs;
	rp_db_image *images;
	size_t nimages;
	int assessed;             /* staleness was judged: */
	rp_staleness staleness;
	double mapped_share;
	const rp_db_totals *weights; /* samples, or cycles under a flash model */
	rp_placement placement;
	rp_pipe_guard guard;
	rp_pipe_figures figures;
	rp_pipe_times times;
} rp_pipeline;

/* The defaults before any option: what `place` does with only a budget. */
#define RP_PIPELINE_INIT { .linker = -1, .min_mapped = 0.5, .opts = RP_PLACE_OPTS_INIT }

/* What the caller's own options say on top of ramplace.yaml (for `place`, its command line):
 * the values themselves are in p->opts (budget, align, time_limit_s, outsec, region,
 * veneer_size), p->cycles and p->data already. */
typedef struct rp_pipe_overrides {
	int have_budget, budget_auto;  /* a budget was given (p->opts.budget), or `auto` */
	int align_given;               /* p->opts.align applies to every region */
	int time_limit_given;          /* p->opts.time_limit_s wins over the config's */
	double flash_wait_states;      /* < 0: not given; else the cost model's wait states */
} rp_pipe_overrides;

/* Puts ramplace.yaml (cfg, may be NULL) under the caller's options: the cost model and the
 * flash model, data placement, the solver's time limit, allow-boot-path, the veneer size, and
 * the regions, the config's with the budget, output section, memory and alignment of the
 * options applied to the first (the alignment to all), or one region from the options.
 * *regions (nregions of them; the caller's to free, borrowing cfg's strings) is what
 * p->opts.regions points to when there is a config or the budget is `auto`. The name lists
 * (exclude, pin, closure, handlers) are the caller's to set. */
int rp_pipeline_configure(rp_pipeline *p, const rp_config *cfg, const rp_pipe_overrides *ov,
			  rp_region_cfg **regions, size_t *nregions, rp_err *err);

/* The fragment and plan of each region: the first's from output (and plan_path, NULL: the
 * fragment's name + ".plan") when output_given or the config names none, the others' the
 * config's names or "<output section>.ld", beside the first. *fragments and *plans (nregions
 * strings each) are the caller's to free, also after a failure. */
int rp_pipeline_name_outputs(const char *output, int output_given, const char *plan_path, const rp_region_cfg *regions,
			     size_t nregions, char ***fragments, char ***plans, rp_err *err);

/* Loads, judges and places. On a stale profile (less than min_mapped of it maps, without force)
 * RP_EINPUT, with p->staleness filled to say why. */
int rp_pipeline_run(rp_pipeline *p, rp_err *err);
/* Writes each region's fragment and plan (names per region), and the data fragment and plan. */
int rp_pipeline_write(rp_pipeline *p, char *const *fragments, char *const *plans, rp_err *err);
/* The first build, before there is a profile or even the ELF: every region's fragment and plan
 * empty (no build-id), and the data fragment when data placement is on. */
int rp_pipeline_write_empty(rp_pipeline *p, const rp_region_cfg *regions, size_t nregions, char *const *fragments,
			    char *const *plans, rp_err *err);
void rp_pipeline_release(rp_pipeline *p);

/* The curve of a placement's first region: from 0 to the free RAM the ELF leaves in the plan's
 * memory region (with a map), else to where every candidate fits; never below the plan's budget;
 * at most 256 steps, each a multiple of the plan's alignment. */
int rp_pipe_curve(rp_curve *out, const rp_image *img, const rp_map *map, const rp_placement *p, rp_err *err);

/* The one-page HTML report of a placement (pipe_html.c), `report --html` and `place --html`. */
typedef struct rp_html_job {
	const char *path;              /* the HTML file to write */
	const char *db_path;           /* profile.db: its runs and arcs are read from it */
	int64_t run;                   /* 0: every run */
	const char *before;            /* --before OLD.db[@RUN], or NULL */
	const rp_db_totals *totals;    /* what was placed */
	const rp_image *img;
	const rp_map *map;             /* may be NULL */
	const rp_placement *placement; /* may be NULL */
	double cycles_per_sample;      /* > 0 with a cost model */
} rp_html_job;

/* Writes the report (never half-written: a temporary file renamed). */
int rp_pipeline_html(const rp_html_job *j, rp_err *err);

#endif
