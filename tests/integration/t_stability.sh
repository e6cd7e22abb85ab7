#!/usr/bin/env bash
# t_stability.sh: "how good is this profile?" (docs/sampling.md, stability.h) on profiles thinned
# out on purpose. The example firmware's exact counts (QEMU plugin) are imported whole and as
# multinomial draws of 200 and 2000 samples (thin_counts.py, fixed seeds); the verdicts after
# import, in place and in report --stability must say the exact profile is stable, flag the thin
# one with an estimate of the samples still needed that shrinks as samples are added, and a
# profile of the size the estimate asks for (with a 2x margin) must then be stable.
# Needs: $RAMPLACE, $RAMPLACE_SRC, $RAMPLACE_BUILD; qemu-system-arm, arm-none-eabi-gcc, python3.
. "$(dirname "$0")/lib.sh"
: "${RAMPLACE_BUILD:?}"
cd "$work"
fw_timeout=120
thin=$RAMPLACE_SRC/tests/integration/thin_counts.py
make -s -C "$RAMPLACE_SRC/examples/qemu-cortex-m3" BUILD="$work/ex" ITERATIONS=50 >/dev/null
fw=$work/ex/fw.elf
run_fw "$fw" -plugin "$RAMPLACE_BUILD/libramplace-qemu.so,out=$work/counts.txt" >/dev/null

"$RAMPLACE" import exact.db "$fw" counts.txt >exact.out
line=$(grep '^stability: ' exact.out || true)
case $line in
	*"choice is stable"*"stable at 1, 2"*) pass "exact counts: stable at every budget ($line)" ;;
	*) fail "exact counts: '$line'" ;;
esac

more_samples() { # import output -> the samples the 1 KiB verdict asks for, or 0 when stable
	sed -n 's/^stability: too few samples for a 1 KiB decision.*record about \([0-9]*\) more samples.*/\1/p' "$1" | grep . || echo 0
}
times() { # import output -> how many times the samples it has the 1 KiB verdict asks for (1 when stable)
	sed -n 's/^stability: too few samples for a 1 KiB decision.*more samples (\([0-9.]*\)x the .*/\1/p' "$1" | grep . || echo 1
}
python3 "$thin" counts.txt 200 1 >thin200.pclist
python3 "$thin" counts.txt 2000 2 >thin2000.pclist
"$RAMPLACE" import --format pclist thin200.db "$fw" thin200.pclist >thin200.out
"$RAMPLACE" import --format pclist thin2000.db "$fw" thin2000.pclist >thin2000.out
n200=$(more_samples thin200.out)
n2000=$(more_samples thin2000.out)
if [ "$n200" -gt 0 ]; then pass "200 samples: flagged, about $n200 more samples asked for"
else fail "200 samples not flagged: $(cat thin200.out)"; fi
# 10x the samples need a smaller multiple of what they have (the estimate in samples is only
# about right: the thinner profile has not seen the rarer functions, which hides near-ties)
t200=$(times thin200.out)
t2000=$(times thin2000.out)
if awk -v a="$t200" -v b="$t2000" 'BEGIN { exit !(b < a) }'; then
	pass "2000 samples: asked for ${t2000}x their samples, 200 samples for ${t200}x"
else fail "2000 samples ask for ${t2000}x, 200 for ${t200}x"; fi

# a profile of the size asked for, twice over, of the same firmware: now stable at 1 KiB
want=$(( (200 + n200) * 2 ))
python3 "$thin" counts.txt "$want" 3 >thick.pclist
"$RAMPLACE" import --format pclist thick.db "$fw" thick.pclist >thick.out
if grep -q '^stability: the [0-9]* KiB choice is stable' thick.out; then
	pass "$want samples (what 200 asked for, x2): stable at 1 KiB and up ($(grep '^stability' thick.out))"
else fail "$want samples still unstable: $(cat thick.out)"; fi

# place says it in one line, for its own budget
"$RAMPLACE" place --budget 1K -o thin.ld thin200.db "$fw" >place-thin.out 2>/dev/null
"$RAMPLACE" place --budget 1K -o exact.ld exact.db "$fw" >place-exact.out 2>/dev/null
if grep -q '^stability: too few samples for a 1 KiB decision' place-thin.out &&
	grep -q '^stability: the 1 KiB choice is stable: 100 % of 200 resamples pick the same functions' place-exact.out; then
	pass "place: one stability line, flagged for 200 samples, stable for exact counts"
else fail "place stability lines: $(grep stability place-thin.out place-exact.out)"; fi
"$RAMPLACE" place --quiet --budget 1K -o q.ld thin200.db "$fw" >place-q.out 2>/dev/null
check "place --quiet prints no stability line" test ! -s place-q.out

# report --stability in detail: the uncertain functions, the scales tried, reproducible
"$RAMPLACE" report --stability --budget 1K --elf "$fw" thin200.db >rep1.out
"$RAMPLACE" report --stability --budget 1K thin200.db >rep2.out   # the ELF of the newest run
nunc=$(sed -n 's/^\([0-9]*\) function(s) chosen in some resamples but not all.*/\1/p' rep1.out)
if [ "${nunc:-0}" -gt 0 ] && grep -q '^   1.00x ' rep1.out && grep -q '  stable$' rep1.out; then
	pass "report --stability: $nunc functions chosen in some resamples, scales up to a stable one"
else fail "report --stability detail: $(cat rep1.out)"; fi
check "report --stability: same output twice (fixed seed), ELF found from the run" cmp -s rep1.out rep2.out
"$RAMPLACE" report --stability exact.db >rep-exact.out
check "report --stability: one verdict per budget 1-16 KiB" test "$(grep -c '^stability: the .* choice is stable' rep-exact.out)" -eq 5
if "$RAMPLACE" report --budget 1K exact.db >/dev/null 2>err; then fail "--budget without --stability accepted"
else check "--budget without --stability is a usage error" grep -q 'goes with --stability' err; fi
finish
