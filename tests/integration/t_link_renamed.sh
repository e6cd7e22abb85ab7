#!/usr/bin/env bash
# t_link_renamed.sh: the pico-sdk link launcher (make/ramplace-link-renamed.sh) on the link
# commands build systems write, with a linker script that, like pico-sdk's, copies
# *(.time_critical*) to RAM: an object and a member of a project library given by relative path,
# by -L/-l, or inside a response file with newlines and a path with a space; link maps asked for
# as -Wl,-Map=F,--cref and -Xlinker -Map -Xlinker F (rewritten to name the originals); and the
# renames that cannot be done (a section, member or object that is not there), which must fail
# the link with the rename's line rather than leave a function in flash silently.
# Needs: $RAMPLACE_SRC; arm-none-eabi-gcc, perl.
. "$(dirname "$0")/lib.sh"
launcher=$RAMPLACE_SRC/make/ramplace-link-renamed.sh
cd "$work"
mkdir -p "lib dir"
cat >ram.ld <<'EOF'
MEMORY { FLASH (rx) : ORIGIN = 0, LENGTH = 64K
         RAM (rwx) : ORIGIN = 0x20000000, LENGTH = 16K }
SECTIONS {
  .text : { *(.text*) } > FLASH
  .data : { *(.time_critical*) *(.data*) } > RAM AT> FLASH
}
EOF
printf 'int libhot(int x) { return x * 3; }\nint libcold(int x) { return x - 1; }\n' >m.c
printf 'int libhot(int);\nint hot(int x) { return libhot(x) + 1; }\nvoid _start(void) { for (;;) hot(2); }\n' >a.c
cc=(arm-none-eabi-gcc -mcpu=cortex-m0plus -mthumb -O2 -ffunction-sections)
"${cc[@]}" -c a.c -o a.o
"${cc[@]}" -c m.c -o m.o
arm-none-eabi-ar rcs libm2.a m.o
cp libm2.a "lib dir/libm3.a"
cat >renames.txt <<'EOF'
# FILE MEMBER SECTION NEWNAME
a.o - .text.hot .time_critical.ramplace.text.hot
*libm2.a m.o .text.libhot .time_critical.ramplace.text.libhot
EOF
link=("${cc[@]}" -nostdlib -T ram.ld)
in_ram() { # ELF NAME...: every NAME at 0x2000xxxx
	local elf=$1 f
	shift
	for f in "$@"; do case "$(nm_addr "$elf" "$f")" in 2000*) ;; *) return 1 ;; esac; done
}

bash "$launcher" --renames renames.txt -- "${link[@]}" a.o -o fw1.elf libm2.a -Wl,-Map=fw1.map,--cref
check "a relative project library's member and an object are renamed into RAM" in_ram fw1.elf hot libhot
in_flash() { case "$(nm_addr "$1" "$2")" in 2000* | "") return 1 ;; esac; }
check "what was not renamed stays in flash" in_flash fw1.elf _start
check "-Wl,-Map=F,--cref: the map names the originals, not the launcher's copies" \
	sh -c "! grep -q 'ramplace-link\\.' fw1.map && grep -q 'libm2\\.a(m\\.o)' fw1.map && grep -q '^ \\.time_critical\\.ramplace\\.text\\.hot' fw1.map"

sed 's/libm2/libm3/' renames.txt >renames3.txt
bash "$launcher" --renames renames3.txt -- "${link[@]}" a.o -L "lib dir" -lm3 -o fw2.elf -Xlinker -Map -Xlinker fw2.map
fw2_ok() { in_ram fw2.elf hot libhot && ! grep -q 'ramplace-link\.' fw2.map; }
check "-L DIR -lNAME (a directory with a space) finds the library; -Xlinker -Map -Xlinker F is rewritten" fw2_ok

printf '"a.o"\n"lib dir/libm3.a"\n' >objs.rsp
bash "$launcher" --renames renames3.txt -- "${link[@]}" @objs.rsp -o fw3.elf
check "a response file with newlines and a quoted path with a space" in_ram fw3.elf hot libhot

refuse() { # NAME RENAMES-LINE WHAT: the launcher exits non-zero naming the line and WHAT, no ELF
	local name=$1
	printf '%s\n' "$2" >bad.txt
	rm -f bad.elf
	local st=0
	bash "$launcher" --renames bad.txt -- "${link[@]}" a.o -o bad.elf libm2.a >bad.out 2>&1 || st=$?
	check "$name" sh -c "[ $st -ne 0 ] && grep -q '$3' bad.out && [ ! -e bad.elf ]"
}
refuse "a section the object does not have fails the link" "a.o - .text.nosuch .time_critical.x" "has no section .text.nosuch"
refuse "a member the archive does not have fails the link" "*libm2.a nosuch.o .text .time_critical.x" "has no member nosuch.o"
refuse "an object the link does not have fails the link" "zz.o - .text.hot .time_critical.x" "bad.txt:1: no object or archive"
refuse "a wildcard section is refused" "a.o - .text.* .time_critical.x" "a section name with a wildcard"
finish
