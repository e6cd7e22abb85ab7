# plan_property_lib.sh: the random-plan property (issue 22 item 3, issue 37 item 2), shared by
# the tests that draw plans over a firmware (t_plan_property.sh over the bundled examples,
# t_plan_property_corpus.sh over the corpus's RTOS demos). Sourced after lib.sh.
#
# A test defines two hooks and calls pp_round once per random plan:
#   pp_relink P      relink with P/ramtext.ld (the plan), set pp_elf to the relinked ELF
#   pp_run ELF OUT   run ELF, its output (what must not change) in OUT; non-zero when it fails
# and pp_round checks, with and without the map: the plan links; `check` passes; with the map
# the section the linker wrote is exactly what the plan claimed (code + veneers + GNU ld's
# veneer-block padding), up to the section's final ALIGN(4), or, on RISC-V (calls relaxation
# shrank) and with ld.lld (ARCH lld: its thunks, laid out its own way), at most that; without
# it, at most the budget. Every fourth relink also runs and
# must print what the flash-only build printed (none runs when FLASH-OUT is empty: a link-level
# firmware, such as a pico-sdk program). A plan for an SDK's own RAM section (pico-sdk's .data)
# is accounted by memory: the planned functions' bytes in RAM against the plan's. pp_place_args
# (an array, empty by default) goes to every place (--dialect pico); pp_maps says which of
# the two rounds run. A failure names the
# firmware, round, seed and budget, so that it can be replayed. pp_summary prints the counts.

pp_plans=0 pp_runs=0 pp_largest=0 pp_fails=0
pp_place_args=()
pp_maps=(map nomap)   # (map) alone where place needs the map (--dialect pico)

# pp_funcs NM ELF: "address name" of every function with a size, for pp_profile
pp_funcs() {
	"$1" -S "$2" | awk '($3 == "t" || $3 == "T") && $2 != "00000000" { print $1, $4 }'
}

# pp_profile FUNCS SEED DB ELF: a random profile (each function sampled with probability 0.6, a
# heavy-tailed weight), imported into a fresh DB
pp_profile() {
	python3 - "$1" "$2" >"$3.pcs" <<'PY'
import random, sys
random.seed(int(sys.argv[2]))
for line in open(sys.argv[1]):
    addr, name = line.split()
    if random.random() < 0.6:
        for _ in range(random.choice([1, 2, 5, 20, 100, 400])):
            print("0x" + addr)
PY
	rm -f "$3"
	"$RAMPLACE" import --quiet --format pclist --force "$3" "$4" "$3.pcs"
}

# pp_budget SEED BYTES...: one of BYTES, drawn with SEED
pp_budget() {
	local seed=$1
	shift
	python3 -c "import random, sys; random.seed($seed); print(random.choice(sys.argv[1:]))" "$@"
}

# pp_as_planned PLANNED LINKED ARCH: the map's rule: the plan's bytes up to the final ALIGN(4);
# below them on RISC-V (relaxation) and with ld.lld (its thunks)
pp_as_planned() {
	[ "$2" = $(( ($1 + 3) / 4 * 4 )) ] || { { [ "$3" = rv ] || [ "$3" = lld ]; } && [ "$2" -lt "$1" ]; }
}

# pp_only_guesses_missed P: check failed on P's relink, a plan made without a map, only because
# planned functions stayed in flash: their sections were guessed from their names, and a
# section attribute (picolibc's crt0 puts _ctrap and _trap in .init) is what no name, no symbol
# and no debug information tells; check names them, the firmware is safe. Every failure must
# be one of those. Counted in pp_missed, listed in the summary.
pp_missed=0 pp_missed_names=""
pp_only_guesses_missed() {
	local missed
	missed=$(sed -n "s/^'\([^']*\)' .* in flash, not in .*/\1/p" "$1/check.out")
	[ -n "$missed" ] || return 1
	[ "$(sed -n 's/^ramplace: .*: \([0-9]*\) checks\{0,1\} failed$/\1/p' "$1/check.out")" = "$(wc -l <<<"$missed")" ] || return 1
	pp_missed=$((pp_missed + 1)) pp_missed_names="$pp_missed_names $missed"
	return 0
}

# pp_round NAME DIR DB ELF MAP BUDGET ARCH FLASH-OUT SEED: one plan with and without MAP
pp_round() {
	local name=$1 dir=$2 db=$3 elf=$4 mapfile=$5 budget=$6 arch=$7 flash_out=$8 seed=$9 map p opts line
	local planned linked veneers diffb
	for map in "${pp_maps[@]}"; do
		p=$dir/$map
		mkdir -p "$p"
		local cell="$name ($map, seed $seed, budget $budget)"
		opts=(--budget "$budget" --min-share 0 -o "$p/ramtext.ld" --quiet "${pp_place_args[@]}")
		[ "$map" = map ] && opts+=(--map "$mapfile")
		if ! "$RAMPLACE" place "${opts[@]}" "$db" "$elf" >"$p/place.out" 2>&1; then
			cat "$p/place.out"; fail "$cell: place"; pp_fails=$((pp_fails + 1)); continue
		fi
		pp_elf=""
		if ! pp_relink "$p" || [ ! -f "$pp_elf" ]; then
			fail "$cell: the relink"; pp_fails=$((pp_fails + 1)); continue
		fi
		pp_plans=$((pp_plans + 1))
		# --allow-empty: without -ffunction-sections and a map, no pattern can move a function
		if ! "$RAMPLACE" check --allow-empty --plan "$p/ramtext.ld.plan" "$pp_elf" >"$p/check.out" 2>&1 &&
		   ! { [ "$map" = nomap ] && pp_only_guesses_missed "$p"; }; then
			cat "$p/check.out"; fail "$cell: check"; pp_fails=$((pp_fails + 1)); continue
		fi
		if [ -n "$flash_out" ] && [ $((pp_plans % 4)) = 0 ]; then
			pp_runs=$((pp_runs + 1))
			if ! pp_run "$pp_elf" "$p/run.out" || ! cmp -s "$flash_out" "$p/run.out"; then
				fail "$cell: the relink prints something else"; pp_fails=$((pp_fails + 1))
			fi
		fi
		line=$(grep '^accounting: .ramtext planned' "$p/check.out" || true)
		planned=$(sed -E 's/.* planned ([0-9]+) bytes.*/\1/' <<<"$line")
		linked=$(sed -E 's/.*linked ([0-9]+):.*/\1/' <<<"$line")
		veneers=$(sed -E 's/.* in ([0-9]+) veneer.*/\1/' <<<"$line")
		bymem=0
		if [ -z "$line" ] && grep -q '^accounting: by memory' "$p/check.out"; then
			# "check: N functions in RAM in .data (...); LINKED bytes of BUDGET with V veneers
			# (planned P + R veneer reserve)": the functions' own bytes, without the padding
			# between them, which the plan's sizes hold: at most the plan
			bymem=1
			line=$(grep -E '^check: .*; [0-9]+ bytes of [0-9]+ with [0-9]+ veneers? \(planned [0-9]+ \+ [0-9]+ veneer reserve\)' "$p/check.out" || true)
			linked=$(sed -E 's/.*; ([0-9]+) bytes of.*/\1/' <<<"$line")
			planned=$(sed -E 's/.*\(planned ([0-9]+) \+ ([0-9]+) veneer reserve\)$/\1 + \2/' <<<"$line")
			planned=$((planned))
			veneers=$(sed -E 's/.* with ([0-9]+) veneer.*/\1/' <<<"$line")
		fi
		if [ -z "$line" ]; then
			cat "$p/check.out"; fail "$cell: no accounting"; pp_fails=$((pp_fails + 1))
		elif [ "$bymem" = 1 ] && [ "$linked" -gt "$planned" ]; then
			cat "$p/check.out"; fail "$cell: $veneers veneers, planned $planned, in RAM $linked"; pp_fails=$((pp_fails + 1))
		elif [ "$bymem" = 0 ] && [ "$map" = map ] && ! pp_as_planned "$planned" "$linked" "$arch"; then
			cat "$p/check.out"; fail "$cell: $veneers veneers, planned $planned, linked $linked"; pp_fails=$((pp_fails + 1))
		elif [ "$map" = nomap ] && [ "$linked" -gt "$((budget))" ]; then
			cat "$p/check.out"; fail "$cell: linked $linked over the budget"; pp_fails=$((pp_fails + 1))
		else
			diffb=$((planned > linked ? planned - linked : linked - planned))
			[ "$map" = map ] && [ "$diffb" -gt "$pp_largest" ] && pp_largest=$diffb
		fi
	done
	return 0
}

# pp_summary WHAT: the counts, for the log
pp_summary() {
	echo "plan property ($1): $pp_plans plans relinked and checked, $pp_runs run; $pp_fails failed;" \
		"$( [ "$pp_missed" = 0 ] || echo "$pp_missed plans without a map left functions with guessed sections in flash ($(tr ' ' '\n' <<<"$pp_missed_names" | sort -u | tr '\n' ' '| sed 's/^ //;s/ $//'));" )" \
		"largest planned-linked difference with a map: $pp_largest bytes (RISC-V relaxation, ld.lld's thunks, padding an SDK section's count by memory leaves out)"
}
