#!/usr/bin/env bash
# t_ramdata_cycles.sh: code and read-only data in one currency (issue 14 item 4, follow-up). On
# the bundled Cortex-M3 firmware, `place --data` placing in cycles weighs the const object
# `handlers` by the stall cycles of its reads, as it weighs the code: the plugin's measured
# stall cycles under the profile's own model (ws:5; the test sums the plugin's `d` lines over
# the object's bytes), else its reads times one read's stall under the model asked for (ws:3
# on the same profile), else, for a profile without flash costs, the literal-pool proxy times
# it; each less the copy at boot (a load and a store per word). The modeled cycles' saving is
# code + data. The code plan names its data plan, so `check` with only the code fragment
# verifies .ramdata too, fails naming the object on a link that left it in flash, and a named
# data plan that is missing is one error line (exit 2). ramplace.yaml's pin-data and data keys.
# Needs: $RAMPLACE, $RAMPLACE_SRC, $RAMPLACE_BUILD; arm-none-eabi-gcc, qemu-system-arm.
. "$(dirname "$0")/lib.sh"
: "${RAMPLACE_BUILD:?}"
ex=$RAMPLACE_SRC/examples/qemu-cortex-m3
plugin=$RAMPLACE_BUILD/libramplace-qemu.so
build() { make_fw "$ex" "$1" ITERATIONS=20 RAMPLACE="$RAMPLACE" "${@:2}"; } # DIR [make args...]
place() { # OUTDIR DB [args...]: place --data at 1 KiB into OUTDIR
	local out=$1 db=$2
	shift 2
	mkdir -p "$out"
	"$RAMPLACE" place --data --budget 1K --map "$work/flash/fw.map" -o "$out/ramtext.ld" "$db" \
		"$work/flash/fw.elf" "$@" >"$out.out" || { cat "$out.out"; fail "place --data $*"; finish; }
}
unit_weight() { awk '$1 == "unit" && $2 == "handlers" { print $6 }' "$1/ramdata.ld.plan"; }
near() { # GOT WANT: |GOT - WANT| <= 1
	awk -v g="$1" -v w="$2" 'BEGIN { d = g - w; exit !(g != "" && d <= 1 && d >= -1) }'
}

build "$work/flash"
run_fw "$work/flash/fw.elf" >"$work/flash.out" || fail "flash-only firmware fails"
run_fw "$work/flash/fw.elf" -plugin "$plugin,out=$work/ws5.txt,model=ws:5,flash=0-400000" >/dev/null || fail "plugin ws:5"
run_fw "$work/flash/fw.elf" -plugin "$plugin,out=$work/plain.txt" >/dev/null || fail "plugin plain"
"$RAMPLACE" import --quiet "$work/ws5.db" "$work/flash/fw.elf" "$work/ws5.txt" || fail "import ws:5"
"$RAMPLACE" import --quiet "$work/plain.db" "$work/flash/fw.elf" "$work/plain.txt" || fail "import plain"

# handlers' reads and stall cycles as the plugin wrote them: its `d` lines inside the object
read -r start size < <(arm-none-eabi-nm -S "$work/flash/fw.elf" | awk '$4 == "handlers" { print $1, $2 }')
read -r reads stall < <(awk -v lo=$((0x$start)) -v hi=$((0x$start + 0x$size)) \
	'function hex(h,  v, i) { v = 0; for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(tolower(h), i, 1)) - 1; return v }
	$1 == "d" { a = hex($2); if (a >= lo && a < hi) { r += $3; s += $4 } } END { print r + 0, s + 0 }' \
	"$work/ws5.txt")
[ "$reads" -gt 0 ] && [ "$stall" -gt 0 ] && pass "plugin: handlers read $reads times, $stall stall cycles" ||
	fail "no data reads of handlers in the plugin's output"
words=$(awk -v b=$((0x$size)) 'BEGIN { print (b + 3) / 4 }')

# 1. measured: the plugin's stall cycles under the profile's own model, less the copy
place "$work/m" "$work/ws5.db"
want=$(awk -v s="$stall" -v w="$words" 'BEGIN { printf "%.0f", s - w * (2 + 5 / 2) }')
got=$(unit_weight "$work/m")
near "$got" "$want" && pass "measured: handlers weighs $got = $stall stall - copy" ||
	{ cat "$work/m.out"; fail "measured weight $got, want $want"; }
grep -q '^ *cycles~ ' "$work/m.out" && grep -q 'weights: stall cycles per object measured under ws:5' "$work/m.out" &&
	pass "the report says the data weighs in measured stall cycles" || fail "report does not name the currency"
# the modeled saving is code + data: before - after = data + code cycles (within print rounding)
line=$(grep '^data share of the saved stall cycles' "$work/m.out")
read -r data code < <(echo "$line" | sed 's/.*(\([0-9]*\) data + \([0-9]*\) code cycles.*/\1 \2/')
[ "$data" = "$got" ] && pass "data share line counts the moved object's cycles" || fail "share line: $line"
read -r before after < <(sed -n 's/^modeled cycles ([^)]*): \([0-9.e+]*\) -> \([0-9.e+]*\),.*/\1 \2/p' "$work/m.out")
awk -v b="$before" -v a="$after" -v s=$((data + code)) 'BEGIN { d = (b - a) - s; if (d < 0) d = -d; exit !(d <= 0.01 * b) }' &&
	pass "modeled saving $before - $after = code $code + data $data cycles" ||
	{ grep '^modeled' "$work/m.out"; fail "modeled saving is not code + data ($code + $data)"; }

# 2. estimated from reads: another model than the profile's (ws:3): reads x 3, less the copy
place "$work/e" "$work/ws5.db" --flash-model ws:3 --pin-data handlers   # pinned: in the plan at any worth
want=$(awk -v r="$reads" -v w="$words" 'BEGIN { printf "%.0f", r * 3 - w * (2 + 3 / 2) }')
got=$(unit_weight "$work/e")
near "$got" "$want" && pass "estimated at ws:3: handlers weighs $got = $reads reads x 3 - copy" ||
	{ cat "$work/e.out"; fail "estimated weight $got, want $want"; }

# 3. no flash costs in the profile: the literal-pool proxy (as placed by samples) x the model
place "$work/p" "$work/plain.db"
proxy=$(unit_weight "$work/p")
place "$work/q" "$work/plain.db" --flash-model ws:5
want=$(awk -v r="$proxy" -v w="$words" 'BEGIN { printf "%.0f", r * 5 - w * (2 + 5 / 2) }')
got=$(unit_weight "$work/q")
[ -n "$proxy" ] && near "$got" "$want" && pass "proxy in cycles: $proxy x 5 - copy = $got" ||
	{ cat "$work/q.out"; fail "proxy weight $got, want $want (proxy $proxy)"; }
grep -q 'weights: stall cycles under ws:5, 5 per read, less the copy; reads: literal-pool proxy' "$work/q.out" &&
	pass "the report names the proxy and its conversion" || fail "no proxy conversion in the report"

# 4. check finds the data plan through the code plan
grep -q '^data-plan ramdata.ld.plan$' "$work/m/ramtext.ld.plan" && pass "the code plan names its data plan" ||
	fail "no data-plan line in the code plan"
build "$work/ram" RAMTEXT_LD="$work/m/ramtext.ld"
"$RAMPLACE" check -f "$work/m/ramtext.ld" "$work/ram/fw.elf" >"$work/check.out" &&
	grep -q '^check: 1 data object in .ramdata' "$work/check.out" &&
	pass "check with the code fragment alone verifies .ramdata too" || { cat "$work/check.out"; fail "check"; }
run_fw "$work/ram/fw.elf" >"$work/ram.out" || fail "relinked firmware fails"
cmp -s "$work/flash.out" "$work/ram.out" && pass "output byte-identical to the flash-only build" || fail "output differs"
status=0
"$RAMPLACE" check -q -f "$work/m/ramtext.ld" "$work/flash/fw.elf" >"$work/stale.out" || status=$?
[ "$status" -eq 1 ] && grep -q "^data object 'handlers' is at 0x[0-9a-f]*, not in .ramdata" "$work/stale.out" &&
	pass "check fails on data left in flash, from the code plan alone" || { cat "$work/stale.out"; fail "stale: $status"; }
# 5. ramplace.yaml: pin-data alone turns data placement on; data: off wins over it
mkdir -p "$work/y1" "$work/y2"
printf 'regions: [{name: sram, budget: 1K}]\npin-data: [handlers]\n' >"$work/y1.yaml"
printf 'regions: [{name: sram, budget: 1K}]\npin-data: [handlers]\ndata: off\n' >"$work/y2.yaml"
for y in y1 y2; do
	"$RAMPLACE" place -c "$work/$y.yaml" --map "$work/flash/fw.map" -o "$work/$y/ramtext.ld" "$work/ws5.db" \
		"$work/flash/fw.elf" >"$work/$y.out" || { cat "$work/$y.out"; fail "place -c $y.yaml"; }
done
grep -q '^object handlers interp.c$' "$work/y1/ramdata.ld.plan" && pass "config pin-data: handlers in .ramdata" ||
	fail "config pin-data did not move handlers"
[ ! -e "$work/y2/ramdata.ld.plan" ] && ! grep -q '^data-plan' "$work/y2/ramtext.ld.plan" &&
	pass "config data: off: no data plan" || fail "data: off still placed data"

mv "$work/m/ramdata.ld.plan" "$work/m/gone.plan"
status=0
"$RAMPLACE" check -f "$work/m/ramtext.ld" "$work/ram/fw.elf" >"$work/gone.out" 2>"$work/gone.err" || status=$?
[ "$status" -eq 2 ] && [ "$(wc -l <"$work/gone.err")" -eq 1 ] && grep -q 'ramdata.ld.plan' "$work/gone.err" &&
	pass "a missing data plan: one line naming it, exit 2" || { cat "$work/gone.err"; fail "missing data plan: $status"; }
finish
