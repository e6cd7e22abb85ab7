#!/usr/bin/env bash
# t_readme_commands.sh: what README tells a new user to run is what CI runs and what works.
#  - README's Quick start holds two commands (scripts/readme-commands.sh reads them, and .ci/run
#    runs exactly what it reads), each a script of this repository, the first the Quick start;
#  - the loop the Quick start runs never fails silently: with the QEMU plugin missing it exits
#    non-zero and shows QEMU's own message and the step that failed;
#  - README's first-build line (`ramplace place --allow-empty -o ramtext.ld`), run as written
#    in an empty folder, writes an empty fragment and plan without a profile, an ELF or a
#    budget; the example firmware links with that fragment and `check --allow-empty` passes;
#  - README's note on -L before -T holds for GNU ld called directly.
# Needs: $RAMPLACE, $RAMPLACE_SRC, $RAMPLACE_BUILD; arm-none-eabi-gcc, qemu-system-arm.
. "$(dirname "$0")/lib.sh"
: "${RAMPLACE_BUILD:?}"
readme=$RAMPLACE_SRC/README.md

mapfile -t cmds < <("$RAMPLACE_SRC/scripts/readme-commands.sh" "$readme")
check "README's Quick start holds two commands: ${cmds[*]}" [ "${#cmds[@]}" -eq 2 ]
check "the first is the Quick start script" [ "${cmds[0]%% *}" = scripts/quickstart.sh ]
for c in "${cmds[@]}"; do
	check "'$c' is an executable script of the repository" [ -x "$RAMPLACE_SRC/${c%% *}" ]
done
check ".ci/run runs the commands README's Quick start holds" grep -q 'scripts/readme-commands.sh README.md' "$RAMPLACE_SRC/.ci/run"
check "the Quick start builds the QEMU plugin its loop needs" grep -Eq -- '--target .*ramplace-qemu' "$RAMPLACE_SRC/scripts/quickstart.sh"

# the loop with its plugin missing: loud, not silent
status=0
PLUGIN="$work/no-such-plugin.so" ITERATIONS=20 RAMPLACE="$RAMPLACE" \
	"$RAMPLACE_SRC/examples/qemu-cortex-m3/loop.sh" "$work/loop" >"$work/loop.out" 2>"$work/loop.err" || status=$?
if [ "$status" -ne 0 ] && grep -q 'Could not load plugin' "$work/loop.err" &&
   grep -q '^loop: counting .* under the plugin: QEMU exited with status' "$work/loop.err"; then
	pass "a loop whose plugin is missing exits $status and says why"
else
	fail "a loop whose plugin is missing (status $status): $(tail -3 "$work/loop.err")"
fi

# README's first-build line, as written
line=$(grep -m1 -E '^ *ramplace place --allow-empty' "$readme" | sed 's/^ *//; s/ *#.*//')
check "README has the first-build line: $line" [ -n "$line" ]
mkdir "$work/first"
status=0
(cd "$work/first" && eval "\"\$RAMPLACE\" ${line#ramplace }") >"$work/first.out" 2>"$work/first.err" || status=$?
if [ "$status" -eq 0 ] && [ "$(ls "$work/first" | tr '\n' ' ')" = "ramtext.ld ramtext.ld.plan " ] &&
   ! grep -Ev '^ ?(/\*|\*)' "$work/first/ramtext.ld" | grep -q . && grep -qx 'build-id -' "$work/first/ramtext.ld.plan"; then
	pass "the first-build line writes an empty fragment and plan, nothing else, from nothing"
else
	fail "the first-build line: exit $status: $(cat "$work/first.err") [$(ls "$work/first")]"
fi
make_fw "$RAMPLACE_SRC/examples/qemu-cortex-m3" "$work/fb" ITERATIONS=5 RAMTEXT_LD="$work/first/ramtext.ld"
check "the example links with it and check --allow-empty passes" \
	"$RAMPLACE" check --quiet --allow-empty --plan "$work/first/ramtext.ld.plan" "$work/fb/fw.elf"
check "check without --allow-empty still refuses a plan that moves nothing" \
	bash -c '! "$0" check --quiet --plan "$1" "$2" >/dev/null 2>&1' "$RAMPLACE" "$work/first/ramtext.ld.plan" "$work/fb/fw.elf"

# -L before -T with ld itself (README, step 2)
mkdir "$work/ld"
cd "$work/ld"
mkdir frag
cp "$work/first/ramtext.ld" frag/
cat >fw.ld <<'LD'
MEMORY { FLASH (rx) : ORIGIN = 0, LENGTH = 64K  RAM (rwx) : ORIGIN = 0x20000000, LENGTH = 16K }
SECTIONS { .ramtext : { INCLUDE ramtext.ld } > RAM AT> FLASH  .text : { *(.text*) } > FLASH }
LD
echo 'void _start(void) { for (;;); }' >a.c
arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -c a.c
check "ld -L before -T finds the fragment" arm-none-eabi-ld -Lfrag -T fw.ld a.o -o a.elf
if arm-none-eabi-ld -T fw.ld -Lfrag a.o -o b.elf 2>ld.err; then
	fail "ld -T before -L: README says it cannot find the fragment, but it linked"
else
	check "ld -T before -L fails as README says" grep -q 'cannot open linker script file ramtext.ld' ld.err
fi
finish
