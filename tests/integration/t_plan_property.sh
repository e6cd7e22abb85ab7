#!/usr/bin/env bash
# t_plan_property.sh: planned bytes = linked bytes, on many random plans (issue 22 item 3). The
# bundled Cortex-M3 firmware, built at -Os (2-byte aligned Thumb functions) and at -O2, gets
# random profiles (every function a random weight, a fixed seed per round, printed) and random
# budgets from 256 bytes to 16 KiB; each plan is relinked and checked: with --map the section
# the linker wrote must be exactly what the plan claimed (code + veneers + GNU ld's veneer-block
# padding, whatever the count of veneers), without a map it may come in below the plan but never
# above its budget. A failure names the round, so it can be replayed.
# Needs: $RAMPLACE, $RAMPLACE_SRC; arm-none-eabi-gcc (newlib).
. "$(dirname "$0")/lib.sh"
ex=$RAMPLACE_SRC/examples/qemu-cortex-m3
rounds=${PROPERTY_ROUNDS:-12}
cd "$work"
for opt in -Os -O2; do
	d=$work/$opt
	mkdir -p "$d"
	make_fw "$ex" "$d/flash" ITERATIONS=5 EXTRA_CFLAGS="$opt"
	arm-none-eabi-nm -S "$d/flash/fw.elf" | awk '($3 == "t" || $3 == "T") && $2 != "00000000" { print $1, $4 }' >"$d/funcs.txt"
	worst_map="" worst_nomap=""
	for round in $(seq 1 "$rounds"); do
		seed=$((round * 7919 + ${#opt}))
		python3 - "$d/funcs.txt" "$seed" >"$d/pcs.txt" <<'PY'
import random, sys
random.seed(int(sys.argv[2]))
for line in open(sys.argv[1]):
    addr, name = line.split()
    if random.random() < 0.6:
        for _ in range(random.choice([1, 2, 5, 20, 100, 400])):
            print("0x" + addr)
PY
		budget=$(python3 -c "import random; random.seed($seed); print(random.choice([256, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384]))")
		rm -f "$d/p.db"
		"$RAMPLACE" import --quiet --format pclist --force "$d/p.db" "$d/flash/fw.elf" "$d/pcs.txt"
		for map in map nomap; do
			p=$d/$round-$map
			mkdir -p "$p"
			opts=(--budget "$budget" --min-share 0 -o "$p/ramtext.ld" --quiet)
			[ "$map" = map ] && opts+=(--map "$d/flash/fw.map")
			if ! "$RAMPLACE" place "${opts[@]}" "$d/p.db" "$d/flash/fw.elf" >"$p/place.out" 2>&1; then
				cat "$p/place.out"; fail "$opt round $round ($map, seed $seed, budget $budget): place"; continue
			fi
			make -s -C "$ex" BUILD="$d/relink" ITERATIONS=5 EXTRA_CFLAGS="$opt" RAMTEXT_LD="$p/ramtext.ld" >"$p/make.log" 2>&1 ||
				{ cat "$p/make.log"; fail "$opt round $round ($map): the relink"; continue; }
			"$RAMPLACE" check --plan "$p/ramtext.ld.plan" "$d/relink/fw.elf" >"$p/check.out" 2>&1 || true
			line=$(grep '^accounting: .ramtext planned' "$p/check.out" || true)
			planned=$(sed -E 's/.* planned ([0-9]+) bytes.*/\1/' <<<"$line")
			linked=$(sed -E 's/.*linked ([0-9]+):.*/\1/' <<<"$line")
			veneers=$(sed -E 's/.* in ([0-9]+) veneer.*/\1/' <<<"$line")
			if [ -z "$line" ]; then
				cat "$p/check.out"; fail "$opt round $round ($map, seed $seed, budget $budget): no accounting"
			elif [ "$map" = map ] && [ "$planned" != "$linked" ]; then
				cat "$p/check.out"; fail "$opt round $round (map, seed $seed, budget $budget, $veneers veneers): planned $planned, linked $linked"
			elif [ "$map" = nomap ] && [ "$linked" -gt "$budget" ]; then
				cat "$p/check.out"; fail "$opt round $round (no map, seed $seed): linked $linked over the budget $budget"
			else
				[ "$map" = map ] && worst_map="$worst_map $veneers" || worst_nomap="$worst_nomap $((budget - linked))"
			fi
		done
	done
	pass "$opt: $rounds random plans with the map link exactly as planned (veneers per plan:$worst_map); without it within budget (bytes left:$worst_nomap)"
done
finish
