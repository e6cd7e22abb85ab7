#!/usr/bin/env bash
# t_figures_agree.sh: one placement, one answer everywhere (issue 23). For both bundled examples
# (Cortex-M3 on mps2-an385, RV32 on sifive_e), profiled with the QEMU plugin's exact counts under
# ws:5, at three budgets with --map: the modeled cycles before and after the move and the
# speed-up are the same numbers in
#   - what `place` prints ("modeled cycles (ws:5, ...): B -> A, Xx fewer") and the plan records
#     ("modeled ws:5 B A"),
#   - the HTML page `place --html` writes, read from the DOM headless Chromium builds,
#   - the page `report --html` writes with the same options (byte for byte the same page),
#   - `report --json`'s budget_curve.modeled,
#   - what `check --profile --baseline` says the plan predicted, after the relinked firmware ran
#     under the plugin (it reads the plan's figures).
# Needs: $RAMPLACE, $RAMPLACE_SRC, $RAMPLACE_BUILD; arm-none-eabi-gcc, riscv64-unknown-elf-gcc
# (picolibc), qemu-system-arm, qemu-system-riscv32, chromium.
. "$(dirname "$0")/lib.sh"
: "${RAMPLACE_BUILD:?}"
command -v chromium >/dev/null || { fail "chromium is missing: run scripts/install-deps.sh"; finish; }
plugin=$RAMPLACE_BUILD/libramplace-qemu.so
qemu_pid=""
on_exit 'stop_pid "$qemu_pid"'

# counted ELF COUNTS: runs the firmware under the plugin (ws:5 on the example's flash), -icount
# so that two runs count the same; the example is $ex
counted() {
	local plug="$plugin,out=$2,mode=insn,model=ws:5"
	if [ "$ex" = m3 ]; then
		timeout 300 qemu-system-arm -M mps2-an385 -nographic -monitor none -serial none \
			-semihosting-config enable=on,target=native -icount shift=5,sleep=off -kernel "$1" \
			-plugin "$plug,flash=0-400000" </dev/null >"$2.out" 2>"$2.err" &
	else
		timeout 300 qemu-system-riscv32 -M sifive_e -nographic -monitor none -serial none -bios none \
			-chardev stdio,id=semi -semihosting-config enable=on,target=native,chardev=semi \
			-icount shift=5,sleep=off -kernel "$1" -plugin "$plug,flash=20400000-20800000" </dev/null >"$2.out" 2>"$2.err" &
	fi
	qemu_pid=$!
	wait_pid "$qemu_pid" 300 || { qemu_pid=""; return 1; }
	qemu_pid=""
}

build() { # DIR [FRAGMENT]
	local args=(BUILD="$1" ITERATIONS=40)
	[ -n "${2:-}" ] && args+=(RAMTEXT_LD="$2")
	make -s -C "$src" "${args[@]}" >"$1.make.log" 2>&1 || { cat "$1.make.log"; return 1; }
}

dom_id() { grep -o "id=\"$2\">[^<]*<" "$1" | head -1 | sed -E 's/^id="[^"]*">//; s/<$//'; }

for ex in m3 rv; do
	if [ "$ex" = m3 ]; then src=$RAMPLACE_SRC/examples/qemu-cortex-m3; else src=$RAMPLACE_SRC/examples/sifive-e-riscv; fi
	d=$work/$ex
	mkdir -p "$d"
	if ! build "$d/flash" || ! counted "$d/flash/fw.elf" "$d/flash.counts"; then
		fail "$ex: the flash build and its exact counts: $(head -3 "$d/flash.counts.err" 2>/dev/null)"; continue
	fi
	"$RAMPLACE" import --quiet "$d/p.db" "$d/flash/fw.elf" "$d/flash.counts"
	# without --budget, report's decision takes the free RAM the map leaves (budget auto)
	check "$ex: report --budget-curve with --map and no --budget draws the curve up to the free RAM" \
		sh -c "'$RAMPLACE' report --elf '$d/flash/fw.elf' --map '$d/flash/fw.map' --budget-curve '$d/p.db' | grep -q '^budget curve: '"
	for budget in 512 1K 2K; do
		c="$ex $budget"
		p=$d/$budget
		mkdir -p "$p"
		if ! "$RAMPLACE" place --budget "$budget" --map "$d/flash/fw.map" --html "$p/place.html" -o "$p/ramtext.ld" \
			"$d/p.db" "$d/flash/fw.elf" >"$p/place.out" 2>&1; then
			cat "$p/place.out"; fail "$c: place"; continue
		fi
		line=$(grep -E '^modeled cycles' "$p/place.out")
		read -r model before after < <(awk '$1 == "modeled" && NF == 4 { print $2, $3, $4 }' "$p/ramtext.ld.plan")
		if [ -z "$before" ]; then fail "$c: the plan records no modeled cycles"; continue; fi
		speedup=$(awk -v b="$before" -v a="$after" 'BEGIN { printf "%.2f", b / a }')
		# place prints %.3g of the same numbers
		want=$(awk -v m="$model" -v b="$before" -v a="$after" -v x="$speedup" 'BEGIN { printf "modeled cycles (%s, the profile'"'"'s): %.3g -> %.3g, %sx fewer", m, b, a, x }')
		check "$c: place prints what the plan records ($want)" [ "${line%%;*}" = "$want" ]
		# the page, as Chromium builds it
		timeout 60 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$work/chrome.$ex.$budget" --no-first-run \
			--disable-extensions --dump-dom "file://$p/place.html" >"$p/dom.html" 2>/dev/null
		got="$(dom_id "$p/dom.html" modeled-before) $(dom_id "$p/dom.html" modeled-after) $(dom_id "$p/dom.html" modeled-speedup)"
		check "$c: the page shows the same figures ($got)" [ "$got" = "$before $after ${speedup}x" ]
		# report with the same options writes the same page, and its JSON the same figures
		"$RAMPLACE" report --elf "$d/flash/fw.elf" --map "$d/flash/fw.map" --budget "$budget" --html "$p/report.html" \
			"$d/p.db" >/dev/null 2>"$p/report.err"
		check "$c: report --html writes the page place wrote" cmp -s "$p/place.html" "$p/report.html"
		"$RAMPLACE" report --elf "$d/flash/fw.elf" --map "$d/flash/fw.map" --budget "$budget" --json "$p/report.json" \
			"$d/p.db" >/dev/null 2>>"$p/report.err"
		json=$(python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))["budget_curve"]["modeled"]
print(m["model"], m["before"], m["after"], "%.2f" % m["speedup"])' "$p/report.json" 2>&1)
		check "$c: report --json gives the same figures ($json)" [ "$json" = "$model $before $after $speedup" ]
		# the relinked firmware, counted; check reads the plan's prediction
		if ! build "$p/ram" "$p/ramtext.ld" || ! counted "$p/ram/fw.elf" "$p/ram.counts"; then
			fail "$c: the relinked firmware and its counts"; continue
		fi
		"$RAMPLACE" import --quiet "$p/after.db" "$p/ram/fw.elf" "$p/ram.counts"
		"$RAMPLACE" check --plan "$p/ramtext.ld.plan" --profile "$p/after.db" --baseline "$d/p.db" "$p/ram/fw.elf" \
			>"$p/check.out" 2>&1 || true
		pred=$(grep -Eo 'the plan predicted [0-9]+, [0-9.]+x fewer' "$p/check.out")
		check "$c: check --profile predicts what place printed ($pred)" \
			[ "$pred" = "the plan predicted $after, ${speedup}x fewer" ]
	done
done
finish
