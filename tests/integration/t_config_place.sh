#!/usr/bin/env bash
# t_config_place.sh: `ramplace place --config` on the maptest fixture (tests/data/maptest): two
# regions give two fragments and two plans, solved by the ILP with the cost model reported in
# cycles; command-line options override the file; `--budget auto` prints the RAM map and a
# budget equal to the region minus .data, .bss, stack and heap, and a number above that is
# warned about, also as the sum of two regions in one memory (where budget auto is refused);
# `ramplace callgraph` prints the graph as text and DOT.
# Needs: $RAMPLACE, $RAMPLACE_SRC.
. "$(dirname "$0")/lib.sh"
cd "$work"
elf=$RAMPLACE_SRC/tests/data/maptest/maptest.elf
map=$RAMPLACE_SRC/tests/data/maptest/maptest.map

# samples on the maptest functions, by name through a pclist of their addresses
"$RAMPLACE" callgraph "$elf" >cg.txt
"$RAMPLACE" callgraph --dot --from main "$elf" >cg.dot
grep -q '^main -> ' cg.txt && pass "callgraph lists main's calls" || fail "no edges from main"
head -1 cg.dot | grep -q '^digraph callgraph {$' && tail -1 cg.dot | grep -q '^}$' && pass "DOT output" || fail "bad DOT"
awk '/^ \.text\./ && NF == 4 { print $2, 100 }' "$map" | head -8 >pcs.txt
"$RAMPLACE" import --quiet profile.db "$elf" pcs.txt

cat >two.yaml <<'YAML'
regions:
  - name: fast
    budget: 128
  - name: slow
    budget: 512
    output-section: .slowtext
    speed: 0.5
cost:
  flash-wait-states: 3
solver:
  time-limit: 5
YAML
"$RAMPLACE" place --config two.yaml --map "$map" profile.db "$elf" >two.out
[ -s ramtext.ld ] && [ -s ramtext.ld.plan ] && [ -s slowtext.ld ] && [ -s slowtext.ld.plan ] &&
	pass "two fragments and two plans" || fail "missing fragment or plan"
grep -q '^output-section .slowtext$' slowtext.ld.plan && pass "second plan names its section" || fail "second plan"
grep -q '^solver: ILP (GLPK), optimal$' two.out && pass "ILP, optimal" || { cat two.out; fail "no optimal ILP line"; }
grep -Eq '^expected cycles saved: [0-9]+ of [0-9]+ \([0-9.]+%\) at 4 cycles per flash fetch' two.out &&
	pass "objective reported in cycles" || fail "no cycles line"
used=$(awk '$1 == "used" { print $2 }' ramtext.ld.plan)
[ "$used" -le 128 ] && pass "fast region within its 128 bytes ($used)" || fail "fast region over budget: $used"

# the command line overrides the file: --budget for the first region
"$RAMPLACE" place --config two.yaml --budget 64 --map "$map" profile.db "$elf" >over.out
[ "$(awk '$1 == "budget" { print $2 }' ramtext.ld.plan)" = 64 ] && pass "--budget overrides the config" || fail "--budget ignored"

# budget auto: the RAM region minus .data, .bss, stack and heap
"$RAMPLACE" place --budget auto --map "$map" profile.db "$elf" >auto.out
grep -q '^RAM map of RAM' auto.out && grep -q 'free for code: [0-9]* bytes (budget auto)' auto.out &&
	pass "budget auto prints the RAM map" || { cat auto.out; fail "no RAM map"; }
free=$(sed -nE 's/.*free for code: ([0-9]+) bytes.*/\1/p' auto.out)
[ "$(awk '$1 == "budget" { print $2 }' ramtext.ld.plan)" = "$free" ] && pass "plan budget is the free room ($free)" ||
	fail "plan budget differs from the RAM map"

# a number above that free room is placed, with a warning naming both figures
"$RAMPLACE" place --budget $((free + 64)) --map "$map" profile.db "$elf" >over_free.out
grep -q "warning: --budget: $((free + 64)) bytes is more than the $free bytes RAM has free" over_free.out &&
	pass "a budget above the free RAM is warned about" || { cat over_free.out; fail "no warning for a budget above the free RAM"; }
"$RAMPLACE" place --budget "$free" --map "$map" profile.db "$elf" >at_free.out
! grep -q "warning: --budget" at_free.out && pass "no warning at the free RAM" || fail "warning at exactly the free RAM"

# two regions in RAM: each fits the free room, their sum does not; .ramtext (where the ELF already
# has code) is the second region's section, so it counts as code being placed, not as taken RAM
two_in_ram() {
	cat >shared.yaml <<YAML
regions:
  - {name: fast, memory: RAM, budget: $1, output-section: .fasttext}
  - {name: slow, budget: $2, output-section: .ramtext, speed: 0.5}
YAML
	"$RAMPLACE" place --config shared.yaml --map "$map" profile.db "$elf"
}
half=$((free / 2 / 8 * 8))
two_in_ram "$half" $((free - half + 64)) >shared_over.out
grep -q "warning: fast, slow: $((free + 64)) bytes together is more than the $free bytes RAM has free" shared_over.out &&
	pass "two regions in one memory are warned about by their sum" || { cat shared_over.out; fail "no warning for the sum of two regions"; }
two_in_ram "$half" $((free - half)) >shared_at.out
! grep -q "warning:" shared_at.out && pass "no warning when the sum is the free RAM" || { cat shared_at.out; fail "warning at a sum equal to the free RAM"; }

# budget auto cannot share its memory, also when the memory comes from where a section is
rc=0
"$RAMPLACE" place --config shared.yaml --budget auto --map "$map" profile.db "$elf" >shared_auto.out 2>&1 || rc=$?
[ "$rc" -eq 2 ] && grep -q "regions 'fast' and 'slow' are both in memory RAM: 'budget: auto' cannot split it" shared_auto.out &&
	pass "budget auto in a shared memory is refused" || { cat shared_auto.out; fail "budget auto in a shared memory (exit $rc)"; }

# a first region whose section the ELF does not have yet (meant for ITCM, say) is only guessed to
# be in RAM: it neither blocks budget auto there nor adds to RAM's sum
cat >itcm.yaml <<'YAML'
regions:
  - {name: itcm, budget: 4K, output-section: .itcmtext}
  - {name: sram, memory: RAM, budget: auto, output-section: .ramtext, speed: 0.5}
YAML
"$RAMPLACE" place --config itcm.yaml --map "$map" profile.db "$elf" >itcm.out 2>&1 &&
	grep -q "free for code: $free bytes (budget auto)" itcm.out && pass "a guessed memory does not block budget auto" ||
	{ cat itcm.out; fail "budget auto refused or changed beside a region of guessed memory"; }
sed -i "s/budget: auto/budget: $free/" itcm.yaml
"$RAMPLACE" place --config itcm.yaml --map "$map" profile.db "$elf" >itcm_num.out 2>&1
! grep -q "together" itcm_num.out && pass "a guessed memory is not summed with RAM's regions" || { cat itcm_num.out; fail "guessed memory summed"; }

finish
