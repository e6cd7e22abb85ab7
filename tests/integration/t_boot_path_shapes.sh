#!/usr/bin/env bash
# t_boot_path_shapes.sh: the reset path on the startup shapes users write (issue 37, item 1).
# The bundled Cortex-M3 firmware gets a generated C Reset_Handler in plain .text, as README's
# "Using it in your firmware" shows it: volatile copy and clear loops for .ramtext, .data and
# .bss in a given order (the .ramtext copy first, between or last), a dsb/isb after the copy,
# then `exit(main())` or `if (main() != 0) abort(); exit(0);`; built at a given -O level with
# -ffunction-sections. At -Os GCC chains the loops' tests and lays the calls before the loop
# bodies, each of which branches back to its test, right after `bl exit`: a call that falls
# through into the first loop's body when exit is taken to return. Until exit was known not to
# return, `place` kept main and its whole closure in flash there (13-37 % of the optimum on a
# Lua firmware). For each shape: `place` on the flash-only build (an empty .ramtext, whose
# bounds coincide with .data's) with a profile of main and three hot functions must move all
# four and keep nothing the reset handler calls after the copy in flash; the relink must pass
# `check` (which reads the relinked reset path the same way) and print what the flash-only
# build printed.
# SHAPES="ORDER:OPT:END ..." picks the cells (default: four, the -Os regression among them);
# t_boot_path_shapes_full.sh runs every order x level x ending.
# Needs: $RAMPLACE, $RAMPLACE_SRC; arm-none-eabi-gcc (newlib), qemu-system-arm.
. "$(dirname "$0")/lib.sh"
shapes=${SHAPES:-"rdb:-Os:exit rdb:-O2:exit drb:-Os:check dbr:-O3:exit"}
tree=$work/tree
mkdir -p "$tree/examples"
cp -r "$RAMPLACE_SRC/examples/qemu-cortex-m3" "$tree/examples/"
cp -r "$RAMPLACE_SRC/make" "$tree/"
ex=$tree/examples/qemu-cortex-m3
cp "$ex/startup.c" "$work/startup.orig.c"

# writes $ex/startup.c: the example's own, its Reset_Handler replaced by the shape's
gen_startup() { # ORDER END
	python3 - "$work/startup.orig.c" "$ex/startup.c" "$1" "$2" <<'PY'
import sys
src, dst, order, end = sys.argv[1:5]
s = open(src).read()
old = s[s.index("BOOT_TEXT void Reset_Handler(void)"):s.index("/* Cortex-M3 vector table")]
loops = {
    "r": "\tfor (volatile uint32_t *d = __ramtext_start, *s = __ramtext_load; d < __ramtext_end;)\n"
         "\t\t*d++ = *s++;\n\t__asm__ volatile(\"dsb\\n\\tisb\" ::: \"memory\");\n",
    "d": "\tfor (volatile uint32_t *d = __data_start, *s = __data_load; d < __data_end;)\n\t\t*d++ = *s++;\n",
    "b": "\tfor (volatile uint32_t *d = __bss_start__; d < __bss_end__;)\n\t\t*d++ = 0;\n",
}
tail = {"exit": "\t__libc_init_array();\n\texit(main());\n",
        "check": "\t__libc_init_array();\n\tif (main() != 0)\n\t\tabort();\n\texit(0);\n"}[end]
new = "void Reset_Handler(void)\n{\n" + "".join(loops[c] for c in order) + tail + "}\n\n"
s = s.replace(old, new)
# the generated handler replaces the helpers' only callers
s = s.replace("BOOT_TEXT static void copy_words", "__attribute__((unused)) BOOT_TEXT static void copy_words")
s = s.replace("BOOT_TEXT static void zero_words", "__attribute__((unused)) BOOT_TEXT static void zero_words")
open(dst, "w").write(s)
PY
}

run() { # ELF OUT: the firmware's output, status 0 required
	timeout 60 qemu-system-arm -M mps2-an385 -nographic -monitor none -serial none \
		-semihosting-config enable=on,target=native -kernel "$1" </dev/null >"$2" 2>/dev/null
}

cells=0
for shape in $shapes; do
	IFS=: read -r order opt end <<<"$shape"
	cell="$order $opt $end"
	d=$work/$order$opt$end
	mkdir -p "$d"
	gen_startup "$order" "$end"
	flags="$opt -ffunction-sections"
	if ! make -s -C "$ex" BUILD="$d/flash" ITERATIONS=3 EXTRA_CFLAGS="$flags" RAMPLACE="$RAMPLACE" >"$d/build.log" 2>&1; then
		fail "$cell: the flash-only build"; cat "$d/build.log"; continue
	fi
	run "$d/flash/fw.elf" "$d/flash.out" || { fail "$cell: the flash-only firmware"; continue; }
	want=""   # the hot functions the compiler kept (inlining may take one)
	for fn in main vm_run crc32_update compare_records; do
		a=$(nm_addr "$d/flash/fw.elf" "$fn")
		[ -n "$a" ] && printf '0x%s 100\n' "$a" && want="$want$fn "
	done >"$d/pcs.txt"
	want=$(tr ' ' '\n' <<<"$want" | sed '/^$/d' | sort | tr '\n' ' ')
	"$RAMPLACE" import --quiet "$d/p.db" "$d/flash/fw.elf" "$d/pcs.txt"
	if ! "$RAMPLACE" place --budget 4K --min-share 0 --map "$d/flash/fw.map" -o "$d/ramtext.ld" "$d/p.db" \
		"$d/flash/fw.elf" >"$d/place.out" 2>&1; then
		fail "$cell: place"; cat "$d/place.out"; continue
	fi
	moved=$(awk '$1 == "func" { print $2 }' "$d/ramtext.ld.plan" | sort | tr '\n' ' ')
	if [ "$moved" = "$want" ] && [[ $want == *"main "* ]] &&
	   grep -q '^reset path: .* copies the code at 0x[0-9a-f]*; 0 function(s) called before that stay in flash' "$d/place.out"; then
		pass "$cell: place frees main and the hot functions (the reset path: $(grep -o 'copies the code at 0x[0-9a-f]*' "$d/place.out"))"
	else
		fail "$cell: place moved '$moved' of '$want'"; grep -E 'reset path|kept in flash' "$d/place.out" | head -8
		continue
	fi
	if ! make -s -C "$ex" BUILD="$d/ram" ITERATIONS=3 EXTRA_CFLAGS="$flags" RAMPLACE="$RAMPLACE" \
		RAMTEXT_LD="$d/ramtext.ld" >"$d/relink.log" 2>&1; then
		fail "$cell: the relink"; cat "$d/relink.log"; continue
	fi
	if "$RAMPLACE" check --plan "$d/ramtext.ld.plan" "$d/ram/fw.elf" >"$d/check.out" 2>&1 &&
	   run "$d/ram/fw.elf" "$d/ram.out" && cmp -s "$d/flash.out" "$d/ram.out"; then
		pass "$cell: check passes and the relinked firmware prints the same"
	else
		fail "$cell: check or the relinked run"; cat "$d/check.out"; diff "$d/flash.out" "$d/ram.out" | head -5
	fi
	cells=$((cells + 1))
done
echo "startup shapes: $cells of $(wc -w <<<"$shapes") went through place, relink, check and run"
finish
