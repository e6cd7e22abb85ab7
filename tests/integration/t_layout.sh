#!/usr/bin/env bash
# tier: full (scripts/test.sh --full; tests/CMakeLists.txt reads this line)
# t_layout.sh: place --trace (issue 26, docs/layout.md) on the bundled Cortex-M3 firmware, every
# figure measured on the relinked firmware by the QEMU plugin under the same flash model:
#  - the pricing: replaying the trace's runs for the layout as linked gives exactly the plugin's
#    stall cycles (a cache model), the full replay the same; for the layout a relink made, read
#    back from its ELF, the runs give the plugin's count on the relinked firmware within 0.5 %
#    (measured: 0.07 %; 1.1 % while the model counted the boot copy's loop at 4 instructions a
#    word, where Reset_Handler's runs 5: the link model now reads it); the link model's layout
#    of the 1 KiB and 4 KiB plans puts every accessed section and veneer where ld did (each
#    veneer in its slot of ld's stub order) and prices it as the relink read back;
#  - a 2 KiB 2-way cache at 1 KiB of RAM: the fragment and flashtext.ld link, the ordered
#    sections lie in flashtext.ld's order, `check` passes, the output is unchanged, the relinked
#    firmware is faster than flash only and than placing by cycles without the layout, and its
#    cycles are within 5 % of what place predicted;
#  - a sampled trace whose windows lie back to back (each starting from what the flash held,
#    replayed) prices the layout as linked exactly as the plugin counts it (with the windows'
#    own warm-up instead, +1.05 %), and the relink within 0.5 % of the whole trace (0.11 %);
#  - --budget 0: the layout alone, nothing moved, faster than flash only;
#  - RP2040's 16 KiB cache, which holds the hot code: not slower than flash only (placing by
#    cycles alone is: the copy and veneers cost more than the misses they save);
#  - refusals: no map, a malformed trace (file and line), --data; exit status 2.
# Needs: arm-none-eabi-gcc (newlib), qemu-system-arm; $RAMPLACE_BUILD (plugin, bench_layout_eval).
. "$(dirname "$0")/lib.sh"
: "${RAMPLACE_BUILD:?}"
plugin=$RAMPLACE_BUILD/libramplace-qemu.so
evalb=$RAMPLACE_BUILD/bench/bench_layout_eval
ex=$RAMPLACE_SRC/examples/qemu-cortex-m3
cd "$work"
small=cache:size=2048,ways=2,line=16,penalty=50

run() { # ELF COUNTS MODEL [TRACE]: the firmware's output in ELF.out
	local opts="$plugin,out=$2,mode=insn,model=${3//,/,,},flash=0-400000"
	[ -n "${4:-}" ] && opts="$opts,trace=$4"
	run_fw "$1" -plugin "$opts" >"$1.out"
}
hdr() { awk -v k="$2" '$2 == k { print $3 }' "$1"; }
stall() { echo $(($(hdr "$1" stall-fetch) + $(hdr "$1" stall-read))); }
total() { echo $(($(hdr "$1" insns-executed) + $(stall "$1"))); }
relink() { # NAME PLACE-ARGS...: places into NAME/, relinks NAME/b/fw.elf, checks, runs under $model
	local name=$1
	shift
	mkdir -p "$name"
	"$RAMPLACE" place --map flash/fw.map -o "$name/ramtext.ld" "$@" >"$name/place.out" 2>&1 ||
		{ cat "$name/place.out"; fail "$name: place"; return 1; }
	make_fw "$ex" "$work/$name/b" RAMTEXT_LD="$work/$name/ramtext.ld" ITERATIONS=2
	check "$name: check passes" "$RAMPLACE" check --allow-empty --plan "$name/ramtext.ld.plan" "$name/b/fw.elf"
	run "$name/b/fw.elf" "$name/counts.txt" "$model"
	check "$name: the relinked firmware prints what the flash-only build prints" cmp -s "$name/b/fw.elf.out" flash/fw.elf.out
}

make_fw "$ex" "$work/flash" ITERATIONS=2
model=$small
run flash/fw.elf flash.txt "$model" trace.txt
"$RAMPLACE" import --quiet p.db flash/fw.elf flash.txt
base=$(total flash.txt) base_stall=$(stall flash.txt)

# the pricing against the plugin
"$evalb" flash/fw.elf flash/fw.map trace.txt "$model" >eval.txt
read -r runs full <<<"$(awk '/^as linked/ { print $4, $8 }' eval.txt)"
check "the runs of the layout as linked cost the plugin's stall cycles ($runs = $base_stall)" test "$runs" = "$base_stall"
check "the full replay agrees ($full)" test "$full" = "$base_stall"
check "the runs price every layout as the full replay does on a cache ($(grep max-error eval.txt))" \
	grep -q '^max-error 0.0000 %$' eval.txt

# 1 KiB: by cycles alone (b), and with the layout (c)
relink b --budget 1K --flash-model "$model" p.db flash/fw.elf
relink c --budget 1K --flash-model "$model" --trace trace.txt p.db flash/fw.elf
check "place --trace writes flashtext.ld with an order" grep -q '(\.text' c/flashtext.ld
check "and flashtext.order (ld.lld) with the same functions" test -s c/flashtext.order
# the ordered sections lie in that order: each function of flashtext.order above the one before
arm-none-eabi-nm c/b/fw.elf >c/nm.txt
check "the relink lays the ordered functions out in flashtext.order's order" python3 - c/nm.txt c/flashtext.order <<'PY'
import sys
addr, seen = {}, set()
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 3 and f[1] in "tTwW":
        if f[2] in seen:   # two statics of one name (newlib's __sbprintf): no single address
            addr.pop(f[2], None)
        else:
            addr[f[2]] = int(f[0], 16)
        seen.add(f[2])
last, bad = -1, 0
for name in open(sys.argv[2]).read().split():
    if name in addr:
        if addr[name] < last:
            print(name, "is below the function before it"); bad = 1
        last = addr[name]
sys.exit(bad)
PY
b_total=$(total b/counts.txt) c_total=$(total c/counts.txt)
b_stall=$(stall b/counts.txt) c_stall=$(stall c/counts.txt)
echo "flash only $base cycles ($base_stall stall); by cycles $b_total ($b_stall); with the layout $c_total ($c_stall)"
check "with the layout the firmware is faster than flash only ($c_total < $base)" test "$c_total" -lt "$base"
check "and than placing by cycles alone ($c_total < $b_total; stall $c_stall vs $b_stall)" test "$c_total" -lt "$b_total"
predicted=$(sed -n 's/.*, chosen \([0-9]*\) (.*/\1/p' c/place.out)
measured=$((c_total - $(hdr flash.txt insns-executed)))
check "place predicted the relinked firmware's stall and veneer cycles within 5 % ($predicted vs $measured)" \
	awk -v p="$predicted" -v m="$measured" 'BEGIN { d = p - m; if (d < 0) d = -d; exit !(p > 0 && d <= 0.05 * m) }'
"$evalb" --relinked c/b/fw.elf flash/fw.elf flash/fw.map trace.txt "$model" >relinked.txt
read -r rl_runs rl_full <<<"$(awk '/^relinked runs/ { print $3, $5 }' relinked.txt)"
check "the trace prices the relink's own layout within 0.5 % of the plugin's count on it ($rl_runs vs $measured)" \
	awk -v p="$rl_runs" -v f="$rl_full" -v m="$measured" 'BEGIN { d = p - m; if (d < 0) d = -d; exit !(p == f && d <= 0.005 * m) }'
# the link model's own layout of a plan against its relink: every accessed section and every
# veneer where ld put it (a veneer per function called, libc's fflush.o two; each in its slot of
# ld's stub order, keyed by the id of the block's last section: at 4 KiB libgcc's soft-float
# member, pulled in the group's second pass after libc's LOAD), priced as the relink read back
relink c4 --budget 4K --flash-model "$model" --trace trace.txt p.db flash/fw.elf
for p in c c4; do
	BENCH_LAYOUT_FRAGMENTS=$p "$evalb" --relinked $p/b/fw.elf flash/fw.elf flash/fw.map trace.txt "$model" >$p/model.txt
	read -r lm_cycles lm_secs lm_ven lm_nven lm_slot <<<"$(sed -n 's/^link model: \([0-9]*\) cycles.*, \([0-9]*\) accessed section(s) and \([0-9]*\) of \([0-9]*\) veneer(s) .*, \([0-9]*\) in another slot.*/\1 \2 \3 \4 \5/p' $p/model.txt)"
	p_runs=$(awk '/^relinked runs/ { print $3 }' $p/model.txt)
	check "$p: the link model lays the plan as ld did: ${lm_secs:-?} accessed sections and ${lm_ven:-?} of ${lm_nven:-?} veneers elsewhere, ${lm_slot:-?} in another slot" \
		test "${lm_secs:-x}${lm_ven:-x}${lm_slot:-x}" = 000
	check "$p: and prices it as the relink read back (${lm_cycles:-?} = $p_runs)" test "${lm_cycles:-x}" = "$p_runs"
done
check "c4: its stub block holds veneers in ld's order (${lm_nven:-?}, more than one)" test "${lm_nven:-0}" -gt 1

# a sampled trace with its windows back to back: each starts from what the flash held (the
# plugin's "f|r" lines, replayed), so nothing is lost at a window's start
run flash/fw.elf sampled-counts.txt "$small" "sampled.txt,trace-window=20000,trace-period=20000"
check "a sampled trace holds what the flash held before each window and at the end" \
	sh -c 'grep -q "^# window at" sampled.txt && grep -q "^f [0-9a-f]* [0-9]*$" sampled.txt && grep -q "^# footprint$" sampled.txt'
"$evalb" flash/fw.elf flash/fw.map sampled.txt "$small" >sampled-eval.txt
s_runs=$(awk '/^as linked/ { print $4 }' sampled-eval.txt)
check "its windows back to back price the layout as linked as the plugin counts it ($s_runs = $base_stall)" \
	test "$s_runs" = "$base_stall"
s_rl=$("$evalb" --relinked c/b/fw.elf flash/fw.elf flash/fw.map sampled.txt "$small" | awk '/^relinked runs/ { print $3 }')
check "and the relink within 0.5 % of the whole trace ($s_rl vs $rl_runs; measured 0.11 %: the veneers' replay)" \
	awk -v s="$s_rl" -v w="$rl_runs" 'BEGIN { d = s - w; if (d < 0) d = -d; exit !(s > 0 && d <= 0.005 * w) }'

# the layout alone
relink d --budget 0 --flash-model "$model" --trace trace.txt p.db flash/fw.elf
check "--budget 0 moves nothing" grep -q '^used 0$' d/ramtext.ld.plan
d_total=$(total d/counts.txt)
check "the layout alone is faster than flash only ($d_total < $base)" test "$d_total" -lt "$base"

# a cache that holds the hot code
model=cache:rp2040
run flash/fw.elf flash2040.txt "$model"
"$RAMPLACE" import --quiet p2040.db flash/fw.elf flash2040.txt
relink r --budget 1K --flash-model "$model" --trace trace.txt p2040.db flash/fw.elf
r_total=$(total r/counts.txt) r_base=$(total flash2040.txt)
check "under cache:rp2040 the relink with the layout is not slower than flash only ($r_total <= $r_base)" \
	test "$r_total" -le "$r_base"

# refusals
status=0
"$RAMPLACE" place --budget 1K --flash-model "$small" --trace trace.txt -o x.ld p.db flash/fw.elf >nomap.out 2>&1 || status=$?
check "--trace without a map is refused (exit $status): $(head -1 nomap.out)" \
	sh -c "[ $status = 2 ] && grep -q 'needs the link map' nomap.out"
head -100 trace.txt >bad.txt
echo 'F 12 zz' >>bad.txt
status=0
"$RAMPLACE" place --budget 1K --map flash/fw.map --flash-model "$small" --trace bad.txt -o y.ld p.db flash/fw.elf >bad.out 2>&1 || status=$?
check "a malformed trace names its file and line (exit $status): $(head -1 bad.out)" \
	sh -c "[ $status = 2 ] && grep -q 'bad.txt:101:' bad.out && [ ! -e y.ld ]"
status=0
"$RAMPLACE" place --budget 1K --map flash/fw.map --flash-model "$small" --trace trace.txt --data -o z.ld p.db flash/fw.elf >data.out 2>&1 || status=$?
check "--trace with --data is refused (exit $status)" sh -c "[ $status = 2 ] && grep -q 'drop --data' data.out"
finish
