#!/usr/bin/env bash
# tier: full (scripts/test.sh --full; tests/CMakeLists.txt reads this line)
# t_espidf_ldgen.sh: `emit --format esp-idf` fed to ESP-IDF's own linker-script generator (issue
# 24 item 4): the corpus's esp-idf-ldgen's ldgen.py with ESP-IDF's real .lf files (esp_common,
# esp_system, esp_libc, freertos) and the real ESP32-C3 template (esp_system/ld/esp32c3/
# sections.ld.in, preprocessed as ESP-IDF does: cpp, then its "\n" markers made line breaks),
# with --check-mapping. The firmware is the bundled RV32 example (the ESP32-C3 is RV32IMC) built
# as ESP-IDF builds a component: its sources in libmain.a, members NAME.c.obj; profiled with the
# QEMU plugin's exact counts on sifive_e.
#   - place --dialect esp-idf: newlib's functions (and the startup object, linked directly) stay
#     in flash, said why; emit -o DIR/ writes a component (the fragment, one noflash_text entry
#     per planned function, and its CMakeLists.txt);
#   - ldgen accepts it with --check-mapping (the mappings of ESP-IDF's own fragments, whose
#     archives this build does not have, exempted as IDF's build exempts what it lacks), and the
#     generated script's .iram0.text holds exactly the planned input sections, each with its
#     .literal twin;
#   - a plan made for GNU ld: emit lists newlib's sections as comments with the reason, warns,
#     and ldgen still accepts the fragment (never a crash, as `archive: *` entries were);
#   - an Xtensa ELF (ESP32, S2, S3) is refused by place, saying the architecture is not
#     supported yet.
#   - link-level: the program linked through ESP-IDF's memory.ld and the generated script
#     (a stub for ESP-IDF's startup), flash-only and then with a plan made from that build's map
#     (--dialect esp-idf: .iram0.text in iram0_0_seg, candidates in .flash.text, the reset path
#     no constraint since the bootloader loads IRAM); budget auto reads the free IRAM, counting
#     what DRAM holds of the same SRAM; `check` passes with every planned function in IRAM.
# Not run: no emulator here runs an ESP32-C3; the profile is carried over by function name.
# Needs: $RAMPLACE, $RAMPLACE_SRC, $RAMPLACE_BUILD; riscv64-unknown-elf-gcc with picolibc,
# qemu-system-riscv32, python3-rich (ESP-IDF's kconfiglib), binutils-xtensa-lx106; RAMPLACE_CORPUS (docs/corpus.md;
# without it the test is not run, and fails under CI=true).
. "$(dirname "$0")/lib.sh"
: "${RAMPLACE_BUILD:?}"
need_corpus "ESP-IDF's ldgen, its templates or pyparsing" esp-idf-ldgen/tools/ldgen/ldgen.py \
	esp-idf/components/esp_system/ld/esp32c3 python/pyparsing esp-idf-kconfig
ldgen=$corpus/esp-idf-ldgen/tools/ldgen/ldgen.py
idf=$corpus/esp-idf/components
/usr/bin/python3 -c 'import rich' 2>/dev/null || { fail "python3-rich is missing: run scripts/install-deps.sh"; finish; }
ex=$RAMPLACE_SRC/examples/sifive-e-riscv
shared=$RAMPLACE_SRC/examples/qemu-cortex-m3
cd "$work"
qemu_pid=""
on_exit 'stop_pid "$qemu_pid"'

# the component archive, as ESP-IDF builds one, and the firmware linked from it
cc=(riscv64-unknown-elf-gcc -march=rv32imac -mabi=ilp32 -mcmodel=medany --specs=picolibc.specs)
cflags=(-std=c11 -O2 -g -ffunction-sections -fdata-sections -I"$shared" -DFW_BOARD='"sifive_e (RISC-V 32)"'
	-DCORPUS_SIZE=1024 -DRECORD_COUNT=128 -DITERATIONS=200)
mkdir -p obj plan gnu frag
for f in main interp programs crc32 lz records corpus rng; do
	"${cc[@]}" "${cflags[@]}" -c "$shared/$f.c" -o "obj/$f.c.obj" || { fail "compile $f.c"; finish; }
done
"${cc[@]}" "${cflags[@]}" -c "$ex/startup.c" -o obj/startup.o
rm -f libmain.a
riscv64-unknown-elf-ar rcs "$work/libmain.a" obj/*.c.obj
echo '/* empty */' >frag/ramtext.ld
echo '/* empty */' >frag/ramdata.ld
echo '/* empty */' >frag/flashtext.ld
"${cc[@]}" -g --oslib=semihost -nostartfiles -Wl,--gc-sections -T "$ex/sifive-e.ld" -Lfrag -Wl,-Map=fw.map \
	-Wl,--build-id=sha1 obj/startup.o "$work/libmain.a" -o fw.elf || { fail "link"; finish; }
timeout 300 qemu-system-riscv32 -M sifive_e -nographic -monitor none -serial none -bios none \
	-chardev stdio,id=semi -semihosting-config enable=on,target=native,chardev=semi -icount shift=5,sleep=off \
	-kernel fw.elf -plugin "$RAMPLACE_BUILD/libramplace-qemu.so,out=$work/counts.txt,mode=insn,model=ws:5,flash=20400000-20800000" \
	</dev/null >fw.out 2>fw.err &
qemu_pid=$!
wait_pid "$qemu_pid" 300 || { qemu_pid=""; fail "the firmware under the plugin: $(head -3 fw.err)"; finish; }
qemu_pid=""
"$RAMPLACE" import --quiet p.db fw.elf counts.txt

"$RAMPLACE" place --budget 1K --map fw.map --dialect esp-idf -o plan/ramtext.ld p.db fw.elf >place.out 2>&1 ||
	{ cat place.out; fail "place --dialect esp-idf"; finish; }
check "place --dialect esp-idf records the dialect and moves only libmain.a's functions" \
	sh -c "grep -q '^dialect esp-idf\$' plan/ramtext.ld.plan && ! grep '^pattern ' plan/ramtext.ld.plan | grep -qv 'libmain.a:'"
check "newlib's functions stay in flash, said why" grep -q "ESP-IDF's ldgen maps component archives, and it is in a library the build did not compile" place.out
# a ready component folder: the fragment and the CMakeLists.txt that registers it
"$RAMPLACE" emit --format esp-idf --plan plan/ramtext.ld.plan -o components/ramplace/ 2>emit.err
check "emit -o DIR/ writes a component: ramplace.lf and idf_component_register(LDFRAGMENTS ramplace.lf)" \
	grep -qx 'idf_component_register(LDFRAGMENTS ramplace.lf)' components/ramplace/CMakeLists.txt
cp components/ramplace/ramplace.lf ramplace.lf
check "every planned function has a noflash_text entry, none is left out" \
	sh -c "! grep -q '^# no ESP-IDF entry' ramplace.lf && [ ! -s emit.err ] && grep -q ' (noflash_text)\$' ramplace.lf"

# ESP-IDF's side: the ESP32-C3 template as ESP-IDF preprocesses it, the real fragments, a Kconfig
# declaring what the fragments' conditions name (its sdkconfig: a RISC-V target, flash sections)
printf '#define CONFIG_IDF_TARGET_ARCH_RISCV 1\n#define CONFIG_IDF_TARGET_ESP32C3 1\n#define CONFIG_APP_BUILD_USE_FLASH_SECTIONS 1\n#define CONFIG_MMU_PAGE_SIZE 0x10000\n#define CONFIG_SOC_RTC_MEM_SUPPORTED 1\n' >sdkconfig.h
riscv64-unknown-elf-cpp -P -undef -x c -nostdinc -I. -I"$idf/esp_system/ld/esp32c3" -I"$idf/esp_system/ld" \
	"$idf/esp_system/ld/esp32c3/sections.ld.in" | sed 's/\\n/\n/g' >sections.ld.in
mapfile -t lfs < <(ls "$idf"/*/*.lf "$idf"/*/src/*.lf)
grep -hoE '(^|[[:space:]])if [A-Z_0-9]+' "${lfs[@]}" | awk '{ print $NF }' | sort -u |
	while read -r sym; do printf 'config %s\n\tbool "%s"\n' "$sym" "$sym"; done >Kconfig
printf 'CONFIG_IDF_TARGET_ARCH_RISCV=y\nCONFIG_APP_BUILD_USE_FLASH_SECTIONS=y\n' >sdkconfig
grep -ho '^\[mapping:[A-Za-z0-9_]*\]' "${lfs[@]}" | sed 's/\[mapping://; s/\]//' >exceptions.txt
echo "$work/libmain.a" >libraries.txt   # absolute, as ESP-IDF passes them
run_ldgen() { # FRAGMENT OUT
	LDGEN_NO_CACHE=1 PYTHONPATH="$corpus/python:$corpus/esp-idf-kconfig" /usr/bin/python3 "$ldgen" \
		--input sections.ld.in --fragments "${lfs[@]}" "$1" --libraries-file libraries.txt --output "$work/$2" \
		--config sdkconfig --kconfig Kconfig --objdump riscv64-unknown-elf-objdump \
		--check-mapping --check-mapping-exceptions exceptions.txt >"$2.log" 2>&1
}
if run_ldgen ramplace.lf sections.ld; then
	pass "ESP-IDF's ldgen accepts the fragment with --check-mapping"
else
	cat sections.ld.log; fail "ldgen"; finish
fi
# the planned sections, and what the generated .iram0.text holds of libmain.a
sed -nE 's/^pattern \*\/libmain\.a:([A-Za-z0-9_-]+)\.c\.obj\((\.text\.[A-Za-z0-9_]+)\)$/\1 \2/p' plan/ramtext.ld.plan | sort >planned.txt
awk '/^ *\.iram0\.text :/ { on = 1 } on && /^ *\} *>/ { on = 0 } on' sections.ld |
	sed -nE 's/^ *\*libmain\.a:([A-Za-z0-9_-]+)\.\*\((.*)\)$/\1 \2/p' |
	while read -r obj secs; do for s in $secs; do case $s in .text.*) echo "$obj $s" ;; esac; done; done | sort >iram.txt
literals=$(awk '/^ *\.iram0\.text :/ { on = 1 } on && /^ *\} *>/ { on = 0 } on' sections.ld | grep -c '\*libmain\.a:.*(\.literal\.')
if [ -s planned.txt ] && cmp -s planned.txt iram.txt; then
	pass "the generated .iram0.text holds exactly the $(wc -l <planned.txt) planned sections (with $literals .literal twins)"
else
	fail "planned and generated IRAM sections differ:"; diff planned.txt iram.txt
fi

# a plan made for GNU ld: newlib's sections have no entry, said why; ldgen still takes the rest
"$RAMPLACE" place --quiet --budget 1K --map fw.map -o gnu/ramtext.ld p.db fw.elf
"$RAMPLACE" emit --format esp-idf --plan gnu/ramtext.ld.plan -o gnu.lf 2>gnu.err
check "a plan for GNU ld: newlib's sections are comments with the reason, and emit warns" \
	sh -c "grep -q '^# no ESP-IDF entry for .*: a member of an archive the build did not compile' gnu.lf &&
	grep -q \"place --dialect esp-idf\" gnu.err"
if run_ldgen gnu.lf gnu.ld; then pass "ldgen accepts that fragment too"; else cat gnu.ld.log; fail "ldgen on the GNU ld plan's fragment"; fi

# link-level, as an ESP-IDF application links: ESP-IDF's own memory.ld (ESP32-C3) and the
# script ldgen generates, a stub call_start_cpu0 for the startup ESP-IDF would bring. The
# flash-only build first (no fragment of ramplace's), then the profile carried over by function
# name (no emulator runs an ESP32-C3 here), a plan from that build's own map, and the relink
riscv64-unknown-elf-cpp -P -undef -x c -nostdinc -I. -I"$idf/esp_system/ld/esp32c3" -I"$idf/esp_system/ld" \
	"$idf/esp_system/ld/esp32c3/memory.ld.in" -o memory.ld
printf 'int main(void);\nvoid initialise_monitor_handles(void) {}\nvoid call_start_cpu0(void)\n{\n\tmain();\n\tfor (;;)\n\t\t;\n}\n' >idf_start.c
"${cc[@]}" -O2 -g -c idf_start.c -o idf_start.o
idf_link() { # SCRIPT ELF: links the program through ESP-IDF's memory.ld and SCRIPT
	"${cc[@]}" -g --oslib=semihost -nostartfiles -Wl,--gc-sections -Wl,--no-warn-rwx-segments -T memory.ld -T "$1" \
		-Wl,-Map="${2%.elf}.map" idf_start.o "$work/libmain.a" -o "$2" >"$2.log" 2>&1
}
echo '# no entries' >none.lf
if run_ldgen none.lf idf-flash.ld && idf_link idf-flash.ld idf-flash.elf; then
	pass "the flash-only build links through ESP-IDF's memory.ld and generated sections"
else
	cat idf-flash.ld.log idf-flash.elf.log 2>/dev/null | tail -20; fail "the ESP-IDF flash-only link"; finish
fi
"$RAMPLACE" report --addresses p.db | awk '$1 ~ /^[0-9]+$/ && NF >= 5 { print $NF, $1 }' |
	while read -r fn n; do
		a=$(riscv64-unknown-elf-nm idf-flash.elf | awk -v f="$fn" '$3 == f && !d { print $1; d = 1 }')
		[ -z "$a" ] || echo "0x$a $n"
	done >idf.pcs
"$RAMPLACE" import --quiet idf.db idf-flash.elf idf.pcs
mkdir -p iplan iauto
"$RAMPLACE" place --budget 1K --map idf-flash.map --dialect esp-idf -o iplan/ramtext.ld idf.db idf-flash.elf \
	>iplace.out 2>&1 || { cat iplace.out; fail "place on the ESP-IDF build"; finish; }
check "the plan is for .iram0.text in iram0_0_seg, ESP-IDF's flash code (.flash.text) its candidates" \
	sh -c "grep -q '^output-section .iram0.text\$' iplan/ramtext.ld.plan && grep -q '^region iram0_0_seg ' iplan/ramtext.ld.plan &&
	[ \$(grep -c '^unit ' iplan/ramtext.ld.plan) -ge 5 ]"
check "the reset path is no constraint: ESP-IDF's bootloader loads IRAM before the application" \
	grep -q '^reset path: not a constraint under ESP-IDF' iplace.out
"$RAMPLACE" place --budget auto --map idf-flash.map --dialect esp-idf -o iauto/ramtext.ld idf.db idf-flash.elf \
	>iauto.out 2>&1 || { cat iauto.out; fail "place --budget auto on the ESP-IDF build"; }
check "budget auto takes the free IRAM from the map, with what DRAM holds of the same SRAM" \
	sh -c "grep -q '^RAM map of iram0_0_seg ' iauto.out && grep -q 'the same SRAM seen as dram0_0_seg' iauto.out &&
	grep -Eq '^ +0x3fc[0-9a-f]+ +[0-9]+  \\.dram0\\.bss\$' iauto.out && grep -Eq '^  free for code: [0-9]+ bytes' iauto.out"
"$RAMPLACE" emit --format esp-idf --plan iplan/ramtext.ld.plan -o iplan.lf
if run_ldgen iplan.lf idf-ram.ld && idf_link idf-ram.ld idf-ram.elf; then
	pass "ldgen (--check-mapping) and the link take that plan's fragment"
else
	cat idf-ram.ld.log idf-ram.elf.log 2>/dev/null | tail -20; fail "the ESP-IDF relink"; finish
fi
if "$RAMPLACE" check --plan iplan/ramtext.ld.plan idf-ram.elf >icheck.out 2>&1; then
	pass "check passes on the ESP-IDF link: $(grep '^check:' icheck.out)"
else
	cat icheck.out; fail "check on the ESP-IDF link"
fi
n=$(grep -c '^func ' iplan/ramtext.ld.plan)
check "all $n planned functions are in .iram0.text, in IRAM (0x4038xxxx)" \
	sh -c "grep -q '^check: $n functions in RAM in .iram0.text' icheck.out &&
	! grep '^func ' iplan/ramtext.ld.plan | awk '{ print \$2 }' | while read -r f; do
		riscv64-unknown-elf-nm idf-ram.elf | awk -v f=\"\$f\" '\$3 == f { print \$1 }'; done | grep -qv '^403'"

# ESP32, S2 and S3 are Xtensa: place says so plainly (a real Xtensa ELF, from Debian's binutils
# for the ESP8266's lx106 core: the same e_machine)
cat >xt.S <<'EOF'
	.text
	.global hot
	.type hot, @function
	.align 4
hot:
	movi a2, 1
	ret
	.size hot, .-hot
	.global _start
	.type _start, @function
	.align 4
_start:
	call0 hot
	j _start
	.size _start, .-_start
EOF
xtensa-lx106-elf-as xt.S -o xt.o && xtensa-lx106-elf-ld -Ttext=0x40100000 -e _start xt.o -o xt.elf
echo '0x40100000 100' >xt.pcs
"$RAMPLACE" import --quiet xt.db xt.elf xt.pcs
st=0
"$RAMPLACE" place --budget 1K -o xt.ld xt.db xt.elf >xt.out 2>xt.err || st=$?
check "an Xtensa ELF: place exits 2 saying the architecture is not supported yet, writing nothing" \
	sh -c "[ $st -eq 2 ] && grep -q 'Xtensa (ESP32, ESP32-S2, ESP32-S3) is not supported yet' xt.err && [ ! -e xt.ld ]"
finish
