#!/usr/bin/env bash
# tier: full (scripts/test.sh --full; tests/CMakeLists.txt reads this line)
# t_zephyr_relocate.sh: `emit --format zephyr` fed to Zephyr's own code relocation (issue 24
# item 5): the real zephyr_code_relocate() (the corpus's zephyr/cmake/modules/extensions.cmake)
# and gen_relocate_app.py, on the bundled Cortex-M3 firmware built as Zephyr builds an application:
# its sources compiled into a static library (libapp.a, CMake naming each member NAME.c.obj),
# linked with a startup object, with compile_commands.json.
#   1. the flash build runs under the QEMU plugin (exact counts); place --budget 1K --map
#      --dialect zephyr (a toolchain library's functions stay in flash, said why; a plan for GNU
#      ld makes emit warn); emit --format zephyr --elf: the archive members map to their sources
#      (absolute paths from DWARF), LOCATION RAM_TEXT (Zephyr's Cortex-M memory is RAM);
#   2. CMake includes the lines, zephyr_code_relocate() records them, gen_relocate_app.py (with
#      compile_commands.json, pyelftools under Debian's python3) writes the linker pieces and the
#      copy code; the pieces, preprocessed with the macros Zephyr's linker.ld gives them for GNU
#      ld, go where the example's script had .ramtext (the example's copy loop copies the
#      generated .ram_text_reloc section through its symbols);
#   3. the relink holds the planned functions in .ram_text_reloc, in RAM, loaded from flash:
#      `check` passes by memory, and the firmware prints what the flash build printed.
# Before issue 24 the members of libapp.a gave no line at all and gen_relocate_app.py stopped:
# "Disable CONFIG_CODE_DATA_RELOCATION if no file needs relocation".
# Needs: $RAMPLACE, $RAMPLACE_SRC, $RAMPLACE_BUILD; cmake, arm-none-eabi-gcc, qemu-system-arm,
# python3-pyelftools; RAMPLACE_CORPUS (docs/corpus.md; without it the
# test is not run, and fails under CI=true).
. "$(dirname "$0")/lib.sh"
: "${RAMPLACE_BUILD:?}"
need_corpus "Zephyr's code relocation" zephyr/scripts/build/gen_relocate_app.py \
	zephyr/cmake/modules/extensions.cmake
zephyr=$corpus/zephyr
/usr/bin/python3 -c 'import elftools' 2>/dev/null || { fail "python3-pyelftools is missing: run scripts/install-deps.sh"; finish; }
ex=$RAMPLACE_SRC/examples/qemu-cortex-m3
cd "$work"

# the application as Zephyr builds one: a static library of its sources, then the link
mkdir -p proj frag plan gen
echo '/* empty */' >frag/ramtext.ld
echo '/* empty */' >frag/ramdata.ld
echo '/* empty */' >frag/flashtext.ld
cat >proj/CMakeLists.txt <<EOF
cmake_minimum_required(VERSION 3.20)
project(zephyr_style_app C)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)
include("$zephyr/cmake/modules/extensions.cmake")
# what Zephyr's build defines around zephyr_code_relocate()
add_custom_target(code_data_relocation_target)
add_custom_target(compiler)
set_property(TARGET compiler PROPERTY prohibit_lto -fno-lto)
set(flags -mcpu=cortex-m3 -mthumb -std=c11 -O2 -g -ffunction-sections -fdata-sections -DITERATIONS=20)
add_library(app STATIC $ex/main.c $ex/interp.c $ex/programs.c $ex/crc32.c $ex/lz.c $ex/records.c
  $ex/corpus.c $ex/rng.c)
target_compile_options(app PRIVATE \${flags})
add_executable(fw.elf $ex/startup.c)
target_compile_options(fw.elf PRIVATE \${flags} -fno-tree-loop-distribute-patterns)
target_link_libraries(fw.elf PRIVATE app)
target_link_options(fw.elf PRIVATE -mcpu=cortex-m3 -mthumb -g --specs=rdimon.specs -nostartfiles
  -Wl,--gc-sections -T\${LDSCRIPT} -L$work/frag -Wl,-Map=\${CMAKE_BINARY_DIR}/fw.map -Wl,--build-id=sha1)
set_target_properties(fw.elf PROPERTIES LINK_DEPENDS "\${LDSCRIPT}")
if(RELOC)
  include("\${RELOC}")
endif()
file(GENERATE OUTPUT \${CMAKE_BINARY_DIR}/relocation_list.txt
  CONTENT "\$<TARGET_PROPERTY:code_data_relocation_target,INTERFACE_SOURCES>")
EOF
toolchain=$RAMPLACE_SRC/cmake/arm-none-eabi-toolchain.cmake
if ! cmake -S proj -B b -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DLDSCRIPT="$ex/mps2-an385.ld" >b.log 2>&1 ||
   ! cmake --build b >>b.log 2>&1; then
	tail -20 b.log; fail "the flash build"; finish
fi
cp b/fw.elf flash.elf
cp b/fw.map flash.map
run_fw flash.elf -plugin "$RAMPLACE_BUILD/libramplace-qemu.so,out=$work/counts.txt" >flash.out
"$RAMPLACE" import --quiet p.db flash.elf counts.txt
# a plan for GNU ld moves the C library's memcmp too, which Zephyr cannot relocate: emit says so
mkdir -p gnuplan
"$RAMPLACE" place --quiet --budget 1K --map flash.map -o gnuplan/ramtext.ld p.db flash.elf
"$RAMPLACE" emit --format zephyr --elf flash.elf --plan gnuplan/ramtext.ld.plan -o gnu.cmake 2>gnu.err
check "a plan made for GNU ld: emit warns that its library code cannot be relocated" \
	grep -q 'have no Zephyr form .*place --dialect zephyr' gnu.err
"$RAMPLACE" place --budget 1K --map flash.map --dialect zephyr -o plan/ramtext.ld p.db flash.elf >place.out 2>&1
check "the map names the application's functions as members of libapp.a" grep -q 'libapp\.a:interp\.c\.obj(' plan/ramtext.ld.plan
check "place --dialect zephyr keeps the toolchain library's functions in flash and says why" \
	sh -c "grep -q '^dialect zephyr\$' plan/ramtext.ld.plan && ! grep -Eq '^func (memcmp|strlen|memcpy) ' plan/ramtext.ld.plan &&
	grep -q 'Zephyr relocates by source file' place.out"

"$RAMPLACE" emit --format zephyr --elf flash.elf --plan plan/ramtext.ld.plan -o reloc.cmake 2>emit.err
check "nothing in the zephyr plan is left out of the lines" sh -c "! grep -q 'not relocatable' reloc.cmake && [ ! -s emit.err ]"
check "the lines relocate libapp.a's members by their sources' paths, to RAM_TEXT" \
	sh -c "grep -q '^zephyr_code_relocate(FILES $ex/interp.c\$' reloc.cmake && grep -q '^  LOCATION RAM_TEXT)\$' reloc.cmake"

# Zephyr's side: zephyr_code_relocate() records them, gen_relocate_app.py writes the pieces
if ! cmake -S proj -B b -DRELOC="$work/reloc.cmake" >>b.log 2>&1 || ! cmake --build b --target app >>b.log 2>&1; then
	tail -20 b.log; fail "configure with the relocation lines"; finish
fi
check "zephyr_code_relocate() recorded a relocation for interp.c" grep -q "^RAM_TEXT:COPY:$ex/interp.c,\\^(" b/relocation_list.txt
if /usr/bin/python3 "$zephyr/scripts/build/gen_relocate_app.py" -i b/relocation_list.txt -f b/compile_commands.json \
	-o gen/linker_relocate.ld -s gen/linker_sram_data_relocate.ld -b gen/linker_sram_bss_relocate.ld \
	-c gen/code_relocation.c >gen.log 2>&1; then
	pass "gen_relocate_app.py accepts the relocation list"
else
	cat gen.log; fail "gen_relocate_app.py"; finish
fi
check "the copy code copies the .ram_text_reloc section" grep -q '__ram_text_reloc_start' gen/code_relocation.c
# the macros Zephyr's linker.ld gives the pieces for GNU ld (include/zephyr/linker/*.h), with XIP
cat >zephyr-macros.h <<'EOF'
#define CONFIG_XIP 1
#define SECTION_PROLOGUE(name, options, align) name options : align
#define SECTION_DATA_PROLOGUE(name, options, align) name options : align
#define GROUP_LINK_IN(where) > where
#define GROUP_DATA_LINK_IN(vregion, lregion) > vregion AT > lregion
#define GROUP_NOLOAD_LINK_IN(vregion, lregion) > vregion
#define ROMABLE_REGION FLASH
#define MPU_ALIGN(region_size) . = ALIGN(4)
EOF
arm-none-eabi-cpp -P -undef -x assembler-with-cpp -include zephyr-macros.h gen/linker_relocate.ld -o frag/linker_relocate.ld
# the example's script with .ramtext replaced by the generated pieces; its copy loop copies
# them through the generated symbols
python3 - "$ex/mps2-an385.ld" zephyr.ld <<'PY'
import re, sys
text = open(sys.argv[1]).read()
start = text.index("\t.ramtext : ALIGN(4)")
end = text.index("__ramtext_load = LOADADDR(.ramtext);") + len("__ramtext_load = LOADADDR(.ramtext);")
text = text[:start] + ("\tINCLUDE linker_relocate.ld\n\t__ramtext_start = __ram_text_reloc_start;\n"
	"\t__ramtext_end = __ram_text_reloc_end;\n\t__ramtext_load = __ram_text_rom_start;") + text[end:]
open(sys.argv[2], "w").write(text)
PY
if ! cmake -S proj -B b -DLDSCRIPT="$work/zephyr.ld" >>b.log 2>&1 || ! cmake --build b >>b.log 2>&1; then
	tail -20 b.log; fail "the link through Zephyr's generated pieces"; finish
fi
n=$(grep -c '^func ' plan/ramtext.ld.plan)
if "$RAMPLACE" check --plan plan/ramtext.ld.plan b/fw.elf >check.out 2>&1; then
	pass "check passes: $(grep '^check:' check.out)"
else
	cat check.out; fail "check on the Zephyr-relocated firmware"
fi
check "all $n planned functions run from RAM in .ram_text_reloc" \
	grep -q "^check: $n functions in RAM: 0 in .ramtext, $n in .ram_text_reloc" check.out
run_fw b/fw.elf >reloc.out
check "the relocated firmware prints what the flash build printed" cmp -s flash.out reloc.out
finish
