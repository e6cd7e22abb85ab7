#!/usr/bin/env bash
# t_flash_model_plugin.sh: the QEMU plugin's flash model (model=, docs/cost-models.md) counts
# exactly what flashmodel.c counts. The bundled Cortex-M3 firmware runs under the plugin with
# each kind of model and trace=; the trace replayed through the library's flashmodel.c
# (fm_replay.c, built here) gives the same fetch and read stall cycles and misses as the file's
# header (evictions included), the per-address stalls and the eviction lines add up to that header, data reads from flash are listed
# (the firmware reads const tables), and `ramplace import` stores the stall cycles: `report`
# shows the same total. A zero-wait-state model stalls nothing; a cache model stalls less than
# wait states on every fetch would. Two flash ranges (the interpreter below crc32_init at 5 wait
# states, the rest behind a small cache) each run their own model: each range's stall cycles are
# the replay's, and place prices each function by its range's model (options and cost.flash).
# entry=ADDR's measurements reach profile.db and report (version 5).
# Needs: $RAMPLACE_SRC, $RAMPLACE_BUILD; qemu-system-arm, arm-none-eabi-gcc, cc.
. "$(dirname "$0")/lib.sh"
: "${RAMPLACE_BUILD:?}"
cd "$work"
plugin=$RAMPLACE_BUILD/libramplace-qemu.so
make -s -C "$RAMPLACE_SRC/examples/qemu-cortex-m3" BUILD="$work/fw" ITERATIONS=2 >/dev/null
fw=$work/fw/fw.elf
cc -O2 -I"$RAMPLACE_SRC/ramplace/include" "$RAMPLACE_SRC/tests/integration/fm_replay.c" \
	"$RAMPLACE_SRC/ramplace/lib/flash/flashmodel.c" "$RAMPLACE_SRC/ramplace/lib/flash/flashmap.c" -o fm_replay
hdr() { awk -v k="# $2" 'index($0, k " ") == 1 { print $3 }' "$1"; }

for model in ws:5 ws:3,prefetch=0 art:ws=5,line=16,lines=8 cache:rp2040 cache:fe310 cache:size=1024,ways=2,line=16,penalty=20; do
	qemu_model=${model//,/,,}   # QEMU splits plugin options at commas: a doubled one is literal
	name=${model//[:,=]/_}
	run_fw "$fw" -plugin "$plugin,out=$name.txt,mode=insn,model=$qemu_model,flash=0-400000,trace=$name.trace" >"$name.out"
	want=$(./fm_replay "$model" <"$name.trace")
	got="stall-fetch $(hdr $name.txt stall-fetch) stall-read $(hdr $name.txt stall-read) misses $(hdr $name.txt misses) stall-evicted $(hdr $name.txt stall-evicted)"
	[ "$want" = "$got" ] && pass "$model: the plugin's totals are the replayed trace's: $got" \
		|| fail "$model: plugin '$got', replay '$want'"
	sum=$(awk '$1 != "d" && $1 != "e" && $1 != "#" { s += $4 } END { print s + 0 }' "$name.txt")
	dsum=$(awk '/^d / { s += $4 } END { print s + 0 }' "$name.txt")
	[ "$sum" = "$(hdr $name.txt stall-fetch)" ] && [ "$dsum" = "$(hdr $name.txt stall-read)" ] \
		&& pass "$model: per-address stalls add up ($sum fetch, $dsum read)" \
		|| fail "$model: per-address sums $sum/$dsum against the header"
	esum=$(awk '/^e / { s += $5 } END { print s + 0 }' "$name.txt")
	[ "$esum" = "$(hdr $name.txt stall-evicted)" ] && pass "$model: eviction lines add up ($esum)" \
		|| fail "$model: eviction lines sum to $esum, header $(hdr $name.txt stall-evicted)"
done
# a cache too small for the hot code: most misses are on lines another access evicted, and the
# evictor is named (the misses the stall cycles of a victim owe to it)
ev=$(hdr cache_size_1024_ways_2_line_16_penalty_20.txt stall-evicted)
all=$(( $(hdr cache_size_1024_ways_2_line_16_penalty_20.txt stall-fetch) + $(hdr cache_size_1024_ways_2_line_16_penalty_20.txt stall-read) ))
[ "$ev" -gt $(( all / 2 )) ] && [ "$ev" -le "$all" ] && pass "1 KiB cache: $ev of $all stall cycles are misses on evicted lines" \
	|| fail "1 KiB cache: $ev evicted of $all"
[ "$(hdr ws_5.txt stall-evicted)" = 0 ] && pass "wait states evict nothing" || fail "ws:5 evicted $(hdr ws_5.txt stall-evicted)"
reads=$(awk '/^d / { s += $3 } END { print s + 0 }' ws_5.txt)
[ "$reads" -gt 1000 ] && pass "data reads from flash listed per address: $reads" || fail "only $reads data reads listed"
fetch_ws=$(hdr ws_5.txt stall-fetch)
fetch_cache=$(hdr cache_rp2040.txt stall-fetch)
[ "$fetch_cache" -lt "$fetch_ws" ] && pass "a 16 KiB cache holds the hot code: $fetch_cache stall cycles against $fetch_ws at 5 wait states" \
	|| fail "cache $fetch_cache not below wait states $fetch_ws"

run_fw "$fw" -plugin "$plugin,out=ws0.txt,model=ws:0,flash=0-400000" >/dev/null
[ "$(hdr ws0.txt stall-fetch)" = 0 ] && [ "$(hdr ws0.txt stall-read)" = 0 ] && pass "zero wait states stall nothing" \
	|| fail "ws:0 stalls $(hdr ws0.txt stall-fetch)"

# the stall cycles go into profile.db and come back out in report
"$RAMPLACE" import --quiet p.db "$fw" ws_5.txt
total=$(( $(hdr ws_5.txt stall-fetch) + $(hdr ws_5.txt stall-read) ))
"$RAMPLACE" report p.db >report.txt
grep -q "Flash stall cycles (ws:5): $total " report.txt && pass "report shows the $total stall cycles imported" \
	|| { fail "report does not show $total stall cycles"; sed 's/^/    /' report.txt | head -20; }

# entry=: an entry's stall cycles go into the counts file (version 5's "h" lines), into
# profile.db and out of report: the same invocations and worst as the plugin printed, the mean
# its sum over them. op_add stands in for a handler: the interpreter enters it through a table
# of function pointers (blx), as the core enters a handler through the vector table, and every
# invocation is seen to return
ent=$(printf '%x' $(( 0x$(nm_addr "$fw" op_add) & ~1 )))
run_fw "$fw" -plugin "$plugin,out=entry.txt,mode=insn,model=ws:5,flash=0-400000,entry=$ent" >/dev/null 2>entry.err
said=$(awk -v a="0x$ent:" '$2 == "entry" && $3 == a { print $(NF-1), $5; exit }' entry.err)
hline=$(awk -v a="$ent" '$1 == "h" && $2 == a { print $3, $4, $5, $6, $7; exit }' entry.txt)   # invocations worst sum returned invocation-worst
rm -f entry.db
if [ "$(head -1 entry.txt)" = "# ramplace-qemu 5" ] && "$RAMPLACE" import --quiet entry.db "$fw" entry.txt &&
   "$RAMPLACE" report entry.db >entry.report 2>&1 && "$RAMPLACE" report --json entry.json entry.db >/dev/null 2>&1; then
	row=$(awk '/^Interrupt handler entries/ { t = 1 } t && $5 == "op_add" { print $1, $2, $3, $4; exit }' entry.report)
	mean=$(echo "$hline" | awk '{ printf "%.1f", $1 ? $3 / $1 : 0 }')
	inv=$(echo "$hline" | awk '{ print $5 }')
	check "entry=: report shows op_add's entries as the plugin measured them (invocations, worst, mean, worst invocation: $row; plugin: $said, h line $hline)" \
		[ -n "$said" -a "$row" = "$said $mean $inv" -a "${said#* }" -gt 0 ]
	check "entry=: every invocation of op_add seen to return ($(echo "$hline" | awk '{ print $4 " of " $1 }'))" \
		awk -v h="$hline" 'BEGIN { split(h, v, " "); exit !(v[1] > 0 && v[4] == v[1]) }'
	check "entry=: the JSON export lists the entry" \
		python3 -c 'import json, sys; e = json.load(open(sys.argv[1]))["entries"]; sys.exit(not (len(e) == 1 and e[0]["handler"] == "op_add" and e[0]["worst_stall"] == int(sys.argv[2])))' entry.json "${said#* }"
else
	fail "entry=: version 5 file, import and report"; head -3 entry.txt entry.report 2>/dev/null
fi

# place in cycles: the profile's own model is measured; another model is an estimate; without
# stall cycles in the profile the default model prices a placement made by samples
"$RAMPLACE" place --budget 1K --map "$work/fw/fw.map" -o ws.ld p.db "$fw" >place.out
grep -Eq '^modeled cycles \(ws:5, the profile.s\): [0-9.e+]+ -> [0-9.e+]+, [0-9.]+x fewer; flash: 5 wait states; stall cycles measured by the QEMU plugin' place.out \
	&& pass "place prices the plan with the profile's measured stall cycles: $(grep -o '[0-9.]*x fewer' place.out)" \
	|| { fail "place's modeled line (measured)"; cat place.out; }
"$RAMPLACE" place --budget 1K --map "$work/fw/fw.map" -o c.ld --flash-model cache:rp2040 p.db "$fw" >place2.out
grep -q "estimated: 28 stall cycles per sample (the profile's stall cycles are for ws:5, not cache:rp2040)" place2.out \
	&& pass "another model than the profile's is an estimate, and says so" || { fail "estimate line"; cat place2.out; }
"$RAMPLACE" import --quiet rp.db "$fw" cache_rp2040.txt
"$RAMPLACE" place --budget 1K --map "$work/fw/fw.map" -o r.ld rp.db "$fw" >place3.out
grep -Eq '^cache model: [0-9]+ function\(s\) with [0-9.]+% of the instructions miss the cache too rarely' place3.out \
	&& pass "a 16 KiB cache holds the hot code: place says it stays in flash" || { fail "cache note"; cat place3.out; }
run_fw "$fw" -plugin "$plugin,out=plain.txt" >/dev/null
"$RAMPLACE" import --quiet plain.db "$fw" plain.txt
"$RAMPLACE" place --budget 1K --map "$work/fw/fw.map" -o plain.ld plain.db "$fw" >place4.out
grep -Eq '^modeled cycles \(ws:5, default\): .*estimated: one flash fetch per sample, placed by samples' place4.out \
	&& pass "no model and no stall cycles: the default model, named, prices the placement" || { fail "default model line"; cat place4.out; }
"$RAMPLACE" check --plan plain.ld.plan --profile p.db "$fw" >check.out 2>&1 || true
grep -q "^profile: under ws:5 the relinked firmware takes [0-9]* modeled cycles" check.out \
	&& pass "check --profile gives the modeled cycles of a profile with stall cycles" || { fail "check --profile"; cat check.out; }

# a flash model option without its partner refuses to load
status=0
run_fw "$fw" -plugin "$plugin,out=x.txt,model=ws:5" >/dev/null 2>err.txt || status=$?
[ "$status" -ne 0 ] && grep -qF "model= needs flash=LO-HI" err.txt && pass "model= without flash= refused at load" \
	|| fail "model= without flash=: exit $status"
run_fw "$fw" -plugin "$plugin,out=x.txt,model=cache:pico,flash=0-400000" >/dev/null 2>err.txt || status=$?
grep -qF "flash model 'cache:pico': unknown cache preset" err.txt && pass "a bad model refused at load" || fail "cache:pico"

# two flash ranges, each with its own model: the interpreter (below crc32_init) at 5 wait states,
# the rest behind a 1 KiB cache
split=$(printf '%x' $(( 0x$(nm_addr "$fw" crc32_init) )))
c1k=cache:size=1024,ways=2,line=16,penalty=20
run_fw "$fw" -plugin "$plugin,out=two.txt,mode=insn,model=ws:5,flash=0-$split,model=${c1k//,/,,},flash=$split-400000,trace=two.trace" >/dev/null
two_name="ws:5@0-$split;$c1k@$split-400000"
[ "$(hdr two.txt model)" = "$two_name" ] && [ "$(grep -c '^# flash ' two.txt)" = 2 ] \
	&& pass "two ranges: the header names each model with its range ($two_name)" || fail "two ranges: header '$(hdr two.txt model)'"
want=$(./fm_replay "ws:5@0-$split" "$c1k@$split-400000" <two.trace)
got=$(sed -n 's/^# range /range /p' two.txt; echo "stall-fetch $(hdr two.txt stall-fetch) stall-read $(hdr two.txt stall-read) misses $(hdr two.txt misses) stall-evicted $(hdr two.txt stall-evicted)")
[ "$want" = "$got" ] && pass "two ranges: each range's stall cycles are the replayed trace's" \
	|| fail "two ranges: plugin '$got', replay '$want'"
f1=$(awk '/^# range 0-/ { print $6 }' two.txt)
f2=$(awk -v s="# range $split-" 'index($0, s) == 1 { print $6 }' two.txt)
lo_sum=$(awk -v s=$((0x$split)) 'function hex(h, i, v) { for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1; return v }
	$1 != "d" && $1 != "e" && $1 != "#" && hex($1) < s { t += $4 } END { print t + 0 }' two.txt)
[ "$f1" -gt 0 ] && [ "$f2" -gt 0 ] && [ "$lo_sum" = "$f1" ] \
	&& pass "two ranges: both stall ($f1 at 5 wait states, $f2 behind the cache); per-address stalls below the split add up to the first" \
	|| fail "two ranges: f1 $f1 (per-address $lo_sum), f2 $f2"
"$RAMPLACE" import --quiet two.db "$fw" two.txt
"$RAMPLACE" place --budget 1K --map "$work/fw/fw.map" -o two.ld two.db "$fw" >place5.out
grep -qF "modeled cycles ($two_name, the profile's): " place5.out && grep -qF "flash: 5 wait states at 0-$split; " place5.out \
	&& grep -q 'stall cycles measured by the QEMU plugin' place5.out \
	&& pass "place names every model of the profile with its range, measured" || { fail "place, two ranges"; cat place5.out; }
"$RAMPLACE" place --budget 1K --map "$work/fw/fw.map" -o two2.ld --flash-model "ws:5@0-0x$split" \
	--flash-model "$c1k@0x$split-0x400000" two.db "$fw" >place6.out
grep -qF "modeled cycles ($two_name): " place6.out && grep -q 'measured by the QEMU plugin' place6.out \
	&& pass "--flash-model SPEC@LO-HI twice: the profile's stall cycles are for these models" || { fail "--flash-model ranges"; cat place6.out; }

# cost.flash: placed from samples (estimates) under ws:0 below the split and ws:5 above it, only
# code above the split is worth RAM; with the two models swapped only code below it
cat >flash.yaml <<EOF
regions:
  - name: sram
    budget: 1K
cost:
  flash:
    - range: 0-0x$split
      model: ws:0
    - memory: FLASH
      model: ws:5
EOF
status=0
"$RAMPLACE" place --config flash.yaml --map "$work/fw/fw.map" -o cf.ld plain.db "$fw" >place7.out 2>&1 || status=$?
[ "$status" = 2 ] && grep -q "^ramplace: flash.yaml:8:7: flash range 0x0-0x400000 overlaps an earlier one$" place7.out && [ "$(wc -l <place7.out)" = 1 ] && [ ! -e cf.ld ] \
	&& pass "cost.flash: a MEMORY region overlapping a range is refused at its file:line:col" || { fail "overlap refusal ($status)"; cat place7.out; }
sed -i "s/memory: FLASH/range: 0x$split-0x400000/" flash.yaml
"$RAMPLACE" place --config flash.yaml --map "$work/fw/fw.map" -o cf.ld plain.db "$fw" >place8.out
sed -i 's/ws:0/ws:X/; s/ws:5/ws:0/; s/ws:X/ws:5/' flash.yaml
"$RAMPLACE" place --config flash.yaml --map "$work/fw/fw.map" -o cf2.ld plain.db "$fw" >place9.out
side() { # PLAN: "below above", the moved functions by address against the split (a static
	# name that several files define, such as fold, is left out: nm cannot tell which one moved)
	local lo=0 hi=0 a
	for f in $(awk '$1 == "func" { print $2 }' "$1"); do
		[ "$(arm-none-eabi-nm "$fw" | awk -v n="$f" '$3 == n' | wc -l)" = 1 ] || continue
		a=$(nm_addr "$fw" "$f")
		if (( 0x$a < 0x$split )); then lo=$((lo + 1)); else hi=$((hi + 1)); fi
	done
	echo "$lo $hi"
}
s8=$(side cf.ld.plan); s9=$(side cf2.ld.plan)
[ "${s8%% *}" = 0 ] && [ "${s8##* }" -gt 0 ] && [ "${s9##* }" = 0 ] && [ "${s9%% *}" -gt 0 ] \
	&& grep -qF "modeled cycles (ws:0@0-$split;ws:5@$split-400000): " place8.out \
	&& pass "cost.flash: each function is priced by its range's model (moved below/above the split: $s8; models swapped: $s9)" \
	|| { fail "cost.flash per range: moved $s8 and $s9"; cat place8.out place9.out; }
finish
